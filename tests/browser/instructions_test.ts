/**
 * The panel's instructions for an agent use an example that is safe to try: never
 * `disconnect` (it would end the agent's own session), never a consequential action.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import { ELEMENTS, launchBrowser, NO_CHROMIUM, panelStatus, panelToken } from "./harness.ts";

const SITE = {
  "pay.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pay</title>
${ELEMENTS}</head><body><aim-panel></aim-panel>
<aim-action name="pay" description="Pay one bill now" input-example="bill-1" consequential></aim-action>
</body></html>`,
};

Deno.test({
  name:
    "the panel's instructions never tell the agent to disconnect or to run a consequential action",
  ignore: NO_CHROMIUM,
  async fn() {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: SITE });
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`${bridge.origin}/pay`);
    await panelToken(page);
    await panelStatus(page, "connected");
    await page.waitForFunction(() =>
      (document.querySelector("aim-panel")?.shadowRoot?.querySelector("textarea")?.value ?? "")
        .includes("__aim/invoke")
    );
    const text = await page.$eval(
      "aim-panel",
      (el) => el.shadowRoot!.querySelector("textarea")!.value,
    );
    const invoke = text.split("\n").find((line) => line.includes("/__aim/invoke"))!;
    assert.doesNotMatch(invoke, /disconnect/);
    assert.doesNotMatch(invoke, /"pay"/);
    assert.match(invoke, /an id from the manifest/);
  },
});
