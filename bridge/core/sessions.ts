/**
 * SessionStore: sessions in memory, found by a hash of their token, ending on idle
 * expiry, on disconnect, or with the process.
 *
 * @module
 */
import { AimError } from "../errors/aim_error.ts";
import type { EndReason } from "../wire/channel.ts";
import { DEFAULTS } from "./limits.ts";
import type { Identity, SessionRecord, SessionShare, SessionSignal } from "../share/share.ts";
import { LocalShare } from "../share/local.ts";
import type { TabChannelOptions } from "./tab_connection.ts";
import { Session } from "./session.ts";
import { hashToken, isTokenShaped, newToken } from "./tokens.ts";
import { BoundedMap } from "../utils/bounded_map.ts";

/** How many agents' tokens a store remembers the session of. */
const KNOWN_TOKENS = 4096;

export type { Identity };

/** The longest a session may stay idle (seed 003). */
export const MAX_IDLE_MS = DEFAULTS.idleMs;
export type { EndReason };
/** Options of {@linkcode SessionStore}. */
export interface SessionStoreOptions
  extends Omit<TabChannelOptions, "onHeartbeat" | "onGrant" | "onChange"> {
  /**
   * Idle time before a session expires, ms; at most one hour.
   *
   * @default {3_600_000}
   */
  idleMs?: number | undefined;
  /**
   * Idle time of a session that no tab has bound and no agent has used, ms: a flood of mints
   * goes away on its own.
   *
   * @default {120_000}
   */
  freshIdleMs?: number | undefined;
  /**
   * Idempotency keys remembered per session.
   *
   * @default {256}
   */
  maxIdempotencyKeys?: number | undefined;
  /**
   * Bytes of idempotent answers kept per session (1 MiB); older answers are dropped first.
   *
   * @default {1_048_576}
   */
  maxIdempotencyBytes?: number | undefined;
  /**
   * Sessions held at once.
   *
   * @default {100_000}
   */
  maxSessions?: number | undefined;
  /**
   * Sessions no tab bound and nobody used that one client address may hold; past it, that
   * address's oldest such session ends.
   *
   * @default {1000}
   */
  maxFreshPerClient?: number | undefined;
  /** Called when a tab is granted a session's lease. */
  onGrant?: (session: Session) => void;
  /**
   * Where sessions are shared with other instances; without it, a {@linkcode LocalShare}: this
   * process holds them all.
   */
  share?: SessionShare | undefined;
  /** Called for failures of the shared store that no request waits on. */
  onError?: ((error: unknown) => void) | undefined;
}

