/**
 * Invocations over HTTP (`POST /__aim/invoke`): a tab action's result and the state after it, the
 * owner's log, every refusal with its status, code and headers (bodies, sizes, tokens, unknown
 * actions, invalid input, login, a tab that is gone, declines, origins, methods), logins and their
 * rate limits, and secrets kept out of errors and activity. The queue to the tab is
 * tests/protocol/invoke_queue_test.ts's, retries under an Idempotency-Key
 * tests/protocol/idempotency_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { connected, users } from "../helpers/connected_tab.ts";

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
