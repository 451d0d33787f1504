/**
 * One `tools/call` that asked for progress, served over an SSE answer of its own: a server and
 * transport for this call only, bound to the MCP session's aim session. The session's transport
 * answers in JSON, which cannot carry the progress notifications that say the person is being
 * asked. A `notifications/cancelled` for the call, sent on the session, still withdraws it.
 *
 * @module
 */
import type { Context } from "hono";
import type { BridgeCore } from "../core/bridge.ts";
import type { AppEnv } from "../http/env.ts";
import type { CallRouter } from "./calls.ts";
import type { McpRuntime } from "./runtime.ts";
import type { McpSession } from "./session.ts";

/** Options of {@linkcode progressStream}. */
export interface ProgressStreamOptions {
  /** The bridge's protocol core. */
  core: BridgeCore;
  /** The MCP session the call was sent on. */
  entry: McpSession;
  /** The call: its JSON-RPC id. */
  call: { id: string | number };
  /** The request's body, already read. */
  body: unknown;
  /** Where the call is announced, for a cancel that reaches another instance. */
  calls: CallRouter;
  /** Called for errors of the call's server. */
  onError: (error: unknown) => void;
}

/** The SSE answer of the call; its end (or the client hanging up) closes the call's server. */
export async function progressStream(
  mcp: McpRuntime,
  c: Context<AppEnv>,
  options: ProgressStreamOptions,
): Promise<Response> {
  const { entry, call } = options;
  const cancel = new AbortController();
  entry.streamed.set(call.id, cancel);
  const withdraw = await options.calls.announce(entry, [call.id]);
  const server = mcp.createSessionServer({
    core: options.core,
    session: entry.session,
    origin: () => entry.origin,
    client: () => entry.client,
    signal: cancel.signal,
    told: entry.told,
  });
  server.onerror = options.onError;
  const transport = new mcp.Transport({
    sessionIdGenerator: undefined,
  });
  await server.connect(transport);
  const response = await transport.handleRequest(c.req.raw, { parsedBody: options.body });
  // The answer is written on the stream; its end closes this call's server.
  const headers = new Headers(response.headers);
  if (entry.id) headers.set("Mcp-Session-Id", entry.id);
  const done = () => {
    if (entry.streamed.get(call.id) === cancel) entry.streamed.delete(call.id);
    withdraw();
    void server.close().catch(() => {});
  };
  if (!response.body) {
    done();
    return new Response(null, { status: response.status, headers });
  }
  // A client that hangs up withdraws its call, as one that hangs up on /__aim/invoke does.
  const transformer = {
    flush: done,
    cancel: () => {
      cancel.abort();
      done();
    },
  } as Transformer<Uint8Array, Uint8Array>;
  const body$ = response.body.pipeThrough(new TransformStream(transformer));
  return new Response(body$, { status: response.status, headers });
}
