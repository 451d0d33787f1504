/**
 * The MCP server of `aim mcp` that forwards to a bridge's endpoint (bridge/mcp/proxy.ts),
 * imported directly and reached by the SDK's own client over an in-memory transport, with a fake
 * remote: the remote's instructions, tools and results passed on, each kind of error (a
 * protocol error as it is, a coded error with its code, anything else as internal), progress
 * forwarded only to a client that asked with its own token, and `list_changed` passed on. Over
 * stdio against a real bridge: tests/mcp/stdio_test.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { CALL_TIMEOUT_MS, createProxyServer } from "../../bridge/mcp/proxy.ts";

interface CallOptions {
  timeout?: number;
  resetTimeoutOnProgress?: boolean;
  onprogress?: (progress: { progress: number; message?: string }) => void;
}

/** A fake remote endpoint: what it was called with, and what it answers. */
function remoteOf(
  answer: (params: Record<string, unknown>, options: CallOptions) => Promise<unknown>,
) {
  const calls: [Record<string, unknown>, CallOptions][] = [];
  let listChanged: (() => void) | undefined;
  const remote = {
    getInstructions: () => "Use the page's actions.",
    listTools: () =>
      Promise.resolve({ tools: [{ name: "search", inputSchema: { type: "object" } }] }),
    callTool: (params: Record<string, unknown>, options: CallOptions) => {
      calls.push([params, options]);
      return answer(params, options);
    },
    setNotificationHandler: (_method: string, handler: () => void) => void (listChanged = handler),
  };
  return { remote, calls, listChanged: () => listChanged?.() };
}

/** The proxy over `remote`, and an SDK client connected to it. */
async function connect(remote: ReturnType<typeof remoteOf>["remote"]) {
  const server = createProxyServer(remote as never);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  return Object.assign(client, {
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  });
}

Deno.test("the proxy passes on the remote's instructions, tools and results, without the client's progress token", async () => {
  const fake = remoteOf(() => Promise.resolve({ content: [{ type: "text", text: "ok" }] }));
  await using client = await connect(fake.remote);
  assert.equal(client.getInstructions(), "Use the page's actions.");
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["search"]);
  const result = await client.callTool({ name: "search", arguments: { q: "a" } });
  assert.deepEqual(result.content, [{ type: "text", text: "ok" }]);
  const [params, options] = fake.calls[0]!;
  assert.deepEqual([params.name, params.arguments], ["search", { q: "a" }]);
  assert.equal(options.timeout, CALL_TIMEOUT_MS);
  assert.equal(options.resetTimeoutOnProgress, true);
  assert.equal(options.onprogress, undefined, "no progress asked: none forwarded");
});

Deno.test("the proxy forwards the remote's progress to a client that asked, under the client's own token", async () => {
  const fake = remoteOf((_params, options) => {
    options.onprogress?.({ progress: 1, message: "Asking the person." });
    return Promise.resolve({ content: [] });
  });
  await using client = await connect(fake.remote);
  const seen: unknown[] = [];
  await client.callTool({ name: "approve", arguments: {} }, { onprogress: (p) => seen.push(p) });
  assert.deepEqual(seen, [{ progress: 1, message: "Asking the person." }]);
  const [params] = fake.calls[0]!;
  assert.equal(
    (params._meta as Record<string, unknown>)?.progressToken,
    undefined,
    "the remote gets its own",
  );
});

Deno.test("the proxy passes each remote error on: a protocol error as it is, a coded one with its code, any other as internal", async () => {
  const cases: [unknown, number, RegExp][] = [
    [
      new ProtocolError(ProtocolErrorCode.InvalidParams, "Unknown tool x"),
      ProtocolErrorCode.InvalidParams,
      /Unknown tool x/,
    ],
    [{ code: -32001, message: "Session not found" }, -32001, /Session not found/],
    [
      new TypeError("fetch failed"),
      ProtocolErrorCode.InternalError,
      /The bridge did not answer: fetch failed/,
    ],
    [{ code: 1.5, message: "odd" }, ProtocolErrorCode.InternalError, /The bridge did not answer/],
  ];
  for (const [thrown, code, message] of cases) {
    const fake = remoteOf(() => Promise.reject(thrown));
    await using client = await connect(fake.remote);
    const error = await client.callTool({ name: "x", arguments: {} }).catch((e) => e);
    assert.equal(error?.code, code, String(message));
    assert.match(String(error?.message), message);
  }
});

Deno.test("the proxy tells its client when the remote's tools changed", async () => {
  const fake = remoteOf(() => Promise.resolve({ content: [] }));
  await using client = await connect(fake.remote);
  const changed = Promise.withResolvers<void>();
  client.setNotificationHandler("notifications/tools/list_changed", () => changed.resolve());
  fake.listChanged();
  await changed.promise;
});
