/**
 * The tab offers the page's actions only once the document is parsed and its deferred and module
 * scripts ran (`DOMContentLoaded`): before that the page's own listeners and state may not be
 * there, and an agent's first `click=` would press a button that does nothing yet. In real
 * Chromium, with the page's deferred script held back until the test lets it load.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { HTTPRequest } from "puppeteer-core";
import { startBridge } from "../helpers/bridge.ts";
import { Agent, ELEMENTS, launchBrowser, NO_CHROMIUM, panelStatus, panelToken } from "./harness.ts";

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ready</title>
${ELEMENTS}
<script>
  // What happened, in order: the page's script ran, the tab opened its channel.
  globalThis.seen = [];
  const Native = WebSocket;
  globalThis.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      if (String(url).endsWith("/__aim/tab")) seen.push("channel");
    }
  };
</script></head><body><aim-panel></aim-panel>
<button id="go">Go</button>
<aim-action name="press" description="Press Go" click="#go"></aim-action>
<aim-state name="pressed"></aim-state>
<script defer src="/late.js"></script>
</body></html>`;

const LATE = `seen.push("script");
const state = document.querySelector("aim-state");
state.value = 0;
document.getElementById("go").addEventListener("click", () => state.value += 1);`;

Deno.test({
  name:
    "the tab opens its channel only after the page's deferred scripts ran, so the first click does what a person's does",
  ignore: NO_CHROMIUM,
  async fn() {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({
      site: { "ready.html": PAGE, "late.js": LATE },
    });
    await using context = await browser.context();
    const page = await context.newPage();
    await page.setRequestInterception(true);
    let release!: () => void;
    const released = new Promise<void>((resolve) => release = resolve);
    const held = new Promise<void>((heldBack) => {
      page.on("request", (request: HTTPRequest) => {
        if (new URL(request.url()).pathname !== "/late.js") return void request.continue();
        heldBack();
        released.then(() => request.continue());
      });
    });
    const session = page.waitForResponse((r) => r.url().endsWith("/__aim/session"));
    const markup = page.waitForResponse((r) => r.url().includes("elements.markup"));
    // The page's load waits for the script held back: the navigation ends after its release.
    const loaded = page.goto(bridge.origin + "/ready");
    await held;
    await session;
    await markup;
    // Some frames for the session's answer and the markup reader to be taken in.
    await page.evaluate(() =>
      new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))
    );
    release();
    await loaded;
    await panelStatus(page, "connected");
    assert.deepEqual(await page.evaluate(() => (globalThis as { seen?: string[] }).seen), [
      "script",
      "channel",
    ]);
    const agent = new Agent(bridge, await panelToken(page));
    await agent.manifestWhen(
      "/ready.json",
      (m) => m.actions.some((a: { id: string }) => a.id === "press"),
    );
    const answer = await agent.invoke("press");
    assert.equal(answer.status, 200);
    assert.equal(answer.body.state.pressed, 1, "the first click ran the page's own listener");
  },
});
