/**
 * A consequential action runs only after a person confirms it in
 * the page. Real Chromium against a real bridge: without a panel the elements ask in their own
 * modal dialog; with a panel the panel asks, whatever its `confirm` attribute; only
 * `no-confirm` on the action skips the person.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { ELEMENTS_CHUNKS } from "../../bridge/http/assets.ts";
import { startBridge } from "../helpers/bridge.ts";
import {
  Agent,
  approveInDialog,
  clickPanelButton,
  ELEMENTS,
  launchBrowser,
  NO_CHROMIUM,
  OUTPUT_DIR,
  panelText,
  panelToken,
  recordChannel,
} from "../browser/harness.ts";

const ACTIONS = `<p id="paid">none</p><p id="refunded">none</p>
<aim-action name="pay" description="Pay one bill now" input-example="bill-1" consequential>
</aim-action>
<aim-action name="refund" description="Refund a bill" input-example="bill-1" consequential no-confirm>
</aim-action>
<aim-action name="void_bill" description="Void a bill" input-example="bill-1" consequential
  no-confirm="false"></aim-action>
<script type="module">
  const record = (id) => (bill) => {
    document.getElementById(id).textContent = bill;
    return { [id]: bill };
  };
  document.querySelector("aim-action[name=pay]").handler = record("paid");
  document.querySelector("aim-action[name=refund]").handler = record("refunded");
  document.querySelector("aim-action[name=void_bill]").handler = record("paid");
</script>`;

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
${ELEMENTS}</head><body><h1>${title}</h1>${body}</body></html>`;

const SITE = {
  // README's static-site snippet: no panel at all.
  "static.html": page("Static", ACTIONS),
  // A panel without confirm="consequential": it asks all the same.
  "panel.html": page("Panel", `<aim-panel></aim-panel>${ACTIONS}`),
};

/** The session token of a page without a panel, once its client is connected. */
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

/** What the modal shows once it is open: null while it is not. */
interface Shown {
  modal: boolean;
  label: string;
  description: string;
  input: string;
  inputWhiteSpace: string;
  focusedDialog: boolean;
}

function dialogShown(tab: Page): Promise<Shown> {
  return tab.waitForFunction(() => {
    const root = document.querySelector("aim-confirm")?.shadowRoot;
    const dialog = root?.querySelector("dialog");
    if (!root || !dialog?.open) return false;
    const byIds = (attr: string) =>
      (dialog.getAttribute(attr) ?? "").split(/\s+/).map((id) =>
        root.getElementById(id)?.textContent ?? ""
      );
    const pre = root.querySelector("pre")!;
    return {
      modal: dialog.matches(":modal"),
      label: byIds("aria-labelledby").join(" "),
      description: byIds("aria-describedby").join(" "),
      input: pre.textContent ?? "",
      inputWhiteSpace: getComputedStyle(pre).whiteSpace,
      focusedDialog: root.activeElement === dialog,
    };
  }, { timeout: 10_000 }).then((handle) => handle.jsonValue() as Promise<Shown>);
}

function dialogGone(tab: Page): Promise<unknown> {
  return tab.waitForFunction(() => !document.querySelector("aim-confirm"), { timeout: 10_000 });
}

function text(tab: Page, selector: string): Promise<string | null> {
  return tab.$eval(selector, (el) => el.textContent);
}

/** The invocation ids the tab said it asks the person about. */
async function awaited(tab: Page): Promise<string[]> {
  const sent = await tab.evaluate("aimSent") as string[];
  return sent.map((m) => JSON.parse(m)).filter((m) => m.type === "awaiting").map((m) => m.id);
}

/**
 * Whether the page's own actions are in its manifest: the bridge's `disconnect` is there as soon
 * as the session is, before its tab has registered anything.
 */
// deno-lint-ignore no-explicit-any
const pageRegistered = (m: any) =>
  m.actions.some((a: { id: string }) => !["disconnect", "login", "logout"].includes(a.id));

