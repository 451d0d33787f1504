/**
 * Invocations: one agent request from its body to its answer. The in-flight limit, login and
 * input checks, dispatch to a server action or to the tab, and the audit record of every
 * outcome; idempotent retries are bridge/core/idempotency.ts's.
 *
 * @module
 */
import { AimError } from "../errors/aim_error.ts";
import type { ActionSpec } from "../input/action_spec.ts";
import { firstIssue } from "../wire/issue.ts";
import { validateInput } from "../input/validate.ts";
import { redactSecrets } from "../markup/secrets.ts";
import { InvokeRequest, type InvokeResult } from "../wire/schemas.ts";
import type { PageCatalog } from "../site/catalog.ts";
import type { ActionRegistry, FoundAction } from "./actions.ts";
import type { Limits } from "./limits.ts";
import { sessionState } from "./manifests.ts";
import type { ServerAction, ServerActionContext } from "./server_actions.ts";
import type { Session } from "./session.ts";
import type { SessionStore } from "./sessions.ts";
import { IDENTITY_CHANGED, type TabOutcome } from "./tab_connection.ts";
import { type ArrivalContext, leftPage } from "./arrival.ts";
import { normalizePage } from "../site/paths.ts";
import { fingerprint, runOnce } from "./idempotency.ts";

/** One finished invocation, for an audit trail. */
export interface InvocationRecord {
  /** When it was answered. */
  at: Date;
  /** The session's public id (never its token). */
  sessionId: string;
  /** The page the session was on. */
  page: string;
  /** Who was signed in on the session, or null. */
  username: string | null;
  /** The action invoked. */
  actionId: string;
  /** The input with keys that look like secrets removed. */
  input: unknown;
  /**
   * The requesting client's address, when known: not kept by the audit log, which bounds by it
   * how many refused calls it writes one by one.
   */
  client?: string;
  /** The HTTP status the invocation was answered with. */
  status: number;
  /** `ok`, or the error code it was answered with. */
  outcome: string;
  /** How long it took, in milliseconds. */
  durationMs: number;
  /**
   * `"webmcp"` for a run by an agent in the browser, through the page's WebMCP tools, that
   * the tab reported; absent for an agent's invocation through the bridge (HTTP, MCP, ACP).
   */
  via?: "webmcp";
  /** `"site_owner"`: the page's tool ran unasked on the owner's `<aim-tool read-only>` alone. */
  readOnlyBy?: "site_owner";
}

/** Options of {@linkcode Invocations.invoke}. */
export interface InvokeOptions {
  /** The requesting client's address, for per-client limits (login throttling). */
  client?: string | undefined;
  /** A retry with the same key in the same session gets the first answer. */
  idempotencyKey?: string | undefined;
  /** Called when the tab says the invocation waits for the person to confirm. */
  onAwaiting?: ((message: string) => void) | undefined;
  /** Cancels an invocation relayed to the tab (409 `cancelled`); a server action runs on. */
  signal?: AbortSignal | undefined;
  /** What is left of the tab timeout, when the call started on another instance. */
  tabTimeoutMs?: number | undefined;
  /**
   * The `state_version` the agent decided on (`If-Match`): if the session changed since, the
   * action does not run (409 `stale_state`).
   */
  ifMatch?: number;
}

/** What invocations need from the rest of the core. */
export interface InvocationContext {
  sessions: SessionStore;
  catalog: PageCatalog;
  actions: ActionRegistry;
  limits: Limits;
  now: () => number;
  /** How long an answer waits for the page to finish reacting, ms. */
  settleTimeoutMs: number;
  /** How long a retry waits for the first call under its key to answer (shared stores), ms. */
  waitMs: number;
  /** The page identity of a path with its query (`--page-query`); without it, `normalizePage`. */
  pageOf?: ((raw: string) => string | null) | undefined;
  /**
   * Gives the session a new tab credential and tab key (on sign-in and sign-out), telling the
   * tab; with `settle`, the tab answers `settled` of that id once it has reacted.
   */
  rotate(session: Session, settle?: string): void;
  /** Called after every invocation that reached an action. */
  onInvocation?: ((record: InvocationRecord) => void) | undefined;
}

/** One call under way. */
interface Call extends InvokeOptions {
  /** Whether the action was started: only then is its answer kept for retries. */
  dispatched: boolean;
  /** The input once it passed the action's schema. */
  input?: unknown;
  /** Whether the page finished reacting before the answer (false: the settle timeout ran out). */
  settled?: boolean;
  /** Runs unasked on the site owner's word alone (`<aim-tool read-only>`). */
  readOnlyBy?: "site_owner";
}

/** Answers of the tab, as the agent gets them. */
const TAB_FAILURES: Record<
  Exclude<TabOutcome, { ok: true }>["code"],
  (spec: ActionSpec, message: string, session: Session) => AimError
