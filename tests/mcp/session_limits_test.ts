/**
 * The bounds on MCP sessions over real HTTP: per client address and per token, room made from
 * quiet sessions only (never one with a call waiting for the page or a listening GET stream), a
 * flood on self-minted tokens refused without cancelling another client's call, an initialize
 * past 8 KiB, a second GET stream. The endpoint's other guards are tests/mcp/endpoint_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import {
  callBody,
  connectClient,
  endpoint,
  heldSession,
  initializeBody,
  postHeaders,
  rawSession,
  within,
} from "./helpers.ts";

/** POSTs an `initialize` with `token` from the client address `from` (behind a trusted proxy). */
async function initializeFrom(
  bridge: TestBridge,
  token: string,
  from: string,
  body = initializeBody(),
): Promise<{ status: number; id: string | null; response: Response }> {
  const res = await fetch(endpoint(bridge.origin), {
    method: "POST",
    headers: postHeaders(token, { "X-Forwarded-For": from }),
    body,
  });
  const response = new Response(await res.arrayBuffer(), res);
  return { status: res.status, id: res.headers.get("Mcp-Session-Id"), response };
}

/** Lists the tools of MCP session `id` from the client address `from`; returns the status. */
async function listFrom(bridge: TestBridge, token: string, id: string, from: string) {
  const res = await fetch(endpoint(bridge.origin), {
    method: "POST",
    headers: postHeaders(token, {
      "Mcp-Session-Id": id,
      "MCP-Protocol-Version": "2025-11-25",
      "X-Forwarded-For": from,
    }),
    body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test("a flood of MCP sessions on self-minted tokens is refused with 429 and never cancels another client's call", async () => {
  await using bridge = await startBridge({ trustProxy: true, mcp: { maxSessions: 4 } });
  const { token, tab } = await heldSession(bridge);
  await using _tab = tab;
  await using client = await connectClient("v2", bridge.origin, token);
  tab.answerWith = "never";
  const invoked = tab.next("invoke");
  const call = client.callTool("search", { input: "mine" })
    .catch((error) => ({ isError: true, content: [{ type: "text", text: String(error) }] }));
  const invocation = await within(invoked, "the victim's invocation");
  const flood = [];
  for (let i = 0; i < 8; i++) {
    const minted = await bridge.openSession("/control-panel");
    flood.push(await initializeFrom(bridge, minted, "198.51.100.9"));
  }
  assert.deepEqual(flood.map((r) => r.status), [200, 200, 200, 429, 429, 429, 429, 429]);
  await expectError(flood.at(-1)!.response, 429, "too_many_requests", {
    "Retry-After": /^[1-9]\d*$/,
  });
  // The victim's session and its call waiting for the page are untouched.
  tab.send({ type: "result", id: invocation.id, ok: true, result: { found: "mine" } });
  const result = await within(call, "the victim's answer");
  assert.ok(!result.isError, JSON.stringify(result));
  assert.equal((await client.listTools()).at(-1)?.name, "aim_read_page");
});

Deno.test("one client address holds at most maxPerClient MCP sessions; past it, 429, and others still open theirs", async () => {
  await using bridge = await startBridge({ trustProxy: true, mcp: { maxPerClient: 2 } });
  const opened = [];
  for (let i = 0; i < 3; i++) {
    const minted = await bridge.openSession("/control-panel");
    opened.push(await initializeFrom(bridge, minted, "198.51.100.9"));
  }
  assert.deepEqual(opened.map((r) => r.status), [200, 200, 429]);
  await expectError(opened[2]!.response, 429, "too_many_requests", {
    "Retry-After": /^[1-9]\d*$/,
  });
  const other = await bridge.openSession("/control-panel");
  assert.equal((await initializeFrom(bridge, other, "203.0.113.7")).status, 200);
});

Deno.test("a token's MCP sessions in use by one client are not closed for another client's initialize", async () => {
  await using bridge = await startBridge({ trustProxy: true, mcp: { maxPerSession: 2 } });
  const token = await bridge.openSession("/control-panel");
  const A = "203.0.113.7";
  const B = "198.51.100.9";
  const first = await initializeFrom(bridge, token, A);
  const second = await initializeFrom(bridge, token, A);
  const theirs = await initializeFrom(bridge, token, B);
  await expectError(theirs.response, 429, "too_many_requests", { "Retry-After": /^[1-9]\d*$/ });
  assert.equal(await listFrom(bridge, token, first.id!, A), 200);
  assert.equal(await listFrom(bridge, token, second.id!, A), 200);
  // The client's own sessions make room for its next one: the one it used longest ago goes.
  const third = await initializeFrom(bridge, token, A);
  assert.equal(third.status, 200);
  assert.equal(await listFrom(bridge, token, first.id!, A), 404);
  assert.equal(await listFrom(bridge, token, second.id!, A), 200);
});

Deno.test("a quiet MCP session makes room for another client's when the bridge is full", async () => {
  await using bridge = await startBridge({
    trustProxy: true,
    mcp: { maxSessions: 1, quietMs: 0 },
  });
  const quiet = await initializeFrom(
    bridge,
    await bridge.openSession("/control-panel"),
    "203.0.113.7",
  );
  const token = await bridge.openSession("/control-panel");
  assert.equal(quiet.status, 200);
  assert.equal((await initializeFrom(bridge, token, "198.51.100.9")).status, 200);
});

Deno.test("an initialize larger than 8 KiB is refused with 413 and opens nothing", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const big = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { experimental: { blob: { data: "x".repeat(60_000) } } },
      clientInfo: { name: "big", version: "1.0.0" },
    },
  });
  const res = await initializeFrom(bridge, token, "127.0.0.1", big);
  assert.equal(res.id, null);
  await expectError(res.response, 413, "payload_too_large");
});