Deno.test({
  name: "consequential actions wait for the person in the page, by default",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    // A prompt nobody answers fails the step within this, not after five minutes.
    await using bridge = await startBridge({ site: SITE, confirmTimeoutMs: 20_000 });

    await t.step(
      "without a panel, a modal dialog shows the action and its exact input; Decline answers 403 declined and nothing runs",
      async () => {
        await using context = await browser.context();
        const tab = await context.newPage();
        await recordChannel(tab);
        await tab.goto(`${bridge.origin}/static`);
        const agent = new Agent(bridge, await connectedToken(tab));
        await agent.manifestWhen(
          "/static.json",
          (m) => m.actions.some((a: { id: string }) => a.id === "pay"),
        );

        const input = 'bill-7 <b>"as agreed"</b>\nsecond line';
        const answer = agent.invoke("pay", input);
        const shown = await dialogShown(tab);
        assert.equal(shown.modal, true, "opened with showModal()");
        assert.match(shown.label, /pay/);
        assert.match(shown.description, /Pay one bill now/);
        assert.equal(shown.input, JSON.stringify(input, null, 2));
        assert.match(shown.description, /"bill-7 <b>\\"as agreed\\"<\/b>\\nsecond line"/);
        assert.equal(shown.inputWhiteSpace, "pre-wrap");
        assert.equal(shown.focusedDialog, true, "the dialog has focus, not a button");
        // The tab told the bridge that a person is asked, so the bridge waits longer.
        assert.equal((await awaited(tab)).length, 1);
        await Deno.mkdir(OUTPUT_DIR, { recursive: true });
        await tab.screenshot({ path: new URL("confirm-dialog.png", OUTPUT_DIR).pathname });

        await tab.click("aim-confirm >>> button.decline");
        const no = await answer;
        assert.equal(no.status, 403, JSON.stringify(no.body));
        assert.equal(no.body.error, "declined");
        await dialogGone(tab);
        assert.equal(await text(tab, "#paid"), "none");
      },
    );

    await t.step("without a panel, Approve in the modal runs the action: 200", async () => {
      await using context = await browser.context();
      const tab = await context.newPage();
      await tab.goto(`${bridge.origin}/static`);
      const agent = new Agent(bridge, await connectedToken(tab));
      await agent.manifestWhen("/static.json", pageRegistered);

      const answer = agent.invoke("pay", "bill-8");
      assert.equal((await dialogShown(tab)).input, '"bill-8"');
      assert.equal(await text(tab, "#paid"), "none", "nothing runs before the person says yes");
      await approveInDialog(tab);
      const yes = await answer;
      assert.equal(yes.status, 200, JSON.stringify(yes.body));
      assert.deepEqual(yes.body.result, { paid: "bill-8" });
      assert.equal(await text(tab, "#paid"), "bill-8");
      await dialogGone(tab);
    });

    await t.step("a stray Enter approves nothing, and Escape declines", async () => {
      await using context = await browser.context();
      const tab = await context.newPage();
      await tab.goto(`${bridge.origin}/static`);
      const agent = new Agent(bridge, await connectedToken(tab));
      await agent.manifestWhen("/static.json", pageRegistered);

      const answer = agent.invoke("pay", "bill-9");
      await dialogShown(tab);
      await tab.keyboard.press("Enter");
      await tab.keyboard.press("Escape");
      const no = await answer;
      assert.equal(no.status, 403, JSON.stringify(no.body));
      assert.equal(no.body.error, "declined");
      assert.equal(await text(tab, "#paid"), "none");
    });

    await t.step("the modal's Approve is its primary button, Decline a secondary one", async () => {
      await using context = await browser.context();
      const tab = await context.newPage();
      await tab.goto(`${bridge.origin}/static`);
      const agent = new Agent(bridge, await connectedToken(tab));
      await agent.manifestWhen("/static.json", pageRegistered);

      const answer = agent.invoke("pay", "bill-10");
      await dialogShown(tab);
      const look = await tab.evaluate(() => {
        const root = document.querySelector("aim-confirm")!.shadowRoot!;
        const style = (selector: string) => {
          const s = getComputedStyle(root.querySelector(selector)!);
          return { background: s.backgroundColor, weight: Number(s.fontWeight) };
        };
        return {
          dialog: style("dialog"),
          approve: style("button.approve"),
          decline: style("button.decline"),
          labels: [...root.querySelectorAll("button")].map((b) => b.textContent),
        };
      });
      assert.deepEqual(look.labels.sort(), ["Approve", "Decline"]);
      // Primary: filled with a colour of its own and bold; secondary: the dialog's background.
      assert.notEqual(look.approve.background, look.dialog.background);
      assert.equal(look.decline.background, look.dialog.background);
      assert.ok(look.approve.weight > look.decline.weight, JSON.stringify(look));
      await tab.click("aim-confirm >>> button.decline");
      assert.equal((await answer).status, 403);
    });

    await t.step(
      "an invocation the bridge stops waiting for (its ACP run cancelled) closes the modal and never runs",
      async () => {
        await using context = await browser.context();
        const tab = await context.newPage();
        await tab.goto(`${bridge.origin}/static`);
        const token = await connectedToken(tab);
        await new Agent(bridge, token).manifestWhen("/static.json", pageRegistered);
        const auth = { Authorization: `Bearer ${token}` };
        const res = await bridge.fetch("/runs", {
          method: "POST",
          headers: { "Content-Type": "application/json", ...auth },
          body: JSON.stringify({
            agent_name: "static",
            mode: "async",
            input: [{
              role: "user",
              parts: [{
                content_type: "application/json",
                content: '{"actionId":"pay","input":"bill-11"}',
              }],
            }],
          }),
        });
        assert.equal(res.status, 202, await res.clone().text());
        const { run_id } = await res.json();
        await dialogShown(tab);
        const cancel = await bridge.fetch(`/runs/${run_id}/cancel`, {
          method: "POST",
          headers: auth,
        });
        assert.equal(cancel.status, 202);
        await cancel.body?.cancel();
        await dialogGone(tab);
        assert.equal(await text(tab, "#paid"), "none");
      },
    );

    await t.step(
      'only no-confirm on the action skips the person: no-confirm runs at once, no-confirm="false" asks',
      async () => {
        await using context = await browser.context();
        const tab = await context.newPage();
        await recordChannel(tab);
        await tab.goto(`${bridge.origin}/static`);
        const agent = new Agent(bridge, await connectedToken(tab));
        await agent.manifestWhen("/static.json", pageRegistered);

        const refunded = await agent.invoke("refund", "bill-12");
        assert.equal(refunded.status, 200, JSON.stringify(refunded.body));
        assert.equal(await text(tab, "#refunded"), "bill-12");
        assert.deepEqual(await awaited(tab), [], "nobody was asked");
        assert.equal(await tab.$("aim-confirm"), null);

        const voided = agent.invoke("void_bill", "bill-13");
        await dialogShown(tab);
        await tab.click("aim-confirm >>> button.decline");
        assert.equal((await voided).body.error, "declined");
        assert.equal(await text(tab, "#paid"), "none");
      },
    );

    await t.step(
      'with a panel, the panel asks (without confirm="consequential"), shows the input, and Approve is its primary button',
      async () => {
        await using context = await browser.context();
        const tab = await context.newPage();
        await tab.goto(`${bridge.origin}/panel`);
        const agent = new Agent(bridge, await panelToken(tab));
        await agent.manifestWhen("/panel.json", pageRegistered);

        const answer = agent.invoke("pay", "bill-14");
        await tab.waitForFunction(() =>
          document.querySelector("aim-panel")?.shadowRoot?.querySelector("[role=alertdialog]")
        );
        assert.match(
          await panelText(tab),
          /run pay \(Pay one bill now\) with:\s*"bill-14"/,
        );
        assert.equal(await tab.$("aim-confirm"), null, "no modal besides the panel");
        const look = await tab.evaluate(() => {
          const root = document.querySelector("aim-panel")!.shadowRoot!;
          const style = (selector: string) => {
            const s = getComputedStyle(root.querySelector(selector)!);
            return { background: s.backgroundColor, weight: Number(s.fontWeight) };
          };
          return {
            section: style("section"),
            approve: style("button.approve"),
            decline: style("button.decline"),
          };
        });
        assert.notEqual(look.approve.background, look.section.background);
        assert.equal(look.decline.background, look.section.background);
        assert.ok(look.approve.weight > look.decline.weight, JSON.stringify(look));
        assert.equal(await text(tab, "#paid"), "none");
        await clickPanelButton(tab, "Approve");
        const yes = await answer;
        assert.equal(yes.status, 200, JSON.stringify(yes.body));
        assert.equal(await text(tab, "#paid"), "bill-14");
      },
    );

    await t.step(
      "an invocation that comes while the panel's code still loads waits for the panel, not a modal",
      async () => {
        await using context = await browser.context();
        const tab = await context.newPage();
        await recordChannel(tab);
        await tab.setRequestInterception(true);
        let release!: () => void;
        const held = new Promise<void>((resolve) => release = resolve);
        tab.on("request", async (request) => {
          if (new URL(request.url()).pathname === "/__aim/elements.panel.js") await held;
          await request.continue();
        });
        await tab.goto(`${bridge.origin}/panel`);
        const agent = new Agent(bridge, await connectedToken(tab));
        await agent.manifestWhen("/panel.json", pageRegistered);

        const answer = agent.invoke("pay", "bill-15");
        await tab.waitForFunction(() =>
          (window as unknown as { aimSent: string[] }).aimSent.some((m) =>
            JSON.parse(m).type === "awaiting"
          )
        );
        release();
        await tab.waitForFunction(() =>
          document.querySelector("aim-panel")?.shadowRoot?.querySelector("[role=alertdialog]")
        );
        assert.equal(await tab.$("aim-confirm"), null, "no modal besides the panel");
        await clickPanelButton(tab, "Decline");
        assert.equal((await answer).body.error, "declined");
        assert.equal(await text(tab, "#paid"), "none");
      },
    );

    await t.step(
      "a panel taken off the page while it asks declines, and the modal asks from then on",
      async () => {
        await using context = await browser.context();
        const tab = await context.newPage();
        await tab.goto(`${bridge.origin}/panel`);
        const agent = new Agent(bridge, await panelToken(tab));
        await agent.manifestWhen("/panel.json", pageRegistered);

        const first = agent.invoke("pay", "bill-16");
        await tab.waitForFunction(() =>
          document.querySelector("aim-panel")?.shadowRoot?.querySelector("[role=alertdialog]")
        );
        await tab.evaluate(() => document.querySelector("aim-panel")!.remove());
        assert.equal((await first).body.error, "declined");

        const second = agent.invoke("pay", "bill-17");
        assert.equal((await dialogShown(tab)).input, '"bill-17"');
        await tab.click("aim-confirm >>> button.decline");
        assert.equal((await second).body.error, "declined");
        assert.equal(await text(tab, "#paid"), "none");
      },
    );

    await t.step("a newer request closes the older modal, which declines", async () => {
      await using context = await browser.context();
      const tab = await context.newPage();
      await tab.goto(`${bridge.origin}/static`);
      const dialogUrl = [...ELEMENTS_CHUNKS.keys()].find((path) => path.includes(".dialog."))!;
      await tab.evaluate(async (url) => {
        const { confirmInDialog } = await import(url);
        const answers: Record<string, boolean> = (window as unknown as { answers: object })
          .answers = {};
        confirmInDialog({ id: "a", actionId: "pay", input: "1" }, "Pay")
          .then((ok: boolean) => answers.older = ok);
        confirmInDialog({ id: "b", actionId: "pay", input: "2" }, "Pay")
          .then((ok: boolean) => answers.newer = ok);
      }, dialogUrl);
      const answered = (name: string) =>
        tab.waitForFunction(
          (n) => {
            const { answers } = window as unknown as { answers: Record<string, boolean> };
            return n in answers && { ok: answers[n] };
          },
          { timeout: 10_000 },
          name,
        ).then(async (handle) => (await handle.jsonValue() as { ok: boolean }).ok);
      // The older one declines; the newer one stays, alone, with its own input.
      assert.equal(await answered("older"), false);
      assert.equal((await dialogShown(tab)).input, '"2"');
      assert.equal((await tab.$$("aim-confirm")).length, 1);
      await approveInDialog(tab);
      assert.equal(await answered("newer"), true);
    });
  },
});
