/**
 * Application login: a user store with scrypt password hashes and a limiter of
 * failed attempts.
 *
 * @module
 */
import { scrypt, timingSafeEqual } from "node:crypto";
import type { Attempts, Identity, SessionShare } from "../share/share.ts";

/** Verifies credentials; an app embedding the bridge may bring its own. */
export interface UserStore {
  /** The identity for these credentials, or null. */
  verify(username: string, password: string): Promise<Identity | null>;
}

/** One user of {@linkcode createUserStore}. */
export interface UserRecord {
  /** The name the user signs in with. */
  username: string;
  /** A hash made by {@linkcode hashPassword}; never the password. */
  passwordHash: string;
  /** The user's name as the page shows it (`state.user.name`). */
  name?: string | undefined;
}

/** scrypt cost parameters of {@linkcode hashPassword}; the hash records them. */
export interface ScryptOptions {
  /**
   * CPU and memory cost, a power of two.
   *
   * @default {16384}
   */
  N?: number;
  /**
   * Block size.
   *
   * @default {8}
   */
  r?: number;
  /**
   * Parallelization.
   *
   * @default {1}
   */
  p?: number;
}

/** The defaults of {@linkcode ScryptOptions}, as its `@default` tags say. */
export const SCRYPT_DEFAULTS: Readonly<Required<ScryptOptions>> = { N: 16384, r: 8, p: 1 };

const KEY_LENGTH = 32;

function derive(
  password: string,
  salt: Uint8Array,
  N: number,
  r: number,
  p: number,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    scrypt(
      password,
      salt,
      KEY_LENGTH,
      { N, r, p, maxmem: 256 * N * r + 1024 * 1024 },
      (err, key) => {
        if (err) reject(err);
        else resolve(new Uint8Array(key));
      },
    );
  });
}

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function unb64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** Hashes a password as `scrypt$N$r$p$salt$key` (base64). */
export async function hashPassword(password: string, options: ScryptOptions = {}): Promise<string> {
  const { N = SCRYPT_DEFAULTS.N, r = SCRYPT_DEFAULTS.r, p = SCRYPT_DEFAULTS.p } = options;
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await derive(password, salt, N, r, p);
  return `scrypt$${N}$${r}$${p}$${b64(salt)}$${b64(key)}`;
}

/** Whether `password` matches a hash from {@linkcode hashPassword}; false for a malformed hash. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const parts = hash.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const N = Number(parts[1]);
  const r = Number(parts[2]);
  const p = Number(parts[3]);
  // Zero costs must be refused here: Deno's node:crypto scrypt reads 0 as "use the default".
  if (![N, r, p].every(Number.isSafeInteger) || N < 2 || r < 1 || p < 1) return false;
  if (N > 1 << 20 || r > 32 || p > 16) return false;
  try {
    // Six parts, checked above.
    const expected = unb64(parts[5]!);
    const key = await derive(password, unb64(parts[4]!), N, r, p);
    return expected.length === key.length && timingSafeEqual(expected, key);
  } catch {
    return false;
  }
}

let decoy: Promise<string> | undefined;

/**
 * The answer for a username no store knows: null, after the same scrypt work as a real check,
 * so that timing does not tell which names exist. The decoy hash is made on first use.
 */
export async function rejectUnknownUser(password: string): Promise<null> {
  decoy ??= hashPassword(crypto.randomUUID());
  await verifyPassword(password, await decoy);
  return null;
}

/** A user store over a fixed list of users. */
export function createUserStore(records: UserRecord[]): UserStore {
  const users = new Map(records.map((r) => [r.username.toLowerCase(), r]));
  return {
    async verify(username, password) {
      const record = users.get(username.toLowerCase());
      if (!record) return await rejectUnknownUser(password);
      const ok = await verifyPassword(password, record.passwordHash);
      return ok
        ? { username: record.username, ...(record.name ? { name: record.name } : {}) }
        : null;
    },
  };
}

/** Options of {@linkcode AttemptLimiter}. */
export interface AttemptLimiterOptions {
  /**
   * Failures of a key that cost nothing; each one after them makes the key wait.
   *
   * @default {3}
   */
  max?: number;
  /**
   * A key's failures are forgotten this long after its last one, ms (15 minutes).
   *
   * @default {900_000}
   */
  windowMs?: number;
  /**
   * The first wait, ms; it doubles with each further failure.
   *
   * @default {1000}
   */
  baseDelayMs?: number;
  /**
   * The longest wait, ms: a key is never locked out for longer.
   *
   * @default {30_000}
   */
  maxDelayMs?: number;
  /**
   * Keys remembered at most; past it, those quiet the longest are forgotten.
   *
   * @default {100_000}
   */
  maxKeys?: number;
  /** The clock; without it, `Date.now`. */
  now?: () => number;
  /**
   * With a shared store, failures count across every instance.
   *
   * @internal The bridge passes its own store.
   */
  share?: SessionShare | undefined;
}

