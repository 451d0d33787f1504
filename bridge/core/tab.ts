/**
 * TabChannel: which tab owns a session (a lease renewed by heartbeats), the tabs
 * waiting for it, and invocations relayed to the owner one at a time (bridge/core/relay_queue.ts).
 *
 * @module
 */
import type { BridgeMessage, EndReason } from "../wire/channel.ts";
import { CloseCode } from "../wire/names.ts";
import { DEFAULTS } from "./limits.ts";
import { RelayQueue } from "./relay_queue.ts";
import type { ActionSpec } from "../wire/schemas.ts";
import {
  PAGE_MOVED,
  type RelayOptions,
  TAB_CHANNEL_DEFAULTS,
  type TabChannelOptions,
  type TabConnection,
  type TabOutcome,
} from "./tab_connection.ts";

/** Sockets open at once for one session: a person's tabs, not a flood. */
export const MAX_TABS: number = DEFAULTS.maxTabs;

/**
 * The lease, the waiting tabs and the invocation queue of one session. It sets no timer for
 * the lease: whoever holds many channels calls {@linkcode TabChannel.checkLease} on a schedule,
 * so that 10,000 idle sessions cost one timer, not 10,000.
 */
export class TabChannel<Owner = unknown> {
  /** What the hooks receive: the session this channel belongs to. */
  readonly owner: Owner;
  readonly leaseMs: number;
  readonly tabTimeoutMs: number;
  readonly confirmTimeoutMs: number;
  readonly maxQueue: number;
  #holder: TabConnection | null = null;
  #waiting: TabConnection[] = [];
  /** Every open tab, including those that have not said hello yet. */
  #connected = new Set<TabConnection>();
  #leaseExpiresAt = 0;
  /** The invocations on their way to the holder. */
  readonly #relays: RelayQueue;
  #options: TabChannelOptions<Owner>;
  #now: () => number;
  /** The actions the last owner registered, kept so that a gap in ownership answers 409. */
  lastActions: ActionSpec[] = [];
  /** The last owner's state, kept across a reload. */
  lastState: Record<string, unknown> = {};
  /** The instance whose tab holds the lease, when another one does (shared stores); else "". */
  remoteHolder = "";
  #acquiring = false;
  /** The next try for the shared lease, while tabs here wait for it. */
  #retry: ReturnType<typeof setTimeout> | undefined;
  /** When the lease another instance holds ends, as the store last said. */
  #remoteExpiresAt = 0;
  /** Session changes the owner was asked to settle (`session.settle`): their waits, by id. */
  #settles = new Map<string, (settled: boolean) => void>();
  /** Waits for the next page of a tab that is leaving (see `whenArrived`). */
  #arrivals = new Set<{ from: TabConnection; resolve: (arrived: boolean) => void }>();

