/**
 * TabMessages: what the bridge does with each message a tab sends over the channel,
 * one handler per message type. A message that breaks a rule closes that channel only.
 *
 * @module
 */
import type { ActionSpec } from "../input/action_spec.ts";
import { firstIssue } from "../wire/issue.ts";
import { jsonProblemMessage, parseUntrustedJson } from "../wire/json.ts";
import { validateInput } from "../input/validate.ts";
import { MarkupError } from "../markup/action.ts";
import { redactSecrets } from "../markup/secrets.ts";
import { fitState } from "../wire/state_limit.ts";
import { boundedJsonBytes } from "./state_bytes.ts";
import { type SessionMessage, TabMessage } from "../wire/channel.ts";
import { RUN_STATUS } from "../wire/run_status.ts";
import { CloseCode } from "../wire/names.ts";
import type { PageCatalog } from "../site/catalog.ts";
import { normalizePage } from "../site/paths.ts";
import { type ActionRegistry, intern } from "./actions.ts";
import type { InvocationRecord } from "./invocations.ts";
import { DEFAULTS, type Limits } from "./limits.ts";
import type { Session } from "./session.ts";
import type { SessionStore } from "./sessions.ts";
import { MAX_TABS } from "./tab.ts";
import { TabConnection, type TabPort } from "./tab_connection.ts";
import { type BudgetKind, ChannelBudget, type Rate } from "./channel_budget.ts";
import { SchemaChecks } from "./schema_checks.ts";
import { AddressBudgets } from "./address_budget.ts";

/** What the handlers need from the rest of the core. */
export interface TabMessageContext {
  sessions: SessionStore;
  catalog: PageCatalog;
  actions: ActionRegistry;
  /** The page identity of a path a tab names; without it, `normalizePage`. */
  pageOf?: (raw: string) => string | null;
  /** The declared page parameter a path gives more than once, for the close reason. */
  repeatedParameter?: (raw: string) => string | null;
  limits: Limits;
  /**
   * How long a new channel may take to say hello, ms.
   *
   * @default {10000}
   */
  helloTimeoutMs?: number;
  /** Called for unexpected errors (bugs), without message data. */
  onError?: ((error: unknown) => void) | undefined;
  /** Called for each run by an agent in the browser that a tab reports (the audit log). */
  onInvocation?: ((record: InvocationRecord) => void) | undefined;
  /** The clock; without it, `Date.now`. */
  now?: () => number;
  /** What one session's tabs may send; without it, `CHANNEL_BUDGETS` (core/channel_budget.ts). */
  budgets?: Readonly<Record<BudgetKind, Rate>>;
  /**
   * The bridge's time one session's tabs may spend on checking actions not checked before, ms;
   * without it, `SCHEMA_CHECK_BUDGET` (core/schema_checks.ts).
   */
  schemaBudget?: Readonly<Rate>;
  /** The clock checks are timed by, ms; without it, `performance.now`. */
  workClock?: (() => number) | undefined;
  /**
   * What the tabs of one client address may send, all its sessions together; without it,
   * `ADDRESS_CHARACTERS` (core/address_budget.ts).
   */
  addressBudget?: Readonly<Rate>;
}

/** The defaults of {@linkcode TabMessageContext}, as its `@default` tags say. */
export const TAB_MESSAGE_DEFAULTS: { readonly helloTimeoutMs: number } = {
  helloTimeoutMs: DEFAULTS.helloTimeoutMs,
};

/** Where one channel stands: whether it said hello. */
export interface ChannelState {
  hello: boolean;
  /** Set once the bridge closed the channel: what the socket still delivers is dropped. */
  closed?: boolean;
}

/** One message being handled: its session, its tab, and how to close its channel. */
interface Handling {
  session: Session;
  tab: TabConnection;
  state: ChannelState;
  close(code: number, reason: string): void;
  /** Runs `work` after the tab's earlier registrations, in order; a failure closes the channel. */
  then(work: () => Promise<void> | void): void;
}

type Handlers = {
  [T in TabMessage["type"]]: (message: Extract<TabMessage, { type: T }>, h: Handling) => void;
};

/** Whether a string's UTF-8 form is over `limit` bytes, counting only when it has to. */
function overBytes(text: string, limit: number): boolean {
  // A UTF-16 unit takes 1 to 3 UTF-8 bytes.
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return new TextEncoder().encode(text).length > limit;
}

/**
 * The `session` message a tab receives on grant and when its credential changes; `extra` adds
 * the settle timeout and, when the bridge waits for the page to react, the `settle` id.
 */
