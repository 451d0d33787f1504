/**
 * Finding an MCP session across instances (bridge/mcp/rebuild.ts), imported directly with a fake
 * host and an in-memory shared store, and the SDK's own server and transport for a rebuild: each
 * case of `find()` (alone, held here, another token's, an id of no UUID, a shared record gone,
 * another token's record, an old record renewed) and a rebuild that replays `initialize`, that
 * concurrent requests share, and that fails closed.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Context } from "hono";
import { Server } from "@modelcontextprotocol/server";
import { McpRebuilder, type RebuildHost } from "../../bridge/mcp/rebuild.ts";
import { loadRuntime } from "../../bridge/mcp/runtime.ts";
import { type McpSession, SHARED_KIND } from "../../bridge/mcp/session.ts";
import type { BridgeCore } from "../../bridge/core/bridge.ts";
import type { Session } from "../../bridge/core/session.ts";
import type { AppEnv } from "../../bridge/http/env.ts";

const mcp = await loadRuntime();
const ID = "0b8e1c9a-3f4d-4e2a-9c1b-2d3e4f5a6b7c";
const IDLE_MS = 60_000;
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
const c = { req: { url: "http://127.0.0.1/__aim/mcp" } } as unknown as Context<AppEnv>;

/** A fake endpoint over an in-memory store; what it dropped and added. */
function hostOf(shared: boolean, options: { initialize?: unknown; opensAs?: string } = {}) {
  const docs = new Map<string, unknown>();
  const puts: unknown[] = [];
  const byId = new Map<string, McpSession>();
  const dropped: [McpSession, boolean][] = [];
  const errors: unknown[] = [];
  let built = 0;
  const share = {
    shared,
    get: (kind: string, id: string) => Promise.resolve(docs.get(`${kind}/${id}`) ?? null),
    put: (kind: string, id: string, value: unknown) => {
      puts.push(value);
      docs.set(`${kind}/${id}`, value);
      return Promise.resolve();
    },
  };
  const host: RebuildHost = {
    core: { share, sessions: { idleMs: IDLE_MS } } as unknown as BridgeCore,
    byId,
    drop: (entry, { forget }) => {
      dropped.push([entry, forget]);
      byId.delete(entry.id!);
      return Promise.resolve();
    },
    entry: (runtime, _c, session, { id }) => {
      built++;
      const entry = { session, streamed: new Map(), pending: new Set() } as unknown as McpSession;
      const transport = new runtime.Transport({
        sessionIdGenerator: options.opensAs ? () => options.opensAs! : id,
        enableJsonResponse: true,
        onsessioninitialized: (opened) => void (entry.id = opened),
      });
      const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
      return Object.assign(entry, { transport, server });
    },
    add: (entry) => void byId.set(entry.id!, entry),
    onError: (error) => errors.push(error),
  };
  const record = (tokenHash: string, touchedAt = Date.now(), id = ID) =>
    docs.set(`${SHARED_KIND}/${id}`, {
      tokenHash,
      initialize: options.initialize ?? INITIALIZE,
      touchedAt,
    });
  return { host, docs, puts, byId, dropped, errors, record, built: () => built };
}

const session = (tokenHash: string) => ({ tokenHash }) as unknown as Session;
const held = (s: Session, id = ID) => ({ id, session: s }) as unknown as McpSession;

Deno.test("find() alone answers only this instance's session of the same aim session", async () => {
  const { host, byId } = hostOf(false);
  const mine = session("h1");
  byId.set(ID, held(mine));
  const rebuilder = new McpRebuilder(host);
  assert.equal(await rebuilder.find(mcp, c, ID, mine), byId.get(ID));
  assert.equal(await rebuilder.find(mcp, c, ID, session("h1")), undefined, "another copy");
  assert.equal(await rebuilder.find(mcp, c, "other", mine), undefined);
});