  /** `options` may be shared by many channels: nothing per channel is kept in it. */
  constructor(owner: Owner, options: TabChannelOptions<Owner> = {}) {
    this.owner = owner;
    this.#options = options;
    this.leaseMs = options.leaseMs ?? TAB_CHANNEL_DEFAULTS.leaseMs;
    this.tabTimeoutMs = options.tabTimeoutMs ?? TAB_CHANNEL_DEFAULTS.tabTimeoutMs;
    this.confirmTimeoutMs = options.confirmTimeoutMs ?? TAB_CHANNEL_DEFAULTS.confirmTimeoutMs;
    this.maxQueue = options.maxQueue ?? TAB_CHANNEL_DEFAULTS.maxQueue;
    this.#now = options.now ?? Date.now;
    this.#relays = new RelayQueue({
      holder: () => this.#holder,
      maxQueue: this.maxQueue,
      tabTimeoutMs: this.tabTimeoutMs,
      confirmTimeoutMs: this.confirmTimeoutMs,
      now: this.#now,
    });
  }

  /** The tab that holds the lease, if any. */
  get holder(): TabConnection | null {
    return this.#holder;
  }

  /** Whether a tab holds the lease, here or on another instance. */
  get connected(): boolean {
    return this.#holder !== null || this.remoteHolder !== "";
  }

  /** The actions offered now: the holder's, here or on another instance. */
  get actions(): ActionSpec[] {
    if (this.#holder) return this.#holder.actions;
    return this.remoteHolder ? this.lastActions : [];
  }

  /** The state shown now: the holder's, else the last holder's. */
  get state(): Record<string, unknown> {
    return this.#holder?.state ?? this.lastState;
  }

  /** Tabs open on this process. */
  get open(): number {
    return this.#connected.size;
  }

  /** Tabs open on this process that do not hold the lease. */
  get guests(): number {
    return this.#connected.size - (this.#holder ? 1 : 0);
  }

  /** Invocations queued or running. */
  get queued(): number {
    return this.#relays.size;
  }

  /** Tells a tab where it stands: granted, waiting (until when), or expired. */
  #lease(tab: TabConnection, status: "granted" | "waiting" | "expired"): void {
    // Held on another instance: its end as the store last said, never a time already past.
    const ends = this.#holder || !this.remoteHolder && !this.#options.acquire
      ? this.#leaseExpiresAt
      : Math.max(this.#remoteExpiresAt, this.#now() + 1);
    const expiresAt = new Date(ends).toISOString();
    tab.port.send({ type: "lease", status, leaseMs: this.leaseMs, expiresAt });
  }

  #arm(): void {
    this.#leaseExpiresAt = this.#now() + this.leaseMs;
  }

  /** Ends the holder's lease when it ran out without a heartbeat; the next tab gets it. */
  checkLease(now: number = this.#now()): void {
    if (this.#holder && now >= this.#leaseExpiresAt) this.#expire();
  }

  #grant(tab: TabConnection): void {
    clearTimeout(this.#retry);
    this.#holder = tab;
    this.#arm();
    this.#lease(tab, "granted");
    this.lastActions = tab.actions;
    this.lastState = tab.state;
    this.#options.onChange?.(this.owner);
    this.#options.onGrant?.(this.owner);
    this.#options.onGuests?.(this.owner);
    this.#arrived(tab);
  }

  #expire(): void {
    const holder = this.#holder;
    if (!holder) return;
    this.#lease(holder, "expired");
    holder.port.close(CloseCode.LeaseExpired, "lease expired without a heartbeat");
    this.detach(holder);
  }

  /** A tab opened the channel; it takes part once it says hello. False when too many are open. */
  connect(tab: TabConnection): boolean {
    if (this.#connected.size >= MAX_TABS) return false;
    this.#connected.add(tab);
    this.#options.onGuests?.(this.owner);
    return true;
  }

  /** A tab said hello: it gets the lease, or waits for it. */
  attach(tab: TabConnection): void {
    if (!this.#holder && !this.#options.acquire) return this.#grant(tab);
    this.#waiting.push(tab);
    if (this.#holder || this.#acquiring) this.#lease(tab, "waiting");
    else this.retryLease();
  }

  /** Asks for the shared lease for the first waiting tab (the last holder let go of it). */
  retryLease(): void {
    const acquire = this.#options.acquire;
    if (!acquire || this.#holder || this.#acquiring || !this.#waiting.length) return;
    this.#acquiring = true;
    acquire(this.owner).then((left) => {
      this.#acquiring = false;
      const got = left === 0;
      if (!got) {
        this.#remoteExpiresAt = this.#now() + left;
        // Asked again within a second: an instance that died stops holding it within 3 s, and
        // says nothing.
        clearTimeout(this.#retry);
        this.#retry = setTimeout(() => this.retryLease(), Math.min(left, 1000));
        Deno.unrefTimer(this.#retry as unknown as number);
      }
      const next = got && !this.#holder ? this.#waiting.shift() : undefined;
      if (next) return this.#grant(next);
      if (got && !this.#holder) this.#options.release?.(this.owner);
      for (const tab of this.#waiting) this.#lease(tab, "waiting");
    }, () => {
      this.#acquiring = false;
      for (const tab of this.#waiting) this.#lease(tab, "waiting");
    });
  }

  /** The owner renewed its lease; a waiting tab learns when the lease ends. */
  heartbeat(tab: TabConnection): void {
    if (tab !== this.#holder) {
      this.#lease(tab, "waiting");
      // Another instance's lease may have ended without a word (that instance died).
      if (!this.#holder) this.retryLease();
      return;
    }
    this.#arm();
    this.#lease(tab, "granted");
    this.#options.onHeartbeat?.(this.owner);
    this.#options.renew?.(this.owner);
  }

  /** The tab registered actions; they count once it owns the lease. */
  register(tab: TabConnection, actions: ActionSpec[]): void {
    tab.actions = actions;
    if (tab !== this.#holder) return;
    this.lastActions = actions;
    this.#options.onChange?.(this.owner);
  }

  /**
   * `tab` moved without a page load: what it registered goes until it registers again, and the
   * holder's queued invocations, asked of the old page, are cancelled ({@linkcode PAGE_MOVED}).
   */
  moved(tab: TabConnection): void {
    this.register(tab, []);
    if (tab === this.#holder) this.#relays.cancelQueued(PAGE_MOVED);
  }

  /** The tab sent a state snapshot; it counts as reported once {@linkcode markReported} says. */
  setState(tab: TabConnection, state: Record<string, unknown>): void {
    tab.state = state;
    if (tab !== this.#holder) return;
    this.lastState = state;
    this.#options.onChange?.(this.owner);
  }

  /**
   * The tab's state snapshot counts as reported, the registrations it sent before it applied: a
   * page that another one left for has come, with the actions it declares (an agent answered now
   * may invoke them at once: bridge/core/arrival.ts).
   */
  markReported(tab: TabConnection): void {
    const first = !tab.reported;
    tab.reported = true;
    if (tab !== this.#holder) return;
    // The shared store names the tab whose state it shows once that tab reported.
    if (first) this.#options.onChange?.(this.owner);
    this.#arrived(tab);
  }

  /** `tab` holds the session with its state: a page that another one left for has come. */
  #arrived(tab: TabConnection): void {
    if (!tab.reported) return;
    for (const arrival of this.#arrivals) {
      if (arrival.from !== tab) arrival.resolve(true);
    }
  }

  /**
   * Waits until a tab other than `from` (the page that submitted a form and is leaving) holds the
   * session and has reported its state: true then, false after `timeoutMs`.
   */
  whenArrived(from: TabConnection, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const arrival = {
        from,
        resolve: (arrived: boolean) => {
          clearTimeout(timer);
          this.#arrivals.delete(arrival);
          resolve(arrived);
        },
      };
      const timer = setTimeout(() => arrival.resolve(false), timeoutMs);
      this.#arrivals.add(arrival);
    });
  }

  /** A tab went away; the next waiting tab gets the lease. */
  detach(tab: TabConnection): void {
    clearTimeout(tab.helloTimer);
    if (this.#connected.delete(tab)) this.#options.onGuests?.(this.owner);
    const index = this.#waiting.indexOf(tab);
    if (index >= 0) this.#waiting.splice(index, 1);
    if (tab !== this.#holder) return;
    this.#holder = null;
    this.#unsettle();
    this.#relays.failAll("The tab closed before answering; the action may or may not have run.");
    // A tab waiting here takes the lease on; else a shared lease goes back for another instance.
    const next = this.#waiting.shift();
    if (next) return this.#grant(next);
    this.#options.release?.(this.owner);
    this.#options.onChange?.(this.owner);
  }

  /**
   * This instance stops but the session lives on (a shared store): the lease is let go and
   * every tab closed with "going away", to reconnect through another instance.
   */
  handOver(): void {
    clearTimeout(this.#retry);
    const tabs = [...this.#connected];
    for (const tab of tabs) clearTimeout(tab.helloTimer);
    const held = this.#holder !== null;
    this.#connected.clear();
    this.#holder = null;
    this.#waiting = [];
    this.#unsettle();
    this.#relays.failAll(
      "The bridge instance holding the tab stopped; the action may or may not have run.",
    );
    if (held) this.#options.release?.(this.owner);
    for (const tab of tabs) tab.port.close(CloseCode.GoingAway, "bridge instance stopping");
  }

  /** Ends the channel: every tab is told why and closed, every invocation answered. */
  close(reason: EndReason): void {
    clearTimeout(this.#retry);
    const tabs = [...this.#connected];
    for (const tab of tabs) clearTimeout(tab.helloTimer);
    this.#connected.clear();
    this.#holder = null;
    this.#waiting = [];
    this.#unsettle();
    this.#relays.failAll("The session ended before the tab answered.");
    for (const tab of tabs) {
      tab.port.send({ type: "ended", reason });
      tab.port.close(
        reason === "shutdown" ? CloseCode.GoingAway : CloseCode.SessionEnded,
        `session ${reason}`,
      );
    }
  }

  /** Sends a message to every open tab of the session (each presented its credential). */
  broadcast(message: BridgeMessage): void {
    for (const tab of this.#connected) tab.port.send(message);
  }

  /** Sends a message to the owner, if there is one. */
  notify(message: BridgeMessage): void {
    this.#holder?.port.send(message);
  }

  /**
   * Waits for the owner's `settled` of the session change `id` (sent in a `session` message
   * with `settle: id`): true once it comes; false when the owner goes first or
   * {@linkcode TabChannel.settled} gives up on it.
   */
  whenSettled(id: string): Promise<boolean> {
    return new Promise((resolve) => this.#settles.set(id, resolve));
  }

  /**
   * Ends the wait for `id`: `tab` (the owner only) says it settled, or, without a tab, the
   * bridge gives up. Returns false when nothing waits for that id.
   */
  settled(id: string, tab?: TabConnection): boolean {
    const resolve = this.#settles.get(id);
    if (!resolve || (tab && tab !== this.#holder)) return false;
    this.#settles.delete(id);
    resolve(tab !== undefined);
    return true;
  }

  /** The owner went: the session changes it was to settle never will. */
  #unsettle(): void {
    for (const id of [...this.#settles.keys()]) this.settled(id);
  }

  /** Relays one invocation to the owner; answers are in queue order, one at a time. */
  relay(
    actionId: string,
    input: unknown,
    consequential: boolean,
    options: RelayOptions = {},
  ): Promise<TabOutcome> {
    if (!this.#holder) {
      return Promise.resolve({
        ok: false,
        code: "browser_not_connected",
        message:
          "No browser tab holds this session now; open the page (or wait for it to reconnect) and retry.",
      });
    }
    return this.#relays.relay({ actionId, input, consequential }, options);
  }

  /**
   * Withdraws every protected invocation, queued or at the tab (whose prompt is withdrawn): the
   * session signed in or out, and what one identity allowed is never run for another, nor for
   * none. Each is answered `cancelled`, saying so (`IDENTITY_CHANGED`).
   */
  withdrawProtected(): void {
    this.#relays.withdrawProtected();
  }

  /** The owner answered invocation `id`. Returns false when nothing waits for that id. */
  answer(tab: TabConnection, id: string, outcome: TabOutcome): boolean {
    return tab === this.#holder && this.#relays.answer(id, outcome);
  }

  /** The owner says invocation `id` waits for the person. Returns false when nothing matches. */
  awaiting(tab: TabConnection, id: string, message: string): boolean {
    return tab === this.#holder && this.#relays.awaiting(id, message);
  }
}