/** The defaults of {@linkcode SessionStoreOptions}, as its `@default` tags say. */
export const SESSION_STORE_DEFAULTS: {
  readonly idleMs: number;
  readonly freshIdleMs: number;
  readonly maxIdempotencyKeys: number;
  readonly maxIdempotencyBytes: number;
  readonly maxSessions: number;
  readonly maxFreshPerClient: number;
} = {
  idleMs: DEFAULTS.idleMs,
  freshIdleMs: DEFAULTS.freshIdleMs,
  maxIdempotencyKeys: DEFAULTS.maxIdempotencyKeys,
  maxIdempotencyBytes: DEFAULTS.maxIdempotencyBytes,
  maxSessions: DEFAULTS.maxSessions,
  maxFreshPerClient: DEFAULTS.maxFreshPerClient,
};
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
  #byHash = new Map<string, Session>();
  /**
   * Token to session, so that an agent's next request does not hash its token again (no shared
   * store). The tokens stay in this process's memory, as the requests carrying them do; nothing
   * is written.
   */
  readonly #byToken = new BoundedMap<string, Session>(KNOWN_TOKENS);
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
  /** Failures of the shared store in the background: an outage is logged once, by the store. */
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
    const leaseMs = options.leaseMs ?? DEFAULTS.leaseMs;
    const share = this.share;
    this.#channelOptions = {
      ...options,
      onHeartbeat: (owner) => this.touch(owner),
      onChange: (owner) => owner.changed(),
      onGrant: (owner) => options.onGrant?.(owner),
      onGuests: (owner) => this.#rewatch(owner),
      ...(share.shared
        ? {
          // The lease is the shared one: a tab gets it only when no live instance holds it.
          acquire: (owner: Session) => share.acquire(owner.tokenHash, leaseMs),
          renew: (owner: Session) => {
            share.renew(owner.tokenHash, leaseMs).then(
              (held) => held ? undefined : this.#leaseLost(owner),
              this.#quiet,
            );
          },
          release: (owner: Session) => {
            share.release(owner.tokenHash).then(
              () => share.signal(owner.id, { type: "released" }),
              this.#quiet,
            );
          },
        }
        : {}),
    };
    // One timer checks every lease, often enough to end one within a fifth of its length.
    this.#leaseSweeper = setInterval(() => {
      const now = this.#now();
      for (const session of this.#byHash.values()) session.tab.checkLease(now);
    }, Math.max(10, Math.min(1000, Math.floor(leaseMs / 5))));
    Deno.unrefTimer(this.#leaseSweeper as unknown as number);
  }

  /** Sessions held now (in a shared store: this process's copies). */
  get size(): number {
    return this.#byHash.size;
  }

  /** Sessions held now that no tab bound and nobody used. */
  get freshCount(): number {
    return this.#fresh.size;
  }

  /** The sessions held now, to count what they hold (the metrics read it when scraped). */
  held(): IterableIterator<Session> {
    return this.#byHash.values();
  }

  /** This instance no longer holds the shared lease: the session ended, or another took it. */
  async #leaseLost(session: Session): Promise<void> {
    const record = await this.share.load(session.tokenHash).catch(() => undefined);
    if (record === undefined) return;
    if (record === null) return this.end(session, "expired", { shared: false });
    session.tab.checkLease(Number.POSITIVE_INFINITY);
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
      if (this.#byHash.size >= this.maxSessions) this.#makeRoom();
      if (this.#byHash.size >= this.maxSessions) {
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
    const credential = this.#secrets(session);
    if (shared) {
      // The caps hold across instances: the store counts sessions, and names those to end.
      const ended = await this.share.create(session.tokenHash, this.#record(session), {
        ttlMs: this.freshIdleMs,
        maxSessions: this.maxSessions,
        maxFreshPerClient: this.maxFreshPerClient,
      });
      for (const hash of ended) void this.#endShared(hash, "expired");
    }
    this.#add(session);
    this.#fresh.add(session);
    const mine = this.#freshByClient.get(client);
    if (mine) mine.add(session);
    else this.#freshByClient.set(client, new Set([session]));
    return { session, token, credential };
  }

  /** Ends a session known only by its token hash, wherever its tabs are. */
  async #endShared(tokenHash: string, reason: EndReason): Promise<void> {
    const local = this.#byHash.get(tokenHash);
    if (local) return this.end(local, reason);
    const record = await this.share.load(tokenHash).catch(() => null);
    if (record) await this.share.remove(tokenHash, record, reason).catch(() => {});
  }

  /** What the shared store keeps of a session. */
  #record(session: Session): SessionRecord {
    return {
      id: session.id,
      page: session.page,
      client: session.client,
      createdAt: session.createdAt,
      identity: session.identity,
      credentialHash: session.credentialHash,
      tabKeyHash: hashToken(session.tabKey),
      version: session.version,
      state: session.tab.lastState,
      actions: session.tab.lastActions,
      holder: "",
      stateTab: "",
      inUse: session.used || session.tabBound,
    };
  }

  #add(session: Session): void {
    this.#byHash.set(session.tokenHash, session);
    this.#byCredential.set(session.credentialHash, session);
    this.#byTabKey.set(session.tabKeyHash, session);
    if (this.share.shared) {
      session.onChange = (s) => this.#shareChange(s);
      session.onWait = (s) => this.#watch(s);
    }
  }

  /**
   * Listens to what other instances say of a session, once something here needs it: a wait for
   * its next change, or a tab here waiting for a lease another instance holds. The instance
   * holding the lease needs none (changes go through it, and a session that ended elsewhere
   * fails its next lease renewal), so 10,000 tabs cost no subscriptions.
   */
  #watch(session: Session): void {
    if (session.unwatch || session.ended) return;
    session.unwatch = this.share.watch(session.id, (signal) => this.#onSignal(session, signal));
  }

  /** Watches a session while tabs here do not hold its lease; else only while waits need it. */
  #rewatch(session: Session): void {
    if (session.tab.guests > 0) return this.#watch(session);
    if (!session.unwatch || session.waiters > 0) return;
    session.unwatch();
    session.unwatch = undefined;
  }

  /** Shares a change this process made: the store's version comes back, then others are told. */
  #shareChange(session: Session): void {
    if (session.ended) return;
    // Not the identity: only the instance that signs the session in or out writes it
    // (`rotate`). A copy that has not yet read a sign-in made elsewhere would write it back
    // signed out when its tab pushes a state.
    // The tab holding the lease here, once it reported, is whose state this is.
    const holder = session.tab.holder;
    this.share.update(session.tokenHash, {
      page: session.page,
      state: session.tab.lastState,
      actions: session.tab.lastActions,
      ...(holder?.reported ? { stateTab: holder.id } : {}),
    }, { bump: true }).then((version) => {
      if (version === 0) return this.end(session, "expired", { shared: false });
      session.changedTo(version);
      this.share.signal(session.id, { type: "changed", version });
    }, this.#quiet);
  }

  /** What another instance said of a session this process has a copy of. */
  #onSignal(session: Session, signal: SessionSignal): void {
    switch (signal.type) {
      case "changed":
        if (signal.version > session.version) void this.refresh(session);
        return;
      case "ended":
        return this.end(session, signal.reason, { shared: false });
      case "released":
        return session.tab.retryLease();
      case "credential":
        return session.tab.broadcast({ type: "credential", credential: signal.credential });
    }
  }

  /** Reads the session again from the shared store (a change made on another instance). */
  async refresh(session: Session): Promise<void> {
    const record = await this.share.load(session.tokenHash).catch(() => undefined);
    if (record === null) return this.end(session, "expired", { shared: false });
    if (record) this.#apply(session, record);
  }

  /** Makes this process's copy of a session show what the shared store says. */
  #apply(session: Session, record: SessionRecord): void {
    session.page = record.page;
    // Signed in or out on another instance: what the former identity allowed is withdrawn here.
    if (session.identity?.username !== record.identity?.username) session.tab.withdrawProtected();
    session.identity = record.identity;
    if (record.credentialHash !== session.credentialHash) {
      this.#byCredential.delete(session.credentialHash);
      session.credentialHash = record.credentialHash;
      this.#byCredential.set(session.credentialHash, session);
    }
    if (record.tabKeyHash !== session.tabKeyHash) {
      // Another instance gave the tab a new key: this one no longer knows the key itself.
      this.#byTabKey.delete(session.tabKeyHash);
      session.tabKey = "";
      session.tabKeyHash = record.tabKeyHash;
      this.#byTabKey.set(session.tabKeyHash, session);
    }
    if (record.inUse) {
      session.used ||= true;
      this.#inUse(session);
    }
    const tab = session.tab;
    if (!tab.holder) {
      tab.lastState = record.state;
      tab.lastActions = record.actions;
    }
    tab.remoteHolder = record.holder === this.share.instance ? "" : record.holder;
    session.stateTab = record.stateTab;
    session.copiedAt = this.#now();
    session.changedTo(record.version);
  }

  /** This process's copy of a shared session, made or brought up to date. */
  #copy(tokenHash: string, record: SessionRecord): Session {
    let session = this.#byHash.get(tokenHash);
    if (!session) {
      session = new Session({
        id: record.id,
        tokenHash,
        page: record.page,
        now: record.createdAt,
        expiresAt: this.#now() + this.idleMs,
        channel: this.#channelOptions,
        client: record.client,
      });
      session.version = record.version;
      session.credentialHash = record.credentialHash;
      session.tabKeyHash = record.tabKeyHash;
      this.#add(session);
      if (!record.inUse) this.#fresh.add(session);
    }
    this.#apply(session, record);
    return session;
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
    if (this.share.shared && !session.ended) {
      this.share.inUse(session.tokenHash, session.client).catch(this.#quiet);
    }
  }

  /** New secrets for a session; returns the credential (its hashes are what is kept). */
  #secrets(session: Session): string {
    const credential = newToken();
    session.credentialHash = hashToken(credential);
    session.tabKey = newToken();
    session.tabKeyHash = hashToken(session.tabKey);
    return credential;
  }

  /**
   * Gives a session a new tab credential and tab key, and returns the credential: on opening,
   * and on sign-in and sign-out, so that whatever bound a tab before no longer does.
   */
  rotate(session: Session): string {
    const before = { credentialHash: session.credentialHash, tabKeyHash: session.tabKeyHash };
    this.#byCredential.delete(session.credentialHash);
    this.#byTabKey.delete(session.tabKeyHash);
    const credential = this.#secrets(session);
    if (!session.ended) {
      this.#byCredential.set(session.credentialHash, session);
      this.#byTabKey.set(session.tabKeyHash, session);
      if (this.share.shared) {
        this.share.update(session.tokenHash, {
          identity: session.identity,
          credentialHash: session.credentialHash,
          tabKeyHash: session.tabKeyHash,
        }, { replaces: before }).catch(this.#quiet);
        // The session's tabs on other instances keep it for their reloads.
        this.share.signal(session.id, { type: "credential", credential });
      }
    }
    return credential;
  }

  /**
   * Gives the tab holding the lease a new tab key, when this process does not know the one it
   * had (the lease moved here from another instance, which keeps only its hash).
   */
  renewTabKey(session: Session): void {
    if (session.tabKey || session.ended) return;
    const before = { credentialHash: session.credentialHash, tabKeyHash: session.tabKeyHash };
    this.#byTabKey.delete(session.tabKeyHash);
    session.tabKey = newToken();
    session.tabKeyHash = hashToken(session.tabKey);
    this.#byTabKey.set(session.tabKeyHash, session);
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

  /** The live session of a token hash, read from the shared store when there is one. */
  async #lookup(tokenHash: string | null): Promise<Session | undefined> {
    if (tokenHash === null) return undefined;
    const record = await this.share.load(tokenHash);
    const local = this.#byHash.get(tokenHash);
    if (!record) {
      if (local) this.end(local, "expired", { shared: false });
      return undefined;
    }
    return this.#copy(tokenHash, record);
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
    return this.#lookup(hashToken(token));
  }

  /**
   * The live session of `token` when this process alone holds the sessions (no shared store),
   * found without waiting; undefined otherwise, or when it is malformed, unknown or expired.
   */
  findHere(token: string): Session | undefined {
    if (this.share.shared) return undefined;
    const known = this.#byToken.get(token);
    // Still this token's session: an ended one left the store, and a resumed one replaced it.
    if (known !== undefined) {
      if (this.#byHash.get(known.tokenHash) === known) return this.#live(known);
      // Not kept past its next use: an ended session holds nothing in memory for long.
      this.#byToken.delete(token);
    }
    if (!isTokenShaped(token)) return undefined;
    const session = this.#live(this.#byHash.get(hashToken(token)));
    if (session) this.#byToken.set(token, session);
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
    return this.#byHash.has(hash) || this.#byCredential.has(hash) || this.#byTabKey.has(hash);
  }

  /** The live session of a token hash (a call another instance forwarded). */
  findByHash(tokenHash: string): Promise<Session | undefined> {
    if (!this.share.shared) return Promise.resolve(this.#live(this.#byHash.get(tokenHash)));
    return this.#lookup(tokenHash);
  }

  /** The live session of a tab credential, or undefined. */
  async findByCredential(credential: string | undefined): Promise<Session | undefined> {
    if (!isTokenShaped(credential)) return undefined;
    const hash = hashToken(credential);
    if (!this.share.shared) return this.#live(this.#byCredential.get(hash));
    return await this.#lookup(await this.share.alias("credential", hash));
  }

  /** The live session of a tab key, or undefined. */
  async findByTabKey(tabKey: string | undefined): Promise<Session | undefined> {
    if (!isTokenShaped(tabKey)) return undefined;
    const hash = hashToken(tabKey);
    if (!this.share.shared) return this.#live(this.#byTabKey.get(hash));
    return await this.#lookup(await this.share.alias("tabKey", hash));
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
    if (this.#byHash.get(session.tokenHash) === session) this.#byHash.delete(session.tokenHash);
    if (this.#byCredential.get(session.credentialHash) === session) {
      this.#byCredential.delete(session.credentialHash);
    }
    if (this.#byTabKey.get(session.tabKeyHash) === session) {
      this.#byTabKey.delete(session.tabKeyHash);
    }
    this.#inUse(session);
  }

  /**
   * Ends every expired session. In a shared store, a copy with no tab here is dropped (the store
   * keeps the session), and one with tabs here ends only when the store no longer has it.
   */
  sweep(): void {
    const now = this.#now();
    for (const session of this.#byHash.values()) {
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
    for (const session of [...this.#byHash.values()]) {
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
