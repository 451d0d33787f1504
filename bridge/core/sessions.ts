/**
 * @module SessionStore: sessions in memory, found by a hash of their token, ending on idle
 * expiry, on disconnect, or with the process.
 */
import { createHash } from "node:crypto";
import { AimError } from "../protocol/errors.ts";
import type { EndReason } from "../protocol/channel.ts";
import { DEFAULTS } from "./limits.ts";
import { TabChannel, type TabChannelOptions } from "./tab.ts";

/** Who signed in on a session, set by the server only. */
export interface Identity {
  username: string;
  name?: string;
}

/** The longest a session may stay idle (seed 003). */
export const MAX_IDLE_MS = DEFAULTS.idleMs;

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Outcome of an idempotent invocation, kept for retries. */
export interface IdempotentEntry {
  fingerprint: string;
  /** The first answer; undefined once dropped to keep the session within its byte budget. */
  outcome: Promise<unknown> | undefined;
  /** Bytes of the answer, once known. */
  bytes: number;
}

export type { EndReason };

/** One session: a token's hash, its page, its identity and its tab channel. */
export class Session {
  /** A public id, safe to log; never the token. */
  readonly id: string = crypto.randomUUID();
  readonly tokenHash: string;
  readonly createdAt: number;
  readonly tab: TabChannel<Session>;
  /** The address of the client that opened it (see `--trust-proxy`). */
  readonly client: string;
  page: string;
  expiresAt: number;
  identity: Identity | null = null;
  /**
   * The hash of the tab credential: what lets a browser tab open the channel and hold the
   * lease. Only the page that opened the session receives it; the agent's token never
   * leads to it. A new one replaces it on sign-in and sign-out.
   */
  credentialHash = "";
  /**
   * A second secret, sent only to the tab that holds the lease: an app's own API can ask for
   * it, so that the token an agent holds is not enough to skip the page and its prompts.
   * Replaced with the credential.
   */
  tabKey = "";
  /** True once a tab has connected with this session's credential. */
  tabBound = false;
  /** True once an agent used the token (anything but the page's own opening request). */
  used = false;
  inFlight = 0;
  /** Requests held open waiting for a change: event streams and long polls. */
  waiting = 0;
  /**
   * Increases on every change of what the session's manifest says: the tab's state and
   * actions, who holds the lease, the identity, the page.
   */
  version = 1;
  ended: EndReason | null = null;
  /** Who waits for the next change (long polls, event streams); made on first use. */
  #waiters: Set<() => void> | undefined;
  #idempotency: Map<string, IdempotentEntry> | undefined;
  /** Bytes of the answers kept for `Idempotency-Key` retries. */
  idempotencyBytes = 0;

  /** What the session shows changed: a new version, and whoever waits for one is woken. */
  changed(): void {
    this.version++;
    this.#wake();
  }

