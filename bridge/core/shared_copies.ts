/**
 * SharedCopies: this process's copies of the sessions a shared store holds (Redis), kept in line
 * with it: made from the store's records, read again when another instance says a session
 * changed, written back when a tab here changes one, ended when the store no longer has one.
 *
 * @module
 */
import type { EndReason } from "../wire/channel.ts";
import type { SessionRecord, SessionShare, SessionSignal } from "../share/share.ts";
import { Session } from "./session.ts";
import type { SessionIndex } from "./session_index.ts";
import type { TabChannelOptions } from "./tab_connection.ts";
import { hashToken } from "./tokens.ts";

/** What {@linkcode SharedCopies} needs of the store whose copies it keeps. */
export interface CopiesHost {
  /** The shared store. */
  readonly share: SessionShare;
  /** The sessions this process holds, by the hashes of their secrets. */
  readonly index: SessionIndex;
  /** How long a copy made here lives unused, ms. */
  readonly idleMs: number;
  /** The tab channel options of every session. */
  readonly channel: TabChannelOptions<Session>;
  /** The clock. */
  now(): number;
  /** A copy made here is held from now on; `fresh` when nobody used it yet. */
  adopt(session: Session, fresh: boolean): void;
  /** The session is in use (a tab bound it, or an agent used it). */
  inUse(session: Session): void;
  /** Ends a session; with `shared: false`, this process's copy only. */
  end(session: Session, reason: EndReason, options?: { shared?: boolean }): void;
  /** A failure of the shared store that no request waits on. */
  quiet(error: unknown): void;
}

/** What the shared store keeps of a session, as this process makes it. */
export function sessionRecord(session: Session): SessionRecord {
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

/** The copies of a store's shared sessions, and what keeps them in line. */
export class SharedCopies {
  readonly #host: CopiesHost;
  readonly #share: SessionShare;
  readonly #index: SessionIndex;

  /** Copies kept for `host`, through its shared store. */
  constructor(host: CopiesHost) {
    this.#host = host;
    this.#share = host.share;
    this.#index = host.index;
  }

  /** The live session of a token hash, read from the shared store when there is one. */
  async lookup(tokenHash: string | null): Promise<Session | undefined> {
    if (tokenHash === null) return undefined;
    const record = await this.#share.load(tokenHash);
    const local = this.#index.get(tokenHash);
    if (!record) {
      if (local) this.#host.end(local, "expired", { shared: false });
      return undefined;
    }
    return this.#copy(tokenHash, record);
  }

  /** This process's copy of a shared session, made or brought up to date. */
  #copy(tokenHash: string, record: SessionRecord): Session {
    let session = this.#index.get(tokenHash);
    if (!session) {
      session = new Session({
        id: record.id,
        tokenHash,
        page: record.page,
        now: record.createdAt,
        expiresAt: this.#host.now() + this.#host.idleMs,
        channel: this.#host.channel,
        client: record.client,
      });
      session.version = record.version;
      session.credentialHash = record.credentialHash;
      session.tabKeyHash = record.tabKeyHash;
      this.#host.adopt(session, !record.inUse);
    }
    this.#apply(session, record);
    return session;
  }

  /** Makes this process's copy of a session show what the shared store says. */
  #apply(session: Session, record: SessionRecord): void {
    session.page = record.page;
    // Signed in or out on another instance: what the former identity allowed is withdrawn here.
    if (session.identity?.username !== record.identity?.username) session.tab.withdrawProtected();
    session.identity = record.identity;
    if (record.credentialHash !== session.credentialHash) {
      this.#index.forgetCredential(session);
      session.credentialHash = record.credentialHash;
      this.#index.indexCredential(session);
    }
    if (record.tabKeyHash !== session.tabKeyHash) {
      // Another instance gave the tab a new key: this one no longer knows the key itself.
      this.#index.forgetTabKey(session);
      session.tabKey = "";
      session.tabKeyHash = record.tabKeyHash;
      this.#index.indexTabKey(session);
    }
    if (record.inUse) {
      session.used ||= true;
      this.#host.inUse(session);
    }
    const tab = session.tab;
    if (!tab.holder) {
      tab.lastState = record.state;
      tab.lastActions = record.actions;
    }
    tab.remoteHolder = record.holder === this.#share.instance ? "" : record.holder;
    session.stateTab = record.stateTab;
    session.copiedAt = this.#host.now();
    session.changedTo(record.version);
  }

  /** Reads the session again from the shared store (a change made on another instance). */
  async refresh(session: Session): Promise<void> {
    const record = await this.#share.load(session.tokenHash).catch(() => undefined);
    if (record === null) return this.#host.end(session, "expired", { shared: false });
    if (record) this.#apply(session, record);
  }

  /**
   * Listens to what other instances say of a session, once something here needs it: a wait for
   * its next change, or a tab here waiting for a lease another instance holds. The instance
   * holding the lease needs none (changes go through it, and a session that ended elsewhere
   * fails its next lease renewal), so 10,000 tabs cost no subscriptions.
   */
  watch(session: Session): void {
    if (session.unwatch || session.ended) return;
    session.unwatch = this.#share.watch(session.id, (signal) => this.#onSignal(session, signal));
  }

  /** Watches a session while tabs here do not hold its lease; else only while waits need it. */
  rewatch(session: Session): void {
    if (session.tab.guests > 0) return this.watch(session);
    if (!session.unwatch || session.waiters > 0) return;
    session.unwatch();
    session.unwatch = undefined;
  }

  /** What another instance said of a session this process has a copy of. */
  #onSignal(session: Session, signal: SessionSignal): void {
    switch (signal.type) {
      case "changed":
        if (signal.version > session.version) void this.refresh(session);
        return;
      case "ended":
        return this.#host.end(session, signal.reason, { shared: false });
      case "released":
        return session.tab.retryLease();
      case "credential":
        return session.tab.broadcast({ type: "credential", credential: signal.credential });
    }
  }

  /** Shares a change this process made: the store's version comes back, then others are told. */
  shareChange(session: Session): void {
    if (session.ended) return;
    // Not the identity: only the instance that signs the session in or out writes it
    // (`rotate`). A copy that has not yet read a sign-in made elsewhere would write it back
    // signed out when its tab pushes a state.
    // The tab holding the lease here, once it reported, is whose state this is.
    const holder = session.tab.holder;
    this.#share.update(session.tokenHash, {
      page: session.page,
      state: session.tab.lastState,
      actions: session.tab.lastActions,
      ...(holder?.reported ? { stateTab: holder.id } : {}),
    }, { bump: true }).then((version) => {
      if (version === 0) return this.#host.end(session, "expired", { shared: false });
      session.changedTo(version);
      this.#share.signal(session.id, { type: "changed", version });
    }, this.#host.quiet);
  }

  /** This instance no longer holds the shared lease: the session ended, or another took it. */
  async leaseLost(session: Session): Promise<void> {
    const record = await this.#share.load(session.tokenHash).catch(() => undefined);
    if (record === undefined) return;
    if (record === null) return this.#host.end(session, "expired", { shared: false });
    session.tab.checkLease(Number.POSITIVE_INFINITY);
  }

  /** Ends a session known only by its token hash, wherever its tabs are. */
  async endShared(tokenHash: string, reason: EndReason): Promise<void> {
    const local = this.#index.get(tokenHash);
    if (local) return this.#host.end(local, reason);
    const record = await this.#share.load(tokenHash).catch(() => null);
    if (record) await this.#share.remove(tokenHash, record, reason).catch(() => {});
  }
}
