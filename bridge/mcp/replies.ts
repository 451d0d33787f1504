/**
 * The endpoint's answers outside the SDK (errors as JSON-RPC, 404 for an unknown session, 429
 * when full) and its readings of a request body (`initialize`, progress, size).
 *
 * @module
 */
import { AimError } from "../errors/aim_error.ts";
import type { ActionSpec } from "../wire/schemas.ts";
import type { McpRuntime } from "./runtime.ts";
import { FULL_RETRY_SECONDS, type SharedMcpSession } from "./session.ts";

const NO_STORE = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

/** An HTTP-level refusal in JSON-RPC's shape, as the SDK's transport words its own. */
export function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, {
    status,
    headers: NO_STORE,
  });
}

/** The answer to an MCP session id this bridge does not know, or that another token opened. */
export function sessionNotFound(): Response {
  return rpcError(404, -32001, "Session not found: initialize a new MCP session.");
}

/** A shared document read back, if it has the shape {@linkcode SharedMcpSession} gives it. */
export function asShared(mcp: McpRuntime, value: unknown): SharedMcpSession | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { tokenHash, initialize, touchedAt } = value as Partial<SharedMcpSession>;
  if (typeof tokenHash !== "string" || !mcp.isInitializeRequest(initialize)) return undefined;
  return { tokenHash, initialize, touchedAt: typeof touchedAt === "number" ? touchedAt : 0 };
}

/** The `initialize` request of a POST body that opens a session (alone, or in a batch of one). */
export function initializeOf(mcp: McpRuntime, body: unknown): unknown {
  return Array.isArray(body) ? body.find(mcp.isInitializeRequest) : body;
}

/**
 * How the SDK's transport words a request it refused itself, with a 4xx it answered: the
 * client's mistake, not the bridge's, so not reported as an error (any agent could fill the log).
 */
export const TRANSPORT_REFUSAL =
  /^(Not Acceptable|Unsupported Media Type|Conflict|Bad Request|Invalid Request|Session not found|Method not allowed|Parse error)\b/;

/** The size of a value as JSON, in UTF-8 bytes. */
export function jsonSize(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value) ?? "").length;
}

/** The refusal of an `initialize` for which no MCP session is free to make room. */
export function full(message: string): Response {
  return new AimError("too_many_requests", message, {
    headers: { "Retry-After": String(FULL_RETRY_SECONDS) },
  }).getResponse();
}

/** Whether two action lists are the same specs in the same order (specs are shared objects). */
export function sameActions(a: readonly ActionSpec[], b: readonly ActionSpec[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The `tools/call` request of a body that is one and carries a progress token. */
export function asksForProgress(body: unknown): { id: string | number } | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const message = body as {
    method?: unknown;
    id?: unknown;
    params?: { _meta?: { progressToken?: unknown } };
  };
  if (message.method !== "tools/call") return undefined;
  if (typeof message.id !== "string" && typeof message.id !== "number") return undefined;
  if (message.params?._meta?.progressToken === undefined) return undefined;
  return { id: message.id };
}

/** Whether a POST body is (or holds) an `initialize` request. */
export function opensSession(mcp: McpRuntime, body: unknown): boolean {
  return Array.isArray(body) ? body.some(mcp.isInitializeRequest) : mcp.isInitializeRequest(body);
}