Deno.test("a second GET stream on one MCP session is answered 409, and no refusal of a client's request is logged as an error", async () => {
  const errors: unknown[] = [];
  await using bridge = await startBridge({ onError: (error) => errors.push(error) });
  const token = await bridge.openSession("/control-panel");
  const headers = await rawSession(bridge.origin, token);
  const get = () =>
    fetch(endpoint(bridge.origin), {
      headers: { ...headers, Authorization: `Bearer ${token}`, Accept: "text/event-stream" },
    });
  const unacceptable = await fetch(endpoint(bridge.origin), {
    headers: { ...headers, Authorization: `Bearer ${token}`, Accept: "application/json" },
  });
  assert.equal(unacceptable.status, 406);
  await unacceptable.body?.cancel();
  const stream = await get();
  assert.equal(stream.status, 200);
  const second = await get();
  assert.equal(second.status, 409);
  assert.equal((await second.json()).error.code, -32000);
  assert.deepEqual(errors, []);
  await stream.body?.cancel();
});

Deno.test("room is made from quiet sessions only, never from one with a call waiting for the page", async () => {
  await using bridge = await startBridge({
    trustProxy: true,
    mcp: { maxSessions: 2, quietMs: 0 },
  });
  const { token, tab } = await heldSession(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const headers = await rawSession(bridge.origin, token);
  const invoked = tab.next("invoke");
  const hangUp = new AbortController();
  using _hangUp = { [Symbol.dispose]: () => hangUp.abort() };
  const call = fetch(endpoint(bridge.origin), {
    method: "POST",
    headers: postHeaders(token, headers),
    body: callBody(5, "search", { input: "mine" }),
    signal: hangUp.signal,
  });
  const invocation = await within(invoked, "the waiting call's invocation");
  // Quiet sessions of another client make room for each other; the busy one stays.
  for (let i = 0; i < 3; i++) {
    const minted = await bridge.openSession("/control-panel");
    assert.equal((await initializeFrom(bridge, minted, "198.51.100.9")).status, 200);
  }
  tab.send({ type: "result", id: invocation.id, ok: true, result: { found: "mine" } });
  const answer = await (await within(call, "the waiting call's answer")).json();
  assert.deepEqual(
    answer.result?.structuredContent?.result,
    { found: "mine" },
    JSON.stringify(answer),
  );
});

Deno.test("a session listening on its GET stream is not closed for another client's room", async () => {
  await using bridge = await startBridge({
    trustProxy: true,
    mcp: { maxSessions: 1, quietMs: 0 },
  });
  const token = await bridge.openSession("/control-panel");
  const headers = await rawSession(bridge.origin, token);
  const stream = await fetch(endpoint(bridge.origin), {
    headers: { ...headers, Authorization: `Bearer ${token}`, Accept: "text/event-stream" },
  });
  assert.equal(stream.status, 200);
  const minted = await bridge.openSession("/control-panel");
  assert.equal((await initializeFrom(bridge, minted, "198.51.100.9")).status, 429);
  await stream.body?.cancel();
});
