/**
 * BridgeCore: the protocol without HTTP. It holds a bridge's sessions, site catalog
 * and server actions, and hands the work to one module per concern: manifests
 * (`manifests.ts`), invocations (`invocations.ts`) and the tab channel (`tab_messages.ts`).
 *
 * @example
 * ```ts
 * import { BridgeCore } from "./bridge.ts";
 *
 * const core = new BridgeCore({ root: "demo/site" });
 * const { token } = await core.openSession("/control-panel");
 * const session = await core.authenticate(token);
 * const manifest = await core.manifest("/control-panel", session, "http://x");
 * core.close();
 * ```
 *
 * @module
 */
import { AimError, invalidToken, missingToken, notFound } from "../errors/aim_error.ts";
import { NOT_SENT } from "../share/share.ts";
import type { ActionSpec } from "../input/action_spec.ts";
import type { InvokeResult, Manifest, Sitemap } from "../wire/schemas.ts";
import type { SessionMessage } from "../wire/channel.ts";
import { type PageCatalog, SiteCatalog } from "../site/catalog.ts";
import { SiteRoot } from "../site/paths.ts";
import { pageIdentity, pageQueryProblem, repeatedParameter } from "../site/page_identity.ts";
import { ActionRegistry } from "./actions.ts";
import { AttemptLimiter } from "./login.ts";
import { type InvocationRecord, Invocations, type InvokeOptions } from "./invocations.ts";
import { type BridgeCoreOptions, CORE_DEFAULTS } from "./core_options.ts";
import { DEFAULT_LIMITS, DEFAULTS, type Limits } from "./limits.ts";
import { buildManifest, buildSitemap, sessionState } from "./manifests.ts";
import { builtinActions } from "./server_actions.ts";
import type { Session } from "./session.ts";
import { SessionStore } from "./sessions.ts";
import { LocalShare } from "../share/local.ts";
import type { SessionShare } from "../share/share.ts";
import { StreamSlots } from "./streams.ts";
import { FairGate } from "./fair_gate.ts";
import { type ChannelState, sessionMessage, TabMessages } from "./tab_messages.ts";
import type { TabConnection, TabPort } from "./tab_connection.ts";
import {
  AGENT_INVOKE_DEFAULTS,
  type AgentInvokeOptions,
  watched,
  type WatchInvocation,
} from "./invocation_watch.ts";

export { DEFAULT_LIMITS, type InvocationRecord, type InvokeOptions, type Limits };
export type {
  AgentInvokeOptions,
  InvocationWatch,
  InvokeProtocol,
  WatchInvocation,
} from "./invocation_watch.ts";

/** The result of opening a session. */
export interface OpenedSession {
  /** The session. */
  session: Session;
  /** The agent's token: a new one, or the one the page resumed with. */
  token: string;
  /** The tab credential of a new session; undefined when the page resumed its own. */
  credential?: string;
  /** True when the page's own session was resumed, false when a new one was opened. */
  reused: boolean;
}

/** Options of {@linkcode BridgeCore.openSession}. */
export interface OpenSessionOptions {
  /**
   * The page's own session to resume after a reload or a navigation: its tab credential and
   * its token, which must belong to one session. Anything else opens a new session.
   */
  resume?: { credential: string; token: string };
  /** The address of the client, for the per-client bound on unused sessions. */
  client?: string;
}

/** The protocol core of one bridge. */
export class BridgeCore {
  /**
   * Every session this process holds, and how they are shared.
   *
   * @internal The core's and the routes' own.
   */
  readonly sessions: SessionStore;
  /**
   * Where the pages are read from: the site's folder, or the app in front of which aim stands.
   *
   * @internal The core's and the routes' own.
   */
  readonly catalog: PageCatalog;
  /** Query parameters that are part of a page's identity. */
  readonly pageQuery: readonly string[];
  /** The size and count limits in force ({@linkcode DEFAULT_LIMITS} and the options'). */
  readonly limits: Limits;
  /**
   * The server actions, and the actions each session's tab registered.
   *
   * @internal The core's own.
   */
  readonly actions: ActionRegistry;
  readonly #invocations: Invocations;
  readonly #tabs: TabMessages;
  readonly #settleTimeoutMs: number;
  readonly #watch: WatchInvocation | undefined;
  readonly #tabTimeoutMs: number;
  readonly #confirmTimeoutMs: number;
  /**
   * Where sessions are shared with other instances (this process alone by default).
   *
   * @internal The core's own.
   */
  readonly share: SessionShare;
  /**
   * The event streams and long polls open, per client address and in all.
   *
   * @internal The routes' own.
   */
  readonly streams: StreamSlots;
  /**
   * Session mints under way and waiting, per client address (keys `client:ADDRESS`).
   *
   * @internal The routes' own.
   */
  readonly mints: FairGate;

