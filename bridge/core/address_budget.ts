/**
 * How many characters the tabs of one client address may send over the tab channel, all its
 * sessions together: a token bucket (a burst, then so many a second), shared fairly. Each
 * session's own budget (bridge/core/channel_budget.ts) bounds one session; this one bounds an
 * address that opens many sessions to multiply theirs. When the address's bucket is short, only
 * a session that has sent at least its share lately (the address's recent characters over the
 * number of its sessions that sent) is refused: a person behind the same address (a NAT) whose
 * page sends little is never closed for what another session there sent.
 *
 * @module
 */
import type { Rate } from "./channel_budget.ts";

/**
 * The characters of one address's tabs: the same as one session may send (4 Mi, then 2 Mi a
 * second), so that sessions opened to multiply the budget do not.
 */
export const ADDRESS_CHARACTERS: Readonly<Rate> = { burst: 4 << 20, perSecond: 2 << 20 };

/** How long a session's characters count as recent, ms: its share decays by e over this. */
const RECENT_MS = 2000;
/** A session that sent less than this lately no longer counts as one that sends. */
const QUIET_CHARACTERS = 1024;

/** Options of {@linkcode AddressBudgets}. */
export interface AddressBudgetsOptions {
  /**
   * The bucket of each address.
   *
   * @default {ADDRESS_CHARACTERS}
   */
  rate?: Readonly<Rate> | undefined;
  /**
   * Addresses remembered at most; past it, the longest quiet is forgotten (a full bucket).
   *
   * @default {10000}
   */
  maxAddresses?: number | undefined;
}

/** The defaults of {@linkcode AddressBudgetsOptions}, as its `@default` tags say. */
export const ADDRESS_BUDGET_DEFAULTS: {
  readonly rate: Readonly<Rate>;
  readonly maxAddresses: number;
} = { rate: ADDRESS_CHARACTERS, maxAddresses: 10_000 };

/** One address: its bucket, and what each of its sessions sent lately (decayed). */
interface Address {
  tokens: number;
  at: number;
  /** Recent characters per session id, decayed to `at`. */
  recent: Map<string, number>;
}

/** The character budgets of client addresses (see the module's documentation). */
export class AddressBudgets {
  readonly #rate: Readonly<Rate>;
  readonly #max: number;
  readonly #addresses = new Map<string, Address>();

  constructor(options: AddressBudgetsOptions = {}) {
    this.#rate = options.rate ?? ADDRESS_BUDGET_DEFAULTS.rate;
    this.#max = options.maxAddresses ?? ADDRESS_BUDGET_DEFAULTS.maxAddresses;
  }

  /** The address's state at `now`: bucket filled, recent characters decayed. */
  #at(address: string, now: number): Address {
    let entry = this.#addresses.get(address);
    if (entry) {
      // Moved to the end: the map stays in the order addresses were last heard.
      this.#addresses.delete(address);
      const elapsed = Math.max(0, now - entry.at);
      entry.tokens = Math.min(
        this.#rate.burst,
        entry.tokens + elapsed * this.#rate.perSecond / 1000,
      );
      const decay = Math.exp(-elapsed / RECENT_MS);
      for (const [session, recent] of entry.recent) {
        const left = recent * decay;
        if (left < QUIET_CHARACTERS) entry.recent.delete(session);
        else entry.recent.set(session, left);
      }
      entry.at = now;
    } else {
      entry = { tokens: this.#rate.burst, at: now, recent: new Map() };
      if (this.#addresses.size >= this.#max) {
        this.#addresses.delete(this.#addresses.keys().next().value!);
      }
    }
    this.#addresses.set(address, entry);
    return entry;
  }

  /**
   * Whether `session` has sent at least its share of what `entry`'s sessions sent lately (the
   * address's recent characters over the sessions that sent).
   */
  #heavy(entry: Address, session: string): boolean {
    const mine = entry.recent.get(session) ?? 0;
    if (mine === 0) return false;
    let total = 0;
    for (const recent of entry.recent.values()) total += recent;
    return mine >= total / entry.recent.size;
  }

  /**
   * Counts `length` characters that `session`'s tab at `address` sent at `now`: null when they
   * are within the address's budget (or the session sent less than its share), else why not,
   * in a close reason. A refused message is not counted.
   */
  charge(address: string, session: string, length: number, now: number): string | null {
    const entry = this.#at(address, now);
    // Past the bucket, only a session that sent less than its share goes on; the bucket's debt
    // is bounded by one burst, past which nothing more goes.
    const short = entry.tokens < length;
    if (short && (this.#heavy(entry, session) || entry.tokens - length < -this.#rate.burst)) {
      return `more than ${this.#rate.perSecond} characters of messages a second from this address`;
    }
    entry.tokens -= length;
    entry.recent.set(session, (entry.recent.get(session) ?? 0) + length);
    return null;
  }

  /**
   * Seconds until the address's bucket holds half a burst again, when `session` took at least
   * its share of it; 0 when it does now or the session did not: a session that took its
   * address's budget gets no new socket until it refills, so that its client does not push its
   * buffers in vain. A session that sent less than its share is never refused.
   */
  reconnectWait(address: string, session: string, now: number): number {
    const entry = this.#at(address, now);
    const half = this.#rate.burst / 2;
    if (entry.tokens >= half || !this.#heavy(entry, session)) return 0;
    return Math.ceil((half - entry.tokens) / this.#rate.perSecond);
  }

  /** Addresses remembered now. */
  get size(): number {
    return this.#addresses.size;
  }
}
