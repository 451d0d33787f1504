/**
 * SessionStore: the sessions of a bridge, opened with their secrets, found by a secret's hash
 * (session_index.ts), bounded in number, ending on idle expiry, on disconnect, or with the
 * process; with a shared store, this process's copies of them (shared_copies.ts).
 *
 * @module
 */
import { AimError } from "../errors/aim_error.ts";
import type { EndReason } from "../wire/channel.ts";
import type { Identity, SessionShare } from "../share/share.ts";
import { LocalShare } from "../share/local.ts";
import type { TabChannelOptions } from "./tab_connection.ts";
import { DEFAULTS } from "./limits.ts";
import { Session } from "./session.ts";
import { hashToken, isTokenShaped, newToken } from "./tokens.ts";
import { newSecrets, SessionIndex } from "./session_index.ts";
import { sessionChannels } from "./session_channels.ts";
import { sessionRecord, SharedCopies } from "./shared_copies.ts";
import {
  MAX_IDLE_MS,
  SESSION_STORE_DEFAULTS,
  type SessionStoreOptions,
} from "./session_store_options.ts";

export type { Identity };
export type { EndReason };

/** A session just opened, with the secrets that are not kept. */
export interface CreatedSession {
  session: Session;
  /** The agent's token: shown on the page, copied to the agent. */
  token: string;
  /** The tab credential: kept by the page that opened the session, never shown. */
  credential: string;
}

/**
 * How often a session in use is renewed in a shared store, at most: a tab's heartbeats (every
 * 5 s) would otherwise cost Redis a write each. The store's expiry may then come up to this much
 * before the idle time counted here.
 */
const SHARED_TOUCH_MS = 15_000;
/** How long this process keeps its copy of a shared session it has no tab of, unused. */
const COPY_MS = 60_000;

