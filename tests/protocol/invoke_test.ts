import assert from "node:assert/strict";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { ONE_PROCESS, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }), name: "Alice" },
]);

/** A session with a connected tab that registered `search` and the protected `approve_request`. */
async function connected(bridge: TestBridge): Promise<{ token: string; tab: FakeTab }> {
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([
    { id: "search", input_example: "pending", handler: (q) => ({ found: [q] }) },
    {
      id: "approve_request",
      input_example: "req-3",
      consequential: true,
      protected: true,
      handler: (id) => ({ approved: id }),
    },
    {
      id: "add_comment",
      input_schema: {
        type: "object",
        properties: {
          request_id: { type: "string", minLength: 1 },
          text: { type: "string", maxLength: 20 },
        },
        required: ["request_id", "text"],
        additionalProperties: false,
      },
      input_example: { request_id: "req-3", text: "ok" },
      handler: (input) => input,
    },
  ]);
  return { token, tab };
}

Deno.test("invoke() runs a tab action and answers its result and the state after it", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.stateAfter = (_id, q) => ({ query: q });
  const res = await bridge.invoke(token, "search", "pending");
  assert.equal(res.status, 200);
  const { state_version, ...answer } = await res.json();
  assert.ok(Number.isSafeInteger(state_version) && state_version > 0);
  assert.deepEqual(answer, {
    ok: true,
    actionId: "search",
    result: { found: ["pending"] },
    state: { query: "pending", authenticated: false },
    settled: true,
  });
  const activity = await tab.next("activity");
  assert.equal(activity.actionId, "search");
  assert.equal(activity.status, 200);
});

Deno.test("the owner's log hears of every invocation that names an action, refused ones and server actions too", async () => {
  await using bridge = await startBridge({ users });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  await expectError(await bridge.invoke(token, "launch_rockets", "x"), 404, "unknown_action");
  await expectError(await bridge.invoke(token, "search", 42), 400, "invalid_input");
  await expectError(await bridge.invoke(token, "approve_request", "req-3"), 403, "login_required");
  await expectError(
    await bridge.invoke(token, "login", { username: "alice", password: "nope" }),
    422,
    "action_failed",
  );
  const seen = [];
  for (let i = 0; i < 4; i++) {
    const { actionId, status, outcome } = await tab.next("activity");
    seen.push([actionId, status, outcome]);
  }
  assert.deepEqual(seen, [
    ["launch_rockets", 404, "unknown_action"],
    ["search", 400, "invalid_input"],
    ["approve_request", 403, "login_required"],
    ["login", 422, "action_failed"],
  ]);
});

Deno.test("invoke() answers 400 bad_request for bodies that are not JSON or of the wrong shape", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const send = (body: string, type = "application/json") =>
    bridge.fetch("/__aim/invoke", {
      method: "POST",
      headers: { "Content-Type": type, Authorization: `Bearer ${token}` },
      body,
    });
  for (
    const body of [
      "{oops",
      "[]",
      '"search"',
      "{}",
      '{"actionId": 3}',
      '{"actionId": "search", "input": "x", "extra": true}',
      "\xff\xfe",
    ]
  ) {
    await expectError(await send(body), 400, "bad_request");
  }
  await expectError(
    await send('{"actionId":"search","input":"x"}', "text/plain"),
    400,
    "bad_request",
  );
  const empty = await expectError(await send(""), 400, "bad_request");
  assert.match(empty.message, /body is empty/);
});

Deno.test("invoke() answers 413 payload_too_large over the body limit", async () => {
  await using bridge = await startBridge({ limits: { maxBodyBytes: 1024 } });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const res = await bridge.invoke(token, "search", "x".repeat(2000));
  const body = await expectError(res, 413, "payload_too_large");
  assert.equal(body.limit, 1024);
  // A chunked body without Content-Length is counted as it arrives.
  const stream = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"actionId":"search","input":"'));
      controller.enqueue(new TextEncoder().encode("y".repeat(4000)));
      controller.enqueue(new TextEncoder().encode('"}'));
      controller.close();
    },
  });
  const chunked = await bridge.fetch("/__aim/invoke", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: stream,
  });
  await expectError(chunked, 413, "payload_too_large");
  assert.equal((await bridge.invoke(token, "search", "small")).status, 200);
});

