/**
 * The options of a {@linkcode SessionStore}: how long sessions live, how many it holds, what it
 * remembers per session, and where they are shared; with the defaults its `@default` tags say.
 *
 * @module
 */
import type { SessionShare } from "../share/share.ts";
import { DEFAULTS } from "./limits.ts";
import type { Session } from "./session.ts";
import type { TabChannelOptions } from "./tab_connection.ts";

/** The longest a session may stay idle (seed 003). */
export const MAX_IDLE_MS = DEFAULTS.idleMs;
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
   * Where sessions are shared with other instances; without it, a `LocalShare`: this process
   * holds them all.
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
