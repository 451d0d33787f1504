/**
 * Session: one session as this process holds it (a token's hash, its page, its identity, its tab
 * channel), and who waits for its next change.
 *
 * @module
 */
import type { EndReason } from "../wire/channel.ts";
import type { Identity } from "../share/share.ts";
import { TabChannel } from "./tab.ts";
import type { TabChannelOptions } from "./tab_connection.ts";

/** Outcome of an idempotent invocation, kept for retries. */
export interface IdempotentEntry {
  fingerprint: string;
  /** The first answer; undefined once dropped to keep the session within its byte budget. */
  outcome: Promise<unknown> | undefined;
  /** Bytes of the answer, once known. */
  bytes: number;
}

/** One session: a token's hash, its page, its identity and its tab channel. */
export class Session {
  /** A public id, safe to log; never the token. */
  readonly id: string = crypto.randomUUID();
  /** The hash of the agent's token: the session's key; the token itself is never kept. */
  readonly tokenHash: string;
  /** When it was opened (ms since the epoch). */
  readonly createdAt: number;
  /**
   * The tab channel: the lease, the connected tabs and the invocations relayed to them.
   *
   * @internal The core's own.
   */
  readonly tab: TabChannel<Session>;
  /** The address of the client that opened it (see `--trust-proxy`). */
  readonly client: string;
  /** The page the session is on (its identity: path and declared query parameters). */
  page: string;
  /** When it expires unless used (ms since the epoch). */
  expiresAt: number;
  /** Who signed in on it (a server action's `signIn`), or null. */
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
  /** The hash of the tab key: all that a shared store keeps, and all another instance knows. */
  tabKeyHash = "";
  /** True once a tab has connected with this session's credential. */
  tabBound = false;
  /** True once an agent used the token (anything but the page's own opening request). */
  used = false;
  /** Invocations under way. */
  inFlight = 0;
  /** Requests held open waiting for a change: event streams and long polls. */
  waiting = 0;
  /**
   * Increases on every change of what the session's manifest says: the tab's state and
   * actions, who holds the lease, the identity, the page.
   */
  version = 1;
  /** Why it ended, once it did; null while it lives. */
  ended: EndReason | null = null;
  /**
   * True once this process stops serving the session while it lives on in the shared store (the
   * instance drains): its event streams close, without `ended`, so that agents reconnect
   * through another instance.
   */
  handedOff = false;
  /** Called on every change this process makes (set by the store: it shares the change). */
  onChange: ((session: Session) => void) | undefined;
  /** Stops watching the session's signals from other instances (shared stores only). */
  unwatch: (() => void) | undefined;
  /** Called when someone here starts waiting for a change (set by a shared store). */
  onWait: ((session: Session) => void) | undefined;
  /** When this process last renewed the session in the shared store. */
  sharedTouchAt = 0;
  /** When this process last read the session from the shared store. */
  copiedAt = 0;
  /**
   * The tab whose reported state the shared store shows (`SessionRecord.stateTab`), as this
   * process last read it: how an instance learns that the next page's tab arrived elsewhere.
   */
  stateTab = "";
  /** Who waits for the next change (long polls, event streams); made on first use. */
  #waiters: Set<() => void> | undefined;
  #idempotency: Map<string, IdempotentEntry> | undefined;
  /** Bytes of the answers kept for `Idempotency-Key` retries. */
  idempotencyBytes = 0;

  /** What the session shows changed: a new version, and whoever waits for one is woken. */
  changed(): void {
    this.version++;
    this.#wake();
    this.onChange?.(this);
  }

  /** Another instance changed the session: this process's copy now shows `version`. */
  changedTo(version: number): void {
    if (version <= this.version) return;
    this.version = version;
    this.#wake();
  }

  #wake(): void {
    if (!this.#waiters?.size) return;
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  /** How many wait for the next change here. */
  get waiters(): number {
    return this.#waiters?.size ?? 0;
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
      if (waiters.size === 0) this.onWait?.(this);
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

  /**
   * Answers kept by `Idempotency-Key`; made on first use, as most sessions never need one.
   *
   * @internal The core's own.
   */
  get idempotency(): Map<string, IdempotentEntry> {
    return this.#idempotency ??= new Map();
  }

  /**
   * A session as its store makes it.
   *
   * @internal Sessions are opened by `BridgeCore.openSession`.
   */
  constructor(init: {
    id?: string;
    tokenHash: string;
    page: string;
    now: number;
    expiresAt: number;
    channel: TabChannelOptions<Session>;
    client: string;
  }) {
    if (init.id) this.id = init.id;
    this.tokenHash = init.tokenHash;
    this.page = init.page;
    this.createdAt = init.now;
    this.expiresAt = init.expiresAt;
    this.tab = new TabChannel<Session>(this, init.channel);
    this.client = init.client;
  }
}
