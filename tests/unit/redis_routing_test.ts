/**
 * How an invocation is routed between bridge instances (bridge/share/redis_routing.ts),
 * imported directly: two routers joined by an in-memory publish/subscribe that stands for
 * Redis's channels. Each kind of answer (a result, each failure, a non-aim error), each message
 * that fits no schema, the person being asked, a cancel, the holder stopping, nobody listening,
 * a topic, and the bridge stopping. Through a real Redis: tests/cluster/.
 *
 * @module
 */
import assert from "node:assert/strict";
import { BEAT_MS, RedisRouter, type RouterPort } from "../../bridge/share/redis_routing.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { NOT_SENT } from "../../bridge/share/share.ts";
import type { InvokeResult } from "../../bridge/wire/schemas.ts";

const RESULT: InvokeResult = { ok: true, actionId: "search", result: ["a"] };

/** Two routers, `a` (the caller) and `b` (the holder), on one in-memory bus. */
function pair(options: { alive?: (instance: string) => boolean } = {}) {
  const errors: string[] = [];
  const published: string[] = [];
  const routers = new Map<string, RedisRouter>();
  const portOf = (instance: string): RouterPort => ({
    instance,
    key: (kind, id) => `p:${kind}:${id}`,
    publish: (channel, message) => {
      published.push(`${channel} ${message}`);
      const [, kind, to] = channel.split(":");
      const target = routers.get(to!);
      if (!target) return Promise.resolve(0);
      // Delivered after the publish answers, as Redis's subscriber gets it.
      queueMicrotask(() => kind === "q" ? void target.onCall(message) : target.onReply(message));
      return Promise.resolve(1);
    },
    run: (command) => command(),
    alive: (id) => Promise.resolve(options.alive?.(id) ?? routers.has(id)),
    onError: (error) => errors.push(String(error instanceof Error ? error.message : error)),
  });
  const a = new RedisRouter(portOf("a"));
  const b = new RedisRouter(portOf("b"));
  routers.set("a", a).set("b", b);
  return { a, b, errors, published, routers };
}

const OPTIONS = { timeoutMs: 5000, confirmMs: 5000 };

Deno.test("forward() hands the holder's result back to the caller, with the call and token hash as sent", async () => {
  const { a, b } = pair();
  const seen: unknown[] = [];
  b.serve((tokenHash, call) => (seen.push([tokenHash, call]), Promise.resolve(RESULT)));
  const call = { body: { actionId: "search", input: "x" }, idempotencyKey: "k1" };
  assert.deepEqual(await a.forward("b", "h1", call, OPTIONS), RESULT);
  assert.deepEqual(seen, [["h1", call]]);
});

Deno.test("forward() hands back each failure with its status, code, details and headers; any other error is server_error", async () => {
  const failures: [Error, number, string, Record<string, string>][] = [
    [
      new AimError("not_found", "No such action.", { details: { actionId: "x" } }),
      404,
      "not_found",
      {},
    ],
    [
      new AimError("too_many_requests", "Slow down.", { headers: { "Retry-After": "3" } }),
      429,
      "too_many_requests",
      { "retry-after": "3" },
    ],
    [new AimError("declined", "The person declined."), 403, "declined", {}],
    [new TypeError("x is undefined"), 500, "server_error", {}],
  ];
  for (const [thrown, status, code, headers] of failures) {
    const { a, b } = pair();
    b.serve(() => Promise.reject(thrown));
    const error = await a.forward("b", "h", { body: {} }, OPTIONS).catch((e) => e);
    assert.ok(error instanceof AimError, code);
    assert.equal(error.status, status, code);
    assert.equal(error.code, code);
    const response = error.getResponse();
    for (const [name, value] of Object.entries(headers)) {
      assert.equal(response.headers.get(name), value, `${code} ${name}`);
    }
    if (thrown instanceof TypeError) {
      assert.equal(error.message, "The bridge failed unexpectedly.", "nothing of the error leaks");
    } else {
      assert.equal(error.message, thrown.message);
    }
  }
  const { a, b } = pair();
  b.serve(() => Promise.reject(new AimError("not_found", "x", { details: { actionId: "y" } })));
  const body = await (await a.forward("b", "h", { body: {} }, OPTIONS).catch((e) => e))
    .getResponse().json();
  assert.equal(body.actionId, "y", "details come back");
});

