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
import { loadRuntime, type McpRuntime } from "./runtime.ts";
import { McpRebuilder } from "./rebuild.ts";
import {
  CALL_KIND,
  callKey,
  CANCEL_TOPIC,
  type CancelMessage,
  FOLLOW_MS,
  MAX_INITIALIZE_BYTES,
  type McpSession,
  type SessionGroup,
  SHARED_KIND,
  type SharedMcpSession,
} from "./session.ts";
import {
  aimError,
  asksForProgress,
  full,
  initializeOf,
  jsonSize,
  opensSession,
  rpcError,
  sameActions,
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
  /** MCP sessions one aim session (one token) may hold. @default 8 */
  maxPerSession?: number;
  /** MCP sessions opened from one client address that may be held. @default 512 */
  maxPerClient?: number;
  /** MCP sessions held in all. @default 4096 */
  maxSessions?: number;
  /** How long an MCP session must be unused before another client's may take its place, ms. @default 300_000 */
  quietMs?: number;
  /** Called for errors that are not protocol errors (bugs). */
  onError?: ((error: unknown) => void) | undefined;
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
  /** Finds MCP sessions across instances, rebuilding those opened elsewhere. */
  readonly #rebuilder: McpRebuilder;
  readonly #maxPerSession: number;
  readonly #maxPerClient: number;
  readonly #maxSessions: number;
  readonly #quietMs: number;
  /** MCP sessions held, and places taken by `initialize`s under way, by opening client. */
  readonly #perClient = new Map<string, number>();
  /** Places taken by `initialize`s under way: in all, and by aim session. */
  #opening = 0;
  readonly #openingFor = new Map<Session, number>();
  readonly #onError: ((error: unknown) => void) | undefined;

  constructor(core: BridgeCore, options: McpEndpointOptions = {}) {
    this.#core = core;
    this.#maxPerSession = options.maxPerSession ?? 8;
    this.#maxPerClient = options.maxPerClient ?? 512;
    this.#maxSessions = options.maxSessions ?? 4096;
    this.#quietMs = options.quietMs ?? 300_000;
    this.#onError = options.onError;
    this.#rebuilder = new McpRebuilder({
      core,
      byId: this.#byId,
      drop: (entry, options) => this.#drop(entry, options),
      entry: (mcp, c, session, options) => this.#entry(mcp, c, session, options),
      add: (entry) => this.#add(entry),
      onError: this.#onError,
    });
    this.routes = new Hono<AppEnv>();
    this.routes.all(MCP_PATH, (c) => this.#handle(c));
    if (core.share.shared) {
      core.share.listen(CANCEL_TOPIC, (message) => this.#cancelHere(message));
    }
  }

  /** MCP sessions held now. */
  get size(): number {
    return this.#byId.size;
  }

  /**
   * Closes every MCP session this instance holds: their streams end, and no session is
   * followed any more. Behind a load balancer they live on: other instances rebuild them.
   */
  async close(): Promise<void> {
    const all = [...this.#byId.values()];
    await Promise.all(all.map((entry) => this.#drop(entry, { forget: false })));
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
        new AimError("method_not_allowed", "Use POST, GET or DELETE here (MCP).", {
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
    const mcp = await loadRuntime();
    const id = c.req.header("Mcp-Session-Id");
    if (id !== undefined) {
      let entry: McpSession | undefined;
      try {
        entry = await this.#rebuilder.find(mcp, c, id, session);
      } catch (error) {
        if (error instanceof AimError) return aimError(error);
        throw error;
      }
      // Another token's MCP session is answered as a missing one: its existence is not told.
      if (!entry) return sessionNotFound();
      entry.origin = c.get("origin");
      entry.client = c.get("client");
      this.#touch(entry);
      const progressCall = asksForProgress(parsedBody);
      // The session's GET stream and a call's progress stream hold their connection: bounded
      // per client address and in all.
      if (progressCall || method === "GET") {
        let release: () => void;
        try {
          release = this.#core.streams.take(c.get("client"));
        } catch (error) {
          if (error instanceof AimError) return aimError(error);
          throw error;
        }
        try {
          const response = progressCall
            ? await this.#stream(mcp, c, entry, progressCall, parsedBody)
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
      // asks for progress is served on a stream of its own (see #stream).
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        entry.id = id;
        options.onOpened(entry);
      },
      // A DELETE: closed here, and (awaited, before the answer) on every instance.
      onsessionclosed: () => this.#drop(entry, { forget: true }),
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
      return aimError(
        new AimError(
          "payload_too_large",
          `An initialize request may take at most ${MAX_INITIALIZE_BYTES} bytes as JSON; send fewer capabilities.`,
        ),
      );
    }
    const client = c.get("client");
    const refusal = await this.#admit(session, client);
    if (refusal) return refusal;
    let response: Response;
    let entry: McpSession;
    try {
      entry = this.#entry(mcp, c, session, {
        id: () => crypto.randomUUID(),
        onOpened: (opened) => this.#add(opened),
      });
      const { server, transport } = entry;
      await server.connect(transport);
      response = await transport.handleRequest(c.req.raw, { parsedBody: body });
    } finally {
      this.#take(session, client, -1);
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
        await this.#drop(entry, { forget: false });
        await response.body?.cancel();
        if (error instanceof AimError) return aimError(error);
        throw error;
      }
    }
    return response;
  }

  /**
   * Serves one `tools/call` that asked for progress over an SSE answer of its own: a server and
   * transport for this call only, bound to the same aim session. The session's transport
   * answers in JSON, which cannot carry the progress notifications that say the person is being
   * asked. A `notifications/cancelled` for the call, sent on the session, still withdraws it.
   */
  async #stream(
    mcp: McpRuntime,
    c: Context<AppEnv>,
    entry: McpSession,
    call: { id: string | number },
    body: unknown,
  ): Promise<Response> {
    const cancel = new AbortController();
    entry.streamed.set(call.id, cancel);
    const withdraw = await this.#announce(entry, [call.id]);
    const server = mcp.createSessionServer({
      core: this.#core,
      session: entry.session,
      origin: () => entry.origin,
      client: () => entry.client,
      signal: cancel.signal,
      told: entry.told,
    });
    server.onerror = (error) => this.#report(error);
    const transport = new mcp.Transport({
      sessionIdGenerator: undefined,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw, { parsedBody: body });
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
          elsewhere.push(this.#cancelElsewhere(entry, target, reason));
        }
      }
    }
    await Promise.all(elsewhere);
    for (const id of ids) entry.pending.add(id);
    const withdraw = await this.#announce(entry, calls);
    const hangUp = () => {
      for (const id of ids) this.#withdraw(entry, id, "The client hung up.");
    };
    // The request's signal alone misses the hang-up once the body was streamed (hang_up.ts).
    using watch = watchHangUp(c.req.raw, remoteAddress(c));
    const signal = watch.signal;
    signal.addEventListener("abort", hangUp, { once: true });
    try {
      const response = await entry.transport.handleRequest(c.req.raw, { parsedBody: body });
      for (const id of cancelled) this.#answerCancelled(entry, id);
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

  /**
   * Behind a load balancer, says in the shared store that this instance runs these calls of
   * the MCP session, for as long as they run; returns what withdraws that. A store that cannot
   * be reached only costs the calls their cancellation from another instance.
   */
  async #announce(entry: McpSession, calls: readonly (string | number)[]): Promise<() => void> {
    const share = this.#core.share;
    const id = entry.id;
    if (!share.shared || id === undefined || calls.length === 0) return () => {};
    const keys = calls.map((call) => callKey(id, call)).filter((key) => key !== undefined);
    const ttlMs = this.#core.sessions.idleMs;
    await Promise.all(
      keys.map((key) =>
        share.put(CALL_KIND, key, { instance: share.instance }, ttlMs)
          .catch((error) => this.#onError?.(error))
      ),
    );
    return () => {
      for (const key of keys) {
        share.del(CALL_KIND, key).catch((error) => this.#onError?.(error));
      }
    };
  }

  /** Tells the instance that runs call `requestId` of the MCP session to cancel it. */
  async #cancelElsewhere(
    entry: McpSession,
    requestId: string | number,
    reason: string | undefined,
  ): Promise<void> {
    const share = this.#core.share;
    const key = entry.id === undefined ? undefined : callKey(entry.id, requestId);
    if (!share.shared || key === undefined) return;
    try {
      const running = await share.get(CALL_KIND, key) as { instance?: unknown } | null;
      const instance = running?.instance;
      if (typeof instance !== "string" || instance === share.instance) return;
      const message: CancelMessage = {
        session: entry.id!,
        tokenHash: entry.session.tokenHash,
        requestId,
        reason,
      };
      await share.tell(instance, CANCEL_TOPIC, message);
    } catch (error) {
      this.#onError?.(error);
    }
  }

  /** Cancels a call of an MCP session held here, as another instance was asked to. */
  #cancelHere(received: unknown): void {
    if (typeof received !== "object" || received === null) return;
    const message = received as Partial<CancelMessage>;
    const { requestId } = message;
    const entry = typeof message.session === "string" ? this.#byId.get(message.session) : undefined;
    // Only the MCP session's own token could have asked it.
    if (!entry || entry.session.tokenHash !== message.tokenHash) return;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    entry.streamed.get(requestId)?.abort();
    const reason = typeof message.reason === "string" ? message.reason : undefined;
    if (entry.pending.has(requestId)) this.#withdraw(entry, requestId, reason);
  }

  /**
   * Withdraws a request that waits, as if the client had cancelled it (the handler's signal
   * withdraws the invocation), and answers it.
   */
  #withdraw(entry: McpSession, id: string | number, reason: string | undefined): void {
    entry.transport.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, ...(reason === undefined ? {} : { reason }) },
    });
    this.#answerCancelled(entry, id);
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
    this.#perClient.set(entry.openedBy, (this.#perClient.get(entry.openedBy) ?? 0) + 1);
    // A session rebuilt here (opened on another instance, which admitted it) past this
    // instance's bound makes room by letting a free one go here only: the store keeps it, and
    // its next request rebuilds it wherever it lands.
    if (this.#byId.size > this.#maxSessions) {
      const free = this.#free(this.#byId.values(), { except: entry });
      if (free) void this.#drop(free, { forget: false });
    }
  }

  /** Reports an error of a session's server, unless it is the transport refusing a request. */
  #report(error: unknown): void {
    if (error instanceof Error && TRANSPORT_REFUSAL.test(error.message)) return;
    this.#onError?.(error);
  }

  /** Marks an MCP session used now: the maps keep their sessions in the order of last use. */
  #touch(entry: McpSession): void {
    entry.usedAt = Date.now();
    if (entry.id === undefined || this.#byId.get(entry.id) !== entry) return;
    this.#byId.delete(entry.id);
    this.#byId.set(entry.id, entry);
    const members = this.#groups.get(entry.session)?.members;
    if (members?.delete(entry)) members.add(entry);
  }

  /** Takes (`+1`) or gives back (`-1`) the place of an `initialize` under way. */
  #take(session: Session, client: string, delta: 1 | -1): void {
    this.#opening += delta;
    const forSession = (this.#openingFor.get(session) ?? 0) + delta;
    if (forSession > 0) this.#openingFor.set(session, forSession);
    else this.#openingFor.delete(session);
    const forClient = (this.#perClient.get(client) ?? 0) + delta;
    if (forClient > 0) this.#perClient.set(client, forClient);
    else this.#perClient.delete(client);
  }

  /**
   * The first MCP session of `entries` (in the order of last use) free to close for room: no
   * request under way, and either last used by `client` or unused (no GET stream) for `quietMs`.
   */
  #free(
    entries: Iterable<McpSession>,
    options: { client?: string; where?: (entry: McpSession) => boolean; except?: McpSession },
  ): McpSession | undefined {
    const quietSince = Date.now() - this.#quietMs;
    for (const entry of entries) {
      if (entry === options.except || (options.where && !options.where(entry))) continue;
      // A call under way is never withdrawn for room.
      if (entry.pending.size > 0 || entry.streamed.size > 0) continue;
      // The client's own session goes; another's only once it is quiet (a GET stream open is
      // a client listening now).
      if (entry.client === options.client) return entry;
      if (!entry.listening && entry.usedAt <= quietSince) return entry;
    }
    return undefined;
  }

  /**
   * Takes the place of one more MCP session of `session` opened by `client` within the bounds
   * (per aim session, per client address, in all), closing free sessions to make room; undefined
   * once the place is taken (give it back with `#take(session, client, -1)`), else the 429 to
   * answer. A session closed for room is closed on every instance.
   */
  async #admit(session: Session, client: string): Promise<Response | undefined> {
    // Each turn closes one session, then checks again: the check and the place taken happen
    // in one step, so that initializes sent together cannot all pass the bounds.
    while (true) {
      const group = this.#groups.get(session);
      const ofSession = (group?.members.size ?? 0) + (this.#openingFor.get(session) ?? 0);
      let free: McpSession | undefined;
      if (ofSession >= this.#maxPerSession) {
        // The token's own sessions: one its client used last, or a quiet one, goes.
        free = group && this.#free(group.members, { client });
        if (!free) {
          return full(
            `This session token holds ${this.#maxPerSession} MCP sessions, all in use; close one (DELETE) or retry later.`,
          );
        }
      } else if ((this.#perClient.get(client) ?? 0) >= this.#maxPerClient) {
        // Only a quiet one: the address may be shared (a NAT) by people who use theirs.
        free = this.#free(this.#byId.values(), { where: (entry) => entry.openedBy === client });
        if (!free) {
          return full(
            `This client holds ${this.#maxPerClient} MCP sessions, all in use; close some (DELETE) or retry later.`,
          );
        }
      } else if (this.#byId.size + this.#opening >= this.#maxSessions) {
        free = this.#free(this.#byId.values(), {});
        if (!free) {
          return full("The bridge holds all the MCP sessions it may, all in use; retry later.");
        }
      } else {
        this.#take(session, client, +1);
        return undefined;
      }
      await this.#drop(free, { forget: true });
    }
  }

  /**
   * Closes an MCP session here; with `forget`, also in the shared store (if any), so that no
   * instance serves it any more: it was deleted, closed for room, or its aim session ended.
   */
  async #drop(entry: McpSession, options: { forget: boolean }): Promise<void> {
    if (entry.id === undefined || this.#byId.get(entry.id) !== entry) return;
    this.#byId.delete(entry.id);
    const held = (this.#perClient.get(entry.openedBy) ?? 1) - 1;
    if (held > 0) this.#perClient.set(entry.openedBy, held);
    else this.#perClient.delete(entry.openedBy);
    const group = this.#groups.get(entry.session);
    group?.members.delete(entry);
    if (group?.members.size === 0) {
      this.#groups.delete(entry.session);
      group.stop.abort();
    }
    // Requests still waiting are answered while the transport can: closed, it never would.
    for (const id of [...entry.pending]) this.#withdraw(entry, id, "The MCP session was closed.");
    const share = this.#core.share;
    await Promise.all([
      // Closing the server closes its transport: the client's streams end.
      entry.server.close().catch((error) => this.#onError?.(error)),
      options.forget && share.shared
        ? share.del(SHARED_KIND, entry.id).catch((error) => this.#onError?.(error))
        : undefined,
    ]);
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
          for (const entry of [...group.members]) void this.#drop(entry, { forget: true });
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
