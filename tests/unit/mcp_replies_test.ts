/**
 * The MCP endpoint's answers outside the SDK and its readings of a request body
 * (bridge/mcp/replies.ts), imported directly: each refusal's status, JSON-RPC code and headers,
 * each shape a shared session document may come back in, each transport refusal's wording, and
 * which bodies open a session or ask for progress.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  asksForProgress,
  asShared,
  full,
  initializeOf,
  jsonSize,
  opensSession,
  rpcError,
  sameActions,
  sessionNotFound,
  TRANSPORT_REFUSAL,
} from "../../bridge/mcp/replies.ts";
import { loadRuntime } from "../../bridge/mcp/runtime.ts";
import { FULL_RETRY_SECONDS } from "../../bridge/mcp/session.ts";
import type { ActionSpec } from "../../bridge/wire/schemas.ts";

const mcp = await loadRuntime();

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "test", version: "1" },
  },
};
const LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };

Deno.test("rpcError() and sessionNotFound() answer in JSON-RPC's shape, never stored, never sniffed", async () => {
  for (
    const [response, status, code, message] of [
      [rpcError(400, -32600, "Bad Request: no body"), 400, -32600, "Bad Request: no body"],
      [sessionNotFound(), 404, -32001, "Session not found: initialize a new MCP session."],
    ] as const
  ) {
    assert.equal(response.status, status);
    assert.equal(response.headers.get("Cache-Control"), "no-store");
    assert.equal(response.headers.get("X-Content-Type-Options"), "nosniff");
    assert.match(response.headers.get("Content-Type") ?? "", /^application\/json/);
    assert.deepEqual(await response.json(), { jsonrpc: "2.0", error: { code, message }, id: null });
  }
});

Deno.test("full() refuses with 429 too_many_requests and tells the client when to try again", async () => {
  const response = full("No MCP session is free.");
  assert.equal(response.status, 429);
  assert.equal(response.headers.get("Retry-After"), String(FULL_RETRY_SECONDS));
  const body = await response.json();
  assert.equal(body.error, "too_many_requests");
  assert.equal(body.message, "No MCP session is free.");
});

Deno.test("asShared() takes a shared session document only with a token hash and an initialize request", () => {
  const cases: [string, unknown, unknown][] = [
    ["whole", { tokenHash: "h", initialize: INITIALIZE, touchedAt: 5 }, {
      tokenHash: "h",
      initialize: INITIALIZE,
      touchedAt: 5,
    }],
    ["no time: touched at 0", { tokenHash: "h", initialize: INITIALIZE }, {
      tokenHash: "h",
      initialize: INITIALIZE,
      touchedAt: 0,
    }],
    ["a time that is no number", { tokenHash: "h", initialize: INITIALIZE, touchedAt: "5" }, {
      tokenHash: "h",
      initialize: INITIALIZE,
      touchedAt: 0,
    }],
    ["no token hash", { initialize: INITIALIZE }, undefined],
    ["a token hash that is no string", { tokenHash: 1, initialize: INITIALIZE }, undefined],
    ["another request", { tokenHash: "h", initialize: LIST }, undefined],
    ["no initialize", { tokenHash: "h" }, undefined],
    ["null", null, undefined],
    ["a string", "h", undefined],
    ["a number", 1, undefined],
  ];
  for (const [name, value, expected] of cases) {
    assert.deepEqual(asShared(mcp, value), expected, name);
  }
});

Deno.test("opensSession() and initializeOf() find initialize alone or in a batch, and nothing else", () => {
  const cases: [string, unknown, boolean, unknown][] = [
    ["alone", INITIALIZE, true, INITIALIZE],
    ["in a batch of one", [INITIALIZE], true, INITIALIZE],
    ["in a batch with another", [LIST, INITIALIZE], true, INITIALIZE],
    ["another request", LIST, false, LIST],
    ["a batch without it", [LIST], false, undefined],
    ["an empty batch", [], false, undefined],
    ["null", null, false, null],
  ];
  for (const [name, body, opens, initialize] of cases) {
    assert.equal(opensSession(mcp, body), opens, name);
    assert.deepEqual(initializeOf(mcp, body), initialize, name);
  }
});

Deno.test("asksForProgress() finds a tools/call with an id and a progress token, and nothing else", () => {
  const call = (id: unknown, meta: unknown, method = "tools/call") => ({
    jsonrpc: "2.0",
    id,
    method,
    params: { name: "x", arguments: {}, ...(meta === undefined ? {} : { _meta: meta }) },
  });
  const cases: [string, unknown, unknown][] = [
    ["a number id", call(7, { progressToken: 1 }), { id: 7 }],
    ["a string id", call("a", { progressToken: "t" }), { id: "a" }],
    ["a token of 0", call(7, { progressToken: 0 }), { id: 7 }],
    ["no token", call(7, {}), undefined],
    ["no _meta", call(7, undefined), undefined],
    ["another method", call(7, { progressToken: 1 }, "tools/list"), undefined],
    ["a notification (no id)", call(undefined, { progressToken: 1 }), undefined],
    ["an id that is an object", call({}, { progressToken: 1 }), undefined],
    ["a batch", [call(7, { progressToken: 1 })], undefined],
    ["null", null, undefined],
  ];
  for (const [name, body, expected] of cases) {
    assert.deepEqual(asksForProgress(body), expected, name);
  }
});

Deno.test("TRANSPORT_REFUSAL matches each refusal the SDK's transport words, at the start only", () => {
  for (
    const word of [
      "Not Acceptable",
      "Unsupported Media Type",
      "Conflict",
      "Bad Request",
      "Invalid Request",
      "Session not found",
      "Method not allowed",
      "Parse error",
    ]
  ) {
    assert.match(`${word}: the client's mistake`, TRANSPORT_REFUSAL, word);
    assert.doesNotMatch(`Internal error: ${word}`, TRANSPORT_REFUSAL, word);
  }
  assert.doesNotMatch("Bad Requests", TRANSPORT_REFUSAL);
  assert.doesNotMatch("TypeError: x is undefined", TRANSPORT_REFUSAL);
});

Deno.test("jsonSize() counts UTF-8 bytes, and sameActions() compares the same specs in order", () => {
  assert.equal(jsonSize({ a: "é" }), 10);
  assert.equal(jsonSize("€"), 5);
  assert.equal(jsonSize(undefined), 0);
  const a = { id: "a" } as ActionSpec;
  const b = { id: "b" } as ActionSpec;
  assert.equal(sameActions([a, b], [a, b]), true);
  assert.equal(sameActions([a, b], [b, a]), false);
  assert.equal(sameActions([a], [a, b]), false);
  assert.equal(
    sameActions([a], [{ id: "a" } as ActionSpec]),
    false,
    "specs are compared as objects",
  );
  assert.equal(sameActions([], []), true);
});
