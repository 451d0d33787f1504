/**
 * Invocations (bridge/core/invocations.ts), driven as the core drives them: the body's shape,
 * the in-flight limit at exactly its bound, `If-Match`, login and input checks, a browser action
 * with no tab, server actions and their failures, the audit record (secrets out, refused inputs
 * never kept), and `Idempotency-Key`s (one run per key, the key's request fixed, answers within
 * the byte budget, at most so many keys). What the tab answers maps to one error each.
 *
 * @module
 */
import assert from "node:assert/strict";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import { type InvocationRecord, Invocations } from "../../bridge/core/invocations.ts";
import type { ServerAction } from "../../bridge/core/server_actions.ts";
import type { Session } from "../../bridge/core/session.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { writeSite } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";
import { startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

/** Server actions of the tests: what they ran is recorded in `ran`. */
function actions(ran: unknown[], gate: { wait?: Promise<void> } = {}): ServerAction[] {
  return [
    {
      id: "echo",
      description: "Answers its input",
      input_schema: {
        type: "object",
        properties: { text: { type: "string", maxLength: 10 }, password: { type: "string" } },
        required: ["text"],
      },
      run: async (_ctx, input) => {
        ran.push(input);
        await gate.wait;
        return { echoed: (input as { text: string }).text };
      },
    },
    {
      id: "nothing",
      description: "Takes no input",
      input_schema: { type: "object", properties: {} },
      run: () => "done",
    },
    {
      id: "secret_area",
      description: "Signed in only",
      input_schema: { type: "string" },
      protected: true,
      run: () => "inside",
    },
    {
      id: "broken",
      description: "Throws",
      input_schema: { type: "string" },
      run: (_ctx, input) => {
        if (input === "aim") throw new AimError("conflict", "Already done.");
        throw new Error("database down");
      },
    },
    {
      id: "sign_in",
      description: "Signs in",
      input_schema: { type: "string" },
      run: (ctx, input) => ctx.signIn({ username: String(input) }),
    },
    {
      id: "big",
      description: "Answers so many bytes",
      input_schema: { type: "integer" },
      run: (_ctx, input) => "x".repeat(input as number),
    },
  ];
}

/** Invocations over a core of the basic site, with the records and rotations they made. */
async function setup(dir: string, options: { maxIdempotencyBytes?: number } = {}) {
  writeSite(dir);
  const ran: unknown[] = [];
  const gate: { wait?: Promise<void> } = {};
  const core = new BridgeCore({
    root: dir,
    serverActions: actions(ran, gate),
    limits: { maxInFlight: 2 },
    ...options,
  });
  const records: InvocationRecord[] = [];
  const rotated: Session[] = [];
  const invocations = new Invocations({
    sessions: core.sessions,
    catalog: core.catalog,
    actions: core.actions,
    limits: core.limits,
    now: Date.now,
    settleTimeoutMs: 1000,
    waitMs: 1000,
    rotate: (session) => rotated.push(session),
    onInvocation: (record) => records.push(record),
  });
  const { session } = await core.openSession("/control-panel");
  return { core, invocations, session, ran, gate, records, rotated };
}

/** Asserts that `promise` rejects with the AimError `code` at `status`; returns the error. */
async function refused(promise: Promise<unknown>, status: number, code: string) {
  let caught: unknown;
  await promise.catch((error) => caught = error);
  assert.ok(caught instanceof AimError, `expected ${code}, got ${caught}`);
  assert.equal(caught.code, code, caught.message);
  assert.equal(caught.status, status);
  return caught;
}

Deno.test("invoke() answers 400 bad_request to a body that is not {actionId, input}, naming the problem", async () => {
  await using dir = await tempDir();
  const { invocations, session, records } = await setup(dir.path);
  for (
    const body of [null, "echo", [], {}, { actionId: "" }, { actionId: 1 }, {
      actionId: "echo",
      extra: 1,
    }, { actionId: "x".repeat(201) }]
  ) {
    const error = await refused(invocations.invoke(session, body), 400, "bad_request");
    assert.match(error.message, /^The body must be \{"actionId": "<id>", "input": <input>\}: /);
  }
  assert.deepEqual(records, [], "a body that names no action reaches none");
});

Deno.test("invoke() runs a server action and answers its result, the state and its version, settled", async () => {
  await using dir = await tempDir();
  const { invocations, session, ran } = await setup(dir.path);
  const answer = await invocations.invoke(session, { actionId: "echo", input: { text: "hi" } });
  assert.deepEqual(answer, {
    ok: true,
    actionId: "echo",
    result: { echoed: "hi" },
    state: { authenticated: false },
    state_version: session.version,
    settled: true,
  });
  assert.deepEqual(ran, [{ text: "hi" }]);
  assert.equal((await invocations.invoke(session, { actionId: "nothing" })).result, "done");
});

Deno.test("invoke() refuses an unknown action (404), invalid input (400) and a protected one signed out (403)", async () => {
  await using dir = await tempDir();
  const { invocations, session, ran } = await setup(dir.path);
  const unknown = await refused(
    invocations.invoke(session, { actionId: "nope" }),
    404,
    "unknown_action",
  );
  assert.ok(Array.isArray(unknown.details.available_actions));
  await refused(
    invocations.invoke(session, { actionId: "echo", input: { text: "x".repeat(11) } }),
    400,
    "invalid_input",
  );
  await refused(invocations.invoke(session, { actionId: "echo" }), 400, "invalid_input");
  await refused(
    invocations.invoke(session, { actionId: "secret_area", input: "x" }),
    403,
    "login_required",
  );
  assert.deepEqual(ran, [], "nothing refused ran");
});

Deno.test("invoke() answers 409 browser_not_connected to a page's action while no tab holds the session", async () => {
  await using dir = await tempDir();
  const { invocations, session } = await setup(dir.path);
  const error = await refused(
    invocations.invoke(session, { actionId: "search", input: "pending" }),
    409,
    "browser_not_connected",
  );
  assert.deepEqual(error.details, { page: "/control-panel" });
  // Checked against the page's declaration first: invalid input is said as such.
  await refused(
    invocations.invoke(session, { actionId: "approve_request", input: "" }),
    403,
    "login_required",
  );
});

Deno.test("invoke() holds If-Match: the version now runs, an older or a newer one is 409 stale_state", async () => {
  await using dir = await tempDir();
  const { invocations, session } = await setup(dir.path);
  session.changed();
  session.changed();
  const now = session.version;
  const run = (ifMatch: number) =>
    invocations.invoke(session, { actionId: "echo", input: { text: "x" } }, { ifMatch });
  assert.equal((await run(now)).ok, true);
  const older = await refused(run(now - 1), 409, "stale_state");
  assert.match(older.message, /changed since state_version/);
  assert.deepEqual(older.details, { state_version: now });
  const newer = await refused(run(now + 1), 409, "stale_state");
  assert.match(newer.message, /is ahead of the page's/);
});

Deno.test("invoke() runs at most maxInFlight invocations of a session at once, then answers 429", async () => {
  await using dir = await tempDir();
  const { invocations, session, gate, ran } = await setup(dir.path);
  let open!: () => void;
  gate.wait = new Promise((resolve) => open = resolve);
  const call = () => invocations.invoke(session, { actionId: "echo", input: { text: "x" } });
  const first = call();
  const second = call(); // exactly the limit of 2
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(ran.length, 2, "both under the limit run");
  const third = await refused(call(), 429, "too_many_requests");
  assert.deepEqual(third.headers, { "Retry-After": "1" });
  open();
  await Promise.all([first, second]);
  assert.equal((await call()).ok, true, "a place is free again");
  assert.equal(session.inFlight, 0);
});

Deno.test("a server action's own error is answered as is, any other as 422 action_failed", async () => {
  await using dir = await tempDir();
  const { invocations, session } = await setup(dir.path);
  await refused(invocations.invoke(session, { actionId: "broken", input: "aim" }), 409, "conflict");
  const failed = await refused(
    invocations.invoke(session, { actionId: "broken", input: "other" }),
    422,
    "action_failed",
  );
  assert.equal(failed.message, '"broken" failed: database down');
});

Deno.test("every invocation that reached an action is recorded: secrets out, a refused input never kept", async () => {
  await using dir = await tempDir();
  const { invocations, session, records } = await setup(dir.path);
  await invocations.invoke(session, { actionId: "echo", input: { text: "a", password: "pw" } }, {
    client: "192.0.2.1",
  });
  await invocations.invoke(session, { actionId: "echo", input: { text: "b".repeat(11) } })
    .catch(() => {});
  await invocations.invoke(session, { actionId: "nope" }).catch(() => {});
  assert.deepEqual(
    records.map(({ actionId, input, client, status, outcome, username, page, sessionId }) => ({
      actionId,
      input,
      client,
      status,
      outcome,
      username,
      page,
      sessionId,
    })),
    [
      {
        actionId: "echo",
        input: { text: "a" },
        client: "192.0.2.1",
        status: 200,
        outcome: "ok",
        username: null,
        page: "/control-panel",
        sessionId: session.id,
      },
      {
        actionId: "echo",
        input: null,
        client: undefined,
        status: 400,
        outcome: "invalid_input",
        username: null,
        page: "/control-panel",
        sessionId: session.id,
      },
      {
        actionId: "nope",
        input: null,
        client: undefined,
        status: 404,
        outcome: "unknown_action",
        username: null,
        page: "/control-panel",
        sessionId: session.id,
      },
    ],
  );
  assert.ok(records.every((r) => r.durationMs >= 0 && r.at instanceof Date));
});

Deno.test("signing in through a server action rotates what binds the tab, and the answer's state says so", async () => {
  await using dir = await tempDir();
  const { invocations, session, rotated, records } = await setup(dir.path);
  const answer = await invocations.invoke(session, { actionId: "sign_in", input: "alice" });
  assert.deepEqual(answer.state, { authenticated: true, user: { username: "alice" } });
  assert.deepEqual(rotated, [session]);
  assert.equal(
    (await invocations.invoke(session, { actionId: "secret_area", input: "x" })).result,
    "inside",
  );
  assert.equal(records.at(-1)!.username, "alice");
});

Deno.test("a retry under one Idempotency-Key gets the first answer and never runs the action again", async () => {
  await using dir = await tempDir();
  const { invocations, session, ran } = await setup(dir.path);
  const call = (text: string, key = "k1") =>
    invocations.invoke(session, { actionId: "echo", input: { text } }, { idempotencyKey: key });
  const first = await call("a");
  assert.deepEqual(await call("a"), first);
  assert.equal(ran.length, 1);
  await refused(call("b"), 422, "idempotency_key_reused");
  assert.equal(ran.length, 1);
  // A key whose request was refused before the action ran is free for another.
  await refused(call("x".repeat(11), "k2"), 400, "invalid_input");
  assert.equal((await call("c", "k2")).ok, true);
  assert.equal(ran.length, 2);
  // A failure of an action that ran is the answer kept.
  const broken = () =>
    invocations.invoke(session, { actionId: "broken", input: "x" }, { idempotencyKey: "k3" });
  await refused(broken(), 422, "action_failed");
  await refused(broken(), 422, "action_failed");
});

/** What the answer of `big` with `bytes` takes as JSON, for a fresh session (version 1). */
function bigAnswerBytes(bytes: number): number {
  return JSON.stringify({
    ok: true,
    actionId: "big",
    result: "x".repeat(bytes),
    state: { authenticated: false },
    state_version: 1,
    settled: true,
  }).length;
}

Deno.test("answers past the session's byte budget are dropped oldest first: a retry is refused, never run", async () => {
  await using dir = await tempDir();
  const budget = bigAnswerBytes(40) + bigAnswerBytes(56);
  const { invocations, session } = await setup(dir.path, { maxIdempotencyBytes: budget });
  assert.equal(session.version, 1, "bigAnswerBytes() counts with this version");
  const big = (key: string, bytes: number) =>
    invocations.invoke(session, { actionId: "big", input: bytes }, { idempotencyKey: key });
  await big("a", 40);
  await big("b", 56);
  assert.equal(session.idempotencyBytes, budget, "exactly the budget: both kept");
  assert.equal((await big("a", 40)).result, "x".repeat(40));
  await big("c", 1); // one more answer: the oldest goes
  await refused(big("a", 40), 409, "idempotency_key_expired");
  assert.equal((await big("b", 56)).result, "x".repeat(56));
  assert.equal(session.idempotencyBytes, bigAnswerBytes(56) + bigAnswerBytes(1));
});

Deno.test("a session keeps at most maxIdempotencyKeys keys, forgetting the oldest", async () => {
  await using dir = await tempDir();
  const { core, invocations, session, ran } = await setup(dir.path);
  const max = core.sessions.maxIdempotencyKeys;
  const call = (key: string) =>
    invocations.invoke(session, { actionId: "echo", input: { text: "x" } }, {
      idempotencyKey: key,
    });
  for (let i = 0; i < max; i++) await call(`k${i}`);
  assert.equal(session.idempotency.size, max);
  await call("k0");
  assert.equal(ran.length, max, "at exactly the bound, the first key is kept");
  await call(`k${max}`);
  assert.equal(session.idempotency.size, max);
  await call("k0");
  assert.equal(ran.length, max + 2, "past the bound, the oldest key was forgotten");
});

Deno.test("drain() waits for the invocations under way, or its time", async () => {
  await using dir = await tempDir();
  const { invocations, session, gate } = await setup(dir.path);
  await invocations.drain(10_000); // nothing under way: at once
  let open!: () => void;
  gate.wait = new Promise((resolve) => open = resolve);
  let answered = false;
  const call = invocations.invoke(session, { actionId: "echo", input: { text: "x" } })
    .then(() => answered = true);
  await invocations.drain(20);
  assert.equal(answered, false, "the time ran out first");
  const drained = invocations.drain(10_000);
  open();
  await drained;
  assert.equal(answered, true);
  await call;
});

Deno.test("what the tab answers is one error each: failed 422, declined 403, timed out 504, cancelled 409", async () => {
  await using bridge = await startBridge();
  const core = bridge.served.bridge.core;
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{
    id: "search",
    handler: (q) => {
      if (q === "fail") throw new Error("Nothing matched.");
      return { found: q };
    },
  }]);
  const session = await core.authenticate(token);
  const invocations = new Invocations({
    sessions: core.sessions,
    catalog: core.catalog,
    actions: core.actions,
    limits: core.limits,
    now: Date.now,
    settleTimeoutMs: 1000,
    waitMs: 1000,
    rotate: () => {},
  });
  const search = (input: string) => invocations.invoke(session, { actionId: "search", input });
  assert.deepEqual((await search("x")).result, { found: "x" });
  const failed = await refused(search("fail"), 422, "action_failed");
  assert.deepEqual(failed.details, { actionId: "search" });
  tab.answerWith = "decline";
  const declined = await refused(search("x"), 403, "declined");
  assert.deepEqual(declined.details, { actionId: "search" });
  tab.answerWith = "never";
  const timedOut = invocations.invoke(session, { actionId: "search", input: "x" }, {
    tabTimeoutMs: 50,
  });
  await refused(timedOut, 504, "tab_timeout");
  const controller = new AbortController();
  const cancelled = invocations.invoke(session, { actionId: "search", input: "x" }, {
    signal: controller.signal,
  });
  controller.abort();
  const error = await refused(cancelled, 409, "cancelled");
  assert.deepEqual(error.details, { actionId: "search" });
});
