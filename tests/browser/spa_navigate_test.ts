/**
 * A single-page app's navigation in Chromium, with aim in front of it: the bridge withdraws what
 * the old route registered, and the elements register the new route's actions again at once,
 * the same ones too (a view that renders the same declarations would otherwise offer nothing).
 * @module
 */
import assert from "node:assert/strict";
import type { ServedBridge } from "../../bridge/mod.ts";
import type { TestBridge } from "../helpers/bridge.ts";
import { startAim, startApp } from "../helpers/upstream.ts";
import { Agent, ELEMENTS, launchBrowser, NO_CHROMIUM, panelToken } from "./harness.ts";

/** Two items, each a route with the same action: "next_item" moves to the other one. */
const SPA = `<!doctype html><title>Items</title>${ELEMENTS}
<main id="view"></main><aim-panel></aim-panel>
<script type="module">
const names = { "1": "Teapot", "2": "Kettle" };
const view = document.getElementById("view");
function render() {
  const id = /\\/spa\\/items\\/(\\d)$/.exec(location.pathname)?.[1] ?? "1";
  view.innerHTML = '<aim-state name="item"></aim-state>' +
    '<aim-action name="next_item" description="Show the other item"></aim-action>';
  view.querySelector("aim-state").value = { id, name: names[id] };
  view.querySelector("aim-action").handler = () => {
    const next = id === "1" ? "2" : "1";
    history.pushState(null, "", "/spa/items/" + next);
    render();
    return { shown: next };
  };
}
addEventListener("popstate", render);
render();
</script>`;

function agentOf(aim: ServedBridge, token: string): Agent {
  const bridge = {
    origin: aim.url,
    fetch: (path: string, init?: RequestInit) => fetch(aim.url + path, init),
    invoke: (token: string, actionId: string, input?: unknown) =>
      fetch(aim.url + "/__aim/invoke", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify({ actionId, input }),
      }),
  };
  return new Agent(bridge as unknown as TestBridge, token);
}

Deno.test({
  name:
    "a route that renders the same actions as the one before offers them again after a navigation",
  ignore: NO_CHROMIUM,
  async fn() {
    await using app = startApp(() =>
      new Response(SPA, { headers: { "Content-Type": "text/html" } })
    );
    await using aim = startAim(app.url);
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`${aim.url}/spa/items/1`);
    const agent = agentOf(aim, await panelToken(page));
    await agent.manifestWhen(
      "/spa/items/1.json",
      (m) => m.actions.some((a: { id: string }) => a.id === "next_item"),
      15_000,
    );
    for (const [from, to] of [["1", "2"], ["2", "1"], ["1", "2"]]) {
      const moved = await agent.invoke("next_item", {});
      assert.equal(moved.status, 200, `from ${from}: ${JSON.stringify(moved.body)}`);
      // The route is a page of its own: the answer says where it went (docs/protocol.md).
      assert.deepEqual(moved.body.result, {
        shown: to,
        navigating_to: `${aim.url}/spa/items/${to}`,
        page: `/spa/items/${to}`,
      });
      // The new route's action is offered at once, though its declaration did not change.
      const manifest = await agent.manifest(`/spa/items/${to}.json`);
      assert.equal(manifest.status, 200);
      assert.ok(
        manifest.body.actions.some((a: { id: string }) => a.id === "next_item"),
        JSON.stringify(manifest.body.actions),
      );
      assert.equal(manifest.body.state.item.id, to);
    }
  },
});