export function sessionMessage(
  session: Session,
  limits: Limits,
  extra: Pick<SessionMessage, "settleMs" | "settle"> = {},
): SessionMessage {
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
    maxStateBytes: limits.maxStateBytes,
    ...extra,
  };
}

/** The longest run a report may record, ms. */
const DAY_MS = 24 * 60 * 60 * 1000;

/** Runs by an agent in the browser that one tab may report: a burst, then so many a minute. */
export const RUN_REPORTS = { burst: 30, perMinute: 60 } as const;

/** The channel side of the core. */
export class TabMessages {
  readonly #ctx: TabMessageContext;
  readonly #handlers: Handlers;

  /** What is left of each tab's report budget. */
  readonly #reports = new WeakMap<TabConnection, { tokens: number; at: number }>();
  /** What is left of each session's channel budget: its tabs share it, reconnected ones too. */
  readonly #budgets = new WeakMap<Session, ChannelBudget>();
  /** The checks of registered actions, and each session's budget of time for new ones. */
  readonly #schemas: SchemaChecks;
  /** What is left of each client address's budget of characters, shared by its sessions. */
  readonly #addresses: AddressBudgets;

  constructor(ctx: TabMessageContext) {
    this.#ctx = ctx;
    this.#schemas = new SchemaChecks({
      budget: ctx.schemaBudget,
      now: ctx.now,
      clock: ctx.workClock,
    });
    this.#addresses = new AddressBudgets({ rate: ctx.addressBudget });
    this.#handlers = {
      hello: (message, h) => this.#hello(message.page, h),
      // After the tab's earlier registrations, like hello's own check of the page.
      navigate: (message, h) => h.then(() => this.#navigate(message.page, h)),
      heartbeat: (_message, h) => h.session.tab.heartbeat(h.tab),
      // After the catalog is read, in order: a later registration never lands first.
      register: (message, h) => h.then(() => this.#register(h.session, h.tab, message.actions)),
      state: (message, h) => this.#state(message.state, h),
      awaiting: (message, h) => void h.session.tab.awaiting(h.tab, message.id, message.message),
      // After the tab's earlier registrations: what the action changed in the actions (an item
      // it added, now a key the next invocation may name) counts before the agent is answered.
      // The state it carries counts as a `state` message sent just before it.
      // A page that is loading another one is answered at once: its channel closes next, and
      // the actions it leaves do not count.
      result: (message, h) => {
        if (message.state) this.#state(message.state, h);
        const { id, ok, result, settled, leaving, error } = message;
        const answer = () =>
          h.session.tab.answer(
            h.tab,
            id,
            ok
              ? { ok, result: result ?? null, settled: settled ?? true, leaving }
              : { ok, code: error!.code, message: error!.message },
          );
        if (leaving !== "document") return h.then(() => void answer());
        // The page an agent's action loaded says hello next: the invocation pays for it, so an
        // agent that moves from page to page is never closed for it (channel_budget.ts).
        if (answer()) this.#budgets.get(h.session)?.give("hello", 1, (this.#ctx.now ?? Date.now)());
      },
      // After the tab's earlier registrations, so that what it declared before counts.
      settled: (message, h) => h.then(() => void h.session.tab.settled(message.id, h.tab)),
      // After the tab's earlier registrations: the run is checked against what it declared.
      run: (message, h) => h.then(() => this.#ran(message, h)),
    };
  }

  /**
   * Takes a tab's state snapshot. A page whose state outgrows the limit keeps its session: the
   * state is cut, with a marker the agent reads (the elements cut it themselves first, and warn
   * the author).
   */
  #state(state: Record<string, unknown>, h: Handling): void {
    const clean = redactSecrets(state) as Record<string, unknown>;
    h.session.tab.setState(
      h.tab,
      fitState(clean, this.#ctx.limits.maxStateBytes, { measure: boundedJsonBytes }).state,
    );
    // Reported once the registrations sent before it apply (each may wait for a read of the
    // page): the answer to an action that led here then finds the page's actions.
    h.then(() => h.session.tab.markReported(h.tab));
  }

  /**
   * Seconds until a new socket of `session` may open, 0 when it may now: once the session's tabs
   * spent their budget (hello, characters), another socket would be closed at its first message,
   * after its client pushed what its buffers hold.
   */
  reconnectWait(session: Session, client = "unknown"): number {
    const now = (this.#ctx.now ?? Date.now)();
    const budget = this.#budgets.get(session);
    return Math.max(
      budget ? budget.reconnectWait(now) : 0,
      this.#addresses.reconnectWait(client, session.id, now),
    );
  }

  /** A tab opened the channel with this session's credential, from `client`'s address. */
  connect(session: Session, port: TabPort, client?: string): TabConnection {
    this.#ctx.sessions.bind(session);
    const tab = new TabConnection(port, session.page, client);
    if (session.ended) {
      port.send({ type: "ended", reason: session.ended });
      port.close(CloseCode.SessionEnded, `session ${session.ended}`);
    } else if (!session.tab.connect(tab)) {
      port.close(CloseCode.Malformed, `at most ${MAX_TABS} tabs may be open on one session`);
    } else {
      // A socket that never says hello holds nothing for long.
      const ms = this.#ctx.helloTimeoutMs ?? TAB_MESSAGE_DEFAULTS.helloTimeoutMs;
      tab.helloTimer = setTimeout(() => {
        port.close(CloseCode.Malformed, `no hello within ${ms / 1000} s`);
        session.tab.detach(tab);
      }, ms);
    }
    return tab;
  }

  /**
   * Handles one channel message; a malformed or oversized one closes that channel only, and
   * nothing a tab sends can throw out of here.
   */
  handle(session: Session, tab: TabConnection, data: unknown, state: ChannelState): void {
    if (state.closed) return;
    const close = (code: number, reason: string) => {
      state.closed = true;
      tab.port.close(code, reason.slice(0, 120));
      session.tab.detach(tab);
    };
    const failed = (error: unknown) => {
      this.#ctx.onError?.(error);
      close(CloseCode.Malformed, "the bridge could not handle this message");
    };
    const then = (work: () => Promise<void> | void) => {
      tab.registering = tab.registering.then(work).catch(failed);
    };
    try {
      // Counted before anything is read: a tab past its budget costs no parsing.
      const now = (this.#ctx.now ?? Date.now)();
      let budget = this.#budgets.get(session);
      if (!budget) this.#budgets.set(session, budget = new ChannelBudget(this.#ctx.budgets));
      const length = typeof data === "string" ? data.length : 0;
      // What an invocation's credit pays for, the agent's request paid: not the address's.
      const credited = tab.credit.characters >= length;
      const over = budget.overLength(length, tab.credit, now) ??
        (credited ? null : this.#addresses.charge(tab.client, session.id, length, now));
      if (over) return close(CloseCode.TooManyMessages, over);
      const message = this.#parse(data, close);
      if (!message) return;
      const count = budget.overCount(message.type, tab.credit, now);
      if (count) return close(CloseCode.TooManyMessages, count);
      if (message.type !== "hello" && !state.hello) {
        return close(CloseCode.Malformed, "send hello first");
      }
      const handler = this.#handlers[message.type] as (m: TabMessage, h: Handling) => void;
      handler(message, { session, tab, state, close, then });
    } catch (error) {
      failed(error);
    }
  }

  /** The message in `data`, or undefined once the channel is closed for it. */
  #parse(data: unknown, close: Handling["close"]): TabMessage | undefined {
    const { maxMessageBytes } = this.#ctx.limits;
    const refuse = (code: number, reason: string) => void close(code, reason);
    if (typeof data !== "string") return refuse(CloseCode.Malformed, "messages are JSON text");
    if (overBytes(data, maxMessageBytes)) {
      return refuse(CloseCode.TooLarge, `message over ${maxMessageBytes} bytes`);
    }
    const json = parseUntrustedJson(data);
    if (!json.ok) {
      const problem = jsonProblemMessage(json.problem, "it");
      return refuse(CloseCode.Malformed, `malformed message: ${problem}`);
    }
    const parsed = TabMessage.safeParse(json.value);
    if (!parsed.success) {
      const problem = firstIssue(parsed.error, "message");
      return refuse(CloseCode.Malformed, `malformed message: ${problem}`);
    }
    return parsed.data;
  }

  #hello(rawPage: string, { session, tab, state, close, then }: Handling): void {
    if (state.hello) return close(CloseCode.Malformed, "hello was already sent");
    if (session.ended) return close(CloseCode.SessionEnded, `session ${session.ended}`);
    clearTimeout(tab.helloTimer);
    const page = (this.#ctx.pageOf ?? normalizePage)(rawPage);
    if (!page) return close(CloseCode.Malformed, this.#invalidPage("hello", rawPage));
    state.hello = true;
    tab.page = page;
    // A tab shows a page of this site that hosts sessions; anything else would label the session
    // with a page whose manifest does not exist.
    then(async () => {
      const info = await this.#ctx.catalog.sessionPage(page).catch(() => null);
      if (!info) return close(CloseCode.Malformed, "hello.page is not an agent-enabled page here");
      tab.page = info.page;
      tab.port.send({ type: "page", page: info.page });
      if (!session.ended) session.tab.attach(tab);
    });
  }

  /** Why a tab's page names no page here, for the close reason. */
  #invalidPage(type: "hello" | "navigate", rawPage: string): string {
    const repeated = this.#ctx.repeatedParameter?.(rawPage);
    return repeated
      ? `${type}.page gives the page parameter "${repeated.slice(0, 40)}" more than once`
      : `${type}.page is not a valid page path`;
  }

  /**
   * Moves the tab, and the session when this tab holds it, to another page of the site without a
   * reconnect (a History API navigation); what the tab registered on the old page is withdrawn
   * until it registers again. A page that hosts no session here leaves both where they were:
   * the agent keeps reading the last page the session was on.
   */
  async #navigate(rawPage: string, { session, tab, close }: Handling): Promise<void> {
    const page = (this.#ctx.pageOf ?? normalizePage)(rawPage);
    if (!page) return close(CloseCode.Malformed, this.#invalidPage("navigate", rawPage));
    const info = await this.#ctx.catalog.sessionPage(page).catch(() => null);
    if (!info || session.ended) return;
    // Another page: the old one's actions go at once, before anyone reads the new page (the
    // invocation the tab runs may be what moved it: it is answered as it ends).
    if (tab.page !== info.page) session.tab.moved(tab);
    tab.page = info.page;
    tab.port.send({ type: "page", page: info.page });
    if (session.tab.holder === tab && session.page !== info.page) {
      session.page = info.page;
      session.changed();
    }
  }

  /**
   * Records a run by an agent in the browser (WebMCP) that the tab reports, as an invocation
   * `via: "webmcp"`. The status is the bridge's for the outcome, not the tab's word; the input is
   * kept only when it passes the schema the tab registered for the action, without its
   * secret-looking keys, as for an agent's invocation.
   */
  #ran(message: Extract<TabMessage, { type: "run" }>, { session, tab }: Handling): void {
    if (session.ended) return;
    // Only actions the tab declared, and at most so many reports: a page's script cannot
    // flood the log with runs of actions that do not exist.
    const spec = tab.actions.find((a) => a.id === message.actionId);
    if (!spec || !this.#reportAllowed(tab)) return;
    let input: unknown = null;
    if (message.input !== undefined && message.outcome !== "invalid_input") {
      try {
        input = redactSecrets(validateInput(spec, message.input));
      } catch {
        input = null;
      }
    }
    this.#ctx.onInvocation?.({
      at: new Date((this.#ctx.now ?? Date.now)()),
      sessionId: session.id,
      page: tab.page,
      username: session.identity?.username ?? null,
      actionId: message.actionId,
      input,
      status: RUN_STATUS[message.outcome],
      outcome: message.outcome,
      durationMs: Math.round(Math.min(message.durationMs, DAY_MS) * 100) / 100,
      via: "webmcp",
    });
  }

  /** Takes one report from the tab's budget (a token bucket); false when it is spent. */
  #reportAllowed(tab: TabConnection): boolean {
    const now = (this.#ctx.now ?? Date.now)();
    const budget = this.#reports.get(tab) ?? { tokens: RUN_REPORTS.burst, at: now };
    budget.tokens = Math.min(
      RUN_REPORTS.burst,
      budget.tokens + (now - budget.at) * RUN_REPORTS.perMinute / 60_000,
    );
    budget.at = now;
    this.#reports.set(tab, budget);
    if (budget.tokens < 1) return false;
    budget.tokens--;
    return true;
  }

  /**
   * Registers a tab's actions. Flags that the page's own HTML declares are a floor: a tab may
   * add `protected` or `consequential`, never remove them (a script on the page could try).
   */
  async #register(session: Session, tab: TabConnection, actions: { id: string }[]): Promise<void> {
    const page = await this.#ctx.catalog.agentPage(tab.page).catch(() => null);
    const declared = page?.actions ?? [];
    const accepted: ActionSpec[] = [];
    const rejected: { id: string; reason: string }[] = [];
    for (const raw of actions) {
      const id = String(raw.id);
      if (this.#ctx.actions.has(id)) {
        rejected.push({ id, reason: `"${id}" is a server action of the bridge` });
        continue;
      }
      if (accepted.some((a) => a.id === id)) {
        rejected.push({ id, reason: `"${id}" is registered twice` });
        continue;
      }
      try {
        const spec = this.#schemas.check(session, {
          protected: false,
          consequential: false,
          ...raw,
        });
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
}
