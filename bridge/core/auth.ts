/**
 * @module Application login: a user store with scrypt password hashes and a limiter of
 * failed attempts.
 */
import { scrypt, timingSafeEqual } from "node:crypto";
import type { Identity } from "./sessions.ts";

/** Verifies credentials; an app embedding the bridge may bring its own. */
export interface UserStore {
  /** The identity for these credentials, or null. */
  verify(username: string, password: string): Promise<Identity | null>;
}

/** One user of {@linkcode createUserStore}. */
export interface UserRecord {
  username: string;
  /** A hash made by {@linkcode hashPassword}; never the password. */
  passwordHash: string;
  name?: string;
}

/** scrypt cost parameters. */
export interface ScryptOptions {
  N?: number;
  r?: number;
  p?: number;
}

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
  const { N = 16384, r = 8, p = 1 } = options;
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await derive(password, salt, N, r, p);
  return `scrypt$${N}$${r}$${p}$${b64(salt)}$${b64(key)}`;
}

/** Whether `password` matches a hash from {@linkcode hashPassword}; false for a malformed hash. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const parts = hash.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  // Zero costs must be refused here: Deno's node:crypto scrypt reads 0 as "use the default".
  if (![N, r, p].every(Number.isSafeInteger) || N < 2 || r < 1 || p < 1) return false;
  if (N > 1 << 20 || r > 32 || p > 16) return false;
  try {
    const expected = unb64(parts[5]);
    const key = await derive(password, unb64(parts[4]), N, r, p);
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
  /** Failures allowed in a window. Default 5. */
  max?: number;
  /** The window. Default 5 minutes. */
  windowMs?: number;
  now?: () => number;
}

/** Counts failures per key in a fixed window. */
export class AttemptLimiter {
  readonly max: number;
  readonly windowMs: number;
  #now: () => number;
  #failures = new Map<string, { count: number; resetAt: number }>();

  constructor(options: AttemptLimiterOptions = {}) {
    this.max = options.max ?? 5;
    this.windowMs = options.windowMs ?? 5 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Seconds until `key` may try again; 0 when it may now. */
  retryAfter(key: string): number {
    const entry = this.#failures.get(key);
    const now = this.#now();
    if (!entry || entry.resetAt <= now) return 0;
    return entry.count >= this.max ? Math.ceil((entry.resetAt - now) / 1000) : 0;
  }

  /** Records one failure of `key`. */
  fail(key: string): void {
    const now = this.#now();
    const entry = this.#failures.get(key);
    if (!entry || entry.resetAt <= now) {
      if (this.#failures.size > 100_000) this.#prune(now);
      this.#failures.set(key, { count: 1, resetAt: now + this.windowMs });
    } else {
      entry.count++;
    }
  }

  /** Takes back one failure of `key` (an attempt counted ahead that turned out right). */
  forgive(key: string): void {
    const entry = this.#failures.get(key);
    if (entry && --entry.count <= 0) this.#failures.delete(key);
  }

  /** Forgets `key`'s failures. */
  reset(key: string): void {
    this.#failures.delete(key);
  }

  #prune(now: number): void {
    for (const [key, entry] of this.#failures) if (entry.resetAt <= now) this.#failures.delete(key);
  }
}
