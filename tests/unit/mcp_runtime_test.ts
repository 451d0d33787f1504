/**
 * The MCP SDK loaded on the first MCP request (bridge/mcp/runtime.ts): once, the SDK's
 * transport and initialize check, and the session server built on them.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { loadRuntime } from "../../bridge/mcp/runtime.ts";
import { createSessionServer } from "../../bridge/mcp/server.ts";

Deno.test("loadRuntime() loads the SDK once and hands on its transport, its check and the session server", async () => {
  const first = loadRuntime();
  assert.equal(loadRuntime(), first, "the second request waits on the first load");
  const runtime = await first;
  assert.equal(runtime.Transport, WebStandardStreamableHTTPServerTransport);
  assert.equal(runtime.isInitializeRequest, isInitializeRequest);
  assert.equal(runtime.createSessionServer, createSessionServer);
  assert.equal(
    runtime.isInitializeRequest({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    false,
  );
});
