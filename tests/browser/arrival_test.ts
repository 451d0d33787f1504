/**
 * An action that leaves the page answers once the next page holds the session with its state
 * and its actions (issue 33, item 2), in real Chromium behind `aim serve --upstream`: there the
 * first registration of a page waits for aim's read of it as a visitor (the floors of its
 * flags), which an app may answer slowly, and the agent that invokes the next page's action as
 * soon as it is answered finds it.
 * @module
 */
import assert from "node:assert/strict";
import { startAim, startApp } from "../helpers/upstream.ts";
import { launchBrowser, NO_CHROMIUM, panelToken } from "./harness.ts";
import { agentOf } from "./person.ts";

/** How long the app takes to answer aim's read of page B as a visitor, ms: a slow app. */
const SLOW_READ_MS = 400;

const PAGES: Record<string, string> = {
  "/a": `<a id="next" href="/b">To B</a>
<aim-action name="to_b" description="Go to page B" click="#next" read-only></aim-action>`,
  "/b": `<button id="ring" onclick="document.title = 'rung'">Ring</button>
<aim-action name="ring" description="Ring the bell of page B" click="#ring"></aim-action>
<aim-state name="page" value="B"></aim-state>`,
};

Deno.test({
  name:
    "the answer of an action that leaves the page comes once the next page's actions are registered, however slowly the app is read",
  ignore: NO_CHROMIUM,
  async fn() {
    await using app = startApp(async (request) => {
      const path = new URL(request.url).pathname;
      const body = PAGES[path];
      if (body === undefined) return new Response("not found", { status: 404 });
      if (path === "/b" && request.headers.get("user-agent") === "aim-public-catalog") {
        // A slow app: aim's read of the page as a visitor takes its time.
        await new Promise((resolve) => setTimeout(resolve, SLOW_READ_MS));
      }
      return new Response(
        `<!doctype html><html><head><title>${path}</title>` +
          `<script type="module" src="/__aim/elements.js"></script></head>` +
          `<body>${body}<aim-panel></aim-panel></body></html>`,
        { headers: { "Content-Type": "text/html; charset=utf-8" } },
      );
    });
    await using aim = startAim(app.url);
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`${aim.url}/a`);
    const agent = agentOf(aim, await panelToken(page));
    await agent.manifestWhen(
      "/a.json",
      (m) => m.actions.some((a: { id: string }) => a.id === "to_b"),
    );

    const left = await agent.invoke("to_b");
    assert.equal(left.status, 200, JSON.stringify(left.body));
    assert.equal(left.body.result.page, "/b");
    assert.deepEqual(left.body.state.page, "B");
    // At once, as the answer tells an agent it may: the next page's action is there.
    const rung = await agent.invoke("ring");
    assert.equal(rung.status, 200, JSON.stringify(rung.body));
    assert.equal(await page.title(), "rung");
  },
});
