/**
 * @module BridgeCore: the protocol without HTTP. Sessions, manifests, the site map,
 * invocation routing and the tab channel's message handling.
 */
import { AimError, invalidToken, missingToken, notFound } from "../protocol/errors.ts";
import { type ActionSpec, parseActionSpec, toManifestAction } from "../protocol/action_spec.ts";
import { validateInput } from "../protocol/input.ts";
import { MarkupError, redactSecrets } from "../protocol/markup.ts";
import { jsonProblemMessage, parseUntrustedJson } from "../protocol/json.ts";
import { fitState } from "../protocol/state_limit.ts";
import { CloseCode, type SessionMessage, TabMessage } from "../protocol/channel.ts";
import {
  InvokeRequest,
  type InvokeResult,
  type Manifest,
  PROTOCOL,
  PROTOCOL_VERSION,
  type Sitemap,
} from "../protocol/schemas.ts";
import { SiteCatalog } from "../site/catalog.ts";
import { manifestPath, normalizePage, SiteRoot } from "../site/paths.ts";
import { AttemptLimiter, type AttemptLimiterOptions, type UserStore } from "./auth.ts";
import {
  builtinActions,
  isAvailable,
  type ServerAction,
  type ServerActionContext,
} from "./server_actions.ts";
import { type Session, SessionStore } from "./sessions.ts";
import { MAX_TABS, TabConnection, type TabOutcome, type TabPort } from "./tab.ts";

/** How long a new channel may take to say hello. */
const HELLO_TIMEOUT_MS = 10_000;
import type { z } from "zod";

/** Size and count limits. */
export interface Limits {
  /** Largest request body, bytes. Default 64 KiB. */
  maxBodyBytes: number;
  /** Largest channel message, bytes. Default 1 MiB. */
  maxMessageBytes: number;
  /** Largest state snapshot, bytes of JSON. Default 256 KiB. */
  maxStateBytes: number;
  /** Invocations in flight per session. Default 8. */
  maxInFlight: number;
  /** How long a request body may take to arrive, ms. Default 10 s. */
  bodyTimeoutMs: number;
}

/** The default {@linkcode Limits}. */
export const DEFAULT_LIMITS: Limits = {
  maxBodyBytes: 64 * 1024,
  maxMessageBytes: 1024 * 1024,
  maxStateBytes: 256 * 1024,
  maxInFlight: 8,
  bodyTimeoutMs: 10_000,
};

/** One finished invocation, for an audit trail. */
export interface InvocationRecord {
  at: Date;
  sessionId: string;
  page: string;
  username: string | null;
  actionId: string;
  /** The input with keys that look like secrets removed. */
  input: unknown;
  status: number;
  outcome: string;
  durationMs: number;
}

/** Options of {@linkcode BridgeCore}. */
export interface BridgeCoreOptions {
  /** The site's folder. */
  root: string;
  /** Verifies `login`; without it every login fails. */
  users?: UserStore;
  /** Actions the embedding app runs on the server. */
  serverActions?: ServerAction[];
  /** Idle time before a session expires; at most one hour. */
  idleMs?: number;
  /** Tab lease length. Default 15 s. */
  leaseMs?: number;
  /**
   * Sessions held at once; when full, the oldest session no tab bound and nobody used makes
   * room, and with none such new ones are refused (429). Default 100,000.
   */
  maxSessions?: number;
  /** Idle time of a session no tab bound and nobody used. Default 2 minutes. */
  freshIdleMs?: number;
  /** Unused sessions one client address may hold; its oldest ends past it. Default 1,000. */
  maxFreshPerClient?: number;
  /** Bytes of idempotent answers kept per session. Default 1 MiB. */
  maxIdempotencyBytes?: number;
  /** How long an invocation waits for the tab. Default 30 s. */
  tabTimeoutMs?: number;
  /** How long it waits once the tab says a person must confirm. Default 5 minutes. */
  confirmTimeoutMs?: number;
  /** Failed logins allowed per session and per user in a window. */
  loginAttempts?: AttemptLimiterOptions;
  limits?: Partial<Limits>;
  /** Called after every invocation that reached an action. */
  onInvocation?: (record: InvocationRecord) => void;
  /** Called for unexpected errors (bugs), without request data. */
  onError?: (error: unknown) => void;
  now?: () => number;
}