  #wake(): void {
    if (!this.#waiters?.size) return;
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  /** Wakes whoever waits: the session ended. */
  endWaits(): void {
    this.#wake();
  }

  /**
   * Resolves once the version is past `since`, the session ends, `ms` pass or `signal` aborts;
   * true when the version is past `since` then.
   */
  waitForChange(since: number, ms: number, signal?: AbortSignal): Promise<boolean> {
    if (this.version > since || this.ended || signal?.aborted) {
      return Promise.resolve(this.version > since);
    }
    return new Promise((resolve) => {
      const waiters = this.#waiters ??= new Set();
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve(this.version > since);
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  /** Answers kept by `Idempotency-Key`; made on first use, as most sessions never need one. */
  get idempotency(): Map<string, IdempotentEntry> {
    return this.#idempotency ??= new Map();
  }

  constructor(init: {
    tokenHash: string;
    page: string;
    now: number;
    expiresAt: number;
    channel: TabChannelOptions<Session>;
    client: string;
  }) {
    this.tokenHash = init.tokenHash;
    this.page = init.page;
    this.createdAt = init.now;
    this.expiresAt = init.expiresAt;
    this.tab = new TabChannel<Session>(this, init.channel);
    this.client = init.client;
  }
}

/** Options of {@linkcode SessionStore}. */
export interface SessionStoreOptions
  extends Omit<TabChannelOptions, "onHeartbeat" | "onGrant" | "onChange"> {
  /** Idle time before a session expires; at most one hour. Default one hour. */
  idleMs?: number | undefined;
  /**
   * Idle time of a session that no tab has bound and no agent has used: a flood of mints
   * goes away on its own. Default 2 minutes.
   */
  freshIdleMs?: number | undefined;
  /** Idempotency keys remembered per session. Default 256. */
  maxIdempotencyKeys?: number | undefined;
  /** Bytes of idempotent answers kept per session; older answers are dropped first. Default 1 MiB. */
  maxIdempotencyBytes?: number | undefined;
  /** Sessions held at once. Default 100,000. */
  maxSessions?: number | undefined;
  /**
   * Sessions no tab bound and nobody used that one client address may hold; past it, that
   * address's oldest such session ends. Default 1,000.
   */
  maxFreshPerClient?: number | undefined;
  /** Called when a tab is granted a session's lease. */
  onGrant?: (session: Session) => void;
}

/** SHA-256 of a token, hex. Only this is kept. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/** A new token: 256 random bits, base64url. */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Whether a string has the shape of a token (or a tab credential). */
export function isTokenShaped(text: string | undefined): text is string {
  return text !== undefined && TOKEN_SHAPE.test(text);
}

/** A session just opened, with the secrets that are not kept. */
export interface CreatedSession {
  session: Session;
  /** The agent's token: shown on the page, copied to the agent. */
  token: string;
  /** The tab credential: kept by the page that opened the session, never shown. */
  credential: string;
}

/** All live sessions of a bridge. */
export class SessionStore {
  readonly idleMs: number;
  readonly freshIdleMs: number;
  readonly maxIdempotencyKeys: number;
  readonly maxIdempotencyBytes: number;
  readonly maxSessions: number;
  readonly maxFreshPerClient: number;
  #byHash = new Map<string, Session>();
  #byCredential = new Map<string, Session>();
  #byTabKey = new Map<string, Session>();
  /** Sessions no tab bound and nobody used, oldest first: the first to go when full. */
  #fresh = new Set<Session>();
  #freshByClient = new Map<string, Set<Session>>();
  #fullSweepAt = 0;
  #options: SessionStoreOptions;
  #now: () => number;
  #sweeper: ReturnType<typeof setInterval>;
  #leaseSweeper: ReturnType<typeof setInterval>;
  /** One options object for every channel, with hooks that find the session by `owner`. */
  #channelOptions: TabChannelOptions<Session>;

  constructor(options: SessionStoreOptions = {}) {
    this.#options = options;
    this.idleMs = Math.min(options.idleMs ?? MAX_IDLE_MS, MAX_IDLE_MS);
    this.freshIdleMs = Math.min(options.freshIdleMs ?? DEFAULTS.freshIdleMs, this.idleMs);
    this.maxIdempotencyKeys = options.maxIdempotencyKeys ?? DEFAULTS.maxIdempotencyKeys;
    this.maxIdempotencyBytes = options.maxIdempotencyBytes ?? DEFAULTS.maxIdempotencyBytes;
    this.maxSessions = options.maxSessions ?? DEFAULTS.maxSessions;
    this.maxFreshPerClient = options.maxFreshPerClient ?? DEFAULTS.maxFreshPerClient;
    this.#now = options.now ?? Date.now;
    this.#sweeper = setInterval(() => this.sweep(), Math.min(30_000, this.freshIdleMs));
    Deno.unrefTimer(this.#sweeper as unknown as number);
    this.#channelOptions = {
      ...options,
      onHeartbeat: (owner) => this.touch(owner),
      onChange: (owner) => owner.changed(),
      onGrant: (owner) => options.onGrant?.(owner),
    };
    // One timer checks every lease, often enough to end one within a fifth of its length.
    const leaseMs = options.leaseMs ?? DEFAULTS.leaseMs;
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

  /** Sessions held now that no tab bound and nobody used. */
  get freshCount(): number {
    return this.#fresh.size;
  }

  /**
   * Starts a session on `page` for a client address; returns it with its token and tab
   * credential, which are not kept.
   *
   * @throws {AimError} 429 when the bridge holds as many live sessions as it may.
   */
  create(page: string, client = "unknown"): CreatedSession {
    // One address may hold only so many sessions nobody uses: its oldest goes first.
    const mine = this.#freshByClient.get(client);
    if (mine && mine.size >= this.maxFreshPerClient) {
      this.end(mine.values().next().value!, "expired");
    }
    if (this.#byHash.size >= this.maxSessions) this.#makeRoom();
    if (this.#byHash.size >= this.maxSessions) {
      // Every session is in use: refuse newcomers rather than end someone's live session.
      throw new AimError(
        429,
        "too_many_requests",
        "The bridge holds as many sessions as it can; retry in a minute.",
        { headers: { "Retry-After": "60" } },
      );
    }
    const token = newToken();
    const now = this.#now();
    const session = new Session({
      tokenHash: hashToken(token),
      page,
      now,
      expiresAt: now + this.freshIdleMs,
      channel: this.#channelOptions,
      client,
    });
    this.#byHash.set(session.tokenHash, session);
    this.#fresh.add(session);
    if (mine) mine.add(session);
    else this.#freshByClient.set(client, new Set([session]));
    const credential = this.rotate(session);
    return { session, token, credential };
  }

  /** Ends expired sessions, then the oldest session nobody uses, to make room for one more. */
  #makeRoom(): void {
    // Swept at most once a second under a flood.
    if (this.#now() - this.#fullSweepAt > 1000) {
      this.#fullSweepAt = this.#now();
      this.sweep();
    }
    const oldest = this.#fresh.values().next();
    if (this.#byHash.size >= this.maxSessions && !oldest.done) this.end(oldest.value, "expired");
  }

  /** The session is in use (a tab bound it, or an agent used it): it keeps its full idle time. */
  #inUse(session: Session): void {
    if (!this.#fresh.delete(session)) return;
    const mine = this.#freshByClient.get(session.client);
    mine?.delete(session);
    if (mine?.size === 0) this.#freshByClient.delete(session.client);
  }

  /**
   * Gives a session a new tab credential and tab key, and returns the credential: on opening,
   * and on sign-in and sign-out, so that whatever bound a tab before no longer does.
   */
  rotate(session: Session): string {
    const credential = newToken();
    this.#byCredential.delete(session.credentialHash);
    this.#byTabKey.delete(hashToken(session.tabKey));
    session.credentialHash = hashToken(credential);
    session.tabKey = newToken();
    if (!session.ended) {
      this.#byCredential.set(session.credentialHash, session);
      this.#byTabKey.set(hashToken(session.tabKey), session);
    }
    return credential;
  }

  #live(session: Session | undefined): Session | undefined {
    if (!session) return undefined;
    if (session.expiresAt <= this.#now()) {
      this.end(session, "expired");
      return undefined;
    }
    return session;
  }

  /** The live session of `token`, or undefined when it is malformed, unknown or expired. */
  find(token: string | undefined): Session | undefined {
    if (!isTokenShaped(token)) return undefined;
    return this.#live(this.#byHash.get(hashToken(token)));
  }

  /** The live session of a tab credential, or undefined. */
  findByCredential(credential: string | undefined): Session | undefined {
    if (!isTokenShaped(credential)) return undefined;
    return this.#live(this.#byCredential.get(hashToken(credential)));
  }

  /** The live session of a tab key, or undefined. */
  findByTabKey(tabKey: string | undefined): Session | undefined {
    if (!isTokenShaped(tabKey)) return undefined;
    return this.#live(this.#byTabKey.get(hashToken(tabKey)));
  }

  /** An agent used the session: it is renewed and no longer counts as unused. */
  use(session: Session): void {
    session.used = true;
    this.#inUse(session);
    this.touch(session);
  }

  /** A tab connected with the session's credential. */
  bind(session: Session): void {
    session.tabBound = true;
    this.#inUse(session);
    this.touch(session);
  }

  /** Renews a session's idle expiry; one nobody uses yet keeps its short one. */
  touch(session: Session): void {
    if (session.ended) return;
    const idle = this.#fresh.has(session) ? this.freshIdleMs : this.idleMs;
    session.expiresAt = this.#now() + idle;
  }

  /** Ends a session: its token stops working and its tabs are told. */
  end(session: Session, reason: EndReason): void {
    if (session.ended) return;
    session.ended = reason;
    session.endWaits();
    this.#byHash.delete(session.tokenHash);
    this.#byCredential.delete(session.credentialHash);
    this.#byTabKey.delete(hashToken(session.tabKey));
    this.#inUse(session);
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
