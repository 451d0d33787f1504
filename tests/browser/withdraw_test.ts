/**
 * In real Chromium: a prompt is withdrawn from the panel,
 * and the page's handler never runs, when the agent hangs up after a body of 1 KiB or 64 KiB
 * (which Deno 2.9.6's `request.signal` misses), and when the session signs out while a
 * protected action waits for the person.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { ONE_PROCESS, startBridge } from "../helpers/bridge.ts";
import { Agent, ELEMENTS, launchBrowser, NO_CHROMIUM, panelToken } from "./harness.ts";

const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }), name: "Alice" },
]);

const SITE = {
  "pay.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pay</title>
${ELEMENTS}</head><body><aim-panel confirm="consequential"></aim-panel>
<p id="paid">none</p><p id="approved">none</p>
<aim-action name="pay" description="Pay one bill now" input-example="bill-1" consequential></aim-action>
<aim-action name="approve" description="Approve a request" input-example="req-1" consequential
  protected></aim-action>
<script type="module">
  const record = (id) => (value) => {
    document.getElementById(id).textContent = value;
    return { [id]: value };
  };
  document.querySelector("aim-action[name=pay]").handler = record("paid");
  document.querySelector("aim-action[name=approve]").handler = record("approved");
</script></body></html>`,
};

const promptShown = () =>
  (document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") ?? null) !== null;
const promptGone = () =>
  (document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") ?? null) === null;

function text(page: Page, selector: string): Promise<string | null> {
  return page.$eval(selector, (el) => el.textContent);
}

Deno.test({
  name: "a prompt is withdrawn and its action never runs when the agent hangs up or signs out",
  ignore: NO_CHROMIUM || ONE_PROCESS.ignore,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: SITE, users });
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`${bridge.origin}/pay`);
    const token = await panelToken(page);
    const agent = new Agent(bridge, token);
    await agent.manifestWhen(
      "/pay.json",
      (m) => m.actions.some((a: { id: string }) => a.id === "pay"),
    );

    for (const size of [1024, 64 * 1024]) {
      await t.step(`an agent that hangs up after a ${size} B body: the prompt goes`, async () => {
        const json = JSON.stringify({ actionId: "pay", input: `bill-${size}` });
        const abort = new AbortController();
        const call = bridge.fetch("/__aim/invoke", {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
          body: json + " ".repeat(size - json.length),
          signal: abort.signal,
        });
        await page.waitForFunction(promptShown);
        abort.abort();
        await assert.rejects(call);
        await page.waitForFunction(promptGone);
        assert.equal(await text(page, "#paid"), "none");
      });
    }

    await t.step("signing out while a protected action waits: the prompt goes", async () => {
      const login = await agent.invoke("login", { username: "alice", password: "wonderland" });
      assert.equal(login.status, 200);
      await agent.manifestWhen(
        "/pay.json",
        (m) => m.actions.some((a: { id: string }) => a.id === "approve"),
      );
      const call = agent.invoke("approve", "req-1");
      await page.waitForFunction(promptShown);
      const logout = await agent.invoke("logout", {});
      assert.equal(logout.status, 200);
      await page.waitForFunction(promptGone);
      const answer = await call;
      assert.equal(answer.status, 409);
      assert.equal(answer.body.error, "cancelled");
      assert.equal(await text(page, "#approved"), "none");
    });
  },
});
