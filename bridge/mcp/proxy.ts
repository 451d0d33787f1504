/**
 * An MCP server that forwards to a session's MCP endpoint on a bridge: `aim mcp URL`
 * serves it over stdio for hosts that only launch local commands. The tools, results, errors,
 * progress and `list_changed` notifications are the remote endpoint's own.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
 * import { connectRemote, createProxyServer } from "./proxy.ts";
 *
 * const remote = await connectRemote("http://127.0.0.1:8000/__aim/mcp", Deno.env.get("AIM_TOKEN")!);
 * const server = createProxyServer(remote);
 * await server.connect(new StdioServerTransport());
 * ```
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from "@modelcontextprotocol/server";
import { SERVER_INFO } from "./server.ts";

/**
 * How long a forwarded call may take: a consequential action waits up to the bridge's
 * confirmation timeout (5 minutes) for the person, and then some.
 */
export const CALL_TIMEOUT_MS = 6 * 60_000;

/** Connects an MCP client to the endpoint at `url` with the session token. */
export async function connectRemote(url: string | URL, token: string): Promise<Client> {
  const client = new Client({ name: "aim-mcp-proxy", version: SERVER_INFO.version });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A protocol error of the remote endpoint, passed on as it is; anything else as internal. */
function forwardError(error: unknown): never {
  if (error instanceof ProtocolError) throw error;
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof code === "number" && Number.isInteger(code)) {
    throw new ProtocolError(code, String(message), data);
  }
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `The bridge did not answer: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/** The MCP server that forwards `tools/list` and `tools/call` to `remote`. */
export function createProxyServer(remote: Client): Server {
  const instructions = remote.getInstructions();
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    ...(instructions === undefined ? {} : { instructions }),
  });
  server.setRequestHandler("tools/list", async (request) => {
    try {
      return await remote.listTools(request.params, { cacheMode: "bypass" });
    } catch (error) {
      forwardError(error);
    }
  });
  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    const { progressToken, ...meta } = request.params._meta ?? {};
    try {
      return await remote.callTool({ ...request.params, _meta: meta }, {
        signal: ctx.mcpReq.signal,
        timeout: CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        // The remote's progress (the person is being asked) reaches a client that asked for it.
        ...(progressToken === undefined ? {} : {
          onprogress: (progress) => {
            ctx.mcpReq.notify({
              method: "notifications/progress",
              params: { ...progress, progressToken },
            }).catch(() => {});
          },
        }),
      }) as CallToolResult;
    } catch (error) {
      forwardError(error);
    }
  });
  remote.setNotificationHandler("notifications/tools/list_changed", () => {
    server.sendToolListChanged().catch(() => {});
  });
  return server;
}
