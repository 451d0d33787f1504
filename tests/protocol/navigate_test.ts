/**
 * A single-page app's navigation (`navigate`) moves the tab to another page at once, and with it
 * what the old page offered goes: its actions are neither listed nor invocable on the new page
 * until the page registers again, and an invocation that had not reached the tab is withdrawn.
 * @module
 */
import assert from "node:assert/strict";
import { ONE_PROCESS, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

const SERVER = ["login", "logout", "disconnect"];

/** The ids of a manifest's actions that the page offers (not the bridge's server actions). */
async function pageActions(bridge: TestBridge, token: string, page: string): Promise<string[]> {
  const res = await bridge.fetch(`${page}.json`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200, page);
  const manifest = await res.json();
  assert.equal(manifest.page, page);
  return manifest.actions.map((a: { id: string }) => a.id).filter((id: string) =>
    !SERVER.includes(id)
  );
}

Deno.test("a navigation withdraws the old page's actions at once: not listed, not invocable, until the page registers again", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: () => "found" }]);
  assert.deepEqual(await pageActions(bridge, token, "/control-panel"), ["search"]);

  tab.send({ type: "navigate", page: "/orders" });
  assert.equal((await tab.next("page", (m) => m.page === "/orders")).page, "/orders");
  // The session is on /orders now, and /control-panel's action is not one of its.
  assert.deepEqual(await pageActions(bridge, token, "/orders"), []);
  const refused = await expectError(
    await bridge.invoke(token, "search", "pens"),
    404,
    "unknown_action",
  );
  assert.match(refused.message, /search/);
  assert.equal(tab.has("invoke"), false);

  // The new view registers its own (the same id too): they count from then on.
  await tab.register([{ id: "search", handler: () => "found on orders" }]);
  assert.deepEqual(await pageActions(bridge, token, "/orders"), ["search"]);
  const ran = await bridge.invoke(token, "search", "pens");
  assert.equal(ran.status, 200);
  assert.equal((await ran.json()).result, "found on orders");
});

Deno.test("a navigation to the page the tab is on keeps its actions", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: () => "found" }]);
  // Only the query changed, and no parameter is part of the page: the same page.
  tab.send({ type: "navigate", page: "/control-panel?tab=2" });
  // The answer to hello came first: this is the one to the navigation.
  await tab.next("page");
  await tab.next("page");
  assert.deepEqual(await pageActions(bridge, token, "/control-panel"), ["search"]);
});

Deno.test("a waiting tab's navigation withdraws its own actions, not the holder's", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using holder = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await holder.next("lease");
  await holder.register([{ id: "search", handler: () => "holder" }]);
  const waiting = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  assert.equal((await waiting.next("lease")).status, "waiting");
  await waiting.register([{ id: "approve_request", handler: () => "waiting" }]);
  waiting.send({ type: "navigate", page: "/orders" });
  await waiting.next("page", (m) => m.page === "/orders");
  assert.deepEqual(await pageActions(bridge, token, "/control-panel"), ["search"]);
  // Once it holds the session, it offers what it registered since: nothing yet.
  await holder.close();
  assert.equal((await waiting.next("lease", (m) => m.status === "granted")).status, "granted");
  assert.deepEqual(await pageActions(bridge, token, "/orders"), []);
  await waiting.close();
});

Deno.test(
  "an invocation that had not reached the tab when it moved is withdrawn; the one it ran is answered",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge();
    const token = await bridge.openSession("/control-panel");
    await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    await tab.register([{ id: "search" }]);
    tab.answerWith = "never";
    const first = bridge.invoke(token, "search", "one");
    const running = await tab.next("invoke");
    const second = bridge.invoke(token, "search", "two");
    // The second waits behind the first (one at a time) when the page moves.
    const session = await bridge.served.bridge.core.authenticate(token);
    while (session.tab.queued < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    tab.send({ type: "navigate", page: "/orders" });
    await tab.next("page", (m) => m.page === "/orders");
    const withdrawn = await expectError(await second, 409, "cancelled");
    assert.match(withdrawn.message, /moved to another path before the action reached it/);
    tab.send({ type: "result", id: running.id, ok: true, result: "one done" });
    const answered = await first;
    assert.equal(answered.status, 200);
    assert.equal((await answered.json()).result, "one done");
    assert.equal(tab.messages.filter((m) => m.type === "invoke").length, 1);
  },
);
