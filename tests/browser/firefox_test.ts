/**
 * The elements in Firefox ESR, driven over WebDriver BiDi: the demo's story (panel, token,
 * sign-in, a consequential action approved and one declined by the person, state pushed back)
 * as tests/browser/demo_test.ts runs it in Chromium.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { startDemo } from "../../demo/app.ts";
import { bridgeAt } from "../helpers/bridge.ts";
import {
  Agent,
  clickPanelButton,
  FIREFOX,
  launchBrowser,
  NO_FIREFOX,
  panelStatus,
  panelToken,
} from "./harness.ts";

if (NO_FIREFOX) {
  console.warn(
    `${FIREFOX} is missing: the Firefox tests are skipped (apt-get install firefox-esr).`,
  );
}

function statusOf(page: Page, id: string): Promise<string | null> {
  return page.evaluate((id) => {
    const row = [...document.querySelectorAll("#requests tbody tr")]
      .find((tr) => tr.firstElementChild?.textContent === id);
    return row ? row.children[4]!.textContent : null;
  }, id);
}

Deno.test({
  name:
    "in Firefox, an agent signs in, approves req-3 with the person's consent, and is declined on req-4",
  ignore: NO_FIREFOX,
  async fn(t) {
    const data = await Deno.makeTempDir({ prefix: "aim-demo-" });
    await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
    await using browser = await launchBrowser({ browser: "firefox" });
    await using context = await browser.context();
    const bridge = bridgeAt(demo.served.url);
    const page = await context.newPage();
    await page.goto(`${bridge.origin}/control-panel`);
    const token = await panelToken(page);
    await panelStatus(page, "connected");
    const agent = new Agent(bridge, token);

    await t.step(
      "the panel's token opens the session, and the tab registers its actions",
      async () => {
        const { body } = await agent.manifestWhen(
          "/control-panel.json",
          (m) => m.browser_connected,
        );
        assert.equal(body.state.authenticated, false);
        assert.deepEqual(
          body.actions.map((a: { id: string }) => a.id),
          ["login", "disconnect"],
        );
      },
    );

    await t.step("login shows the requests in the page and in the manifest", async () => {
      const login = await agent.invoke("login", { username: "alice", password: "wonderland" });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      await page.waitForFunction(() =>
        document.querySelectorAll("#requests tbody tr").length === 5
      );
      const { body } = await agent.manifestWhen(
        "/control-panel.json",
        (m) => m.state.requests?.length === 5,
      );
      assert.ok(body.actions.some((a: { id: string }) => a.id === "approve_request"));
    });

    await t.step(
      "approve_request waits for the person's Approve, then the page changed",
      async () => {
        const approved = agent.invoke("approve_request", "req-3");
        await clickPanelButton(page, "Approve");
        const answer = await approved;
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(answer.body.result, { id: "req-3", status: "approved" });
        assert.equal(
          answer.body.state.requests.find((r: { id: string }) => r.id === "req-3").status,
          "approved",
        );
        assert.equal(await statusOf(page, "req-3"), "approved");
      },
    );

    await t.step("the person declines reject_request: 403 declined, nothing changes", async () => {
      const rejected = agent.invoke("reject_request", "req-4");
      await clickPanelButton(page, "Decline");
      const answer = await rejected;
      assert.equal(answer.status, 403);
      assert.equal(answer.body.error, "declined");
      assert.equal(await statusOf(page, "req-4"), "pending");
    });

    await t.step("filter_requests changes what the page shows and the state", async () => {
      const answer = await agent.invoke("filter_requests", "pending");
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body.state.requests.map((r: { id: string }) => r.id), [
        "req-4",
        "req-5",
      ]);
      assert.equal(await page.$eval("#filter", (el) => (el as HTMLSelectElement).value), "pending");
    });
    await Deno.remove(data, { recursive: true });
  },
});
