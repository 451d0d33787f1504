/**
 * MCP sessions across bridges sharing Redis: a session opened on one bridge is served
 * by another with the same `Mcp-Session-Id` (its calls reaching the tab through the first),
 * stays bound to its token, is closed everywhere by one DELETE, and hears `list_changed` on
 * whichever bridge holds its GET stream; behind HAProxy, the official clients just work.
 *
 * @module
 */
import assert from "node:assert/strict";
import { READ_TOOL, type ServedBridge } from "../../bridge/mod.ts";
import { hashToken } from "../../bridge/core/tokens.ts";
import { writeSite } from "../helpers/bridge.ts";
import { startPair } from "../helpers/pair.ts";
import { NO_CLUSTER, startCluster } from "../helpers/cluster.ts";
import { FakeTab, openPageSession } from "../helpers/fake_tab.ts";
import { tempDir } from "../helpers/temp.ts";
import {
  CLIENT_KINDS,
  connectClient,
  endpoint,
  initializeBody,
  postHeaders,
  within,
} from "../mcp/helpers.ts";

/** The server actions every session has before the page's (no users: no login, no logout). */
const BUILTIN = ["disconnect"];

/** Two bridges (`a`, `b`) over one site sharing one Redis, all stopped on dispose. */
interface TwoBridges extends AsyncDisposable {
  readonly a: ServedBridge;
  readonly b: ServedBridge;
  /** The port of their Redis. */
  readonly redisPort: number;
}

async function twoBridges(): Promise<TwoBridges> {
  const pair = await startPair();
  const [a, b] = pair.served;
  return {
    a,
    b,
    redisPort: pair.redis.port,
    [Symbol.asyncDispose]: () => pair[Symbol.asyncDispose](),
  };
}

/** A page session opened on `origin` whose fake tab, connected there, registered `search`. */
async function heldSession(origin: string) {
  const token = await openPageSession(origin, "/control-panel");
  const tab = await FakeTab.open(origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: (input) => ({ found: input }) }]);
  return { token, tab };
}

/** Sends one command to Redis over a raw TCP socket; returns its answer as RESP text. */
async function redisCommand(port: number, ...args: string[]): Promise<string> {
  const encoder = new TextEncoder();
  const command = `*${args.length}\r\n` +
    args.map((arg) => `$${encoder.encode(arg).length}\r\n${arg}\r\n`).join("");
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(encoder.encode(command));
    const buffer = new Uint8Array(64 * 1024);
    const n = await conn.read(buffer);
    return new TextDecoder().decode(buffer.subarray(0, n ?? 0));
  } finally {
    conn.close();
  }
}

/** The headers of an MCP session's requests. */
function sessionHeaders(id: string): Record<string, string> {
  return { "Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25" };
}

/** Opens an MCP session on `origin` over plain HTTP (initialize only); returns its id. */
async function initialize(origin: string, token: string): Promise<string> {
  const res = await fetch(endpoint(origin), {
    method: "POST",
    headers: postHeaders(token),
    body: initializeBody(),
  });
  assert.equal(res.status, 200);
  const answer = await res.json();
  assert.equal(answer.result.serverInfo.name, "aim");
  const id = res.headers.get("Mcp-Session-Id");
  assert.ok(id);
  return id;
}

/** Sends one JSON-RPC message of MCP session `id` to `origin`; returns the response, unread. */
function rpc(
  origin: string,
  token: string,
  id: string,
  message: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(endpoint(origin), {
    method: "POST",
    headers: postHeaders(token, sessionHeaders(id)),
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    ...(signal ? { signal } : {}),
  });
}

/** The names of the tools `tools/list` of session `id` on `origin` answers. */
async function toolNames(origin: string, token: string, id: string): Promise<string[]> {
  const res = await rpc(origin, token, id, { id: 2, method: "tools/list" });
  assert.equal(res.status, 200);
  const answer = await res.json();
  return answer.result.tools.map((tool: { name: string }) => tool.name);
}

/** Asserts that session `id` is unknown to `origin` for `token`: 404 and -32001. */
async function assertNotFound(origin: string, token: string, id: string): Promise<void> {
  const res = await rpc(origin, token, id, { id: 3, method: "tools/list" });
  assert.equal(res.status, 404);
  assert.equal((await res.json()).error.code, -32001);
}

