/**
 * One connected tab (its port, page and registered actions), the options of a tab channel, and
 * how a relayed invocation ends.
 *
 * @module
 */
import type { BridgeMessage } from "../wire/channel.ts";
import type { ActionSpec } from "../wire/schemas.ts";
import { DEFAULT_LIMITS, DEFAULTS } from "./limits.ts";
import type { Credit } from "./channel_budget.ts";

/** The transport of one connected tab. */
export interface TabPort {
  send(message: BridgeMessage): void;
  close(code: number, reason: string): void;
}

/** One connected tab: its port, its page and what it registered. */
export class TabConnection {
  /** Names this connection in the shared store (`SessionRecord.stateTab`); never a secret. */
  readonly id: string = crypto.randomUUID();
  readonly port: TabPort;
  page: string;
  actions: ActionSpec[] = [];
  state: Record<string, unknown> = {};
  /** Whether it has sent a state snapshot yet. */
  reported = false;
  /** The registration under way: registrations apply one after another. */
  registering: Promise<void> = Promise.resolve();
  /** Closes the channel if no hello comes. */
  helloTimer?: ReturnType<typeof setTimeout>;
  /** What the invocation sent to it last still pays for (bridge/core/channel_budget.ts). */
  credit: Credit = { messages: 0, characters: 0 };
  /** The address of the client that opened it ("unknown" when not known): its share's key. */
  readonly client: string;
  constructor(port: TabPort, page: string, client = "unknown") {
    this.port = port;
    this.page = page;
    this.client = client;
  }
}

/** How a relayed invocation ended. */
export type TabOutcome =
  | { ok: true; result: unknown; settled?: boolean; leaving?: "document" | "route" | undefined }
  | { ok: false; code: "action_failed" | "declined"; message: string }
  | {
    ok: false;
    code: "tab_timeout" | "browser_not_connected" | "too_many_requests" | "cancelled";
    message: string;
  };

/** Options of {@linkcode TabChannel}. */
export interface TabChannelOptions<Owner = unknown> {
  /**
   * Lease length, ms; the tab heartbeats at a third of it.
   *
   * @default {15_000}
   */
  leaseMs?: number | undefined;
  /**
   * How long the bridge waits for a tab's answer, ms.
   *
   * @default {30_000}
   */
  tabTimeoutMs?: number | undefined;
  /**
   * How long it waits once the tab says a person must confirm, ms (5 minutes).
   *
   * @default {300_000}
   */
  confirmTimeoutMs?: number | undefined;
  /**
   * Invocations queued or running at once.
   *
   * @default {8}
   */
  maxQueue?: number | undefined;
  /** Called with the channel's `owner` when the tab that holds the lease renews it. */
  onHeartbeat?: (owner: Owner) => void;
  /** Called with the channel's `owner` when a tab is granted the lease. */
  onGrant?: (owner: Owner) => void;
  /**
   * Called with the channel's `owner` when what the session shows changes: the holder's
   * state or actions, or who holds the lease.
   */
  onChange?: (owner: Owner) => void;
  /**
   * Takes a lease shared with other instances; without it, the lease is this process's alone.
   * Resolves 0 when taken, else how long the lease another live instance holds lasts (ms).
   */
  acquire?: ((owner: Owner) => Promise<number>) | undefined;
  /** Renews the shared lease (the holder's heartbeat). */
  renew?: ((owner: Owner) => void) | undefined;
  /** Lets go of the shared lease. */
  release?: ((owner: Owner) => void) | undefined;
  /**
   * Called with the channel's `owner` when the tabs here that do not hold the lease (not said
   * hello yet, or waiting) change in number: they must hear what other instances say.
   */
  onGuests?: ((owner: Owner) => void) | undefined;
  /** The clock; without it, `Date.now`. */
  now?: (() => number) | undefined;
}

/** The defaults of {@linkcode TabChannelOptions}, as its `@default` tags say. */
export const TAB_CHANNEL_DEFAULTS: {
  readonly leaseMs: number;
  readonly tabTimeoutMs: number;
  readonly confirmTimeoutMs: number;
  readonly maxQueue: number;
} = {
  leaseMs: DEFAULTS.leaseMs,
  tabTimeoutMs: DEFAULTS.tabTimeoutMs,
  confirmTimeoutMs: DEFAULTS.confirmTimeoutMs,
  maxQueue: DEFAULT_LIMITS.maxInFlight,
};

/** Options of {@linkcode TabChannel.relay}. */
export interface RelayOptions {
  /** Called when the tab says the invocation waits for the person, with its message. */
  onAwaiting?: ((message: string) => void) | undefined;
  /** Cancels the invocation: dropped from the queue, or withdrawn from the tab (`cancel`). */
  signal?: AbortSignal | undefined;
  /** What is left of the tab timeout (a call another instance forwarded). */
  timeoutMs?: number | undefined;
  /**
   * A protected action's: allowed by the identity the session had when it was called, so
   * withdrawn when that identity changes ({@linkcode TabChannel.withdrawProtected}).
   */
  protected?: boolean | undefined;
}

/** Why a protected invocation is withdrawn when the session signs in or out. */
export const IDENTITY_CHANGED =
  "The session signed in or out before the page answered: the protected action did not run. Read the manifest and decide again.";

/** Why an invocation that had not reached the tab is withdrawn when the tab moves. */
export const PAGE_MOVED =
  "The page moved to another path before the action reached it: it did not run. Read the manifest of the page the session is on now and decide again.";

export interface Pending {
  id: string;
  actionId: string;
  input: unknown;
  consequential: boolean;
  options: RelayOptions;
  resolve: (outcome: TabOutcome) => void;
  timer?: ReturnType<typeof setTimeout>;
  /** When its time runs out (the clock's ms), and how long it had. */
  deadline?: number;
  timeoutMs?: number;
}