Deno.test("invoke() answers 401 missing_token and invalid_token with WWW-Authenticate", async () => {
  await using bridge = await startBridge();
  const none = await bridge.fetch("/__aim/invoke", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"actionId":"search","input":"x"}',
  });
  await expectError(none, 401, "missing_token", { "WWW-Authenticate": /^Bearer/ });
  for (const token of ["bogus", "A".repeat(43)]) {
    const res = await bridge.invoke(token, "search", "x");
    await expectError(res, 401, "invalid_token", {
      "WWW-Authenticate": 'Bearer error="invalid_token"',
    });
  }
});

Deno.test("invoke() answers 404 unknown_action with the available actions", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const body = await expectError(
    await bridge.invoke(token, "launch_rockets", "x"),
    404,
    "unknown_action",
  );
  assert.deepEqual(body.available_actions, ["disconnect", "search", "add_comment"]);
  // A site without users offers neither login nor logout.
  await expectError(await bridge.invoke(token, "logout", {}), 404, "unknown_action");
});

Deno.test("invoke() answers 400 invalid_input with the schema, the example and a hint", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const wrapped = await expectError(
    await bridge.invoke(token, "search", { id: "pending" }),
    400,
    "invalid_input",
  );
  assert.match(wrapped.hint, /^input must be the string itself, not an object/);
  assert.deepEqual(wrapped.input_schema, { type: "string", minLength: 1 });
  assert.equal(wrapped.input_example, "pending");
  const cases: [string, unknown, RegExp][] = [
    ["search", 42, /must be a string, not a number/],
    ["search", null, /must be a string, not null/],
    ["search", ["a"], /must be a string, not an array/],
    ["search", "", /^input: must be at least 1 character long$/],
    ["search", undefined, /must be a string, not missing/],
    ["add_comment", "req-3", /must be an object with the string fields request_id, text/],
    ["add_comment", { request_id: "req-3" }, /field "text" is required/],
    ["add_comment", { request_id: "req-3", text: 5 }, /field "text" must be a string/],
    ["add_comment", { request_id: "req-3", text: "x".repeat(21) }, /field "text"/],
    ["add_comment", { request_id: "req-3", text: "ok", more: "x" }, /unknown field "more"/],
  ];
  for (const [actionId, input, hint] of cases) {
    const body = await expectError(
      await bridge.invoke(token, actionId, input),
      400,
      "invalid_input",
    );
    assert.match(body.hint, hint, JSON.stringify(input));
  }
});