/** All live sessions of a bridge: those it holds, or its copies of the shared ones it serves. */
export class SessionStore {
  readonly idleMs: number;
  readonly freshIdleMs: number;
  readonly maxIdempotencyKeys: number;
  readonly maxIdempotencyBytes: number;
  readonly maxSessions: number;
  readonly maxFreshPerClient: number;
  readonly share: SessionShare;
  /** The sessions held, by the hashes of their secrets. */
  readonly #index = new SessionIndex();
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
  /** This process's copies of the sessions a shared store holds. */
  #copies: SharedCopies;
  /** Failures of the shared store in the background: an outage is logged once, by the store. */
  /** The shared store's write of each session's last identity change. */
  readonly #written = new WeakMap<Session, Promise<void>>();
  #quiet = (error: unknown): void => {
    if (error instanceof AimError && error.code === "store_unavailable") return;
    this.#options.onError?.(error);
  };

  constructor(options: SessionStoreOptions = {}) {
    this.#options = options;
    this.share = options.share ?? new LocalShare();
    const defaults = SESSION_STORE_DEFAULTS;
    this.idleMs = Math.min(options.idleMs ?? defaults.idleMs, MAX_IDLE_MS);
    this.freshIdleMs = Math.min(options.freshIdleMs ?? defaults.freshIdleMs, this.idleMs);
    this.maxIdempotencyKeys = options.maxIdempotencyKeys ?? defaults.maxIdempotencyKeys;
    this.maxIdempotencyBytes = options.maxIdempotencyBytes ?? defaults.maxIdempotencyBytes;
    this.maxSessions = options.maxSessions ?? defaults.maxSessions;
    this.maxFreshPerClient = options.maxFreshPerClient ?? defaults.maxFreshPerClient;
    this.#now = options.now ?? Date.now;
    this.#sweeper = setInterval(() => this.sweep(), Math.min(30_000, this.freshIdleMs));
    Deno.unrefTimer(this.#sweeper as unknown as number);
    this.#channelOptions = sessionChannels({
      store: options,
      share: this.share,
      onHeartbeat: (owner) => this.touch(owner),
      onGuests: (owner) => this.#copies.rewatch(owner),
      onLeaseLost: (owner) => this.#copies.leaseLost(owner),
      onError: this.#quiet,
    });
    this.#copies = new SharedCopies({
      share: this.share,
      index: this.#index,
      idleMs: this.idleMs,
      channel: this.#channelOptions,
      now: () => this.#now(),
      adopt: (session, fresh) => {
        this.#add(session);
        if (fresh) this.#fresh.add(session);
      },
      inUse: (session) => this.#inUse(session),
      end: (session, reason, options) => this.end(session, reason, options),
      quiet: this.#quiet,
    });
    // One timer checks every lease, often enough to end one within a fifth of its length.
    const leaseMs = options.leaseMs ?? DEFAULTS.leaseMs;
    this.#leaseSweeper = setInterval(() => {
      const now = this.#now();
      for (const session of this.#index.sessions()) session.tab.checkLease(now);
    }, Math.max(10, Math.min(1000, Math.floor(leaseMs / 5))));
    Deno.unrefTimer(this.#leaseSweeper as unknown as number);
  }

  /** Sessions held now (in a shared store: this process's copies). */
  get size(): number {
    return this.#index.size;
  }

  /** Sessions held now that no tab bound and nobody used. */
  get freshCount(): number {
    return this.#fresh.size;
  }

  /** The sessions held now, to count what they hold (the metrics read it when scraped). */
  held(): IterableIterator<Session> {
    return this.#index.sessions();
  }

  /**
   * Starts a session on `page` for a client address; returns it with its token and tab
   * credential, which are not kept.
   *
   * @throws {AimError} 429 when the bridge holds as many live sessions as it may; 503 when the
   * shared store cannot be reached.
   */
  async create(page: string, client = "unknown"): Promise<CreatedSession> {
    const shared = this.share.shared;
    if (!shared) {
      // One address may hold only so many sessions nobody uses: its oldest goes first.
      const mine = this.#freshByClient.get(client);
      if (mine && mine.size >= this.maxFreshPerClient) {
        this.end(mine.values().next().value!, "expired");
      }
      if (this.#index.size >= this.maxSessions) this.#makeRoom();
      if (this.#index.size >= this.maxSessions) {
        // Every session is in use: refuse newcomers rather than end someone's live session.
        throw new AimError(
          "too_many_requests",
          "The bridge holds as many sessions as it can; retry in a minute.",
          { headers: { "Retry-After": "60" } },
        );
      }
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
    const credential = newSecrets(session);
    if (shared) {
      // The caps hold across instances: the store counts sessions, and names those to end.
      const ended = await this.share.create(session.tokenHash, sessionRecord(session), {
        ttlMs: this.freshIdleMs,
        maxSessions: this.maxSessions,
        maxFreshPerClient: this.maxFreshPerClient,
      });
      for (const hash of ended) void this.#copies.endShared(hash, "expired");
    }
    this.#add(session);
    this.#fresh.add(session);
    const mine = this.#freshByClient.get(client);
    if (mine) mine.add(session);
    else this.#freshByClient.set(client, new Set([session]));
    return { session, token, credential };
  }

  #add(session: Session): void {
    this.#index.add(session);
    if (this.share.shared) {
      session.onChange = (s) => this.#copies.shareChange(s);
      session.onWait = (s) => this.#copies.watch(s);
    }
  }

  /** Ends expired sessions, then the oldest session nobody uses, to make room for one more. */
  #makeRoom(): void {
    // Swept at most once a second under a flood.
    if (this.#now() - this.#fullSweepAt > 1000) {
      this.#fullSweepAt = this.#now();
      this.sweep();
    }
    const oldest = this.#fresh.values().next();
    if (this.#index.size >= this.maxSessions && !oldest.done) this.end(oldest.value, "expired");
  }

  /** The session is in use (a tab bound it, or an agent used it): it keeps its full idle time. */
  #inUse(session: Session): void {
    if (!this.#fresh.delete(session)) return;
    const mine = this.#freshByClient.get(session.client);
    mine?.delete(session);
    if (mine?.size === 0) this.#freshByClient.delete(session.client);
    if (this.share.shared && !session.ended) {
      this.share.inUse(session.tokenHash, session.client).catch(this.#quiet);
    }
  }

  /** Reads the session again from the shared store (a change made on another instance). */
  refresh(session: Session): Promise<void> {
    return this.#copies.refresh(session);
  }

  /**
   * Gives a session a new tab credential and tab key, and returns the credential: on opening,
   * and on sign-in and sign-out, so that whatever bound a tab before no longer does.
   */
  rotate(session: Session): string {
    const before = { credentialHash: session.credentialHash, tabKeyHash: session.tabKeyHash };
    this.#index.forgetCredential(session);
    this.#index.forgetTabKey(session);
    const credential = newSecrets(session);
    if (!session.ended) {
      this.#index.indexCredential(session);
      this.#index.indexTabKey(session);
      if (this.share.shared) {
        this.#written.set(
          session,
          this.share.update(session.tokenHash, {
            identity: session.identity,
            credentialHash: session.credentialHash,
            tabKeyHash: session.tabKeyHash,
          }, { replaces: before }).then(() => {}, this.#quiet),
        );
        // The session's tabs on other instances keep it for their reloads.
        this.share.signal(session.id, { type: "credential", credential });
      }
    }
    return credential;
  }

  /**
   * Resolves once the last sign-in or sign-out of `session` ({@linkcode rotate}) reached the
   * shared store (or failed to): a login answered before it would let the agent's next call, on
   * another instance, find the old identity.
   */
  written(session: Session): Promise<void> {
    return this.#written.get(session) ?? Promise.resolve();
  }

  /**
   * Gives the tab holding the lease a new tab key, when this process does not know the one it
   * had (the lease moved here from another instance, which keeps only its hash).
   */
  renewTabKey(session: Session): void {
    if (session.tabKey || session.ended) return;
    const before = { credentialHash: session.credentialHash, tabKeyHash: session.tabKeyHash };
    this.#index.forgetTabKey(session);
    session.tabKey = newToken();
    session.tabKeyHash = hashToken(session.tabKey);
    this.#index.indexTabKey(session);
    this.share.update(session.tokenHash, {
      credentialHash: session.credentialHash,
      tabKeyHash: session.tabKeyHash,
    }, { replaces: before }).catch(this.#quiet);
  }

  #live(session: Session | undefined): Session | undefined {
    if (!session) return undefined;
    if (session.expiresAt <= this.#now()) {
      this.end(session, "expired");
      return undefined;
    }
    return session;
  }

  /**
   * The live session of `token`, or undefined when it is malformed, unknown or expired.
   *
   * @throws {AimError} 503 `store_unavailable` when the shared store cannot be reached.
   */
  find(token: string | undefined): Promise<Session | undefined> {
    if (!this.share.shared) {
      return Promise.resolve(token === undefined ? undefined : this.findHere(token));
    }
    if (!isTokenShaped(token)) return Promise.resolve(undefined);
    return this.#copies.lookup(hashToken(token));
  }

  /**
   * The live session of `token` when this process alone holds the sessions (no shared store),
   * found without waiting; undefined otherwise, or when it is malformed, unknown or expired.
   */
  findHere(token: string): Session | undefined {
    if (this.share.shared) return undefined;
    const known = this.#index.knownToken(token);
    if (known !== undefined) return this.#live(known);
    if (!isTokenShaped(token)) return undefined;
    const session = this.#live(this.#index.get(hashToken(token)));
    if (session) this.#index.rememberToken(token, session);
    return session;
  }

  /**
   * An agent used a session {@linkcode findHere} just found (so not ended), as
   * {@linkcode use} says; false when it is past its expiry (it ends now). One look at the clock:
   * this is the hot path of reads.
   */
  reuse(session: Session): boolean {
    const now = this.#now();
    if (session.expiresAt <= now) {
      this.end(session, "expired");
      return false;
    }
    session.used = true;
    this.#inUse(session);
    this.touch(session, now);
    return true;
  }

  /** Whether a session this process holds has a secret (token, tab credential, tab key) of `hash`. */
  holds(hash: string): boolean {
    return this.#index.holds(hash);
  }

  /** The live session of a token hash (a call another instance forwarded). */
  findByHash(tokenHash: string): Promise<Session | undefined> {
    if (!this.share.shared) return Promise.resolve(this.#live(this.#index.get(tokenHash)));
    return this.#copies.lookup(tokenHash);
  }

  /** The live session of a tab credential, or undefined. */
  async findByCredential(credential: string | undefined): Promise<Session | undefined> {
    if (!isTokenShaped(credential)) return undefined;
    const hash = hashToken(credential);
    if (!this.share.shared) return this.#live(this.#index.byCredential(hash));
    return await this.#copies.lookup(await this.share.alias("credential", hash));
  }

  /** The live session of a tab key, or undefined. */
  async findByTabKey(tabKey: string | undefined): Promise<Session | undefined> {
    if (!isTokenShaped(tabKey)) return undefined;
    const hash = hashToken(tabKey);
    if (!this.share.shared) return this.#live(this.#index.byTabKey(hash));
    return await this.#copies.lookup(await this.share.alias("tabKey", hash));
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
  touch(session: Session, now: number = this.#now()): void {
    if (session.ended) return;
    const idle = this.#fresh.has(session) ? this.freshIdleMs : this.idleMs;
    session.expiresAt = now + idle;
    const every = Math.min(SHARED_TOUCH_MS, this.freshIdleMs / 4);
    if (this.share.shared && now - session.sharedTouchAt >= every) {
      session.sharedTouchAt = now;
      this.share.touch(session.tokenHash, session, idle).catch(this.#quiet);
    }
  }

  /**
   * Ends a session: its token stops working and its tabs are told. With `shared: false`, only
   * this process's copy ends (the shared store already said it ended).
   */
  end(session: Session, reason: EndReason, options: { shared?: boolean } = {}): void {
    if (session.ended) return;
    session.ended = reason;
    session.endWaits();
    session.unwatch?.();
    this.#drop(session);
    session.tab.close(reason);
    if (this.share.shared && options.shared !== false) {
      this.share.remove(session.tokenHash, session, reason).catch(this.#quiet);
    }
  }

  #drop(session: Session): void {
    this.#index.drop(session);
    this.#inUse(session);
  }

  /**
   * Ends every expired session. In a shared store, a copy with no tab here is dropped (the store
   * keeps the session), and one with tabs here ends only when the store no longer has it.
   */
  sweep(): void {
    const now = this.#now();
    for (const session of this.#index.sessions()) {
      if (!this.share.shared) {
        if (session.expiresAt <= now) this.end(session, "expired");
      } else if (session.tab.open === 0 && !session.waiting && !session.inFlight) {
        // A copy nothing here needs: the store keeps the session, this process forgets it.
        if (now - session.copiedAt < COPY_MS) continue;
        session.unwatch?.();
        this.#drop(session);
      } else if (session.expiresAt <= now) void this.refresh(session);
    }
  }

  /**
   * Stops: with this process holding every session, each ends; with a shared store, sessions
   * live on and their tabs are handed over (closed to reconnect through another instance).
   */
  close(): void {
    clearInterval(this.#sweeper);
    clearInterval(this.#leaseSweeper);
    for (const session of [...this.#index.sessions()]) {
      if (!this.share.shared) this.end(session, "shutdown");
      else {
        session.unwatch?.();
        this.#drop(session);
        session.tab.handOver();
        session.handedOff = true;
        session.endWaits();
      }
    }
  }
}
