/**
 * Withdrawing the calls of an MCP session (bridge/mcp/calls.ts) and the names an MCP session
 * keeps its shared documents under (bridge/mcp/session.ts), imported directly, with a fake
 * shared store: a waiting request is answered once withdrawn, an instance announces the calls it
 * runs and withdraws them, a cancel reaches the instance that runs the call, and a cancel from
 * another token, for another session or of an id of no JSON-RPC type is ignored.
 *
 * @module
 */
import assert from "node:assert/strict";
import { answerCancelled, CallRouter, withdrawCall } from "../../bridge/mcp/calls.ts";
import {
  CALL_KIND,
  callKey,
  CANCEL_TOPIC,
  type McpSession,
  SESSION_ID_REGEXP,
} from "../../bridge/mcp/session.ts";
import type { BridgeCore } from "../../bridge/core/bridge.ts";

const SESSION_ID = "0b8e1c9a-3f4d-4e2a-9c1b-2d3e4f5a6b7c";

/** An MCP session as the router reads it, with what its transport was handed. */
function entry(options: { id?: string; tokenHash?: string; pending?: (string | number)[] } = {}) {
  const received: unknown[] = [];
  const sent: unknown[] = [];
  const fake = {
    id: options.id ?? SESSION_ID,
    session: { tokenHash: options.tokenHash ?? "h1" },
    pending: new Set(options.pending ?? []),
    streamed: new Map<string | number, AbortController>(),
    transport: {
      onmessage: (message: unknown) => received.push(message),
      send: (message: unknown) => (sent.push(message), Promise.resolve()),
    },
  };
  return { entry: fake as unknown as McpSession, fake, received, sent };
}

/** A core whose shared store is in memory, as instance `instance`, with what it was told. */
function coreOf(shared: boolean, instance = "i1") {
  const docs = new Map<string, unknown>();
  const told: [string, string, unknown][] = [];
  const listeners = new Map<string, (message: unknown) => void>();
  const share = {
    shared,
    instance,
    put: (
      kind: string,
      key: string,
      value: unknown,
      _ttl: number,
    ) => (docs.set(`${kind}/${key}`, value), Promise.resolve()),
    del: (kind: string, key: string) => (docs.delete(`${kind}/${key}`), Promise.resolve()),
    get: (kind: string, key: string) => Promise.resolve(docs.get(`${kind}/${key}`) ?? null),
    tell: (
      to: string,
      topic: string,
      message: unknown,
    ) => (told.push([to, topic, message]), Promise.resolve(true)),
    listen: (topic: string, handler: (message: unknown) => void) => listeners.set(topic, handler),
  };
  const core = { share, sessions: { idleMs: 60_000 } } as unknown as BridgeCore;
  return { core, docs, told, listeners };
}

Deno.test("callKey() names a call by session and JSON id, and none for an id too long to keep", () => {
  assert.equal(callKey("s", 7), "s:7");
  assert.equal(callKey("s", "7"), 's:"7"', "a string id and a number id are two calls");
  assert.equal(callKey("s", "x".repeat(254)), `s:"${"x".repeat(254)}"`, "256 characters of JSON");
  assert.equal(callKey("s", "x".repeat(255)), undefined, "257 characters of JSON");
});

Deno.test("SESSION_ID_REGEXP takes a random UUID as the SDK makes it, and nothing else", () => {
  assert.match(crypto.randomUUID(), SESSION_ID_REGEXP);
  for (
    const id of [
      SESSION_ID.toUpperCase(),
      `${SESSION_ID} `,
      `${SESSION_ID}\n`,
      SESSION_ID.replaceAll("-", ""),
      "../../etc/passwd",
      "",
    ]
  ) {
    assert.doesNotMatch(id, SESSION_ID_REGEXP, JSON.stringify(id));
  }
});