Deno.test("invoke() refuses __proto__ and constructor keys without polluting prototypes", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  for (
    const raw of [
      '{"actionId":"add_comment","input":{"request_id":"a","text":"b","__proto__":{"polluted":"yes"}}}',
      '{"actionId":"add_comment","input":{"request_id":"a","text":"b","constructor":"x"}}',
      '{"actionId":"add_comment","__proto__":{"input":"x"}}',
    ]
  ) {
    const res = await bridge.fetch("/__aim/invoke", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: raw,
    });
    assert.equal(res.status, 400, raw);
    await res.body?.cancel();
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("invoke() answers 403 login_required for a protected action, whatever the snapshot claims", async () => {
  await using bridge = await startBridge({ users });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.setState({ authenticated: true, user: { username: "mallory" } });
  await tab.register([{ id: "approve_request", input_example: "req-3", protected: true }]);
  const res = await bridge.invoke(token, "approve_request", "req-3");
  await expectError(res, 403, "login_required");
  const manifest = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  assert.equal(manifest.state.authenticated, false);
  assert.equal(manifest.state.user, undefined);
  assert.ok(!manifest.actions.some((a: { id: string }) => a.id === "approve_request"));
});

Deno.test("login attaches the identity, shows protected actions, and logout keeps the token", async () => {
  await using bridge = await startBridge({ users });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const wrong = await bridge.invoke(token, "login", { username: "alice", password: "nope" });
  const failed = await expectError(wrong, 422, "action_failed");
  assert.ok(!JSON.stringify(failed).includes("nope"));
  const sessionMessage = tab.next("session", (m) => m.authenticated);
  const ok = await bridge.invoke(token, "login", { username: "alice", password: "wonderland" });
  assert.equal(ok.status, 200);
  const body = await ok.json();
  assert.deepEqual(body.result, {
    authenticated: true,
    user: { username: "alice", name: "Alice" },
  });
  assert.equal(body.state.authenticated, true);
  assert.deepEqual((await sessionMessage).user, { username: "alice", name: "Alice" });
  const manifest = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  assert.deepEqual(manifest.actions.map((a: { id: string }) => a.id), [
    "logout",
    "disconnect",
    "search",
    "approve_request",
    "add_comment",
  ]);
  assert.deepEqual(manifest.state.user, { username: "alice", name: "Alice" });
  assert.ok(!JSON.stringify(manifest).includes("wonderland"));
  const approved = await bridge.invoke(token, "approve_request", "req-3");
  assert.equal(approved.status, 200);
  assert.deepEqual((await approved.json()).result, { approved: "req-3" });
  assert.equal((await bridge.invoke(token, "logout", {})).status, 200);
  await expectError(await bridge.invoke(token, "approve_request", "req-3"), 403, "login_required");
  const still = await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(still.status, 200);
  assert.equal((await still.json()).state.authenticated, false);
});

Deno.test("failed logins are rate limited per session with 429 and Retry-After", async () => {
  await using bridge = await startBridge({ users, loginAttempts: { max: 3, windowMs: 60_000 } });
  const token = await bridge.openSession("/control-panel");
  for (let i = 0; i < 3; i++) {
    await expectError(
      await bridge.invoke(token, "login", { username: `u${i}`, password: "x" }),
      422,
      "action_failed",
    );
  }
  const limited = await bridge.invoke(token, "login", {
    username: "alice",
    password: "wonderland",
  });
  await expectError(limited, 429, "too_many_requests", { "Retry-After": /^\d+$/ });
  const retry = Number(limited.headers.get("retry-after"));
  assert.ok(retry > 0 && retry <= 60);
});

Deno.test("failed logins from one client are rate limited per account across its sessions", async () => {
  await using bridge = await startBridge({ users, loginAttempts: { max: 2, windowMs: 60_000 } });
  for (let i = 0; i < 2; i++) {
    const token = await bridge.openSession("/control-panel");
    await expectError(
      await bridge.invoke(token, "login", { username: "alice", password: "bad" }),
      422,
      "action_failed",
    );
  }
  const fresh = await bridge.openSession("/control-panel");
  const res = await bridge.invoke(fresh, "login", { username: "ALICE", password: "wonderland" });
  await expectError(res, 429, "too_many_requests", { "Retry-After": /^[1-9]\d*$/ });
});

Deno.test("a self-minted token gets 409 browser_not_connected for browser actions, server actions work", async () => {
  await using bridge = await startBridge({ users });
  const token = await bridge.openSession("/control-panel");
  const body = await expectError(
    await bridge.invoke(token, "search", "pending"),
    409,
    "browser_not_connected",
  );
  assert.equal(body.page, "/control-panel");
  // A protected catalog action asks for login first.
  await expectError(await bridge.invoke(token, "approve_request", "req-3"), 403, "login_required");
  const login = await bridge.invoke(token, "login", { username: "alice", password: "wonderland" });
  assert.equal(login.status, 200);
  await expectError(
    await bridge.invoke(token, "approve_request", "req-3"),
    409,
    "browser_not_connected",
  );
});

Deno.test("invoke() answers 409 browser_not_connected when the tab has gone", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await tab.close();
  const res = await bridge.invoke(token, "search", "pending");
  await expectError(res, 409, "browser_not_connected");
});

Deno.test("invoke() answers 422 action_failed with the page's message", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.handlers.set("search", () => {
    throw new Error("The search index is rebuilding");
  });
  const body = await expectError(await bridge.invoke(token, "search", "x"), 422, "action_failed");
  assert.equal(body.message, "The search index is rebuilding");
  assert.equal(body.actionId, "search");
});

Deno.test("invoke() answers 403 declined when the person declines", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "decline";
  await expectError(await bridge.invoke(token, "search", "x"), 403, "declined");
});

Deno.test("invoke() answers 504 tab_timeout when the tab never answers, and keeps serving", async () => {
  await using bridge = await startBridge({ tabTimeoutMs: 100 });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  await expectError(await bridge.invoke(token, "search", "x"), 504, "tab_timeout");
  tab.answerWith = "handler";
  assert.equal((await bridge.invoke(token, "search", "x")).status, 200);
});

