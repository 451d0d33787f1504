/**
 * A person approves only what they read. Real Chromium against a real
 * bridge, with the panel, with the elements' own dialog and with WebMCP:
 *
 * - bait and switch: an agent withdraws a harmless prompt and at once asks for another at the
 *   same place; a click meant for the first, landing just after the switch, approves nothing,
 *   and the new prompt says that it replaced one (elements/prompt.ts `ApproveGate`);
 * - what the person reads cannot lie: a right-to-left override and other hidden characters show
 *   as visible escapes in the prompt and the activity log, and a very long input is cut, saying
 *   so, with Approve and Decline still on screen.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ElementHandle, Page } from "puppeteer-core";
import { READ_DELAY_MS } from "../../elements/prompt.ts";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import {
  Agent,
  type AgentAnswer,
  clickPanelButton,
  ELEMENTS,
  launchBrowser,
  NO_CHROMIUM,
  panelStatus,
  panelText,
  panelToken,
  pointAtApprove,
} from "../browser/harness.ts";

/** How long a wait for the page may take before it fails: generous, for a loaded machine. */
const WAIT_MS = 30_000;

const ACTIONS = `<p id="paid">none</p>
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

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
${ELEMENTS}</head><body><h1>${title}</h1>${body}</body></html>`;

const SITE = {
  "panel.html": page("Panel", `<aim-panel></aim-panel>${ACTIONS}`),
  "static.html": page("Static", ACTIONS),
};

/**
 * Whether the tab is connected and the manifest lists what it registers: `disconnect` is there
 * before the tab is, so a manifest with actions alone does not say that `pay` can run yet.
 */
// deno-lint-ignore no-explicit-any
const tabRegistered = (m: any) =>
  m.browser_connected && m.actions.some((a: { id: string }) => a.id === "note");

const BOB = { to: "bob", amount: "5" };
const MALLORY = { to: "mallory", amount: "9000" };

/** Where a prompt is: the panel's, or the elements' own dialog. */
type Where = "panel" | "dialog";

/** The prompt's root, in the page: the panel's alertdialog or the open dialog. */
function promptRoot(where: Where): string {
  return where === "panel"
    ? `document.querySelector("aim-panel")?.shadowRoot?.querySelector("[role=alertdialog]")`
    : `document.querySelector("aim-confirm")?.shadowRoot?.querySelector("dialog[open]")`;
}

