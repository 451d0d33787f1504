/**
 * Places for costly work (a password check, a session mint, a run), shared fairly among clients:
 * a ceiling in all and a smaller one per key (the client's address, the session, the account),
 * and for some keys a rate (a burst, then so many a second). A caller that does not fit waits in
 * line a short, bounded time instead of being refused at once: a client that sends more than its
 * share at once waits for its turn rather than spinning on refusals, which would cost the bridge
 * as much as the work. When a place (or a key's next turn) frees, it goes to the waiter whose first
 * key (its client) holds the fewest places, the longest waiting first among equals, so that a
 * client with one request passes a flood from others. Lines are bounded per key and in all; past
 * them, and past the wait, the caller is refused (the routes answer 429 with `Retry-After`).
 *
 * @module
 */
import type { Rate } from "./channel_budget.ts";

export type { Rate };

/** The bounds of one key (or of the keys of one prefix). */
export interface KeyLimit {
  /** Places the key may hold at once. */
  max: number;
  /** Callers of the key that may wait in line at once. */
  maxWaiting: number;
  /** How often the key may take a place: a burst, then so many a second; none: unbounded. */
  rate?: Rate | undefined;
}

/** Options of {@linkcode FairGate}. */
export interface FairGateOptions {
  /** Places in all. */
  max: number;
  /** The bounds of a key whose prefix {@linkcode FairGateOptions.limits} does not name. */
  perKey: KeyLimit;
  /** Bounds of the keys of a prefix (the text before the first `:`, as `client` of `client:…`). */
  limits?: Readonly<Record<string, KeyLimit>> | undefined;
  /** How long a caller waits in line at most, ms; 0: a caller that does not fit is refused. */
  waitMs: number;
  /**
   * Callers waiting in line at once, in all.
   *
   * @default {64}
   */
  maxWaiting?: number | undefined;
  /**
   * Rate buckets remembered at most; past it, full ones (then the longest untouched) are
   * forgotten.
   *
   * @default {10000}
   */
  maxKeys?: number | undefined;
  /** The clock; without it, `Date.now`. */
  now?: (() => number) | undefined;
}

/** The defaults of {@linkcode FairGateOptions}, as its `@default` tags say. */
export const FAIR_GATE_DEFAULTS: { readonly maxWaiting: number; readonly maxKeys: number } = {
  maxWaiting: 64,
  maxKeys: 10_000,
};

interface Waiter {
  keys: string[];
  resolve: (entered: boolean) => void;
  timer: ReturnType<typeof setTimeout>;
  signal?: AbortSignal | undefined;
  onAbort?: () => void;
}

/** What is left of a key's rate: tokens, and when they were counted. */
interface Bucket {
  tokens: number;
  at: number;
}

/** Places for costly work, shared fairly (see the module's documentation). */
export class FairGate {
  #inside = 0;
  readonly #held = new Map<string, number>();
  /** Waiters per key, so that a full line is known without a walk. */
  readonly #waitingPerKey = new Map<string, number>();
  #waiting: Waiter[] = [];
  readonly #buckets = new Map<string, Bucket>();
  #wake: ReturnType<typeof setTimeout> | undefined;
  #wakeAt = Infinity;
  readonly #max: number;
  readonly #perKey: KeyLimit;
  readonly #limits: Readonly<Record<string, KeyLimit>>;
  readonly #waitMs: number;
  readonly #maxWaiting: number;
  readonly #maxKeys: number;
  readonly #now: () => number;

  constructor(options: FairGateOptions) {
    this.#max = options.max;
    this.#perKey = options.perKey;
    this.#limits = options.limits ?? {};
    this.#waitMs = options.waitMs;
    this.#maxWaiting = options.maxWaiting ?? FAIR_GATE_DEFAULTS.maxWaiting;
    this.#maxKeys = options.maxKeys ?? FAIR_GATE_DEFAULTS.maxKeys;
    this.#now = options.now ?? Date.now;
  }

  /** The bounds of `key`. */
  #limit(key: string): KeyLimit {
    const colon = key.indexOf(":");
    return (colon > 0 ? this.#limits[key.slice(0, colon)] : undefined) ?? this.#perKey;
  }

  /** Places taken now. */
  get inside(): number {
    return this.#inside;
  }

  /** Callers waiting in line now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Callers of `key` waiting in line now. */
  waitingOf(key: string): number {
    return this.#waitingPerKey.get(key) ?? 0;
  }