Deno.test("find() with a shared store answers nothing for another token, an id of no UUID, or a record gone or another token's", async () => {
  const cases: [string, (t: ReturnType<typeof hostOf>) => void, string, Session][] = [
    ["another token's held session", (t) => t.byId.set(ID, held(session("h2"))), ID, session("h1")],
    ["an id of no UUID", (t) => t.record("h1", Date.now(), "../x"), "../x", session("h1")],
    [
      "an upper-case id",
      (t) => t.record("h1", Date.now(), ID.toUpperCase()),
      ID.toUpperCase(),
      session("h1"),
    ],
    ["no record", () => {}, ID, session("h1")],
    ["another token's record", (t) => t.record("h2"), ID, session("h1")],
    [
      "a record that fits no shape",
      (t) => t.docs.set(`${SHARED_KIND}/${ID}`, { tokenHash: "h1" }),
      ID,
      session("h1"),
    ],
  ];
  for (const [name, given, id, caller] of cases) {
    const t = hostOf(true);
    given(t);
    assert.equal(await new McpRebuilder(t.host).find(mcp, c, id, caller), undefined, name);
    assert.equal(t.built(), 0, name);
  }
  // Another token's held session is left as it is.
  const t = hostOf(true);
  t.byId.set(ID, held(session("h2")));
  await new McpRebuilder(t.host).find(mcp, c, ID, session("h1"));
  assert.deepEqual(t.dropped, []);
});

Deno.test("find() drops this instance's copy when the shared record is gone, and renews an old record", async () => {
  const gone = hostOf(true);
  const mine = session("h1");
  const entry = held(mine);
  gone.byId.set(ID, entry);
  assert.equal(await new McpRebuilder(gone.host).find(mcp, c, ID, mine), undefined);
  assert.deepEqual(gone.dropped, [[entry, false]]);
  const kept = hostOf(true);
  kept.byId.set(ID, entry);
  kept.record("h1");
  assert.equal(await new McpRebuilder(kept.host).find(mcp, c, ID, mine), entry);
  assert.deepEqual(kept.puts, [], "touched recently: not written again");
  const old = hostOf(true);
  old.byId.set(ID, entry);
  old.record("h1", Date.now() - IDLE_MS / 4 - 1000);
  const before = Date.now();
  assert.equal(await new McpRebuilder(old.host).find(mcp, c, ID, mine), entry);
  assert.equal(old.puts.length, 1);
  assert.ok((old.puts[0] as { touchedAt: number }).touchedAt >= before);
});

Deno.test("find() rebuilds a session another instance opened, once for requests that arrive together", async () => {
  const t = hostOf(true);
  t.record("h1");
  const mine = session("h1");
  const rebuilder = new McpRebuilder(t.host);
  const [a, b] = await Promise.all([
    rebuilder.find(mcp, c, ID, mine),
    rebuilder.find(mcp, c, ID, mine),
  ]);
  assert.ok(a);
  assert.equal(a, b);
  assert.equal(a.id, ID, "the same id as on the instance that opened it");
  assert.equal(t.built(), 1);
  assert.equal(t.byId.get(ID), a);
  // The rebuilt transport answers requests of the session as an initialized one.
  const listed = await a.transport.handleRequest(
    new Request(c.req.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "Mcp-Session-Id": ID,
        "Mcp-Protocol-Version": "2025-06-18",
      },
    }),
    { parsedBody: { jsonrpc: "2.0", id: 2, method: "ping" } },
  );
  assert.equal(listed.status, 200);
  assert.deepEqual(await listed.json(), { jsonrpc: "2.0", id: 2, result: {} });
  // A copy of the aim session that replaced the old one gets the MCP session rebuilt on it.
  const replaced = session("h1");
  const again = await rebuilder.find(mcp, c, ID, replaced);
  assert.equal(again?.session, replaced);
  assert.deepEqual(t.dropped.map(([e, forget]) => [e === a, forget]), [[true, false]]);
  await a.server.close();
  await again?.server.close();
});

Deno.test("find() fails closed when the replayed initialize opens another session, and says why", async () => {
  const t = hostOf(true, { opensAs: crypto.randomUUID() });
  t.record("h1");
  assert.equal(await new McpRebuilder(t.host).find(mcp, c, ID, session("h1")), undefined);
  assert.equal(t.byId.size, 0, "nothing half initialized is held");
  assert.equal(t.errors.length, 1);
  assert.match(
    String(t.errors[0]),
    /The MCP session could not be rebuilt: initialize was answered 200/,
  );
});