Deno.test("forward() to an instance nobody listens for fails browser_not_connected, marked as never sent", async () => {
  const { a } = pair();
  const error = await a.forward("gone", "h", { body: {} }, OPTIONS).catch((e) => e);
  assert.ok(error instanceof AimError);
  assert.equal(error.code, "browser_not_connected");
  assert.equal(error.cause, NOT_SENT);
});

Deno.test("forward() waits the confirmation time once the holder says the person is asked, and says so", async () => {
  const { a, b } = pair();
  let finish!: () => void;
  b.serve((_h, _c, { onAwaiting }) =>
    new Promise((resolve) => {
      onAwaiting("Waiting for the person to confirm.");
      finish = () => resolve(RESULT);
    })
  );
  const told: string[] = [];
  const answer = a.forward("b", "h", { body: {} }, {
    timeoutMs: 50,
    confirmMs: 60_000,
    onAwaiting: (text) => (told.push(text), setTimeout(() => finish(), 150)),
  });
  // Past the first 50 ms: only the confirmation time runs now.
  assert.deepEqual(await answer, RESULT);
  assert.deepEqual(told, ["Waiting for the person to confirm."]);
});

Deno.test("forward() fails tab_timeout when no answer comes in time, and withdraws the call on the holder", async () => {
  const { a, b } = pair();
  let signal: AbortSignal | undefined;
  b.serve((_h, _c, options) => (signal = options.signal, new Promise(() => {})));
  const error = await a.forward("b", "h", { body: {} }, { timeoutMs: 30, confirmMs: 30 })
    .catch((e) => e);
  assert.equal(error.code, "tab_timeout");
  assert.match(error.message, /^The tab did not answer within 30 ms; the action may still run\.$/);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(signal?.aborted, true, "the holder was told to cancel");
});

Deno.test("forward() cancelled by its signal fails cancelled and aborts the run on the holder", async () => {
  const { a, b } = pair();
  const aborted = Promise.withResolvers<void>();
  b.serve((_h, _c, { signal }) => {
    signal.addEventListener("abort", () => aborted.resolve());
    return new Promise(() => {});
  });
  const cancel = new AbortController();
  const answer = a.forward("b", "h", { body: {} }, { ...OPTIONS, signal: cancel.signal });
  setTimeout(() => cancel.abort(), 10);
  assert.equal((await answer.catch((e) => e)).code, "cancelled");
  await aborted.promise;
});

Deno.test("forward() fails browser_not_connected within a beat when the holder's instance stops", async () => {
  let holderAlive = true;
  const { a, b } = pair({ alive: () => holderAlive });
  b.serve(() => new Promise(() => {}));
  const started = Date.now();
  const answer = a.forward("b", "h", { body: {} }, { timeoutMs: 60_000, confirmMs: 60_000 });
  holderAlive = false;
  const error = await answer.catch((e) => e);
  assert.equal(error.code, "browser_not_connected");
  assert.match(error.message, /stopped before answering/);
  assert.ok(Date.now() - started < BEAT_MS * 3);
});

Deno.test("close() fails every call still waiting, and the router drops each message that fits no schema", async () => {
  const { a, b, errors } = pair();
  b.serve(() => new Promise(() => {}));
  const answer = a.forward("b", "h", { body: {} }, OPTIONS);
  await new Promise((resolve) => setTimeout(resolve, 5));
  a.close();
  assert.equal((await answer.catch((e) => e)).code, "browser_not_connected");
  for (const text of ["", "{", "null", "[]", '{"id":1}', '{"id":"x","type":"other"}']) {
    await a.onCall(text);
    a.onReply(text);
  }
  assert.equal(errors.length, 12);
  assert.deepEqual(
    new Set(errors),
    new Set([
      "A malformed call message from Redis was dropped",
      "A malformed reply message from Redis was dropped",
    ]),
  );
});

Deno.test("tell() reaches the topic's listener on the other instance and says whether anyone listened", async () => {
  const { a, b, errors } = pair();
  const heard = Promise.withResolvers<unknown>();
  b.listen("a2a.cancel", (message) => heard.resolve(message));
  assert.equal(await a.tell("b", "a2a.cancel", { taskId: "t" }), true);
  assert.deepEqual(await heard.promise, { taskId: "t" });
  assert.equal(await a.tell("nobody", "a2a.cancel", {}), false);
  // A listener that throws is reported, and the router goes on.
  b.listen("boom", () => {
    throw new Error("listener failed");
  });
  await b.onCall(JSON.stringify({ topic: "boom", message: 1 }));
  assert.deepEqual(errors, ["listener failed"]);
});
