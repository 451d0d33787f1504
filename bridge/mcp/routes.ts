/**
 * The MCP endpoint `/__aim/mcp`: MCP Streamable HTTP (the official SDK's transport),
 * one stateful MCP session per client, bound to the aim session whose token opened it. Clients
 * that hold the session's GET stream hear `notifications/tools/list_changed` when the session's
 * actions change (sign-in, sign-out, the tab navigating).
 *
 * Behind a load balancer (a shared store: `core.share.shared`), any instance serves any MCP
 * session. Its opening is kept in the store (the hash of its aim session's token and the
 * `initialize` request, never the token); an instance sent a session it does not hold rebuilds
 * it from there (same id, a new server, the `initialize` replayed to a new transport), and
 * every instance reads that record on each request, so that a session closed on one instance
 * is closed on all.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { BridgeCore } from "../core/bridge.ts";
 * import type { AppEnv } from "../http/env.ts";
 * import { McpEndpoint } from "./routes.ts";
 *
 * const core = new BridgeCore({ root: "site" });
 * const app = new Hono<AppEnv>();
 * const mcp = new McpEndpoint(core);
 * app.route("/", mcp.routes);
 * // ... and when the bridge stops:
 * await mcp.close();
 * ```
 *
 * @module
 */
import { type Context, Hono } from "hono";
import type { BridgeCore } from "../core/bridge.ts";
import { holdingSlot } from "../core/streams.ts";
import type { Session } from "../core/session.ts";
import { AimError } from "../errors/aim_error.ts";
import type { AppEnv } from "../http/env.ts";
import { watchHangUp } from "../http/hang_up.ts";
import {
  forbiddenOrigin,
  isCrossOrigin,
  readBearer,
  readJson,
  remoteAddress,
} from "../http/request.ts";
import { ToldStates } from "./answers.ts";
import { answerCancelled, CallRouter, withdrawCall } from "./calls.ts";
import { loadRuntime, type McpRuntime } from "./runtime.ts";
import { McpRebuilder } from "./rebuild.ts";
import {
  MAX_INITIALIZE_BYTES,
  type McpSession,
  SHARED_KIND,
  type SharedMcpSession,
} from "./session.ts";
import { McpSessions } from "./sessions.ts";
import { progressStream } from "./progress.ts";
import {
  asksForProgress,
  initializeOf,
  jsonSize,
  opensSession,
  rpcError,
  sessionNotFound,
  TRANSPORT_REFUSAL,
} from "./replies.ts";

/** Where the endpoint is. */
export const MCP_PATH = "/__aim/mcp";

/**
 * Options of {@linkcode McpEndpoint}. Behind a load balancer the bounds are per instance: each
 * counts the MCP sessions this instance holds (opened here or rebuilt here).
 *
 * Past a bound, a new MCP session takes the place of a *free* one: no request of it under way,
 * and unused (no GET stream open either) for `quietMs`, or, for the aim session's own bound,
 * last used by the same client address. With none free, the `initialize` is refused with 429 and
 * `Retry-After`: one client never closes a session another one is using.
 */
export interface McpEndpointOptions {
  /**
   * MCP sessions one aim session (one token) may hold.
   *
   * @default {8}
   */
  maxPerSession?: number;
  /**
   * MCP sessions opened from one client address that may be held.
   *
   * @default {512}
   */
  maxPerClient?: number;
  /**
   * MCP sessions held in all.
   *
   * @default {4096}
   */
  maxSessions?: number;
  /**
   * How long an MCP session must be unused before another client's may take its place, ms.
   *
   * @default {300_000}
   */
  quietMs?: number;
  /** Called for errors that are not protocol errors (bugs). */
  onError?: ((error: unknown) => void) | undefined;
}

/** The defaults of {@linkcode McpEndpointOptions}, as its `@default` tags say. */
export const MCP_DEFAULTS: Readonly<Required<Omit<McpEndpointOptions, "onError">>> = {
  maxPerSession: 8,
  maxPerClient: 512,
  maxSessions: 4096,
  quietMs: 300_000,
};

