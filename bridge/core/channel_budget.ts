/**
 * How much one session's tabs may send over the tab channel: a token bucket per kind of message
 * and one of characters, each a burst and then so many a second. A tab that goes past one is closed
 * (1008, saying which), so that one tab (or a script on its page) can never take the bridge from
 * the other sessions. The budget belongs to the session, not to one socket: a tab that
 * reconnects does not start again with a full one.
 *
 * The messages that answer the bridge (a `result`, an `awaiting`, the `state` and `register` an
 * action made necessary) are paid first from a credit each `invoke` gives the tab, so that a page
 * an agent drives fast is never short of them: what they cost, the agent's request paid for.
 *
 * @module
 */
import type { TabMessage } from "../wire/channel.ts";

/** A burst, then so many a second. */
export interface Rate {
  /** What may be taken at once, from full. */
  burst: number;
  /** What comes back each second, up to the burst. */
  perSecond: number;
}

/** What a budget counts: one kind of message (or several), or the characters of all of them. */
export type BudgetKind =
  | "hello"
  | "navigate"
  | "heartbeat"
  | "register"
  | "state"
  | "answer"
  | "run"
  | "characters";

/**
 * The budgets of one session's tabs (docs/channel.md, "Limits"): far above what a page sends (a
 * heartbeat every 5 s, a state or a registration at most once a frame, a navigation per click or
 * keystroke), far below what starves other sessions.
 */
export const CHANNEL_BUDGETS: Readonly<Record<BudgetKind, Rate>> = {
  hello: { burst: 20, perSecond: 1 },
  navigate: { burst: 200, perSecond: 20 },
  heartbeat: { burst: 20, perSecond: 2 },
  register: { burst: 200, perSecond: 30 },
  state: { burst: 300, perSecond: 60 },
  /** `result`, `awaiting` and `settled` beyond what the invocations sent to the tab pay for. */
  answer: { burst: 50, perSecond: 10 },
  run: { burst: 100, perSecond: 20 },
  characters: { burst: 4 << 20, perSecond: 2 << 20 },
};

/**
 * What each `invoke` pays for, besides the budgets: 4 messages (its `awaiting`, the `state` and
 * `register` it made necessary, its `result`) and 2 MiB of characters (a result and its state as
 * two messages of the largest size). Set at each `invoke`, never added up.
 */
export const INVOKE_CREDIT: Readonly<{ messages: number; characters: number }> = {
  messages: 4,
  characters: 2 << 20,
};

/** What the invocation a tab was sent last still pays for. */
export interface Credit {
  messages: number;
  characters: number;
}

/** The budget kind of each message type. */
const KIND: Readonly<Record<TabMessage["type"], BudgetKind>> = {
  hello: "hello",
  navigate: "navigate",
  heartbeat: "heartbeat",
  register: "register",
  state: "state",
  result: "answer",
  awaiting: "answer",
  settled: "answer",
  run: "run",
};

/** The message types an invocation's credit pays for. */
const CREDITED: ReadonlySet<TabMessage["type"]> = new Set([
  "result",
  "awaiting",
  "state",
  "register",
]);

/** One session's buckets: what is left of each, and when it was last filled. */
export class ChannelBudget {
  readonly #rates: Readonly<Record<BudgetKind, Rate>>;
  readonly #left = new Map<BudgetKind, { tokens: number; at: number }>();

  constructor(rates: Readonly<Record<BudgetKind, Rate>> = CHANNEL_BUDGETS) {
    this.#rates = rates;
  }

  /** Takes `amount` from the bucket `kind` at time `now` (ms); false when it holds less. */
  take(kind: BudgetKind, amount: number, now: number): boolean {
    const left = this.#filled(kind, now);
    if (left.tokens < amount) return false;
    left.tokens -= amount;
    return true;
  }

  /** The bucket `kind` as it is at `now`, filled for the time since it was last counted. */
  #filled(kind: BudgetKind, now: number): { tokens: number; at: number } {
    const rate = this.#rates[kind];
    const left = this.#left.get(kind) ?? { tokens: rate.burst, at: now };
    const refill = Math.max(0, now - left.at) * rate.perSecond / 1000;
    left.tokens = Math.min(rate.burst, left.tokens + refill);
    left.at = now;
    this.#left.set(kind, left);
    return left;
  }

  /**
   * Seconds until a new socket of the session could say hello with half its burst of characters
   * in hand (2 MiB), 0 when it can now. A page that reconnects sent far less in the last seconds;
   * a tab closed for flooding waits for it at the upgrade, rather than being let in to push the
   * megabytes its socket's buffers hold and be closed again.
   */
  reconnectWait(now: number): number {
    const need = (kind: BudgetKind, amount: number) => {
      const short = amount - this.#filled(kind, now).tokens;
      return short > 0 ? short / this.#rates[kind].perSecond : 0;
    };
    const half = this.#rates.characters.burst / 2;
    const wait = Math.max(need("hello", 1), need("characters", half));
    return wait > 0 ? Math.ceil(wait) : 0;
  }

  /**
   * Gives back `amount` to the bucket `kind` (never past its burst): what an invocation the bridge
   * sent pays for in advance, such as the `hello` of the page an action loaded.
   */
  give(kind: BudgetKind, amount: number, now: number): void {
    const rate = this.#rates[kind];
    this.take(kind, 0, now);
    const left = this.#left.get(kind)!;
    left.tokens = Math.min(rate.burst, left.tokens + amount);
  }

  /**
   * Why a message of `length` characters goes past the budget of characters, in a close reason;
   * null when within it: the tab's credit pays first (spent here), then the bucket.
   */
  overLength(length: number, credit: Credit, now: number): string | null {
    if (credit.characters >= length) {
      credit.characters -= length;
      return null;
    }
    if (this.take("characters", length, now)) return null;
    return `more than ${this.#rates.characters.perSecond} characters of messages a second`;
  }

  /**
   * Why a message of `type` goes past its budget, in a close reason, or null when it is within
   * it: the tab's credit pays (spent here) when an invocation asked for it, else its kind's
   * bucket.
   */
  overCount(type: TabMessage["type"], credit: Credit, now: number): string | null {
    if (CREDITED.has(type) && credit.messages > 0) {
      credit.messages--;
      return null;
    }
    const kind = KIND[type];
    if (this.take(kind, 1, now)) return null;
    return `more than ${this.#rates[kind].perSecond} ${type} messages a second`;
  }
}
