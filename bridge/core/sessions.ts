/**
 * @module SessionStore: sessions in memory, found by a hash of their token, ending on idle
 * expiry, on disconnect, or with the process.
 */
import { createHash } from "node:crypto";
import { AimError } from "../protocol/errors.ts";
import { TabChannel, type TabChannelOptions } from "./tab.ts";

/** Who signed in on a session, set by the server only. */
export interface Identity {
  username: string;
  name?: string;
}

/** The longest a session may stay idle (seed 003). */
export const MAX_IDLE_MS = 60 * 60 * 1000;

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Outcome of an idempotent invocation, kept for retries. */
export interface IdempotentEntry {
  fingerprint: string;
  outcome: Promise<unknown>;
}

/** Why a session ended. */
export type EndReason = "disconnected" | "expired" | "shutdown";

/** One session: a token's hash, its page, its identity and its tab channel. */
export class Session {
  /** A public id, safe to log; never the token. */
  readonly id: string = crypto.randomUUID();
  readonly tokenHash: string;
  readonly createdAt: number;
  readonly tab: TabChannel;
  page: string;
  expiresAt: number;
  identity: Identity | null = null;
  /**
   * A second secret, sent only to the tab that holds the lease: an app's own API can ask for
   * it, so that the token an agent holds is not enough to skip the page and its prompts.
   */
  readonly tabKey: string = newToken();
  /** True once a tab has connected with this session's cookie. */
  tabBound = false;
  inFlight = 0;
  ended: EndReason | null = null;
  #idempotency: Map<string, IdempotentEntry> | undefined;

  /** Answers kept by `Idempotency-Key`; made on first use, as most sessions never need one. */
  get idempotency(): Map<string, IdempotentEntry> {
    return this.#idempotency ??= new Map();
  }

  constructor(tokenHash: string, page: string, now: number, idleMs: number, tab: TabChannel) {
    this.tokenHash = tokenHash;
    this.page = page;
    this.createdAt = now;
    this.expiresAt = now + idleMs;
    this.tab = tab;
  }
}

/** Options of {@linkcode SessionStore}. */
export interface SessionStoreOptions extends Omit<TabChannelOptions, "onHeartbeat" | "onGrant"> {
  /** Idle time before a session expires; at most one hour. Default one hour. */
  idleMs?: number;
  /** Idempotency keys remembered per session. Default 256. */
  maxIdempotencyKeys?: number;
  /** Sessions held at once; past it, new ones are refused (429). Default 100,000. */
  maxSessions?: number;
  /** Called when a tab is granted a session's lease. */
  onGrant?: (session: Session) => void;
}

/** SHA-256 of a token, hex. Only this is kept. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A new token: 256 random bits, base64url. */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** All live sessions of a bridge. */
export class SessionStore {
  readonly idleMs: number;
  readonly maxIdempotencyKeys: number;
  readonly maxSessions: number;
  #byHash = new Map<string, Session>();
  #fullSweepAt = 0;
  #options: SessionStoreOptions;
  #now: () => number;
  #sweeper: ReturnType<typeof setInterval>;
  #leaseSweeper: ReturnType<typeof setInterval>;
  /** One options object for every channel, with hooks that find the session by `owner`. */
  #channelOptions: TabChannelOptions;

  constructor(options: SessionStoreOptions = {}) {
    this.#options = options;
    this.idleMs = Math.min(options.idleMs ?? MAX_IDLE_MS, MAX_IDLE_MS);
    this.maxIdempotencyKeys = options.maxIdempotencyKeys ?? 256;
    this.maxSessions = options.maxSessions ?? 100_000;
    this.#now = options.now ?? Date.now;
    this.#sweeper = setInterval(() => this.sweep(), Math.min(60_000, this.idleMs));
    Deno.unrefTimer(this.#sweeper as unknown as number);
    this.#channelOptions = {
      ...options,
      onHeartbeat: (owner) => this.touch(owner as Session),
      onGrant: (owner) => options.onGrant?.(owner as Session),
    };
    // One timer checks every lease, often enough to end one within a fifth of its length.
    const leaseMs = options.leaseMs ?? 15_000;
    this.#leaseSweeper = setInterval(() => {
      const now = this.#now();
      for (const session of this.#byHash.values()) session.tab.checkLease(now);
    }, Math.max(10, Math.min(1000, Math.floor(leaseMs / 5))));
    Deno.unrefTimer(this.#leaseSweeper as unknown as number);
  }

  /** Sessions held now. */
  get size(): number {
    return this.#byHash.size;
  }

  /** Starts a session on `page`; returns it with its token, which is not kept. */
  create(page: string): { session: Session; token: string } {
    // When full, expired sessions make room (swept at most once a second under a flood).
    if (this.#byHash.size >= this.maxSessions && this.#now() - this.#fullSweepAt > 1000) {
      this.#fullSweepAt = this.#now();
      this.sweep();
    }
    if (this.#byHash.size >= this.maxSessions) {
      // Refuse newcomers rather than end someone's live session: a flood of new sessions must
      // not log anyone out.
      throw new AimError(
        429,
        "too_many_requests",
        "The bridge holds as many sessions as it can; retry in a minute.",
        { headers: { "Retry-After": "60" } },
      );
    }
    const token = newToken();
    const tokenHash = hashToken(token);
    const tab = new TabChannel(this.#channelOptions);
    const session = new Session(tokenHash, page, this.#now(), this.idleMs, tab);
    tab.owner = session;
    this.#byHash.set(tokenHash, session);
    return { session, token };
  }

  /** The live session of `token`, or undefined when it is malformed, unknown or expired. */
  find(token: string | undefined): Session | undefined {
    if (!token || !TOKEN_SHAPE.test(token)) return undefined;
    const session = this.#byHash.get(hashToken(token));
    if (!session) return undefined;
    if (session.expiresAt <= this.#now()) {
      this.end(session, "expired");
      return undefined;
    }
    return session;
  }

  /** Renews a session's idle expiry. */
  touch(session: Session): void {
    if (!session.ended) session.expiresAt = this.#now() + this.idleMs;
  }

  /** Ends a session: its token stops working and its tabs are told. */
  end(session: Session, reason: EndReason): void {
    if (session.ended) return;
    session.ended = reason;
    this.#byHash.delete(session.tokenHash);
    session.tab.close(reason);
  }

  /** Ends every expired session. */
  sweep(): void {
    const now = this.#now();
    for (const session of this.#byHash.values()) {
      if (session.expiresAt <= now) this.end(session, "expired");
    }
  }

  /** Ends every session: the bridge is stopping. */
  close(): void {
    clearInterval(this.#sweeper);
    clearInterval(this.#leaseSweeper);
    for (const session of [...this.#byHash.values()]) this.end(session, "shutdown");
  }
}
