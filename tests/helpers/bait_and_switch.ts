/**
 * Test helper of the prompt tests (tests/security/prompt*_test.ts), in real Chromium: a site
 * with a consequential action, where its prompt shows (the panel or the elements' own dialog),
 * an agent's invocation it can withdraw, and the bait and switch: a prompt withdrawn and at once
 * replaced at the same place, and the check that a click meant for the first approves nothing.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ElementHandle, Page } from "puppeteer-core";
import { READ_DELAY_MS } from "../../elements/prompt.ts";
import type { TestBridge } from "./bridge.ts";
import {
  type AgentAnswer,
  clickPanelButton,
  ELEMENTS,
  pointAtApprove,
} from "../browser/harness.ts";

/** How long a wait for the page may take before it fails: generous, for a loaded machine. */
export const WAIT_MS = 30_000;

export const ACTIONS = `<p id="paid">none</p>
<aim-action name="pay" description="Send money now" consequential
  input-example='{"to": "bob", "amount": "5"}'>
  <aim-field name="to" required></aim-field><aim-field name="amount" required></aim-field>
</aim-action>
<aim-action name="note" description="Keep a note" input-example="hello"></aim-action>
<script type="module">
  document.querySelector("aim-action[name=pay]").handler = (input) => {
    document.getElementById("paid").textContent = JSON.stringify(input);
    return { paid: input };
  };
  document.querySelector("aim-action[name=note]").handler = (text) => ({ noted: text });
</script>`;

export const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
${ELEMENTS}</head><body><h1>${title}</h1>${body}</body></html>`;

export const SITE = {
  "panel.html": page("Panel", `<aim-panel></aim-panel>${ACTIONS}`),
  "static.html": page("Static", ACTIONS),
};

/**
 * Whether the tab is connected and the manifest lists what it registers: `disconnect` is there
 * before the tab is, so a manifest with actions alone does not say that `pay` can run yet.
 */
// deno-lint-ignore no-explicit-any
export const tabRegistered = (m: any) =>
  m.browser_connected && m.actions.some((a: { id: string }) => a.id === "note");

export const BOB = { to: "bob", amount: "5" };
export const MALLORY = { to: "mallory", amount: "9000" };

/** Where a prompt is: the panel's, or the elements' own dialog. */
export type Where = "panel" | "dialog";

/** The prompt's root, in the page: the panel's alertdialog or the open dialog. */
export function promptRoot(where: Where): string {
  return where === "panel"
    ? `document.querySelector("aim-panel")?.shadowRoot?.querySelector("[role=alertdialog]")`
    : `document.querySelector("aim-confirm")?.shadowRoot?.querySelector("dialog[open]")`;
}

/** Waits until the prompt shows `text`; returns its Approve button. */
export async function promptShowing(
  tab: Page,
  where: Where,
  text: string,
): Promise<ElementHandle<HTMLButtonElement>> {
  const handle = await tab.waitForFunction(
    (root: string, text: string) => {
      const prompt = (0, eval)(root) as Element | null;
      return prompt?.textContent?.includes(text) && prompt.querySelector("button.approve");
    },
    { timeout: WAIT_MS, polling: "raf" },
    promptRoot(where),
    text,
  );
  return handle as unknown as ElementHandle<HTMLButtonElement>;
}

/** The prompt's text (spaces squeezed), its Approve's state and the page's `#paid`. */
export function promptState(tab: Page, where: Where) {
  return tab.evaluate((root: string) => {
    const prompt = (0, eval)(root) as Element | null;
    return {
      text: (prompt?.textContent ?? "").replace(/\s+/g, " "),
      disabled: prompt?.querySelector("button.approve")?.getAttribute("aria-disabled"),
      paid: document.getElementById("paid")!.textContent,
    };
  }, promptRoot(where));
}

/** The session token once the page's client is connected. */
export function connectedToken(tab: Page): Promise<string> {
  return tab.evaluate(async () => {
    const url = "/__aim/elements.js";
    const { client } = await import(url);
    while (client.status !== "connected") {
      await new Promise((resolve) => client.addEventListener("change", resolve, { once: true }));
    }
    return client.token as string;
  });
}

/** An invocation the agent withdraws by hanging up, as the agent did. */
export function invokeWithdrawable(bridge: TestBridge, token: string, input: unknown) {
  const hangUp = new AbortController();
  const answer = bridge.fetch("/__aim/invoke", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ actionId: "pay", input }),
    signal: hangUp.signal,
  }).then(
    async (res): Promise<AgentAnswer> => ({ status: res.status, body: await res.json() }),
    (): AgentAnswer => ({ status: 0, body: "hung up" }),
  );
  return { withdraw: () => hangUp.abort(), answer };
}

/**
 * The bait and switch: a harmless prompt, read, the pointer on its Approve; the agent
 * withdraws it and at once asks for another; the person's click lands at once, where it was.
 * Returns the agent's answer to the second request, still pending.
 */
export async function baitAndSwitch(
  tab: Page,
  where: Where,
  ask: (input: unknown) => { withdraw(): unknown; answer: Promise<AgentAnswer> },
): Promise<{ answer: Promise<AgentAnswer> }> {
  const bait = ask(BOB);
  const approve = await promptShowing(tab, where, '"bob"');
  // The person reads it and points at Approve, which then works.
  await pointAtApprove(tab, approve);
  await bait.withdraw();
  const sw = ask(MALLORY);
  await promptShowing(tab, where, '"mallory"');
  // The click meant for the first prompt: where the pointer was, without moving.
  await tab.mouse.down();
  await tab.mouse.up();
  return { answer: sw.answer };
}

export async function assertSwitchRefused(tab: Page, where: Where, answer: Promise<AgentAnswer>) {
  const after = await promptState(tab, where);
  assert.equal(after.paid, "none", "the click approved the switched request");
  assert.match(after.text, /"mallory"/, "the new prompt is still there");
  assert.equal(after.disabled, "true");
  assert.match(after.text, /This request replaced an earlier one/);
  // However long the person waits, Approve needs the pointer to move onto the new prompt (a
  // fixed wait: what is tested is that nothing happens meanwhile). A press on Approve that
  // comes without a movement is refused then too: see the touch screen's step.
  await new Promise((resolve) => setTimeout(resolve, READ_DELAY_MS + 300));
  const later = await promptState(tab, where);
  assert.equal(later.paid, "none");
  assert.equal(later.disabled, "true", "armed without the pointer moving onto the new prompt");
  // The person reads it and declines: the agent never gets 200 from the switch.
  if (where === "panel") await clickPanelButton(tab, "Decline");
  else await tab.click("aim-confirm >>> button.decline");
  const no = await answer;
  assert.equal(no.status, 403, JSON.stringify(no.body));
  assert.equal(no.body.error, "declined");
  assert.equal((await promptState(tab, where)).paid, "none");
}
