/**
 * An MCP session as the endpoint holds it, and as the shared store keeps it so that any instance
 * can rebuild it; the endpoint's limits and the cancellation messages between instances.
 *
 * @module
 */
import type {
  Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Session } from "../core/session.ts";
import type { ActionSpec } from "../wire/schemas.ts";

/** One MCP session: its SDK server and transport, and the aim session it is bound to. */
export interface McpSession {
  id?: string;
  readonly session: Session;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** The origin and client address of its latest request. */
  origin: string;
  client: string;
  /** The client address that opened it (or that rebuilt it here): what its bound counts. */
  readonly openedBy: string;
  /** When it was last used, ms since the epoch. */
  usedAt: number;
  /** Whether its GET stream (`list_changed`) is open. */
  listening: boolean;
  /** Calls that asked for progress, served on a stream of their own, by JSON-RPC id. */
  readonly streamed: Map<string | number, AbortController>;
  /** Requests handed to the session's transport and not answered yet, by JSON-RPC id. */
  readonly pending: Set<string | number>;
}

/** The MCP sessions of one aim session, and the actions they last listed. */
export interface SessionGroup {
  readonly members: Set<McpSession>;
  actions: readonly ActionSpec[];
  /** The session's `state_version` when its actions were last compared. */
  version: number;
  /** Stops following the session's changes once its last client is gone. */
  readonly stop: AbortController;
}

/**
 * An MCP session as the shared store keeps it (`put("mcp", id, …)`), for the other instances
 * to rebuild it. Never the token: its hash is enough to tell whose session it is.
 */
export interface SharedMcpSession {
  /** The token hash of the aim session it is bound to. */
  tokenHash: string;
  /** The `initialize` request that opened it, replayed to rebuild it. */
  initialize: unknown;
  /** When it was last written, ms since the epoch (renewed once a quarter of its life passed). */
  touchedAt: number;
}

/** The shared documents' kind. */
export const SHARED_KIND = "mcp";

/**
 * The kind of the shared documents that say which instance runs a `tools/call` (by MCP session
 * and JSON-RPC id), so that a `notifications/cancelled` sent to another instance reaches it.
 */
export const CALL_KIND = "mcp-call";

/** The topic on which an instance tells another to cancel a call it runs. */
export const CANCEL_TOPIC = "mcp-cancel";

/** What {@linkcode CANCEL_TOPIC} carries. */
export interface CancelMessage {
  session: string;
  tokenHash: string;
  requestId: string | number;
  reason?: string | undefined;
}

/** The id of a call's {@linkcode CALL_KIND} document; undefined for an id too long to keep. */
export function callKey(session: string, requestId: string | number): string | undefined {
  const id = JSON.stringify(requestId);
  return id.length > 256 ? undefined : `${session}:${id}`;
}

/** What an MCP session id looks like (`crypto.randomUUID()`): anything else is not looked up. */
export const SESSION_ID_REGEXP = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The headers of the requests replayed to a rebuilt session's transport. */
export const REPLAY_HEADERS = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
} as const;

/**
 * The largest `initialize` request an MCP session may open with, as JSON: it is kept as long as
 * the session (in the shared store too, for other instances to replay it). A client's is some
 * 300 bytes.
 */
export const MAX_INITIALIZE_BYTES = 8 * 1024;

/** What an `initialize` refused for want of room tells the client to wait, in seconds. */
export const FULL_RETRY_SECONDS = 10;

/** The longest one wait for a session's next change lasts before it is renewed, ms. */
export const FOLLOW_MS = 60_000;