> = {
  action_failed: (spec, message) =>
    new AimError("action_failed", message || `The page could not run "${spec.id}".`, {
      details: { actionId: spec.id },
    }),
  declined: (spec, message) =>
    new AimError("declined", message || `The person declined "${spec.id}".`, {
      details: { actionId: spec.id },
    }),
  tab_timeout: (_spec, message) => new AimError("tab_timeout", message),
  cancelled: (spec, message) =>
    new AimError("cancelled", message, { details: { actionId: spec.id } }),
  too_many_requests: (_spec, message) =>
    new AimError("too_many_requests", message, { headers: { "Retry-After": "1" } }),
  browser_not_connected: (_spec, message, session) =>
    new AimError("browser_not_connected", message, { details: { page: session.page } }),
};

/** The invocations of one bridge. */
export class Invocations {
  readonly #ctx: InvocationContext;
  readonly #arrival: ArrivalContext;
  readonly #running = new Set<Promise<unknown>>();

  constructor(ctx: InvocationContext) {
    this.#ctx = ctx;
    this.#arrival = { ...ctx, pageOf: ctx.pageOf ?? normalizePage };
  }

  /** Waits until the invocations under way have been answered, or `timeoutMs` passed. */
  async drain(timeoutMs: number): Promise<void> {
    if (this.#running.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => timer = setTimeout(resolve, timeoutMs));
    await Promise.race([Promise.allSettled([...this.#running]), timeout]);
    clearTimeout(timer);
  }

  /**
   * Invokes an action for a session. A retry with the same `idempotencyKey` gets the first
   * answer and never runs the action twice.
   *
   * @throws {AimError} every failure of an invocation (docs/protocol.md).
   */
  async invoke(
    session: Session,
    body: unknown,
    options: InvokeOptions = {},
  ): Promise<InvokeResult> {
    const parsed = InvokeRequest.safeParse(body);
    if (!parsed.success) {
      throw new AimError(
        "bad_request",
        `The body must be {"actionId": "<id>", "input": <input>}: ${
          firstIssue(parsed.error, "body")
        }.`,
        { cause: parsed.error },
      );
    }
    const request = parsed.data;
    const call: Call = { ...options, dispatched: false };
    const run = () => this.#track(this.#record(session, request, call));
    const key = options.idempotencyKey;
    if (key === undefined) return await run();
    return await runOnce(session, {
      key,
      print: fingerprint(request.actionId, request.input),
      run,
      dispatched: () => call.dispatched,
      sessions: this.#ctx.sessions,
      waitMs: this.#ctx.waitMs,
    });
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#running.add(promise);
    const done = () => this.#running.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /** Runs the call and records its outcome, refused ones too; the tab's log shows it. */
  async #record(session: Session, request: InvokeRequest, call: Call): Promise<InvokeResult> {
    const started = performance.now();
    let status = 200;
    let outcome = "ok";
    try {
      return await this.#dispatch(session, request, call);
    } catch (error) {
      status = error instanceof AimError ? error.status : 500;
      outcome = error instanceof AimError ? error.code : "server_error";
      throw error;
    } finally {
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const at = new Date(this.#ctx.now());
      const { actionId } = request;
      const activity = {
        type: "activity",
        at: at.toISOString(),
        actionId,
        status,
        outcome,
        durationMs,
      } as const;
      // The panel's log, once the answer is on its way: the page renders it off the agent's path.
      setTimeout(() => session.tab.notify(activity), 0);
      this.#ctx.onInvocation?.({
        at,
        sessionId: session.id,
        page: session.page,
        username: session.identity?.username ?? null,
        actionId,
        // Only an input that passed its schema is kept, without its secret-looking keys: an
        // input that did not (a password sent as a string, say) is not written anywhere.
        input: call.input === undefined ? null : redactSecrets(call.input),
        ...(call.client === undefined ? {} : { client: call.client }),
        ...(call.readOnlyBy ? { readOnlyBy: call.readOnlyBy } : {}),
        status,
        outcome,
        durationMs,
      });
    }
  }

  /**
   * With no tab, the page's catalog still says what is a browser action (409 later); a tab
   * that holds the lease registers what it offers, and nothing else is relayed.
   */
  async #fromCatalog(session: Session, actionId: string, error: unknown): Promise<FoundAction> {
    if (session.tab.connected) throw error;
    const info = await this.#ctx.catalog.agentPage(session.page);
    const spec = info?.actions.find((a) => a.id === actionId);
    if (!spec) throw error;
    return { spec };
  }

  async #dispatch(session: Session, request: InvokeRequest, call: Call): Promise<InvokeResult> {
    const { actionId } = request;
    const { maxInFlight } = this.#ctx.limits;
    if (session.inFlight >= maxInFlight) {
      throw new AimError(
        "too_many_requests",
        `At most ${maxInFlight} invocations may run at once in a session; retry shortly.`,
        { headers: { "Retry-After": "1" } },
      );
    }
    if (call.ifMatch !== undefined && call.ifMatch !== session.version) {
      // A version ahead of the page's was never one it had: a typo, or another session's.
      const message = call.ifMatch > session.version
        ? `state_version ${call.ifMatch} is ahead of the page's (now ${session.version}): it was never this page's version; read the manifest and decide on its state_version.`
        : `The page changed since state_version ${call.ifMatch} (now ${session.version}); read the manifest again and decide on what it says now.`;
      throw new AimError("stale_state", message, {
        details: { state_version: session.version },
      });
    }
    session.inFlight++;
    try {
      // Found at once when registered, so that an action starts in the same turn as its call.
      let found: FoundAction;
      try {
        found = this.#ctx.actions.find(session, actionId);
      } catch (error) {
        found = await this.#fromCatalog(session, actionId, error);
      }
      const { spec, server } = found;
      if (spec.read_only_by) call.readOnlyBy = spec.read_only_by;
      const identity = session.identity;
      if (spec.protected && identity === null) {
        throw new AimError(
          "login_required",
          `"${actionId}" needs a signed-in session; invoke login first.`,
        );
      }
      // An action that takes nothing may be invoked without "input".
      const given = request.input === undefined && isNoInput(spec) ? {} : request.input;
      const input = validateInput(spec, given);
      call.input = input;
      if (!server && !session.tab.holder) {
        throw new AimError(
          "browser_not_connected",
          "No browser tab holds this session; ask the person to open the page (a self-minted token has no tab).",
          { details: { page: session.page } },
        );
      }
      // Signed in or out while the action was looked up: it is not run for the new identity.
      if (spec.protected && session.identity !== identity) {
        throw new AimError("cancelled", IDENTITY_CHANGED, { details: { actionId } });
      }
      call.dispatched = true;
      const result = server
        ? await this.#runServer(session, server, input, call)
        : await this.#runTab(session, spec, input, call);
      return {
        ok: true,
        actionId,
        result: (result ?? null) as InvokeResult["result"],
        state: sessionState(session) as InvokeResult["state"],
        state_version: session.version,
        settled: call.settled ?? true,
      };
    } finally {
      session.inFlight--;
    }
  }

  async #runServer(
    session: Session,
    action: ServerAction,
    input: unknown,
    call: Call,
  ): Promise<unknown> {
    // The page reacts to a sign-in or sign-out (it loads what the person may now see): the
    // answer waits until the tab holding the session says it is done, so that its state is
    // the one after. With no tab, nothing reacts and nothing is waited for.
    let settle = "";
    let settled: Promise<boolean> | undefined;
    const changed = () => {
      // What the former identity allowed waits no more: its prompts are withdrawn.
      session.tab.withdrawProtected();
      if (settle) session.tab.settled(settle);
      settle = session.tab.holder ? crypto.randomUUID() : "";
      settled = settle ? session.tab.whenSettled(settle) : undefined;
      // Signing in or out rotates what binds the tab: a credential or tab key seen before
      // the change is worth nothing after it.
      this.#ctx.rotate(session, settle || undefined);
    };
    const ctx: ServerActionContext = {
      session,
      client: call.client ?? "unknown",
      signIn: (identity) => {
        session.identity = { ...identity };
        changed();
      },
      signOut: () => {
        session.identity = null;
        changed();
      },
      end: () => this.#ctx.sessions.end(session, "disconnected"),
    };
    try {
      const result = await action.run(ctx, input);
      // Answered once the new identity is shared: the agent's next call may reach another bridge.
      await this.#ctx.sessions.written(session);
      if (settled) {
        // Counted from the action's end: the tab cannot have reacted to what is not done.
        const timer = setTimeout(() => session.tab.settled(settle), this.#ctx.settleTimeoutMs);
        call.settled = await settled;
        clearTimeout(timer);
      }
      return result;
    } catch (error) {
      if (settle) session.tab.settled(settle);
      if (error instanceof AimError) throw error;
      throw new AimError(
        "action_failed",
        `"${action.id}" failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  async #runTab(session: Session, spec: ActionSpec, input: unknown, call: Call): Promise<unknown> {
    const from = session.tab.holder;
    const outcome = await session.tab.relay(spec.id, input, spec.consequential, {
      onAwaiting: call.onAwaiting,
      timeoutMs: call.tabTimeoutMs,
      signal: call.signal,
      protected: spec.protected,
    });
    if (outcome.ok) {
      call.settled = outcome.settled ?? true;
      const { leaving } = outcome;
      if (!from || !leaving) return outcome.result;
      // The tab went elsewhere: the answer is the next page's (bridge/core/arrival.ts).
      const left = await leftPage(this.#arrival, session, from, { ...outcome, leaving });
      call.settled = left.settled;
      return left.result;
    }
    throw TAB_FAILURES[outcome.code](spec, outcome.message, session);
  }
}

/** Whether an action takes no input: an object schema with no fields. */
function isNoInput(spec: ActionSpec): boolean {
  const schema = spec.input_schema;
  return schema.type === "object" && Object.keys(schema.properties ?? {}).length === 0;
}
