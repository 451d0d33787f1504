/**
 * @module The MCP endpoint `/__aim/mcp`: MCP Streamable HTTP (the official SDK's transport),
 * one stateful MCP session per client, bound to the aim session whose token opened it. Clients
 * that hold the session's GET stream hear `notifications/tools/list_changed` when the session's
 * actions change (sign-in, sign-out, the tab navigating).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { McpEndpoint } from "./routes.ts";
 *
 * // core: a BridgeCore; app: the bridge's hono app (AppEnv)
 * const mcp = new McpEndpoint(core);
 * app.route("/", mcp.routes);
 * // ... and when the bridge stops:
 * await mcp.close();
 * ```
 */
import { type Context, Hono } from "hono";
import {
  isInitializeRequest,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/sessions.ts";
import { AimError } from "../protocol/errors.ts";
import type { ActionSpec } from "../protocol/schemas.ts";
import type { AppEnv } from "../http/env.ts";
import { forbiddenOrigin, isCrossOrigin, readBearer, readJson } from "../http/request.ts";
import { createSessionServer } from "./server.ts";

/** Where the endpoint is. */
export const MCP_PATH = "/__aim/mcp";

/** Options of {@linkcode McpEndpoint}. */
export interface McpEndpointOptions {
  /** MCP sessions one aim session may hold; past it, its oldest is closed. @default 8 */
  maxPerSession?: number;
  /** MCP sessions held in all; past it, the oldest is closed. @default 4096 */
  maxSessions?: number;
  /** Called for errors that are not protocol errors (bugs). */
  onError?: ((error: unknown) => void) | undefined;
}

/** One MCP session: its SDK server and transport, and the aim session it is bound to. */
interface McpSession {
  id?: string;
  readonly session: Session;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** The origin and client address of its latest request. */
  origin: string;
  client: string;
  /** Calls that asked for progress, served on a stream of their own, by JSON-RPC id. */
  readonly streamed: Map<string | number, AbortController>;
  /** Requests handed to the session's transport and not answered yet, by JSON-RPC id. */
  readonly pending: Set<string | number>;
}

/** The MCP sessions of one aim session, and the actions they last listed. */
interface SessionGroup {
  readonly members: Set<McpSession>;
  actions: readonly ActionSpec[];
  /** The session's `state_version` when its actions were last compared. */
  version: number;
  /** Stops following the session's changes once its last client is gone. */
  readonly stop: AbortController;
}

/** The longest one wait for a session's next change lasts before it is renewed, ms. */
const FOLLOW_MS = 60_000;

const NO_STORE = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

/** An aim error as the bridge answers it everywhere (401, 403, 405). */
function aimError(error: AimError): Response {
  return Response.json(error.toJSON(), {
    status: error.status,
    headers: { ...NO_STORE, ...error.headers },
  });
}

/** An HTTP-level refusal in JSON-RPC's shape, as the SDK's transport words its own. */
function rpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, {
    status,
    headers: NO_STORE,
  });
}