Deno.test("withdrawCall() cancels a request through the transport and answers it while it waits, once", () => {
  const waiting = entry({ pending: [7] });
  withdrawCall(waiting.entry, { id: 7, reason: "The person left." });
  assert.deepEqual(waiting.received, [{
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 7, reason: "The person left." },
  }]);
  assert.deepEqual(waiting.sent, [{
    jsonrpc: "2.0",
    id: 7,
    error: { code: -32000, message: "The request was cancelled." },
  }]);
  const answered = entry();
  withdrawCall(answered.entry, { id: "a" });
  assert.deepEqual(answered.received, [{
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "a" },
  }]);
  assert.deepEqual(answered.sent, [], "a request answered already gets no second answer");
  answerCancelled(answered.entry, "a");
  assert.deepEqual(answered.sent, []);
});

Deno.test("CallRouter.announce() says which instance runs each call while it runs, and alone does nothing", async () => {
  const { core, docs } = coreOf(true, "i1");
  const router = new CallRouter(core, { find: () => undefined });
  const withdraw = await router.announce(entry().entry, [1, "b", "x".repeat(300)]);
  assert.deepEqual([...docs.keys()].sort(), [
    `${CALL_KIND}/${SESSION_ID}:"b"`,
    `${CALL_KIND}/${SESSION_ID}:1`,
  ]);
  assert.deepEqual(docs.get(`${CALL_KIND}/${SESSION_ID}:1`), { instance: "i1" });
  withdraw();
  await Promise.resolve();
  assert.equal(docs.size, 0);
  const alone = coreOf(false);
  await new CallRouter(alone.core, { find: () => undefined }).announce(entry().entry, [1])
    .then((w) => w());
  assert.equal(alone.docs.size, 0);
  assert.equal(alone.listeners.size, 0, "alone, nothing listens for cancels");
});

Deno.test("CallRouter.cancelElsewhere() tells the instance that runs the call, and nobody when it runs here or nowhere", async () => {
  const { core, docs, told } = coreOf(true, "i1");
  const router = new CallRouter(core, { find: () => undefined });
  const { entry: mine } = entry();
  docs.set(`${CALL_KIND}/${SESSION_ID}:5`, { instance: "i2" });
  docs.set(`${CALL_KIND}/${SESSION_ID}:6`, { instance: "i1" });
  docs.set(`${CALL_KIND}/${SESSION_ID}:7`, { instance: 2 });
  for (const id of [5, 6, 7, 8]) await router.cancelElsewhere(mine, { id, reason: "r" });
  assert.deepEqual(told, [["i2", CANCEL_TOPIC, {
    session: SESSION_ID,
    tokenHash: "h1",
    requestId: 5,
    reason: "r",
  }]]);
  // A store that cannot be reached is reported, not thrown.
  const errors: unknown[] = [];
  const failing = coreOf(true);
  (failing.core.share as unknown as { get: () => Promise<never> }).get = () =>
    Promise.reject(new Error("down"));
  await new CallRouter(failing.core, { find: () => undefined, onError: (e) => errors.push(e) })
    .cancelElsewhere(mine, { id: 5 });
  assert.equal(errors.length, 1);
});

Deno.test("CallRouter cancels a call here only for the MCP session's own token, and only by a JSON-RPC id", () => {
  const { core, listeners } = coreOf(true, "i2");
  const held = entry({ pending: [5, "s"] });
  const stream = new AbortController();
  held.fake.streamed.set(5, stream);
  new CallRouter(core, { find: (id) => id === SESSION_ID ? held.entry : undefined });
  const cancel = listeners.get(CANCEL_TOPIC)!;
  const ignored: unknown[] = [
    null,
    "cancel",
    { session: SESSION_ID, tokenHash: "another", requestId: 5 },
    { session: "other", tokenHash: "h1", requestId: 5 },
    { session: 1, tokenHash: "h1", requestId: 5 },
    { session: SESSION_ID, requestId: 5 },
    { session: SESSION_ID, tokenHash: "h1", requestId: { id: 5 } },
    { session: SESSION_ID, tokenHash: "h1", requestId: null },
  ];
  for (const message of ignored) cancel(message);
  assert.deepEqual([held.received, held.sent, stream.signal.aborted], [[], [], false]);
  cancel({ session: SESSION_ID, tokenHash: "h1", requestId: 5, reason: 7 });
  assert.equal(stream.signal.aborted, true, "its progress stream is withdrawn");
  assert.deepEqual(held.received, [{
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 5 },
  }], "a reason that is no string is left out");
  assert.equal(held.sent.length, 1);
});
