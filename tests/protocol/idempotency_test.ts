/**
 * Idempotent invocations (bridge/core/idempotency.ts), over HTTP: a retry under the same
 * `Idempotency-Key` gets the first answer and never runs the action twice, a request refused
 * before it ran runs when retried, a session keeps its last 256 keys, and keys belong to one
 * session.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { connected, users } from "../helpers/connected_tab.ts";

Deno.test("invoke() with an Idempotency-Key never runs an action twice", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  let runs = 0;
  tab.handlers.set("search", (q) => ({ run: ++runs, q }));
  const key = { "Idempotency-Key": "order-42" };
  const [a, b] = await Promise.all([
    bridge.invoke(token, "search", "x", key),
    bridge.invoke(token, "search", "x", key),
  ]);
  const c = await bridge.invoke(token, "search", "x", key);
  const bodies = await Promise.all([a, b, c].map((r) => r.json()));
  assert.equal(runs, 1);
  for (const body of bodies) assert.deepEqual(body.result, { run: 1, q: "x" });
  // The same key with another request is refused.
  await expectError(
    await bridge.invoke(token, "search", "y", key),
    422,
    "idempotency_key_reused",
  );
  // A failure that ran is also answered again, not run again.
  tab.handlers.set("search", () => {
    runs++;
    throw new Error("boom");
  });
  const failKey = { "Idempotency-Key": "fail-1" };
  await expectError(await bridge.invoke(token, "search", "z", failKey), 422, "action_failed");
  await expectError(await bridge.invoke(token, "search", "z", failKey), 422, "action_failed");
  assert.equal(runs, 2);
  // A request refused before it ran may be retried with the same key.
  await expectError(
    await bridge.invoke(token, "search", { wrong: "shape" }, { "Idempotency-Key": "k2" }),
    400,
    "invalid_input",
  );
  tab.handlers.set("search", (q) => q);
  assert.equal(
    (await bridge.invoke(token, "search", { wrong: "shape" }, { "Idempotency-Key": "k2" })).status,
    400,
  );
  await expectError(
    await bridge.invoke(token, "search", "ok", { "Idempotency-Key": "bad key with spaces" }),
    400,
    "bad_request",
  );
});

Deno.test("a request refused before it ran runs when retried with the same Idempotency-Key once it is allowed", async () => {
  await using bridge = await startBridge({ users });
  const token = await bridge.openSession("/control-panel");
  const search = { "Idempotency-Key": "search-1" };
  const approve = { "Idempotency-Key": "approve-3" };
  // No tab holds the session, and nobody signed in: both refused, nothing ran.
  await expectError(
    await bridge.invoke(token, "search", "pending", search),
    409,
    "browser_not_connected",
  );
  await expectError(
    await bridge.invoke(token, "approve_request", "req-3", approve),
    403,
    "login_required",
  );
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  let runs = 0;
  await tab.register([
    { id: "search", handler: (q) => ({ run: ++runs, q }) },
    { id: "approve_request", protected: true, handler: (id) => ({ run: ++runs, approved: id }) },
  ]);
  // A tab holds the session now: the same key runs the search, once.
  for (let i = 0; i < 2; i++) {
    const found = await bridge.invoke(token, "search", "pending", search);
    assert.equal(found.status, 200);
    assert.deepEqual((await found.json()).result, { run: 1, q: "pending" });
  }
  // Still not signed in: refused again. Signed in: the same key runs it, once.
  await expectError(
    await bridge.invoke(token, "approve_request", "req-3", approve),
    403,
    "login_required",
  );
  const login = await bridge.invoke(token, "login", { username: "alice", password: "wonderland" });
  assert.equal(login.status, 200);
  await login.body?.cancel();
  for (let i = 0; i < 2; i++) {
    const approved = await bridge.invoke(token, "approve_request", "req-3", approve);
    assert.equal(approved.status, 200);
    assert.deepEqual((await approved.json()).result, { run: 2, approved: "req-3" });
  }
  assert.equal(runs, 2);
});

Deno.test("a session remembers its last 256 Idempotency-Keys: the 257th forgets the first", async () => {
  let runs = 0;
  await using bridge = await startBridge({
    serverActions: [{
      id: "count",
      description: "Count one run",
      input_schema: { type: "string" },
      input_example: "x",
      run: () => ++runs,
    }],
  });
  const token = await bridge.openSession("/control-panel");
  const call = async (key: string) => {
    const res = await bridge.invoke(token, "count", "x", { "Idempotency-Key": key });
    assert.equal(res.status, 200);
    return (await res.json()).result;
  };
  for (let i = 0; i <= 256; i++) assert.equal(await call(`key-${i}`), i + 1);
  // The second key is still remembered: its first answer, no second run.
  assert.equal(await call("key-1"), 2);
  assert.equal(runs, 257);
  // The first is forgotten: a retry with it is a new request, and runs.
  assert.equal(await call("key-0"), 258);
  if (!bridge.cluster) {
    assert.equal((await bridge.served.bridge.core.sessions.find(token))!.idempotency.size, 256);
  }
});

Deno.test("idempotency keys belong to one session", async () => {
  await using bridge = await startBridge();
  const one = await connected(bridge);
  await using _one = one.tab;
  const token2 = await bridge.openSession("/orders");
  await using tab2 = await FakeTab.open(bridge.origin, { token: token2, page: "/orders" });
  await tab2.next("lease");
  await tab2.register([{ id: "search", handler: () => "second session" }]);
  one.tab.handlers.set("search", () => "first session");
  const key = { "Idempotency-Key": "same" };
  assert.equal(
    (await (await bridge.invoke(one.token, "search", "x", key)).json()).result,
    "first session",
  );
  assert.equal(
    (await (await bridge.invoke(token2, "search", "x", key)).json()).result,
    "second session",
  );
});