/** Whether two action lists are the same specs in the same order (specs are shared objects). */
function sameActions(a: readonly ActionSpec[], b: readonly ActionSpec[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The `tools/call` request of a body that is one and carries a progress token. */
function asksForProgress(body: unknown): { id: string | number } | undefined {
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
function opensSession(body: unknown): boolean {
  return Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
}

/**
 * The MCP endpoint of a bridge: its routes, the MCP sessions they hold, and, per aim session
 * with clients, a follower of its changes that tells them when its tools change.
 */
export class McpEndpoint {
  /** The route group to mount on the bridge's app. */
  readonly routes: Hono<AppEnv>;
  readonly #core: BridgeCore;
  readonly #byId = new Map<string, McpSession>();
  readonly #groups = new Map<Session, SessionGroup>();
  readonly #maxPerSession: number;
  readonly #maxSessions: number;
  readonly #onError: ((error: unknown) => void) | undefined;

  constructor(core: BridgeCore, options: McpEndpointOptions = {}) {
    this.#core = core;
    this.#maxPerSession = options.maxPerSession ?? 8;
    this.#maxSessions = options.maxSessions ?? 4096;
    this.#onError = options.onError;
    this.routes = new Hono<AppEnv>();
    this.routes.all(MCP_PATH, (c) => this.#handle(c));
  }

  /** MCP sessions held now. */
  get size(): number {
    return this.#byId.size;
  }

  /** Closes every MCP session: their streams end, and no session is followed any more. */
  async close(): Promise<void> {
    const all = [...this.#byId.values()];
    await Promise.all(all.map((entry) => this.#drop(entry)));
  }

  async #handle(c: Context<AppEnv>): Promise<Response> {
    // The Host check ran before (the app's first middleware); Origin, when a browser sends one,
    // must be the bridge's own.
    if (isCrossOrigin(c, c.get("origin"))) return aimError(forbiddenOrigin());
    let session: Session;
    try {
      // The token comes from the Authorization header only: never a cookie, never the URL.
      session = await this.#core.authenticate(readBearer(c));
    } catch (error) {
      if (error instanceof AimError) return aimError(error);
      throw error;
    }
    const method = c.req.method;
    if (method !== "POST" && method !== "GET" && method !== "DELETE") {
      return aimError(
        new AimError(405, "method_not_allowed", "Use POST, GET or DELETE here (MCP).", {
          headers: { Allow: "GET, POST, DELETE" },
        }),
      );
    }
    let parsedBody: unknown;
    if (method === "POST") {
      try {
        // Bounded in size, time and depth, like every body the bridge reads.
        parsedBody = await readJson(
          c,
          this.#core.limits.maxBodyBytes,
          this.#core.limits.bodyTimeoutMs,
        );
      } catch (error) {
        if (!(error instanceof AimError)) throw error;
        const contentType = c.req.header("Content-Type") ?? "";
        if (error.status === 400 && !/^application\/json\s*(;|$)/i.test(contentType)) {
          return rpcError(415, -32000, `Unsupported Media Type: ${error.message}`);
        }
        return rpcError(error.status, error.status === 400 ? -32700 : -32000, error.message);
      }
    }
    const id = c.req.header("Mcp-Session-Id");
    if (id !== undefined) {
      const entry = this.#byId.get(id);
      // Another token's MCP session is answered as a missing one: its existence is not told.
      if (!entry || entry.session !== session) {
        return rpcError(404, -32001, "Session not found: initialize a new MCP session.");
      }
      entry.origin = c.get("origin");
      entry.client = c.get("client");
      const progressCall = asksForProgress(parsedBody);
      if (progressCall) return await this.#stream(c, entry, progressCall, parsedBody);
      return await this.#forward(c, entry, parsedBody);
    }
    if (method === "POST" && opensSession(parsedBody)) {
      return await this.#open(c, session, parsedBody);
    }
    return rpcError(
      400,
      -32000,
      "Bad Request: no Mcp-Session-Id; send initialize first and then the session id it returns.",
    );
  }

  /** Opens an MCP session for `session` with the `initialize` request in `body`. */
  async #open(c: Context<AppEnv>, session: Session, body: unknown): Promise<Response> {
    // Its server and transport are set below; their callbacks read the entry when they run.
    const entry = {
      session,
      origin: c.get("origin"),
      client: c.get("client"),
      streamed: new Map(),
      pending: new Set(),
    } as unknown as McpSession;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      // One JSON answer per request: no stream to set up and read, on either side. A call that
      // asks for progress is served on a stream of its own (see #stream).
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        entry.id = id;
        this.#add(entry);
      },
      onsessionclosed: () => void this.#drop(entry),
    });
    const server = createSessionServer({
      core: this.#core,
      session,
      origin: () => entry.origin,
      client: () => entry.client,
    });
    server.onerror = (error) => this.#onError?.(error);
    Object.assign(entry, { server, transport });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw, { parsedBody: body });
    // A refused initialize leaves nothing behind.
    if (entry.id === undefined) await server.close().catch(() => {});
    return response;
  }

  /**
   * Serves one `tools/call` that asked for progress over an SSE answer of its own: a server and
   * transport for this call only, bound to the same aim session. The session's transport
   * answers in JSON, which cannot carry the progress notifications that say the person is being
   * asked. A `notifications/cancelled` for the call, sent on the session, still withdraws it.
   */
  async #stream(
    c: Context<AppEnv>,
    entry: McpSession,
    call: { id: string | number },
    body: unknown,
  ): Promise<Response> {
    const cancel = new AbortController();
    entry.streamed.set(call.id, cancel);
    const server = createSessionServer({
      core: this.#core,
      session: entry.session,
      origin: () => entry.origin,
      client: () => entry.client,
      signal: cancel.signal,
    });
    server.onerror = (error) => this.#onError?.(error);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw, { parsedBody: body });
    // The answer is written on the stream; its end closes this call's server.
    const headers = new Headers(response.headers);
    if (entry.id) headers.set("Mcp-Session-Id", entry.id);
    const done = () => {
      if (entry.streamed.get(call.id) === cancel) entry.streamed.delete(call.id);
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

  /**
   * Hands a request to the MCP session's transport, which answers in JSON. A request that is
   * cancelled (`notifications/cancelled`), or whose client hangs up, withdraws its invocation
   * and is answered with an error, so that no HTTP exchange waits for an answer that never comes.
   */
  async #forward(c: Context<AppEnv>, entry: McpSession, body: unknown): Promise<Response> {
    const messages = Array.isArray(body) ? body : [body];
    const ids: (string | number)[] = [];
    const cancelled: (string | number)[] = [];
    for (const message of messages) {
      const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
      if (typeof m?.method !== "string") continue;
      if (typeof m.id === "string" || typeof m.id === "number") ids.push(m.id);
      const target = m.params?.requestId;
      if (
        m.method === "notifications/cancelled" &&
        (typeof target === "string" || typeof target === "number")
      ) {
        entry.streamed.get(target)?.abort();
        cancelled.push(target);
      }
    }
    for (const id of ids) entry.pending.add(id);
    const hangUp = () => {
      for (const id of ids) {
        // As if the client had cancelled: the handler's signal withdraws the invocation.
        entry.transport.onmessage?.({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason: "The client hung up." },
        });
        this.#answerCancelled(entry, id);
      }
    };
    const signal = c.req.raw.signal;
    signal.addEventListener("abort", hangUp, { once: true });
    try {
      const response = await entry.transport.handleRequest(c.req.raw, { parsedBody: body });
      for (const id of cancelled) this.#answerCancelled(entry, id);
      return response;
    } finally {
      signal.removeEventListener("abort", hangUp);
      for (const id of ids) entry.pending.delete(id);
    }
  }

  /** Answers a cancelled request that still waits, which the SDK leaves unanswered. */
  #answerCancelled(entry: McpSession, id: string | number): void {
    if (!entry.pending.has(id)) return;
    entry.transport.send({
      jsonrpc: "2.0",
      id,
      error: { code: -32000, message: "The request was cancelled." },
    }).catch(() => {});
  }

  #add(entry: McpSession): void {
    const { session } = entry;
    let group = this.#groups.get(session);
    if (!group) {
      group = {
        members: new Set(),
        actions: this.#core.sessionActions(session),
        version: session.version,
        stop: new AbortController(),
      };
      this.#groups.set(session, group);
      void this.#follow(session, group).catch((error) => this.#onError?.(error));
    }
    group.members.add(entry);
    this.#byId.set(entry.id!, entry);
    // A client that opens session after session without closing them holds only so many.
    if (group.members.size > this.#maxPerSession) {
      void this.#drop(group.members.values().next().value!);
    }
    if (this.#byId.size > this.#maxSessions) void this.#drop(this.#byId.values().next().value!);
  }

  async #drop(entry: McpSession): Promise<void> {
    if (entry.id === undefined || this.#byId.get(entry.id) !== entry) return;
    this.#byId.delete(entry.id);
    const group = this.#groups.get(entry.session);
    group?.members.delete(entry);
    if (group?.members.size === 0) {
      this.#groups.delete(entry.session);
      group.stop.abort();
    }
    // Closing the server closes its transport: the client's streams end.
    await entry.server.close().catch((error) => this.#onError?.(error));
  }

  /**
   * Follows one session's changes while it has MCP clients: on each new version, compares its
   * actions with what the clients last listed and tells them when they differ; closes the MCP
   * sessions once the aim session ends. Woken by the change itself, not by polling.
   */
  async #follow(session: Session, group: SessionGroup): Promise<void> {
    const { signal } = group.stop;
    while (!signal.aborted) {
      await session.waitForChange(group.version, FOLLOW_MS, signal);
      if (signal.aborted) return;
      if (session.ended) {
        // After the task that ended it: a `disconnect` called over MCP gets its answer first.
        setTimeout(() => {
          for (const entry of [...group.members]) void this.#drop(entry);
        }, 0);
        return;
      }
      // Nothing the session shows changed: its actions did not either.
      if (session.version === group.version) continue;
      group.version = session.version;
      const actions = this.#core.sessionActions(session);
      if (sameActions(actions, group.actions)) continue;
      group.actions = actions;
      for (const entry of group.members) {
        entry.server.sendToolListChanged().catch((error) => this.#onError?.(error));
      }
    }
  }
}