  /**
   * The core of a bridge over `options.root` (or `options.catalog`).
   *
   * @throws {TypeError} when neither is given, or `pageQuery` is no list of parameter names.
   */
  constructor(options: BridgeCoreOptions) {
    const now = options.now ?? Date.now;
    const share = this.share = options.share ?? new LocalShare();
    this.#tabTimeoutMs = options.tabTimeoutMs ?? CORE_DEFAULTS.tabTimeoutMs;
    this.#confirmTimeoutMs = options.confirmTimeoutMs ?? CORE_DEFAULTS.confirmTimeoutMs;
    this.#watch = options.watchInvocation;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.streams = new StreamSlots(options.streams);
    this.mints = new FairGate({
      max: Infinity,
      perKey: { max: Infinity, maxWaiting: Infinity },
      waitMs: DEFAULTS.lineWaitMs,
      maxWaiting: DEFAULTS.maxWaiting,
      limits: {
        client: {
          max: DEFAULTS.maxMintsPerClient,
          maxWaiting: DEFAULTS.maxWaitingPerClient,
          rate: options.mintRate ?? CORE_DEFAULTS.mintRate,
        },
      },
    });
    this.#settleTimeoutMs = Math.max(0, options.settleTimeoutMs ?? CORE_DEFAULTS.settleTimeoutMs);
    this.pageQuery = options.pageQuery ?? CORE_DEFAULTS.pageQuery;
    const problem = pageQueryProblem(this.pageQuery);
    if (problem) throw new TypeError(`pageQuery: ${problem}`);
    if (options.catalog) this.catalog = options.catalog;
    else if (options.root !== undefined) this.catalog = new SiteCatalog(new SiteRoot(options.root));
    else throw new TypeError("A bridge needs a root folder or a catalog");
    this.sessions = new SessionStore({
      idleMs: options.idleMs,
      leaseMs: options.leaseMs,
      maxSessions: options.maxSessions,
      freshIdleMs: options.freshIdleMs,
      maxFreshPerClient: options.maxFreshPerClient,
      maxIdempotencyBytes: options.maxIdempotencyBytes,
      tabTimeoutMs: options.tabTimeoutMs,
      confirmTimeoutMs: options.confirmTimeoutMs,
      maxQueue: this.limits.maxInFlight,
      now,
      share,
      onError: options.onError,
      onGrant: (session) => {
        // The lease moved here from another instance, which keeps only the tab key's hash.
        this.sessions.renewTabKey(session);
        const holder = session.tab.holder;
        if (holder && holder.page !== session.page) {
          session.page = holder.page;
          session.changed();
        }
        session.tab.notify(this.sessionMessage(session));
      },
    });
    const limiter = new AttemptLimiter({ now, ...options.loginAttempts, share });
    this.actions = new ActionRegistry([
      ...builtinActions({ users: options.users, limiter }),
      ...(options.serverActions ?? []),
    ]);
    const parts = {
      sessions: this.sessions,
      catalog: this.catalog,
      actions: this.actions,
      limits: this.limits,
    };
    this.#invocations = new Invocations({
      ...parts,
      now,
      settleTimeoutMs: this.#settleTimeoutMs,
      waitMs: this.#tabTimeoutMs,
      pageOf: (raw) => this.pageOf(raw),
      rotate: (session, settle) => this.#rotate(session, settle),
      onInvocation: options.onInvocation,
    });
    this.#tabs = new TabMessages({
      ...parts,
      pageOf: (raw) => this.pageOf(raw),
      repeatedParameter: (raw) => this.repeatedParameter(raw),
      helloTimeoutMs: options.helloTimeoutMs ?? CORE_DEFAULTS.helloTimeoutMs,
      onError: options.onError,
      onInvocation: options.onInvocation,
      now,
      workClock: options.workClock,
    });
    // Calls another instance forwards here, where the session's tab is.
    share.serve(async (tokenHash, call, { onAwaiting, signal }) => {
      const session = await this.sessions.findByHash(tokenHash);
      if (!session) throw invalidToken();
      return await this.#invocations.invoke(session, call.body, {
        client: call.client,
        idempotencyKey: call.idempotencyKey,
        ...(call.ifMatch === undefined ? {} : { ifMatch: call.ifMatch }),
        tabTimeoutMs: call.timeoutMs,
        onAwaiting,
        signal,
      });
    });
  }

  /** Resolves once the shared store (if any) can be used. */
  ready(): Promise<void> {
    return this.share.ready();
  }

  /**
   * Stops: tabs are told, waiting invocations answered. Alone, every session ends; with a shared
   * store, sessions live on and tabs reconnect through another instance.
   */
  close(): void {
    this.sessions.close();
    this.catalog.close();
    void this.share.close();
  }

  /** Waits until the invocations under way have been answered, or `timeoutMs` passed. */
  drain(timeoutMs: number): Promise<void> {
    return this.#invocations.drain(timeoutMs);
  }

  /** The page identity of a path a tab or a request names (with its query); null if none. */
  pageOf(raw: string): string | null {
    return pageIdentity(raw, this.pageQuery);
  }

  /**
   * The declared page parameter that `raw` gives more than once or in another spelling, which
   * makes it no page identity (docs/upstream.md, "Query strings"); null when none does.
   */
  repeatedParameter(raw: string): string | null {
    return repeatedParameter(raw, this.pageQuery);
  }

  /** Why `raw` names no page, in a sentence for the one who sent it. */
  invalidPage(raw: string): string {
    const shown = JSON.stringify(raw.length > 200 ? raw.slice(0, 200) + "…" : raw);
    const repeated = this.repeatedParameter(raw);
    if (repeated === null) return `${shown} is not a valid page path.`;
    return `${shown} gives the page parameter "${repeated}" more than once or in another spelling: ` +
      `apps read such a query differently (PHP the last value, Java the first), so it names no ` +
      `one page. Link to the page with "${repeated}" given once.`;
  }

  /** Whether `id` is a server action's id, which a page may not reuse. */
  isServerAction(id: string): boolean {
    return this.actions.has(id);
  }

  /**
   * The session of a token.
   *
   * @throws {AimError} 401 `missing_token` or `invalid_token`.
   */
  async authenticate(token: string | undefined): Promise<Session> {
    if (token === undefined) throw missingToken();
    const session = await this.sessions.find(token);
    if (!session) throw invalidToken();
    this.sessions.use(session);
    return session;
  }

  /**
   * The session of a tab key (`X-Aim-Tab`): the page's own requests, which a cookie planted by
   * another origin cannot redirect to another session.
   *
   * @throws {AimError} 403 `tab_required`.
   */
  async authenticateTab(tabKey: string | undefined): Promise<Session> {
    const session = await this.sessions.findByTabKey(tabKey);
    if (!session || !session.tab.connected) {
      throw new AimError(
        "tab_required",
        "This route answers the page's own tab only; an agent invokes the page's actions at /__aim/invoke.",
      );
    }
    this.sessions.touch(session);
    return session;
  }

  /**
   * Opens a session on `page`, or re-attaches the page's own session to it when `resume`
   * holds that session's tab credential and token. A cookie or a token alone never
   * re-attaches: a page adopts no session its own tab did not open.
   *
   * @throws {AimError} 404 `not_found`, 429 `too_many_requests`.
   */
  async openSession(page: string, options: OpenSessionOptions = {}): Promise<OpenedSession> {
    const info = await this.catalog.sessionPage(page);
    if (!info) throw notFound(`No agent-enabled page at ${page}.`);
    const { resume } = options;
    const existing = await this.sessions.findByCredential(resume?.credential);
    if (existing && resume && (await this.sessions.find(resume.token)) === existing) {
      // The page first: a change is shared with what the session shows after it.
      const moved = existing.page !== info.page;
      existing.page = info.page;
      if (moved) existing.changed();
      this.sessions.touch(existing);
      return { session: existing, token: resume.token, reused: true };
    }
    const { session, token, credential } = await this.sessions.create(info.page, options.client);
    return { session, token, credential, reused: false };
  }

  /**
   * Gives the session a new tab credential and tab key, and hands them to its tabs; with
   * `settle`, the tab holding the session answers `settled` of that id once it has reacted.
   */
  #rotate(session: Session, settle?: string): void {
    const credential = this.sessions.rotate(session);
    session.changed();
    session.tab.broadcast({ type: "credential", credential });
    session.tab.notify(this.sessionMessage(session, settle));
  }

  /**
   * The session message a tab receives on grant and on login changes; `settle` asks the tab
   * to answer `settled` of that id once it has reacted.
   *
   * @internal The tab channel's.
   */
  sessionMessage(session: Session, settle?: string): SessionMessage {
    return sessionMessage(session, this.limits, {
      settleMs: this.#settleTimeoutMs,
      ...(settle ? { settle } : {}),
    });
  }

  /** The session's state: the tab's snapshot, then what the server says of login. */
  state(session: Session): Record<string, unknown> {
    return sessionState(session);
  }

  /**
   * The actions registered for a session now.
   *
   * @internal The protocol routes' (http/, mcp/, a2a/, acp/); the wire types are `schemas`'.
   */
  sessionActions(session: Session): ActionSpec[] {
    return this.actions.forSession(session);
  }

  /**
   * The manifest of the page at `path` for `session` (or the public one).
   *
   * @throws {AimError} 404 `not_found`, 409 `page_mismatch`.
   * @internal The protocol routes' (http/, mcp/, a2a/, acp/); the wire types are `schemas`'.
   */
  manifest(path: string, session: Session | null, origin: string): Promise<Manifest> {
    return buildManifest(this, path, session, origin);
  }

  /**
   * The site map: every agent-enabled page.
   *
   * @internal The protocol routes' (http/, mcp/, a2a/, acp/); the wire types are `schemas`'.
   */
  sitemap(origin: string): Promise<Sitemap> {
    return buildSitemap(this, origin);
  }

  /**
   * Invokes an action for a session. A retry with the same `idempotencyKey` gets the first
   * answer and never runs the action twice.
   *
   * @throws {AimError} every failure of an invocation (docs/protocol.md).
   * @internal The protocol routes' (http/, mcp/, a2a/, acp/); the wire types are `schemas`'.
   */
  invoke(
    session: Session,
    body: unknown,
    options: AgentInvokeOptions = {},
  ): Promise<InvokeResult> {
    // Metrics: the protocol, the person's confirmation and the outcome (invocation_watch.ts).
    const watch = this.#watch?.(options.protocol ?? AGENT_INVOKE_DEFAULTS.protocol);
    if (!watch) return this.#invoke(session, body, options);
    return watched(watch, options, (watching) => this.#invoke(session, body, watching));
  }

  async #invoke(
    session: Session,
    body: unknown,
    options: InvokeOptions,
  ): Promise<InvokeResult> {
    const elsewhere = session.tab.remoteHolder;
    if (elsewhere && !session.tab.holder) {
      // The tab is on another instance: the whole call runs there, where its lease, queue,
      // prompts and sign-in all are.
      try {
        const answer = await this.share.forward(elsewhere, session.tokenHash, {
          body,
          client: options.client,
          idempotencyKey: options.idempotencyKey,
          ifMatch: options.ifMatch,
          timeoutMs: this.#tabTimeoutMs,
        }, {
          // A little longer than the holder's own timeout, so that its answer (504) comes first.
          timeoutMs: this.#tabTimeoutMs + 1000,
          confirmMs: this.#confirmTimeoutMs + 1000,
          onAwaiting: options.onAwaiting,
          signal: options.signal,
        });
        // What the agent reads next here must be what the answer says: the holder wrote the
        // change before it answered.
        if ((answer.state_version ?? 0) > session.version) await this.sessions.refresh(session);
        return answer;
      } catch (error) {
        // Nobody listens there any more: the call never left, and runs here without a tab.
        if (!(error instanceof AimError && error.cause === NOT_SENT)) throw error;
        session.tab.remoteHolder = "";
      }
    }
    return await this.#invocations.invoke(session, body, options);
  }

  /**
   * Seconds until a new tab socket of `session` from `client`'s address may open (the channel
   * budgets of the session and of the address), 0 for now.
   *
   * @internal The tab channel's route calls it.
   */
  tabWait(session: Session, client?: string): number {
    return this.#tabs.reconnectWait(session, client);
  }

  /**
   * A tab opened the channel with this session's credential, from `client`'s address.
   *
   * @internal The tab channel's route calls it.
   */
  connectTab(session: Session, port: TabPort, client?: string): TabConnection {
    return this.#tabs.connect(session, port, client);
  }

  /**
   * Handles one channel message; a malformed or oversized one closes that channel only.
   *
   * @internal The tab channel's route calls it.
   */
  tabMessage(session: Session, tab: TabConnection, data: unknown, state: ChannelState): void {
    this.#tabs.handle(session, tab, data, state);
  }
}