/** The defaults of {@linkcode AttemptLimiterOptions}, as its `@default` tags say. */
export const ATTEMPT_DEFAULTS: Readonly<Required<Omit<AttemptLimiterOptions, "share" | "now">>> = {
  max: 3,
  windowMs: 15 * 60_000,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxKeys: 100_000,
};

/**
 * Counts failures per key and makes a key with too many wait a short, bounded time: after
 * `max` failures, `baseDelayMs` from its last failure, doubling with each further failure up to
 * `maxDelayMs` (1 s, 2 s, 4 s, … 30 s by default). A quiet `windowMs` forgets the key.
 *
 * The wait is answered as 429 with `Retry-After` rather than held in line, so that nothing
 * is kept open for it. Keys are the caller's choice: login counts per (account, client) and
 * per session, never per account alone, so that nobody can make someone else wait.
 */
export class AttemptLimiter {
  /** Failures a key may have before it waits. */
  readonly max: number;
  /** Quiet time after which a key's failures are forgotten, ms. */
  readonly windowMs: number;
  /** The first wait, ms. */
  readonly baseDelayMs: number;
  /** The longest wait, ms. */
  readonly maxDelayMs: number;
  /** Keys remembered at most. */
  readonly maxKeys: number;
  #now: () => number;
  #share: SessionShare | undefined;
  /** By key, in the order of their last failure (oldest first). */
  #failures = new Map<string, { count: number; last: number }>();

  /** A limiter with the limits of `options`, the defaults for those left out. */
  constructor(options: AttemptLimiterOptions = {}) {
    this.max = options.max ?? ATTEMPT_DEFAULTS.max;
    this.windowMs = options.windowMs ?? ATTEMPT_DEFAULTS.windowMs;
    this.baseDelayMs = options.baseDelayMs ?? ATTEMPT_DEFAULTS.baseDelayMs;
    this.maxDelayMs = options.maxDelayMs ?? ATTEMPT_DEFAULTS.maxDelayMs;
    this.maxKeys = options.maxKeys ?? ATTEMPT_DEFAULTS.maxKeys;
    this.#now = options.now ?? Date.now;
    this.#share = options.share?.shared ? options.share : undefined;
  }

  /** The wait after `count` failures, in ms. */
  delayAfter(count: number): number {
    if (count < this.max) return 0;
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(count - this.max, 30));
  }

  /** Seconds until `key` may try again; 0 when it may now. */
  async retryAfter(key: string): Promise<number> {
    if (!this.#share) return this.#waitOf(this.#failures.get(key));
    return this.#waitOf(await this.#share.attempts(key));
  }

  #waitOf(entry: Attempts | null | undefined): number {
    if (!entry) return 0;
    const now = this.#now();
    if (now - entry.last >= this.windowMs) return 0;
    const left = entry.last + this.delayAfter(entry.count) - now;
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /**
   * Checks `keys` and counts one failure of each in one step: 0 when none must wait (all are
   * counted), else the longest wait in seconds (none is counted).
   */
  async claim(keys: string[]): Promise<number> {
    if (this.#share) {
      return await this.#share.claimAttempts(keys, {
        now: this.#now(),
        windowMs: this.windowMs,
        max: this.max,
        baseDelayMs: this.baseDelayMs,
        maxDelayMs: this.maxDelayMs,
      });
    }
    // In one turn, with nothing awaited between the check and the count.
    const wait = Math.max(0, ...keys.map((key) => this.#waitOf(this.#failures.get(key))));
    if (wait === 0) { for (const key of keys) this.#count(key); }
    return wait;
  }

  /** Records one failure of `key`. */
  async fail(key: string): Promise<void> {
    if (this.#share) {
      await this.#share.fail(key, this.windowMs, this.#now());
      return;
    }
    this.#count(key);
  }

  #count(key: string): void {
    const now = this.#now();
    const entry = this.#failures.get(key);
    const count = entry && now - entry.last < this.windowMs ? entry.count + 1 : 1;
    // Moved to the end: the map stays in the order of last failures.
    this.#failures.delete(key);
    this.#failures.set(key, { count, last: now });
    if (this.#failures.size > this.maxKeys) this.#prune(now);
  }

  /** Takes back one failure of `key` (an attempt counted ahead that turned out right). */
  async forgive(key: string): Promise<void> {
    if (this.#share) return await this.#share.forgive(key);
    const entry = this.#failures.get(key);
    if (entry && --entry.count <= 0) this.#failures.delete(key);
  }

  /** Forgets `key`'s failures. */
  async reset(key: string): Promise<void> {
    if (this.#share) return await this.#share.reset(key);
    this.#failures.delete(key);
  }

  /** Keys remembered now. */
  get size(): number {
    return this.#failures.size;
  }

  #prune(now: number): void {
    for (const [key, entry] of this.#failures) {
      if (this.#failures.size <= this.maxKeys && now - entry.last < this.windowMs) break;
      this.#failures.delete(key);
    }
  }
}