  /**
   * Takes a place for `keys` (the first one the client's), waiting in line if need be: true once
   * taken, false when refused (a full line, the wait over, `signal` aborted). Give it back with
   * {@linkcode FairGate.leave}.
   */
  enter(keys: string[], signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    const now = this.#now();
    // Those already waiting whose turn has come go first (their timer may not have fired yet).
    if (this.#waiting.length) this.#admit();
    if (this.#fits(keys) && this.#due(keys, now) <= now) {
      this.#take(keys, now);
      return Promise.resolve(true);
    }
    const crowded = keys.some((key) => this.waitingOf(key) >= this.#limit(key).maxWaiting);
    if (crowded || this.#waiting.length >= this.#maxWaiting || this.#waitMs <= 0) {
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        keys,
        resolve,
        timer: setTimeout(() => this.#drop(waiter, false), this.#waitMs),
        signal,
      };
      if (signal) {
        waiter.onAbort = () => this.#drop(waiter, false);
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.#waiting.push(waiter);
      for (const key of keys) this.#waitingPerKey.set(key, this.waitingOf(key) + 1);
      this.#schedule(now);
    });
  }

  /** Gives back the place of `keys`; the next waiter that fits takes it. */
  leave(keys: string[]): void {
    this.#inside--;
    for (const key of keys) {
      const left = (this.#held.get(key) ?? 1) - 1;
      if (left > 0) this.#held.set(key, left);
      else this.#held.delete(key);
    }
    this.#admit();
  }

  /** Lets in every waiter that fits now, the fairest first; then waits for the next turn due. */
  #admit(): void {
    const now = this.#now();
    while (true) {
      let next: Waiter | undefined;
      for (const waiter of this.#waiting) {
        if (!this.#fits(waiter.keys) || this.#due(waiter.keys, now) > now) continue;
        if (!next || this.#heldBy(waiter) < this.#heldBy(next)) next = waiter;
      }
      if (!next) break;
      this.#remove(next);
      this.#take(next.keys, now);
      next.resolve(true);
    }
    this.#schedule(now);
  }

  /** Takes `waiter` out of the line and answers it. */
  #drop(waiter: Waiter, entered: boolean): void {
    if (!this.#waiting.includes(waiter)) return;
    this.#remove(waiter);
    waiter.resolve(entered);
  }

  #remove(waiter: Waiter): void {
    this.#waiting = this.#waiting.filter((w) => w !== waiter);
    clearTimeout(waiter.timer);
    if (waiter.onAbort) waiter.signal?.removeEventListener("abort", waiter.onAbort);
    for (const key of waiter.keys) {
      const left = this.waitingOf(key) - 1;
      if (left > 0) this.#waitingPerKey.set(key, left);
      else this.#waitingPerKey.delete(key);
    }
  }

  /** A timer for the earliest turn a waiter with a place waits for (a key's next token). */
  #schedule(now: number): void {
    let at = Infinity;
    for (const waiter of this.#waiting) {
      if (this.#fits(waiter.keys)) at = Math.min(at, this.#due(waiter.keys, now));
    }
    if (at === this.#wakeAt) return;
    clearTimeout(this.#wake);
    this.#wakeAt = at;
    this.#wake = at === Infinity ? undefined : setTimeout(() => {
      this.#wakeAt = Infinity;
      this.#wake = undefined;
      this.#admit();
    }, Math.max(0, Math.ceil(at - now)));
  }

  #heldBy(waiter: Waiter): number {
    // A waiter without keys has no client to count against.
    const client = waiter.keys[0];
    return client === undefined ? 0 : this.#held.get(client) ?? 0;
  }

  #fits(keys: string[]): boolean {
    return this.#inside < this.#max &&
      keys.every((key) => (this.#held.get(key) ?? 0) < this.#limit(key).max);
  }

  /** When every rated key of `keys` has a token: `now` or earlier when they all do. */
  #due(keys: string[], now: number): number {
    let due = -Infinity;
    for (const key of keys) {
      const rate = this.#limit(key).rate;
      if (!rate) continue;
      const tokens = this.#tokens(key, rate, now);
      if (tokens >= 1) continue;
      due = Math.max(due, now + (1 - tokens) * 1000 / rate.perSecond);
    }
    return due;
  }

  /** The tokens `key` holds at `now`. */
  #tokens(key: string, rate: Rate, now: number): number {
    const bucket = this.#buckets.get(key);
    if (!bucket) return rate.burst;
    return Math.min(
      rate.burst,
      bucket.tokens + Math.max(0, now - bucket.at) * rate.perSecond / 1000,
    );
  }

  #take(keys: string[], now: number): void {
    this.#inside++;
    for (const key of keys) {
      this.#held.set(key, (this.#held.get(key) ?? 0) + 1);
      const rate = this.#limit(key).rate;
      if (!rate) continue;
      const tokens = this.#tokens(key, rate, now) - 1;
      // Moved to the end: the buckets stay in the order they were last used.
      this.#buckets.delete(key);
      this.#buckets.set(key, { tokens, at: now });
    }
    if (this.#buckets.size > this.#maxKeys) this.#prune(now);
  }

  /**
   * Forgets the buckets that are full again (a key without one has a full one), then the longest
   * untouched, down to nine tenths of the bound, so that the walk is paid once per many keys.
   */
  #prune(now: number): void {
    const target = Math.floor(this.#maxKeys * 0.9);
    for (const key of this.#buckets.keys()) {
      const rate = this.#limit(key).rate;
      if (!rate || this.#tokens(key, rate, now) >= rate.burst) this.#buckets.delete(key);
    }
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size <= target) break;
      this.#buckets.delete(key);
    }
  }
}
