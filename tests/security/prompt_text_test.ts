/**
 * What a person reads of an agent's input cannot lie. Real Chromium against a real bridge, in the
 * panel and in the elements' own dialog: a right-to-left override and other hidden characters
 * show as visible escapes in the prompt and the activity log, and a very long input is cut,
 * saying so, with Approve and Decline still on screen. The bait and switch is
 * tests/security/prompt_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import {
  Agent,
  clickPanelButton,
  launchBrowser,
  NO_CHROMIUM,
  panelText,
  panelToken,
} from "../browser/harness.ts";
import {
  connectedToken,
  promptRoot,
  promptShowing,
  promptState,
  SITE,
  tabRegistered,
  WAIT_MS,
} from "../helpers/bait_and_switch.ts";

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