/**
 * The MCP endpoint of a bridge: its routes, the MCP sessions they hold, and, per aim session
 * with clients, a follower of its changes that tells them when its tools change.
 */
export class McpEndpoint {
  /** The route group to mount on the bridge's app. */
  readonly routes: Hono<AppEnv>;
  readonly #core: BridgeCore;
  /** The MCP sessions held here, within their bounds. */
  readonly #sessions: McpSessions;
  /** Where each call runs, for cancels that reach another instance. */
  readonly #calls: CallRouter;
  /** Finds MCP sessions across instances, rebuilding those opened elsewhere. */
  readonly #rebuilder: McpRebuilder;
  readonly #onError: ((error: unknown) => void) | undefined;

  /** The endpoint of `core`, with no MCP session yet. */
  constructor(core: BridgeCore, options: McpEndpointOptions = {}) {
    this.#core = core;
    this.#onError = options.onError;
    this.#sessions = new McpSessions(core, {
      maxPerSession: options.maxPerSession ?? MCP_DEFAULTS.maxPerSession,
      maxPerClient: options.maxPerClient ?? MCP_DEFAULTS.maxPerClient,
      maxSessions: options.maxSessions ?? MCP_DEFAULTS.maxSessions,
      quietMs: options.quietMs ?? MCP_DEFAULTS.quietMs,
      onError: this.#onError,
    });
    const byId = this.#sessions.byId;
    this.#calls = new CallRouter(core, { find: (id) => byId.get(id), onError: this.#onError });
    this.#rebuilder = new McpRebuilder({
      core,
      byId,
      drop: (entry, options) => this.#sessions.drop(entry, options),
      entry: (mcp, c, session, options) => this.#entry(mcp, c, session, options),
      add: (entry) => this.#sessions.add(entry),
      onError: this.#onError,
    });
    this.routes = new Hono<AppEnv>();
    this.routes.all(MCP_PATH, (c) => this.#handle(c));
  }

  /** MCP sessions held now. */
  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Closes every MCP session this instance holds: their streams end, and no session is
   * followed any more. Behind a load balancer they live on: other instances rebuild them.
   */
  async close(): Promise<void> {
    const all = [...this.#sessions.byId.values()];
    await Promise.all(all.map((entry) => this.#sessions.drop(entry, { forget: false })));
  }

  async #handle(c: Context<AppEnv>): Promise<Response> {
    // The Host check ran before (the app's first middleware); Origin, when a browser sends one,
    // must be the bridge's own.
    if (isCrossOrigin(c, c.get("origin"))) return forbiddenOrigin().getResponse();
    let session: Session;
    try {
      // The token comes from the Authorization header only: never a cookie, never the URL.
      session = await this.#core.authenticate(readBearer(c));
    } catch (error) {
      if (error instanceof AimError) return error.getResponse();
      throw error;
    }
    const method = c.req.method;
    if (method !== "POST" && method !== "GET" && method !== "DELETE") {
      return new AimError("method_not_allowed", "Use POST, GET or DELETE here (MCP).", {
        headers: { Allow: "GET, POST, DELETE" },
      }).getResponse();
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
    const mcp = await loadRuntime();
    const id = c.req.header("Mcp-Session-Id");
    if (id !== undefined) {
      let entry: McpSession | undefined;
      try {
        entry = await this.#rebuilder.find(mcp, c, id, session);
      } catch (error) {
        if (error instanceof AimError) return error.getResponse();
        throw error;
      }
      // Another token's MCP session is answered as a missing one: its existence is not told.
      if (!entry) return sessionNotFound();
      entry.origin = c.get("origin");
      entry.client = c.get("client");
      this.#sessions.touch(entry);
      const progressCall = asksForProgress(parsedBody);
      // The session's GET stream and a call's progress stream hold their connection: bounded
      // per client address and in all.
      if (progressCall || method === "GET") {
        let release: () => void;
        try {
          release = this.#core.streams.take(c.get("client"));
        } catch (error) {
          if (error instanceof AimError) return error.getResponse();
          throw error;
        }
        try {
          const response = progressCall
            ? await progressStream(mcp, c, {
              core: this.#core,
              entry,
              call: progressCall,
              body: parsedBody,
              calls: this.#calls,
              onError: (error) => this.#report(error),
            })
            : await this.#listen(c, entry);
          return holdingSlot(response, release);
        } catch (error) {
          release();
          throw error;
        }
      }
      return await this.#forward(c, entry, parsedBody);
    }
    if (method === "POST" && opensSession(mcp, parsedBody)) {
      return await this.#open(mcp, c, session, parsedBody);
    }
    return rpcError(
      400,
      -32000,
      "Bad Request: no Mcp-Session-Id; send initialize first and then the session id it returns.",
    );
  }

  /**
   * A new MCP session of `session`: its SDK server and a transport that answers in JSON. Its
   * id is made by `options.id`; `options.onOpened` runs once the transport took an `initialize`.
   */
  #entry(
    mcp: McpRuntime,
    c: Context<AppEnv>,
    session: Session,
    options: { id: () => string; onOpened: (entry: McpSession) => void },
  ): McpSession {
    // Its server and transport are set below; their callbacks read the entry when they run.
    const entry = {
      session,
      origin: c.get("origin"),
      client: c.get("client"),
      openedBy: c.get("client"),
      usedAt: Date.now(),
      listening: false,
      streamed: new Map(),
      pending: new Set(),
      told: new ToldStates(),
    } as unknown as McpSession;
    const transport = new mcp.Transport({
      sessionIdGenerator: options.id,
      // One JSON answer per request: no stream to set up and read, on either side. A call that
      // asks for progress is served on a stream of its own (progress.ts).
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        entry.id = id;
        options.onOpened(entry);
      },
      // A DELETE: closed here, and (awaited, before the answer) on every instance.
      onsessionclosed: () => this.#sessions.drop(entry, { forget: true }),
    });
    const server = mcp.createSessionServer({
      core: this.#core,
      session,
      origin: () => entry.origin,
      client: () => entry.client,
      told: entry.told,
    });
    server.onerror = (error) => this.#report(error);
    Object.assign(entry, { server, transport });
    return entry;
  }

  /** Opens an MCP session for `session` with the `initialize` request in `body`. */
  async #open(
    mcp: McpRuntime,
    c: Context<AppEnv>,
    session: Session,
    body: unknown,
  ): Promise<Response> {
    if (jsonSize(initializeOf(mcp, body)) > MAX_INITIALIZE_BYTES) {
      return new AimError(
        "payload_too_large",
        `An initialize request may take at most ${MAX_INITIALIZE_BYTES} bytes as JSON; send fewer capabilities.`,
      ).getResponse();
    }
    const client = c.get("client");
    const refusal = await this.#sessions.admit(session, client);
    if (refusal) return refusal;
    let response: Response;
    let entry: McpSession;
    try {
      entry = this.#entry(mcp, c, session, {
        id: () => crypto.randomUUID(),
        onOpened: (opened) => this.#sessions.add(opened),
      });
      const { server, transport } = entry;
      await server.connect(transport);
      response = await transport.handleRequest(c.req.raw, { parsedBody: body });
    } finally {
      this.#sessions.release(session, client);
    }
    const { server } = entry;
    // A refused initialize leaves nothing behind.
    if (entry.id === undefined) {
      await server.close().catch(() => {});
      return response;
    }
    const share = this.#core.share;
    if (share.shared) {
      // Kept before the client hears of the session: its next request may reach any instance.
      const shared: SharedMcpSession = {
        tokenHash: session.tokenHash,
        initialize: initializeOf(mcp, body),
        touchedAt: Date.now(),
      };
      try {
        await share.put(SHARED_KIND, entry.id, shared, this.#core.sessions.idleMs);
      } catch (error) {
        await this.#sessions.drop(entry, { forget: false });
        await response.body?.cancel();
        if (error instanceof AimError) return error.getResponse();
        throw error;
      }
    }
    return response;
  }

  /**
   * Hands a request to the MCP session's transport, which answers in JSON. A request that is
   * cancelled (`notifications/cancelled`), or whose client hangs up, withdraws its invocation
   * and is answered with an error, so that no HTTP exchange waits for an answer that never comes.
   */
  async #forward(c: Context<AppEnv>, entry: McpSession, body: unknown): Promise<Response> {
    const messages = Array.isArray(body) ? body : [body];
    const ids: (string | number)[] = [];
    const calls: (string | number)[] = [];
    const cancelled: (string | number)[] = [];
    const elsewhere: Promise<void>[] = [];
    for (const message of messages) {
      const m = message as {
        id?: unknown;
        method?: unknown;
        params?: { requestId?: unknown; reason?: unknown };
      };
      if (typeof m?.method !== "string") continue;
      if (typeof m.id === "string" || typeof m.id === "number") {
        ids.push(m.id);
        if (m.method === "tools/call") calls.push(m.id);
      }
      const target = m.params?.requestId;
      if (
        m.method === "notifications/cancelled" &&
        (typeof target === "string" || typeof target === "number")
      ) {
        const reason = typeof m.params?.reason === "string" ? m.params.reason : undefined;
        const stream = entry.streamed.get(target);
        stream?.abort();
        cancelled.push(target);
        // A call this instance does not run may run on another one.
        if (!stream && !entry.pending.has(target)) {
          elsewhere.push(this.#calls.cancelElsewhere(entry, { id: target, reason }));
        }
      }
    }
    await Promise.all(elsewhere);
    for (const id of ids) entry.pending.add(id);
    const withdraw = await this.#calls.announce(entry, calls);
    const hangUp = () => {
      for (const id of ids) withdrawCall(entry, { id, reason: "The client hung up." });
    };
    // The request's signal alone misses the hang-up once the body was streamed (hang_up.ts).
    using watch = watchHangUp(c.req.raw, remoteAddress(c));
    const signal = watch.signal;
    signal.addEventListener("abort", hangUp, { once: true });
    try {
      const response = await entry.transport.handleRequest(c.req.raw, { parsedBody: body });
      for (const id of cancelled) answerCancelled(entry, id);
      return response;
    } finally {
      signal.removeEventListener("abort", hangUp);
      for (const id of ids) entry.pending.delete(id);
      // Quiet from the end of its last request on, not its start.
      entry.usedAt = Date.now();
      withdraw();
    }
  }

  /**
   * Opens the MCP session's GET stream, on which `list_changed` is told. A session has one: a
   * second is answered 409 here, as the protocol says, and not reported as an error.
   */
  async #listen(c: Context<AppEnv>, entry: McpSession): Promise<Response> {
    if (entry.listening) {
      return rpcError(409, -32000, "Conflict: Only one SSE stream is allowed per session");
    }
    const response = await this.#forward(c, entry, undefined);
    if (response.status !== 200 || !response.body) return response;
    entry.listening = true;
    const closed = () => {
      entry.listening = false;
      entry.usedAt = Date.now();
    };
    const body = response.body.pipeThrough(
      new TransformStream({ flush: closed, cancel: closed } as Transformer<Uint8Array, Uint8Array>),
    );
    return new Response(body, { status: response.status, headers: response.headers });
  }

  /** Reports an error of a session's server, unless it is the transport refusing a request. */
  #report(error: unknown): void {
    if (error instanceof Error && TRANSPORT_REFUSAL.test(error.message)) return;
    this.#onError?.(error);
  }
}