/** Reads an SSE stream until a message with `method` arrives; resolves with it. */
async function nextEvent(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  method: string,
): Promise<unknown> {
  const decoder = new TextDecoder();
  let text = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before ${method}`);
    text += decoder.decode(value, { stream: true });
    const events = text.split("\n\n");
    text = events.pop() ?? "";
    for (const event of events) {
      const data = event.split("\n").find((line) => line.startsWith("data: "));
      if (!data) continue;
      const message = JSON.parse(data.slice("data: ".length));
      if (message.method === method) return message;
    }
  }
}

Deno.test("an MCP session opened on one bridge lists and calls tools on another", {
  ignore: NO_CLUSTER,
}, async () => {
  await using bridges = await twoBridges();
  const { a, b } = bridges;
  const { token, tab } = await heldSession(a.url);
  await using _tab = tab;
  const id = await initialize(a.url, token);

  const initialized = await rpc(b.url, token, id, { method: "notifications/initialized" });
  assert.equal(initialized.status, 202);
  await initialized.body?.cancel();
  assert.deepEqual(await toolNames(b.url, token, id), [...BUILTIN, "search", READ_TOOL]);

  const call = await rpc(b.url, token, id, {
    id: 4,
    method: "tools/call",
    params: { name: "search", arguments: { input: "pending" } },
  });
  assert.equal(call.status, 200);
  assert.equal(call.headers.get("Mcp-Session-Id"), id);
  const answer = await call.json();
  assert.equal(answer.id, 4);
  assert.equal(answer.result.isError, undefined);
  assert.deepEqual(answer.result.structuredContent.result, { found: "pending" });
  // The tab connected to the first bridge ran it.
  const invoked = await tab.next("invoke", (m) => m.actionId === "search");
  assert.equal(invoked.input, "pending");

  // And the first bridge still serves the session as before.
  assert.deepEqual(await toolNames(a.url, token, id), [...BUILTIN, "search", READ_TOOL]);
});

Deno.test("an MCP session is kept in Redis with its token's hash, never the token", {
  ignore: NO_CLUSTER,
}, async () => {
  await using bridges = await twoBridges();
  const token = await openPageSession(bridges.a.url, "/control-panel");
  const id = await initialize(bridges.a.url, token);
  const key = `aim:o:mcp:${id}`;
  const kept = await redisCommand(bridges.redisPort, "GET", key);
  const record = JSON.parse(kept.split("\r\n")[1]!);
  assert.equal(record.initialize.method, "initialize");
  assert.equal(record.tokenHash, hashToken(token));
  assert.ok(!kept.includes(token));
  // It expires with the aim session's idle time (an hour by default).
  const ttl = Number((await redisCommand(bridges.redisPort, "PTTL", key)).slice(1));
  assert.ok(ttl > 59 * 60_000 && ttl <= 60 * 60_000, `PTTL ${ttl}`);
});

Deno.test("another token's request with an MCP session id is answered 404 on every bridge", {
  ignore: NO_CLUSTER,
}, async () => {
  await using bridges = await twoBridges();
  const { a, b } = bridges;
  const { token, tab } = await heldSession(a.url);
  await using _tab = tab;
  const id = await initialize(a.url, token);
  const other = await openPageSession(b.url, "/control-panel");

  await assertNotFound(b.url, other, id);
  await assertNotFound(a.url, other, id);
  // Its owner's session is untouched, wherever it asks.
  assert.deepEqual(await toolNames(b.url, token, id), [...BUILTIN, "search", READ_TOOL]);
  await assertNotFound(b.url, other, id);
  assert.deepEqual(await toolNames(a.url, token, id), [...BUILTIN, "search", READ_TOOL]);
});

Deno.test(
  "an MCP session deleted on one bridge is unknown on the other",
  { ignore: NO_CLUSTER },
  async () => {
    await using bridges = await twoBridges();
    const { a, b } = bridges;
    const { token, tab } = await heldSession(a.url);
    await using _tab = tab;
    const id = await initialize(a.url, token);
    assert.deepEqual(await toolNames(a.url, token, id), [...BUILTIN, "search", READ_TOOL]);

    const deleted = await fetch(endpoint(b.url), {
      method: "DELETE",
      headers: { ...sessionHeaders(id), Authorization: `Bearer ${token}` },
    });
    assert.equal(deleted.status, 200);
    await deleted.body?.cancel();

    await assertNotFound(a.url, token, id);
    await assertNotFound(b.url, token, id);
  },
);

Deno.test("a call running on one bridge is cancelled by a notification sent to the other", {
  ignore: NO_CLUSTER,
}, async () => {
  await using bridges = await twoBridges();
  const { a, b } = bridges;
  const { token, tab } = await heldSession(a.url);
  await using _tab = tab;
  tab.answerWith = "never";
  const id = await initialize(a.url, token);
  const invoked = tab.next("invoke", (m) => m.input === "bill-1");
  // Should the cancel not reach it, the call is hung up on, so that the bridges can stop.
  const hangUp = new AbortController();
  const call = rpc(b.url, token, id, {
    id: 7,
    method: "tools/call",
    params: { name: "search", arguments: { input: "bill-1" } },
  }, hangUp.signal);
  call.catch(() => {});
  try {
    const invocation = await invoked;
    const withdrawn = tab.next("cancel", (m) => m.id === invocation.id);

    const cancel = await rpc(a.url, token, id, {
      method: "notifications/cancelled",
      params: { requestId: 7, reason: "Changed my mind" },
    });
    assert.equal(cancel.status, 202);
    await cancel.body?.cancel();

    await within(withdrawn, "the cancel message");
    const answer = await (await within(call, "the cancelled call's answer")).json();
    assert.equal(answer.id, 7);
    assert.equal(answer.error.message, "The request was cancelled.");
  } finally {
    hangUp.abort();
  }
});

Deno.test("a call still waiting when its MCP session is deleted is withdrawn and answered", {
  ignore: NO_CLUSTER,
}, async () => {
  await using bridges = await twoBridges();
  const { a, b } = bridges;
  const { token, tab } = await heldSession(a.url);
  await using _tab = tab;
  tab.answerWith = "never";
  const id = await initialize(a.url, token);
  const invoked = tab.next("invoke", (m) => m.input === "bill-2");
  const hangUp = new AbortController();
  const call = rpc(b.url, token, id, {
    id: 8,
    method: "tools/call",
    params: { name: "search", arguments: { input: "bill-2" } },
  }, hangUp.signal);
  call.catch(() => {});
  try {
    const invocation = await invoked;
    const withdrawn = tab.next("cancel", (m) => m.id === invocation.id);
    const deleted = await fetch(endpoint(b.url), {
      method: "DELETE",
      headers: { ...sessionHeaders(id), Authorization: `Bearer ${token}` },
    });
    assert.equal(deleted.status, 200);
    await deleted.body?.cancel();
    await within(withdrawn, "the cancel message");
    const answer = await (await within(call, "the withdrawn call's answer")).json();
    assert.equal(answer.id, 8);
    assert.equal(answer.error.message, "The request was cancelled.");
  } finally {
    hangUp.abort();
  }
});

Deno.test("an MCP session's GET stream on another bridge hears list_changed", {
  ignore: NO_CLUSTER,
}, async () => {
  await using bridges = await twoBridges();
  const { a, b } = bridges;
  const { token, tab } = await heldSession(a.url);
  await using _tab = tab;
  const id = await initialize(a.url, token);
  const stream = await fetch(endpoint(b.url), {
    headers: {
      ...sessionHeaders(id),
      Authorization: `Bearer ${token}`,
      Accept: "text/event-stream",
    },
  });
  assert.equal(stream.status, 200);
  const reader = stream.body!.getReader();
  try {
    const changed = nextEvent(reader, "notifications/tools/list_changed");
    // The tab, on the first bridge, registers one more action.
    await tab.register([
      { id: "search", handler: (input) => ({ found: input }) },
      { id: "archive", handler: (input) => ({ archived: input }) },
    ]);
    await within(changed, "notifications/tools/list_changed on the other bridge");
    assert.deepEqual(await toolNames(b.url, token, id), [
      ...BUILTIN,
      "search",
      "archive",
      READ_TOOL,
    ]);
  } finally {
    await reader.cancel();
  }
});

for (const kind of CLIENT_KINDS) {
  Deno.test(`the ${kind} client lists and calls tools through a round-robin balancer`, {
    ignore: NO_CLUSTER,
  }, async () => {
    await using site = await tempDir("aim-mcp-cluster-site-");
    writeSite(site.path);
    await using cluster = await startCluster({ root: site.path, instances: 2 });
    const { token, tab } = await heldSession(cluster.origin);
    await using _tab = tab;
    await using client = await connectClient(kind, cluster.origin, token);
    assert.ok(client.sessionId);

    for (let i = 0; i < 4; i++) {
      const tools = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), [...BUILTIN, "search", READ_TOOL]);
      const result = await client.callTool("search", { input: `query-${i}` });
      assert.equal(result.isError, undefined);
      assert.deepEqual(result.structuredContent.result, { found: `query-${i}` });
    }

    // The client's GET stream, on whichever bridge it landed, hears the tools change.
    const changed = client.nextListChanged();
    await tab.register([
      { id: "search", handler: (input) => ({ found: input }) },
      { id: "archive", handler: (input) => ({ archived: input }) },
    ]);
    await changed;
    const tools = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), [...BUILTIN, "search", "archive", READ_TOOL]);
    const archived = await client.callTool("archive", { input: "req-1" });
    assert.deepEqual(archived.structuredContent.result, { archived: "req-1" });
  });
}
