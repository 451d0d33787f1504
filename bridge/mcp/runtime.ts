/**
 * The MCP SDK's server side, loaded on the first MCP request: what the endpoint uses of it.
 *
 * @module
 */
import type {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { createSessionServer } from "./server.ts";

/** What the endpoint uses of the MCP SDK, and the session server built on it. */
export interface McpRuntime {
  readonly isInitializeRequest: typeof isInitializeRequest;
  readonly Transport: typeof WebStandardStreamableHTTPServerTransport;
  readonly createSessionServer: typeof createSessionServer;
}

let runtime: Promise<McpRuntime> | undefined;

/**
 * The MCP SDK, loaded once, by the first request to the endpoint that is authenticated and
 * readable: it costs some 10 MB resident, which a bridge that no MCP client uses never pays
 * (the budget: 10,000 idle sessions with connected tabs under 300 MB). The specifiers are
 * static strings, so that `deno compile` embeds the SDK all the same; tests/mcp/lazy_sdk_test.ts
 * fails if a static import brings it back into the bridge's module graph.
 */
export function loadRuntime(): Promise<McpRuntime> {
  runtime ??= Promise.all([import("@modelcontextprotocol/server"), import("./server.ts")]).then(
    ([sdk, server]) => ({
      isInitializeRequest: sdk.isInitializeRequest,
      Transport: sdk.WebStandardStreamableHTTPServerTransport,
      createSessionServer: server.createSessionServer,
    }),
    (error) => {
      // Tried again by the next request.
      runtime = undefined;
      throw error;
    },
  );
  return runtime;
}