/** Waits until the prompt shows `text`; returns its Approve button. */
async function promptShowing(
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
function promptState(tab: Page, where: Where) {
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
function connectedToken(tab: Page): Promise<string> {
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
function invokeWithdrawable(bridge: TestBridge, token: string, input: unknown) {
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
async function baitAndSwitch(
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

async function assertSwitchRefused(tab: Page, where: Where, answer: Promise<AgentAnswer>) {
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

Deno.test({
  name: "a click meant for a withdrawn prompt never approves the one that replaced it",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: SITE, confirmTimeoutMs: 30_000 });

    for (const where of ["panel", "dialog"] as const) {
      await t.step(
        `in the ${where}, a click landing just after the switch approves nothing, the new ` +
          "prompt says it replaced one, and the agent gets 403 declined",
        async () => {
          await using context = await browser.context();
          const tab = await context.newPage();
          await tab.goto(`${bridge.origin}/${where === "panel" ? "panel" : "static"}`);
          const token = where === "panel" ? await panelToken(tab) : await connectedToken(tab);
          const agent = new Agent(bridge, token);
          await agent.manifestWhen(
            `/${where === "panel" ? "panel" : "static"}.json`,
            (m) => m.actions.some((a: { id: string }) => a.id === "pay"),
          );
          const { answer } = await baitAndSwitch(
            tab,
            where,
            (input) => invokeWithdrawable(bridge, token, input),
          );
          await assertSwitchRefused(tab, where, answer);
        },
      );
    }

    for (const where of ["panel", "dialog"] as const) {
      await t.step(
        `in the ${where}, a double click on Approve approves one request, not the next one ` +
          "that comes at once",
        async () => {
          await using context = await browser.context();
          const tab = await context.newPage();
          const path = where === "panel" ? "panel" : "static";
          await tab.goto(`${bridge.origin}/${path}`);
          const agent = new Agent(
            bridge,
            where === "panel" ? await panelToken(tab) : await connectedToken(tab),
          );
          await agent.manifestWhen(`/${path}.json`, tabRegistered);
          const first = agent.invoke("pay", BOB);
          const approve = await promptShowing(tab, where, '"bob"');
          await pointAtApprove(tab, approve);
          await tab.mouse.down();
          await tab.mouse.up();
          assert.equal((await first).status, 200);
          // The agent asks again as soon as it has its answer; the second click lands on that.
          const second = agent.invoke("pay", MALLORY);
          await promptShowing(tab, where, '"mallory"');
          await tab.mouse.down();
          await tab.mouse.up();
          const after = await promptState(tab, where);
          assert.equal(after.paid, JSON.stringify(BOB), "the second click approved the next one");
          assert.equal(after.disabled, "true");
          assert.doesNotMatch(after.text, /replaced/, "an answered prompt was not replaced");
          if (where === "panel") await clickPanelButton(tab, "Decline");
          else await tab.click("aim-confirm >>> button.decline");
          assert.equal((await second).status, 403);
        },
      );
    }

    await t.step(
      "on a touch screen, after a switch, a tap on Approve does nothing; a tap on the request " +
        "makes it work once read",
      async () => {
        await using context = await browser.context();
        const tab = await context.newPage();
        await tab.setViewport({ width: 800, height: 600, hasTouch: true, isMobile: true });
        await tab.goto(`${bridge.origin}/static`);
        const token = await connectedToken(tab);
        await new Agent(bridge, token).manifestWhen("/static.json", tabRegistered);
        const bait = invokeWithdrawable(bridge, token, BOB);
        const first = await promptShowing(tab, "dialog", '"bob"');
        await tab.waitForFunction(
          (b: HTMLButtonElement) => b.getAttribute("aria-disabled") === "false",
          { timeout: WAIT_MS },
          first,
        );
        bait.withdraw();
        const sw = invokeWithdrawable(bridge, token, MALLORY);
        const approve = await promptShowing(tab, "dialog", '"mallory"');
        // A tap on Approve, at once and again once the read delay is over (a fixed wait: what is
        // tested is that nothing happens meanwhile), approves nothing and does not arm it.
        const at = (await approve.boundingBox())!;
        await tab.touchscreen.tap(at.x + at.width / 2, at.y + at.height / 2);
        await new Promise((resolve) => setTimeout(resolve, READ_DELAY_MS + 300));
        await tab.touchscreen.tap(at.x + at.width / 2, at.y + at.height / 2);
        const after = await promptState(tab, "dialog");
        assert.equal(after.paid, "none");
        assert.equal(after.disabled, "true");
        // The person taps the request they read, then Approve once it works.
        const input = (await tab.$("aim-confirm >>> pre"))!;
        const box = (await input.boundingBox())!;
        await tab.touchscreen.tap(box.x + 4, box.y + 4);
        await tab.waitForFunction(
          (b: HTMLButtonElement) => b.getAttribute("aria-disabled") === "false",
          { timeout: WAIT_MS },
          approve,
        );
        await approve.tap();
        const yes = await sw.answer;
        assert.equal(yes.status, 200, JSON.stringify(yes.body));
        assert.equal((await bait.answer).status, 0, "the first request was withdrawn");
      },
    );

    await t.step(
      "after a switch, the keyboard comes onto Approve afresh with Tab, and Enter approves once " +
        "the request was read",
      async () => {
        await using context = await browser.context();
        const tab = await context.newPage();
        await tab.goto(`${bridge.origin}/panel`);
        const token = await panelToken(tab);
        await new Agent(bridge, token).manifestWhen("/panel.json", tabRegistered);
        const bait = invokeWithdrawable(bridge, token, BOB);
        await promptShowing(tab, "panel", '"bob"');
        bait.withdraw();
        const sw = invokeWithdrawable(bridge, token, MALLORY);
        const approve = await promptShowing(tab, "panel", '"mallory"');
        // The new prompt has the focus: Enter there approves nothing.
        await tab.keyboard.press("Enter");
        assert.equal((await promptState(tab, "panel")).paid, "none");
        await tab.keyboard.press("Tab");
        await tab.waitForFunction(
          (b: HTMLButtonElement) => b.getAttribute("aria-disabled") === "false",
          { timeout: WAIT_MS },
          approve,
        );
        await tab.keyboard.press("Enter");
        const yes = await sw.answer;
        assert.equal(yes.status, 200, JSON.stringify(yes.body));
      },
    );

    await t.step(
      "the keyboard obeys the read delay: Enter on Approve at once does nothing, later it approves",
      async () => {
        await using context = await browser.context();
        const tab = await context.newPage();
        await tab.goto(`${bridge.origin}/panel`);
        const agent = new Agent(bridge, await panelToken(tab));
        await agent.manifestWhen("/panel.json", tabRegistered);
        const answer = agent.invoke("pay", BOB);
        const approve = await promptShowing(tab, "panel", '"bob"');
        await tab.keyboard.press("Tab");
        assert.equal(
          await tab.evaluate(() =>
            document.querySelector("aim-panel")!.shadowRoot!.activeElement?.textContent
          ),
          "Approve",
        );
        await tab.keyboard.press("Enter");
        const early = await promptState(tab, "panel");
        assert.equal(early.paid, "none", "Enter approved before the read delay");
        assert.match(early.text, /"bob"/);
        await tab.waitForFunction(
          (b: HTMLButtonElement) => b.getAttribute("aria-disabled") !== "true",
          { timeout: WAIT_MS },
          approve,
        );
        await tab.keyboard.press("Enter");
        const yes = await answer;
        assert.equal(yes.status, 200, JSON.stringify(yes.body));
      },
    );
  },
});

Deno.test({
  name: "what a person reads of an agent's input cannot lie, and a long input keeps the buttons " +
    "in view",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: SITE, confirmTimeoutMs: 30_000 });
    const SPOOF = { to: "\u202Eecila\u202C bob", amount: "5\u200B0" };

    await t.step(
      "the panel shows a right-to-left override and a zero-width space as escapes, in the " +
        "prompt and in the activity log",
      async () => {
        await using context = await browser.context();
        const tab = await context.newPage();
        await tab.goto(`${bridge.origin}/panel`);
        const agent = new Agent(bridge, await panelToken(tab));
        await agent.manifestWhen("/panel.json", tabRegistered);
        const answer = agent.invoke("pay", SPOOF);
        await promptShowing(tab, "panel", "ecila");
        const text = await panelText(tab);
        assert.match(text, /"to": "\\u202Eecila\\u202C bob"/);
        assert.match(text, /"amount": "5\\u200B0"/);
        assert.doesNotMatch(text, /[\u202E\u202C\u200B]/, "a hidden character is shown as itself");
        await clickPanelButton(tab, "Decline");
        assert.equal((await answer).status, 403);

        // An action id is the agent's input too: the log shows what it sent, escaped.
        assert.equal((await agent.invoke("\u202Eyap\u2066", "x")).status, 404);
        await tab.waitForFunction(
          () =>
            [...document.querySelector("aim-panel")!.shadowRoot!.querySelectorAll("li code")]
              .some((c) => c.textContent?.includes("yap")),
          { timeout: WAIT_MS },
        );
        const log = await tab.evaluate(() =>
          [...document.querySelector("aim-panel")!.shadowRoot!.querySelectorAll("li code")]
            .map((c) => c.textContent)
        );
        assert.ok(log.includes("\\u202Eyap\\u2066"), JSON.stringify(log));
      },
    );

    await t.step("the dialog shows them as escapes too", async () => {
      await using context = await browser.context();
      const tab = await context.newPage();
      await tab.goto(`${bridge.origin}/static`);
      const agent = new Agent(bridge, await connectedToken(tab));
      await agent.manifestWhen("/static.json", tabRegistered);
      const answer = agent.invoke("pay", SPOOF);
      await promptShowing(tab, "dialog", "ecila");
      const { text } = await promptState(tab, "dialog");
      assert.match(text, /"to": "\\u202Eecila\\u202C bob"/);
      assert.match(text, /"amount": "5\\u200B0"/);
      assert.doesNotMatch(text, /[\u202E\u202C\u200B]/);
      await tab.click("aim-confirm >>> button.decline");
      assert.equal((await answer).status, 403);
    });

    for (const where of ["panel", "dialog"] as const) {
      await t.step(
        `in the ${where}, a very long input is cut, saying how much is left out, and Approve ` +
          "and Decline stay on screen without scrolling",
        async () => {
          await using context = await browser.context();
          const tab = await context.newPage();
          await tab.setViewport({ width: 800, height: 600 });
          const path = where === "panel" ? "panel" : "static";
          await tab.goto(`${bridge.origin}/${path}`);
          const agent = new Agent(
            bridge,
            where === "panel" ? await panelToken(tab) : await connectedToken(tab),
          );
          await agent.manifestWhen(`/${path}.json`, tabRegistered);
          const long = { to: "bob " + "x".repeat(50_000), amount: "5" };
          const answer = agent.invoke("pay", long);
          await promptShowing(tab, where, '"bob x');
          const seen = await tab.evaluate((root: string) => {
            const prompt = (0, eval)(root) as Element;
            const inView = (b: Element) => {
              const r = b.getBoundingClientRect();
              return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 &&
                r.right <= innerWidth;
            };
            return {
              buttons: [...prompt.querySelectorAll("button")].map((b) =>
                `${b.textContent?.trim()}: ${inView(b)}`
              ),
              text: prompt.textContent ?? "",
              scrolled: scrollY,
            };
          }, promptRoot(where));
          assert.deepEqual(seen.buttons.sort(), ["Approve: true", "Decline: true"]);
          assert.match(seen.text, /… \(\d+ more characters not shown\)/);
          const more = Number(/\((\d+) more/.exec(seen.text)![1]);
          assert.ok(more > 45_000 && more < 50_000, `${more} more characters`);
          if (where === "panel") await clickPanelButton(tab, "Decline");
          else await tab.click("aim-confirm >>> button.decline");
          assert.equal((await answer).status, 403);
        },
      );
    }
  },
});

// A page the WebMCP test opens: the actions, and the panel.
const WEBMCP = page("WebMCP", `<aim-panel></aim-panel>${ACTIONS}`);

Deno.test({
  name: "a WebMCP agent's bait and switch approves nothing either",
  ignore: NO_CHROMIUM,
  async fn() {
    await using browser = await launchBrowser({ webmcp: true });
    await using bridge = await startBridge({ site: { "webmcp.html": WEBMCP } });
    await using context = await browser.context();
    const tab = await context.newPage();
    await tab.goto(`${bridge.origin}/webmcp`);
    await panelStatus(tab, "connected");
    await tab.waitForFunction(
      async () => {
        const context = (document as unknown as {
          modelContext: { getTools(): Promise<{ name: string }[]> };
        }).modelContext;
        return (await context.getTools()).some((tool) => tool.name === "pay");
      },
      { timeout: WAIT_MS },
    );
    let runs = 0;
    const { answer } = await baitAndSwitch(tab, "panel", (input) => {
      const name = `run${++runs}`;
      const started = tab.evaluate(
        async (name: string, input: unknown) => {
          type Context = {
            getTools(): Promise<{ name: string }[]>;
            executeTool(tool: unknown, input: unknown, o: { signal: AbortSignal }): Promise<string>;
          };
          const context = (document as unknown as { modelContext: Context }).modelContext;
          const tool = (await context.getTools()).find((t) => t.name === "pay");
          const cancel = new AbortController();
          const w = window as unknown as Record<string, unknown>;
          w[`${name}cancel`] = cancel;
          w[name] = context.executeTool(tool, { ...(input as object) }, { signal: cancel.signal })
            .then((text) => JSON.parse(text), (error) => ({ rejected: String(error?.name) }));
        },
        name,
        input,
      );
      return {
        withdraw: () =>
          tab.evaluate((name: string) => {
            ((window as unknown as Record<string, AbortController>)[`${name}cancel`]!).abort();
          }, name),
        answer: started.then(async () => {
          const body = await tab.evaluate(
            (name: string) => (window as unknown as Record<string, Promise<unknown>>)[name],
            name,
          );
          // deno-lint-ignore no-explicit-any
          const b = body as any;
          return { status: b.ok ? 200 : b.error === "declined" ? 403 : 0, body: b };
        }),
      };
    });
    await assertSwitchRefused(tab, "panel", answer);
  },
});
