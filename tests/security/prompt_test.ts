/**
 * A person approves only what they read. Real Chromium against a real bridge, with the panel,
 * with the elements' own dialog and with WebMCP: an agent withdraws a harmless prompt and at once
 * asks for another at the same place (bait and switch); a click meant for the first, landing just
 * after the switch, approves nothing, and the new prompt says that it replaced one
 * (elements/prompt.ts `ApproveGate`). That what the person reads cannot lie is
 * tests/security/prompt_text_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { READ_DELAY_MS } from "../../elements/prompt.ts";
import { startBridge } from "../helpers/bridge.ts";
import {
  Agent,
  clickPanelButton,
  launchBrowser,
  NO_CHROMIUM,
  panelStatus,
  panelToken,
  pointAtApprove,
} from "../browser/harness.ts";
import {
  ACTIONS,
  assertSwitchRefused,
  baitAndSwitch,
  BOB,
  connectedToken,
  invokeWithdrawable,
  MALLORY,
  page,
  promptShowing,
  promptState,
  SITE,
  tabRegistered,
  WAIT_MS,
} from "../helpers/bait_and_switch.ts";

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