/** Options of {@linkcode BridgeCore.invoke}. */
export interface InvokeOptions {
  /** The requesting client's address, for per-client limits (login throttling). */
  client?: string;
  /** A retry with the same key in the same session gets the first answer. */
  idempotencyKey?: string;
  /** Called when the tab says the invocation waits for the person to confirm. */
  onAwaiting?: (message: string) => void;
  /** Cancels an invocation relayed to the tab (409 `cancelled`); a server action runs on. */
  signal?: AbortSignal;
}

interface CallState {
  client?: string;
  /** Whether the action was started: only then is its answer kept for retries. */
  dispatched: boolean;
  /** The input once it passed the action's schema. */
  input?: unknown;
  onAwaiting?: (message: string) => void;
  signal?: AbortSignal;
}

/** The result of opening a session. */
export interface OpenedSession {
  session: Session;
  /** The agent's token: a new one, or the one the page resumed with. */
  token: string;
  /** The tab credential of a new session; undefined when the page resumed its own. */
  credential?: string;
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

const interned = new Map<string, ActionSpec>();

/**
 * One shared object per distinct action: thousands of tabs of one page register the same
 * actions, and each would otherwise keep its own copies. Specs are never changed once made.
 */
function intern(spec: ActionSpec): ActionSpec {
  const key = JSON.stringify(spec);
  const known = interned.get(key);
  if (known) return known;
  if (interned.size >= 2000) interned.clear();
  interned.set(key, spec);
  return spec;
}

/** Whether a string's UTF-8 form is over `limit` bytes, counting only when it has to. */
function overBytes(text: string, limit: number): boolean {
  // A UTF-16 unit takes 1 to 3 UTF-8 bytes.
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return new TextEncoder().encode(text).length > limit;
}

function fingerprint(actionId: string, input: unknown): string {
  return JSON.stringify([actionId, input ?? null]);
}

/** The protocol core of one bridge. */
export class BridgeCore {
  readonly sessions: SessionStore;
  readonly catalog: SiteCatalog;
  readonly limits: Limits;
  readonly #serverActions = new Map<string, ServerAction>();
  readonly #serverSpecs = new Map<string, ActionSpec>();
  readonly #options: BridgeCoreOptions;
  readonly #now: () => number;
  readonly #running = new Set<Promise<unknown>>();

