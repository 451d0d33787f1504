/**
 * A confirmation the bridge stops waiting for (timed out, or its ACP run cancelled) is
 * withdrawn from the panel, and the action does not run.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import { Agent, ELEMENTS, launchBrowser, NO_CHROMIUM, panelToken } from "./harness.ts";

const SITE = {
  "pay.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pay</title>
${ELEMENTS}</head><body><aim-panel confirm="consequential"></aim-panel>
<p id="paid">none</p>
<aim-action name="pay" description="Pay one bill now" input-example="bill-1" consequential></aim-action>
<aim-state name="paid" from="#paid"></aim-state>
<script type="module">
  document.querySelector("aim-action").handler = (bill) => {
    document.getElementById("paid").textContent = bill;
    return { paid: bill };
  };
</script></body></html>`,
};

const promptShown = () =>
  (document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") ?? null) !== null;

Deno.test({
  name: "a prompt the bridge stopped waiting for is withdrawn and never runs the action",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: SITE, confirmTimeoutMs: 400 });
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`${bridge.origin}/pay`);
    const token = await panelToken(page);
    const agent = new Agent(bridge, token);
    await agent.manifestWhen(
      "/pay.json",
      (m) => m.actions.some((a: { id: string }) => a.id === "pay"),
    );

    await t.step("a confirmation that times out disappears; the action did not run", async () => {
      const answer = agent.invoke("pay", "bill-1");
      await page.waitForFunction(promptShown);
      assert.equal((await answer).status, 504);
      await page.waitForFunction(() =>
        (document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") ?? null) ===
          null
      );
      assert.equal(await page.$eval("#paid", (el) => el.textContent), "none");
    });

    await t.step("an ACP run cancelled while awaiting withdraws the prompt", async () => {
      const res = await bridge.fetch("/runs", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify({
          agent_name: "pay",
          mode: "async",
          input: [{
            role: "user",
            parts: [{
              content_type: "application/json",
              content: '{"actionId":"pay","input":"bill-2"}',
            }],
          }],
        }),
      });
      assert.equal(res.status, 202, await res.clone().text());
      const { run_id } = await res.json();
      await page.waitForFunction(promptShown);
      const cancel = await bridge.fetch(`/runs/${run_id}/cancel`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}` },
      });
      assert.equal(cancel.status, 202);
      await cancel.body?.cancel();
      await page.waitForFunction(() =>
        (document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") ?? null) ===
          null
      );
      assert.equal(await page.$eval("#paid", (el) => el.textContent), "none");
      const run = await (await bridge.fetch(`/runs/${run_id}`, {
        headers: { Authorization: `Bearer ${token}` },
      })).json();
      assert.equal(run.status, "cancelled");
    });
  },
});