Deno.test("invoke() answers 409 when the tab disconnects mid-invocation", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  tab.answerWith = "never";
  const pending = bridge.invoke(token, "search", "x");
  await tab.next("invoke");
  await tab.close();
  const body = await expectError(await pending, 409, "browser_not_connected");
  assert.match(body.message, /may or may not have run/);
});

Deno.test("invoke() answers 429 too_many_requests with Retry-After when too many are in flight", async () => {
  await using bridge = await startBridge({ limits: { maxInFlight: 2 }, tabTimeoutMs: 5_000 });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const release: (() => void)[] = [];
  tab.handlers.set("search", () => new Promise<string>((r) => release.push(() => r("done"))));
  const first = bridge.invoke(token, "search", "a");
  const second = bridge.invoke(token, "search", "b");
  await tab.next("invoke");
  const third = await bridge.invoke(token, "search", "c");
  await expectError(third, 429, "too_many_requests", { "Retry-After": "1" });
  release.shift()!();
  await tab.next("invoke");
  release.shift()!();
  assert.equal((await first).status, 200);
  assert.equal((await second).status, 200);
});

Deno.test(
  "invoke() counts server actions against the invocations in flight of a session",
  ONE_PROCESS,
  async () => {
    const held: (() => void)[] = [];
    let running!: () => void;
    const twoRunning = new Promise<void>((resolve) => running = resolve);
    await using bridge = await startBridge({
      limits: { maxInFlight: 2 },
      serverActions: [{
        id: "slow",
        description: "Hold the first two calls until the test lets them go",
        input_schema: { type: "string" },
        input_example: "x",
        run: () => {
          if (held.length >= 2) return "ran";
          const done = new Promise((resolve) => held.push(() => resolve("held")));
          if (held.length === 2) running();
          return done;
        },
      }],
    });
    const token = await bridge.openSession("/control-panel");
    const first = bridge.invoke(token, "slow", "a");
    const second = bridge.invoke(token, "slow", "b");
    await twoRunning;
    try {
      await expectError(await bridge.invoke(token, "slow", "c"), 429, "too_many_requests", {
        "Retry-After": "1",
      });
    } finally {
      // Pass or fail, the held calls end: the bridge shuts down only once they are answered.
      held.forEach((release) => release());
    }
    assert.equal((await first).status, 200);
    assert.equal((await second).status, 200);
  },
);

Deno.test("invoke() relays invocations to the tab one at a time", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  let running = 0;
  let most = 0;
  tab.handlers.set("search", async (q) => {
    running++;
    most = Math.max(most, running);
    await Promise.resolve();
    running--;
    return q;
  });
  const answers = await Promise.all(
    ["a", "b", "c", "d"].map((q) => bridge.invoke(token, "search", q)),
  );
  assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200]);
  assert.deepEqual(await Promise.all(answers.map(async (r) => (await r.json()).result)), [
    "a",
    "b",
    "c",
    "d",
  ]);
  assert.equal(most, 1);
});

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

Deno.test("invoke() refuses a cookie-authenticated request from another origin", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const res = await bridge.fetch("/__aim/invoke", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Cookie: `aim_session=${token}`,
      Origin: "https://evil.example",
    },
    body: '{"actionId":"search","input":"x"}',
  });
  await expectError(res, 403, "forbidden_origin");
  assert.equal((await bridge.invoke(token, "search", "x")).status, 200);
});

Deno.test("invoke() answers 405 to other methods", async () => {
  await using bridge = await startBridge();
  const res = await bridge.fetch("/__aim/invoke");
  await expectError(res, 405, "method_not_allowed", { Allow: "POST" });
});

Deno.test("a tab cannot drop the protected or consequential flags its page's HTML declares", async () => {
  await using bridge = await startBridge({ users });
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  // The HTML declares approve_request protected and consequential; this tab says neither.
  await tab.register([{ id: "approve_request", input_example: "req-3", handler: (id) => id }]);
  const manifest = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  assert.ok(!manifest.actions.some((a: { id: string }) => a.id === "approve_request"));
  await expectError(await bridge.invoke(token, "approve_request", "req-3"), 403, "login_required");
  const login = await bridge.invoke(token, "login", { username: "alice", password: "wonderland" });
  await login.body?.cancel();
  const relayed = tab.next("invoke");
  const res = await bridge.invoke(token, "approve_request", "req-3");
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal((await relayed).consequential, true);
});