  constructor(options: BridgeCoreOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.catalog = new SiteCatalog(new SiteRoot(options.root));
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
      now: this.#now,
      onGrant: (session) => {
        const holder = session.tab.holder;
        if (holder) session.page = holder.page;
        session.tab.notify(this.sessionMessage(session));
      },
    });
    const limiter = new AttemptLimiter({ now: this.#now, ...options.loginAttempts });
    const all = [
      ...builtinActions({ users: options.users, limiter }),
      ...(options.serverActions ?? []),
    ];
    for (const action of all) {
      if (this.#serverActions.has(action.id)) {
        throw new Error(`Server action "${action.id}" is registered twice`);
      }
      const spec = parseActionSpec({
        id: action.id,
        description: action.description,
        input_schema: action.input_schema,
        input_example: action.input_example,
        consequential: action.consequential ?? false,
        protected: action.protected ?? false,
      });
      this.#serverActions.set(action.id, action);
      this.#serverSpecs.set(action.id, spec);
    }
  }

  /** Ends every session: tabs are told, waiting invocations answered. */
  close(): void {
    this.sessions.close();
    this.catalog.close();
  }

  /** Waits until the invocations under way have been answered, or `timeoutMs` passed. */
  async drain(timeoutMs: number): Promise<void> {
    if (this.#running.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => timer = setTimeout(resolve, timeoutMs));
    await Promise.race([Promise.allSettled([...this.#running]), timeout]);
    clearTimeout(timer);
  }

  /** Whether `id` is a server action's id, which a page may not reuse. */
  isServerAction(id: string): boolean {
    return this.#serverActions.has(id);
  }

  /**
   * The session of a token.
   *
   * @throws {AimError} 401 `missing_token` or `invalid_token`.
   */
  authenticate(token: string | undefined): Session {
    if (token === undefined) throw missingToken();
    const session = this.sessions.find(token);
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
  authenticateTab(tabKey: string | undefined): Session {
    const session = this.sessions.findByTabKey(tabKey);
    if (!session || !session.tab.holder) {
      throw new AimError(
        403,
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
   */
  async openSession(page: string, options: OpenSessionOptions = {}): Promise<OpenedSession> {
    const info = await this.catalog.agentPage(page);
    if (!info) throw notFound(`No agent-enabled page at ${page}.`);
    const { resume } = options;
    const existing = this.sessions.findByCredential(resume?.credential);
    if (existing && resume && this.sessions.find(resume.token) === existing) {
      existing.page = info.page;
      this.sessions.touch(existing);
      return { session: existing, token: resume.token, reused: true };
    }
    const { session, token, credential } = this.sessions.create(info.page, options.client);
    return { session, token, credential, reused: false };
  }

  /** Gives the session a new tab credential and tab key, and hands them to its tabs. */
  #rotate(session: Session): void {
    const credential = this.sessions.rotate(session);
    session.tab.broadcast({ type: "credential", credential });
    session.tab.notify(this.sessionMessage(session));
  }

  /** The session message a tab receives on grant and on login changes. */
  sessionMessage(session: Session): z.infer<typeof SessionMessage> {
    const user = session.identity
      ? {
        username: session.identity.username,
        ...(session.identity.name ? { name: session.identity.name } : {}),
      }
      : null;
    return {
      type: "session",
      id: session.id,
      page: session.page,
      expiresAt: new Date(session.expiresAt).toISOString(),
      authenticated: session.identity !== null,
      user,
      tabKey: session.tabKey,
      maxStateBytes: this.limits.maxStateBytes,
    };
  }

  /** The session's state: the tab's snapshot, then what the server says of login. */
  state(session: Session): Record<string, unknown> {
    const tab = session.tab.holder?.state ?? session.tab.lastState;
    const state: Record<string, unknown> = { ...(redactSecrets(tab) as Record<string, unknown>) };
    delete state.user;
    state.authenticated = session.identity !== null;
    if (session.identity) state.user = { ...session.identity };
    return state;
  }

  /** The actions registered for a session now. */
  sessionActions(session: Session): ActionSpec[] {
    const signedIn = session.identity !== null;
    const out: ActionSpec[] = [];
    for (const [id, action] of this.#serverActions) {
      if (isAvailable(action, signedIn)) out.push(this.#serverSpecs.get(id)!);
    }
    for (const spec of session.tab.holder?.actions ?? []) {
      if (!spec.protected || signedIn) out.push(spec);
    }
    return out;
  }

  /**
   * The manifest of the page at `path` for `session` (or the public one).
   *
   * @throws {AimError} 404 `not_found`, 409 `page_mismatch`.
   */
  async manifest(path: string, session: Session | null, origin: string): Promise<Manifest> {
    const info = await this.catalog.agentPage(path);
    if (!info) throw notFound(`No agent-enabled page at ${path}; see ${origin}/sitemap.json.`);
    let specs: ActionSpec[];
    let state: Record<string, unknown> = {};
    let connected = false;
    if (session) {
      // Attached to another page, by its tab or when it was opened: never this page's data.
      if (session.page !== info.page) {
        throw new AimError(
          409,
          "page_mismatch",
          `This session is attached to ${session.page}; read that page's manifest, or invoke disconnect and start a new session.`,
          {
            details: {
              connected_page: session.page,
              manifest_url: origin + manifestPath(session.page, "json"),
            },
          },
        );
      }
      specs = this.sessionActions(session);
      state = this.state(session);
      connected = session.tab.holder !== null;
    } else {
      specs = [...info.actions.filter((a) => !this.isServerAction(a.id)), ...this.#publicServer()];
    }
    const actions = specs.map(toManifestAction);
    const example = specs.find((a) => !this.isServerAction(a.id)) ?? specs[0];
    return {
      protocol: PROTOCOL,
      version: PROTOCOL_VERSION,
      page: info.page,
      sitemap: `${origin}/sitemap.toon`,
      state_scope: session ? "session" : "public_schema_only",
      browser_connected: connected,
      invoke_url: `${origin}/__aim/invoke`,
      invoke_method: "POST",
      invoke_example: { actionId: example.id, input: example.input_example },
      ...(session ? { mcp_url: `${origin}/__aim/mcp` } : {}),
      state: state as Manifest["state"],
      actions,
    };
  }

  /** The server actions of the public catalog: those a visitor can reach, and protected ones. */
  #publicServer(): ActionSpec[] {
    return [...this.#serverActions.values()]
      .filter((a) => a.protected || isAvailable(a, false))
      .map((a) => this.#serverSpecs.get(a.id)!);
  }

  /** The site map: every agent-enabled page. */
  async sitemap(origin: string): Promise<Sitemap> {
    const pages = await this.catalog.agentPages();
    return {
      protocol: PROTOCOL,
      version: PROTOCOL_VERSION,
      invoke_url: `${origin}/__aim/invoke`,
      session_url: `${origin}/__aim/session`,
      mcp_url: `${origin}/__aim/mcp`,
      pages: pages.map((p) => ({
        path: p.page,
        title: p.title,
        description: p.description,
        manifest_json: origin + manifestPath(p.page, "json"),
        manifest_toon: origin + manifestPath(p.page, "toon"),
        actions: [
          ...p.actions.map((a) => a.id).filter((id) => !this.isServerAction(id)),
          ...this.#publicServer().map((a) => a.id),
        ],
      })),
    };
  }

  /**
   * Invokes an action for a session. A retry with the same `idempotencyKey` gets the first
   * answer and never runs the action twice.
   *
   * @throws {AimError} every failure row of DESIGN §4.5.
   */
  invoke(
    session: Session,
    body: unknown,
    options: InvokeOptions = {},
  ): Promise<InvokeResult> {
    const parsed = InvokeRequest.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return Promise.reject(
        new AimError(
          400,
          "bad_request",
          `The body must be {"actionId": "<id>", "input": <input>}: ${
            issue.path.join(".") || "body"
          }: ${issue.message}.`,
        ),
      );
    }
    const request = parsed.data;
    const key = options.idempotencyKey;
    if (key === undefined) {
      return this.#track(
        this.#invoke(session, request, {
          dispatched: false,
          client: options.client,
          onAwaiting: options.onAwaiting,
          signal: options.signal,
        }),
      );
    }
    const print = fingerprint(request.actionId, request.input);
    const seen = session.idempotency.get(key);
    if (seen) {
      if (seen.fingerprint !== print) {
        return Promise.reject(
          new AimError(
            422,
            "idempotency_key_reused",
            "This Idempotency-Key was used with another request; use a new key.",
          ),
        );
      }
      if (seen.outcome) return seen.outcome as Promise<InvokeResult>;
      return Promise.reject(
        new AimError(
          409,
          "idempotency_key_expired",
          "The action ran once under this Idempotency-Key, but its answer is no longer kept; read the manifest for the current state.",
        ),
      );
    }
    const flag: CallState = {
      dispatched: false,
      client: options.client,
      onAwaiting: options.onAwaiting,
      signal: options.signal,
    };
    const outcome = this.#track(this.#invoke(session, request, flag));
    const entry = {
      fingerprint: print,
      outcome: outcome as Promise<unknown> | undefined,
      bytes: 0,
    };
    session.idempotency.set(key, entry);
    const keep = (answer: unknown) => {
      if (session.idempotency.get(key) !== entry) return;
      entry.bytes = JSON.stringify(answer)?.length ?? 0;
      session.idempotencyBytes += entry.bytes;
      this.#trimIdempotency(session);
    };
    outcome.then(keep, (error) => {
      // Only answers of an action that ran are kept; a rejected request may be retried.
      if (!flag.dispatched) {
        if (session.idempotency.get(key) === entry) session.idempotency.delete(key);
      } else keep(error instanceof AimError ? error.toJSON() : null);
    });
    if (session.idempotency.size > this.sessions.maxIdempotencyKeys) {
      const [oldest, dropped] = session.idempotency.entries().next().value!;
      session.idempotencyBytes -= dropped.outcome ? dropped.bytes : 0;
      session.idempotency.delete(oldest);
    }
    return outcome;
  }

  /**
   * Keeps a session's idempotent answers within its byte budget: the oldest answers are
   * dropped first, their keys kept, so that a retry is refused rather than run again.
   */
  #trimIdempotency(session: Session): void {
    for (const entry of session.idempotency.values()) {
      if (session.idempotencyBytes <= this.sessions.maxIdempotencyBytes) return;
      if (!entry.outcome || entry.bytes === 0) continue;
      entry.outcome = undefined;
      session.idempotencyBytes -= entry.bytes;
    }
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#running.add(promise);
    const done = () => this.#running.delete(promise);
    promise.then(done, done);
    return promise;
  }

  #findAction(session: Session, actionId: string): { spec: ActionSpec; server?: ServerAction } {
    const signedIn = session.identity !== null;
    const server = this.#serverActions.get(actionId);
    if (server && (server.protected || isAvailable(server, signedIn))) {
      return { spec: this.#serverSpecs.get(actionId)!, server };
    }
    const holder = session.tab.holder;
    const spec = holder
      ? holder.actions.find((a) => a.id === actionId)
      : session.tab.lastActions.find((a) => a.id === actionId);
    if (spec) return { spec };
    throw new AimError(
      404,
      "unknown_action",
      `No action "${actionId}" is registered for this session now.`,
      {
        details: { available_actions: this.sessionActions(session).map((a) => a.id) },
      },
    );
  }

  async #invoke(
    session: Session,
    request: InvokeRequest,
    flag: CallState,
  ): Promise<InvokeResult> {
    const started = performance.now();
    let status = 200;
    let outcome = "ok";
    try {
      return await this.#dispatch(session, request, flag);
    } catch (error) {
      status = error instanceof AimError ? error.status : 500;
      outcome = error instanceof AimError ? error.code : "server_error";
      throw error;
    } finally {
      // Every invocation is recorded, refused ones too, and shown in the tab's log.
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const at = new Date(this.#now());
      const { actionId } = request;
      session.tab.notify({
        type: "activity",
        at: at.toISOString(),
        actionId,
        status,
        outcome,
        durationMs,
      });
      this.#options.onInvocation?.({
        at,
        sessionId: session.id,
        page: session.page,
        username: session.identity?.username ?? null,
        actionId,
        // Only an input that passed its schema is kept, without its secret-looking keys: an
        // input that did not (a password sent as a string, say) is not written anywhere.
        input: flag.input === undefined ? null : redactSecrets(flag.input),
        status,
        outcome,
        durationMs,
      });
    }
  }

  async #dispatch(
    session: Session,
    request: InvokeRequest,
    flag: CallState,
  ): Promise<InvokeResult> {
    const { actionId } = request;
    if (session.inFlight >= this.limits.maxInFlight) {
      throw new AimError(
        429,
        "too_many_requests",
        `At most ${this.limits.maxInFlight} invocations may run at once in a session; retry shortly.`,
        { headers: { "Retry-After": "1" } },
      );
    }
    session.inFlight++;
    try {
      let found: { spec: ActionSpec; server?: ServerAction };
      try {
        found = this.#findAction(session, actionId);
      } catch (error) {
        // With no tab, the page's catalog still says what is a browser action (409 below); a
        // tab that holds the lease registers what it offers, and nothing else is relayed.
        const catalog = session.tab.holder
          ? undefined
          : (await this.catalog.agentPage(session.page))
            ?.actions.find((a) => a.id === actionId);
        if (!catalog) throw error;
        found = { spec: catalog };
      }
      const { spec, server } = found;
      if (spec.protected && session.identity === null) {
        throw new AimError(
          403,
          "login_required",
          `"${actionId}" needs a signed-in session; invoke login first.`,
        );
      }
      const input = validateInput(spec, request.input);
      flag.input = input;
      if (!server && !session.tab.holder) {
        throw new AimError(
          409,
          "browser_not_connected",
          "No browser tab holds this session; ask the person to open the page (a self-minted token has no tab).",
          { details: { page: session.page } },
        );
      }
      flag.dispatched = true;
      const result = server
        ? await this.#runServer(session, server, input, flag)
        : await this.#runTab(session, spec, input, flag);
      return {
        ok: true,
        actionId,
        result: (result ?? null) as InvokeResult["result"],
        state: this.state(session) as InvokeResult["state"],
      };
    } finally {
      session.inFlight--;
    }
  }

  async #runServer(
    session: Session,
    action: ServerAction,
    input: unknown,
    call: CallState,
  ): Promise<unknown> {
    const ctx: ServerActionContext = {
      session,
      client: call.client ?? "unknown",
      // Signing in or out rotates what binds the tab: a credential or tab key seen before
      // the change is worth nothing after it.
      signIn: (identity) => {
        session.identity = { ...identity };
        this.#rotate(session);
      },
      signOut: () => {
        session.identity = null;
        this.#rotate(session);
      },
      end: () => this.sessions.end(session, "disconnected"),
    };
    try {
      return await action.run(ctx, input);
    } catch (error) {
      if (error instanceof AimError) throw error;
      throw new AimError(
        422,
        "action_failed",
        `"${action.id}" failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  async #runTab(
    session: Session,
    spec: ActionSpec,
    input: unknown,
    call: CallState,
  ): Promise<unknown> {
    const outcome: TabOutcome = await session.tab.relay(spec.id, input, spec.consequential, {
      onAwaiting: call.onAwaiting,
      signal: call.signal,
    });
    if (outcome.ok) return outcome.result;
    switch (outcome.code) {
      case "action_failed":
        throw new AimError(
          422,
          "action_failed",
          outcome.message || `The page could not run "${spec.id}".`,
          {
            details: { actionId: spec.id },
          },
        );
      case "declined":
        throw new AimError(
          403,
          "declined",
          outcome.message || `The person declined "${spec.id}".`,
          {
            details: { actionId: spec.id },
          },
        );
      case "tab_timeout":
        throw new AimError(504, "tab_timeout", outcome.message);
      case "cancelled":
        throw new AimError(409, "cancelled", outcome.message, { details: { actionId: spec.id } });
      case "too_many_requests":
        throw new AimError(429, "too_many_requests", outcome.message, {
          headers: { "Retry-After": "1" },
        });
      case "browser_not_connected":
        throw new AimError(409, "browser_not_connected", outcome.message, {
          details: { page: session.page },
        });
    }
  }

  /**
   * Registers a tab's actions. Flags that the page's own HTML declares are a floor: a tab may
   * add `protected` or `consequential`, never remove them (a script on the page could try).
   */
  async #register(session: Session, tab: TabConnection, actions: { id: string }[]): Promise<void> {
    const declared = (await this.catalog.agentPage(tab.page).catch(() => null))?.actions ?? [];
    const accepted: ActionSpec[] = [];
    const rejected: { id: string; reason: string }[] = [];
    for (const raw of actions) {
      const id = String(raw.id);
      if (this.isServerAction(id)) {
        rejected.push({ id, reason: `"${id}" is a server action of the bridge` });
        continue;
      }
      if (accepted.some((a) => a.id === id)) {
        rejected.push({ id, reason: `"${id}" is registered twice` });
        continue;
      }
      try {
        const spec = parseActionSpec({ protected: false, consequential: false, ...raw });
        const floor = declared.find((a) => a.id === id);
        if (floor) {
          spec.protected ||= floor.protected;
          spec.consequential ||= floor.consequential;
        }
        accepted.push(intern(spec));
      } catch (error) {
        if (!(error instanceof MarkupError)) throw error;
        rejected.push({ id, reason: error.message });
      }
    }
    if (session.ended) return;
    session.tab.register(tab, accepted);
    tab.port.send({ type: "registered", accepted: accepted.map((a) => a.id), rejected });
  }

  /** A tab connected over the channel with this session's cookie. */
  connectTab(session: Session, port: TabPort): TabConnection {
    this.sessions.bind(session);
    const tab = new TabConnection(port, session.page);
    if (session.ended) {
      port.send({ type: "ended", reason: session.ended });
      port.close(CloseCode.SessionEnded, `session ${session.ended}`);
    } else if (!session.tab.connect(tab)) {
      port.close(CloseCode.Malformed, `at most ${MAX_TABS} tabs may be open on one session`);
    } else {
      // A socket that never says hello holds nothing for long.
      tab.helloTimer = setTimeout(() => {
        port.close(CloseCode.Malformed, "no hello within 10 s");
        session.tab.detach(tab);
      }, HELLO_TIMEOUT_MS);
    }
    return tab;
  }

  /**
   * Handles one channel message; a malformed or oversized one closes that channel only, and
   * nothing a tab sends can throw out of here.
   */
  tabMessage(session: Session, tab: TabConnection, data: unknown, state: { hello: boolean }): void {
    try {
      this.#tabMessage(session, tab, data, state);
    } catch (error) {
      this.#options.onError?.(error);
      tab.port.close(CloseCode.Malformed, "the bridge could not handle this message");
      session.tab.detach(tab);
    }
  }

  #tabMessage(
    session: Session,
    tab: TabConnection,
    data: unknown,
    state: { hello: boolean },
  ): void {
    const close = (code: number, reason: string) => {
      tab.port.close(code, reason.slice(0, 120));
      session.tab.detach(tab);
    };
    // A registration runs after the catalog is read; its failure closes this channel only.
    const then = (work: () => Promise<void> | void) => {
      tab.registering = tab.registering.then(work).catch((error) => {
        this.#options.onError?.(error);
        close(CloseCode.Malformed, "the bridge could not handle this message");
      });
    };
    if (typeof data !== "string") return close(CloseCode.Malformed, "messages are JSON text");
    if (overBytes(data, this.limits.maxMessageBytes)) {
      return close(CloseCode.TooLarge, `message over ${this.limits.maxMessageBytes} bytes`);
    }
    const json = parseUntrustedJson(data);
    if (!json.ok) {
      return close(
        CloseCode.Malformed,
        `malformed message: ${jsonProblemMessage(json.problem, "it")}`,
      );
    }
    const parsed = TabMessage.safeParse(json.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return close(
        CloseCode.Malformed,
        `malformed message: ${issue.path.join(".") || "message"}: ${issue.message}`,
      );
    }
    const message = parsed.data;
    if (message.type !== "hello" && !state.hello) {
      return close(CloseCode.Malformed, "send hello first");
    }
    switch (message.type) {
      case "hello": {
        if (state.hello) return close(CloseCode.Malformed, "hello was already sent");
        if (session.ended) return close(CloseCode.SessionEnded, `session ${session.ended}`);
        clearTimeout(tab.helloTimer);
        const page = normalizePage(message.page);
        if (!page) return close(CloseCode.Malformed, "hello.page is not a valid page path");
        state.hello = true;
        tab.page = page;
        // A tab shows a page of this site; anything else would label the session with a page
        // whose manifest does not exist.
        then(async () => {
          const info = await this.catalog.agentPage(page).catch(() => null);
          if (!info) {
            return close(CloseCode.Malformed, "hello.page is not an agent-enabled page here");
          }
          tab.page = info.page;
          if (!session.ended) session.tab.attach(tab);
        });
        return;
      }
      case "heartbeat":
        return session.tab.heartbeat(tab);
      case "register": {
        // After the catalog is read, in order: a later registration never lands first.
        then(() => this.#register(session, tab, message.actions));
        return;
      }
      case "state": {
        // A page whose state outgrows the limit keeps its session: the state is cut, with a
        // marker the agent reads (the elements cut it themselves first, and warn the author).
        const clean = redactSecrets(message.state) as Record<string, unknown>;
        session.tab.setState(tab, fitState(clean, this.limits.maxStateBytes).state);
        return;
      }
      case "awaiting":
        session.tab.awaiting(tab, message.id, message.message);
        return;
      case "result": {
        const outcome: TabOutcome = message.ok
          ? { ok: true, result: message.result ?? null }
          : { ok: false, code: message.error!.code, message: message.error!.message };
        session.tab.answer(tab, message.id, outcome);
        return;
      }
    }
  }
}