Deno.test("invoke() never relays an action the tab did not register, even one the HTML declares", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: (q) => q }]);
  // "approve_request" is in the page's HTML, but this tab does not offer it now.
  const body = await expectError(
    await bridge.invoke(token, "approve_request", "req-3"),
    404,
    "unknown_action",
  );
  assert.deepEqual(body.available_actions, ["disconnect", "search"]);
  assert.ok(!tab.has("invoke"));
});

Deno.test(
  "invoke() counts the tab timeout from the request, queue included",
  ONE_PROCESS,
  async () => {
    // The first call waits for the person (a longer timeout): the two behind it stay queued
    // however late their requests come, and must run out of time there, 150 ms after each one's
    // own request.
    await using bridge = await startBridge({ tabTimeoutMs: 150, confirmTimeoutMs: 1_000 });
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    tab.answerWith = "never";
    const first = bridge.invoke(token, "search", "a");
    const running = await tab.next("invoke");
    tab.send({ type: "awaiting", id: running.id, message: "Asking the person." });
    const queued = await Promise.all(["b", "c"].map((q) => bridge.invoke(token, "search", q)));
    for (const res of [...queued, await first]) await expectError(res, 504, "tab_timeout");
    // The two queued behind the first ran out of time in the queue: the tab never saw them.
    assert.equal(tab.messages.filter((m) => m.type === "invoke").length, 1);
    // The bridge told the tab to forget the one it was running.
    assert.ok(tab.has("cancel"));
  },
);

Deno.test(
  "invoke() withdraws an invocation whose agent hung up before it ran",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge({ tabTimeoutMs: 5_000 });
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    const release: (() => void)[] = [];
    const ran: unknown[] = [];
    tab.handlers.set("search", (q) => {
      ran.push(q);
      return new Promise((resolve) => release.push(() => resolve(q)));
    });
    const first = bridge.invoke(token, "search", "first");
    await tab.next("invoke");
    const abort = new AbortController();
    const second = bridge.fetch("/__aim/invoke", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ actionId: "search", input: "abandoned" }),
      signal: abort.signal,
    }).catch((error) => error);
    // Wait until the bridge queued it: the session's in-flight count says so.
    const session = (await bridge.served.bridge.core.sessions.find(token))!;
    while (session.inFlight < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    abort.abort();
    assert.ok((await second) instanceof Error);
    while (session.inFlight > 1) await new Promise((resolve) => setTimeout(resolve, 5));
    release.shift()!();
    assert.equal((await first).status, 200);
    assert.deepEqual(ran, ["first"]);
    assert.equal(tab.messages.filter((m) => m.type === "invoke").length, 1);
  },
);

Deno.test("failed logins sent in parallel cannot slip past the rate limit", async () => {
  await using bridge = await startBridge({ users, loginAttempts: { max: 3, windowMs: 60_000 } });
  const tokens = await Promise.all(Array.from({ length: 12 }, () => bridge.openSession("/")));
  const answers = await Promise.all(
    tokens.map((t) => bridge.invoke(t, "login", { username: "alice", password: "guess" })),
  );
  const statuses = answers.map((r) => r.status);
  await Promise.all(answers.map((r) => r.body?.cancel()));
  assert.equal(statuses.filter((s) => s === 422).length, 3);
  assert.equal(statuses.filter((s) => s === 429).length, 9);
});

Deno.test("secrets sent by mistake appear in no error and no activity entry", async () => {
  await using bridge = await startBridge({ users });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const wrapped = await expectError(
    await bridge.invoke(token, "search", { password: "hunter2-echo" }),
    400,
    "invalid_input",
  );
  assert.ok(!JSON.stringify(wrapped).includes("hunter2-echo"));
  const asString = await bridge.invoke(token, "login", "alice:hunter2-string");
  await expectError(asString, 400, "invalid_input");
  const fields = await bridge.invoke(token, "login", {
    username: "alice",
    password: "hunter2-field",
  });
  await expectError(fields, 422, "action_failed");
  const activity = await (await bridge.fetch("/__aim/activity", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  const text = JSON.stringify(activity);
  for (const secret of ["hunter2-echo", "hunter2-string", "hunter2-field"]) {
    assert.ok(!text.includes(secret), secret);
  }
  assert.deepEqual(activity.entries[0].input, { username: "alice" });
  assert.equal(activity.entries[1].input, null);
});
