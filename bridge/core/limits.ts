/**
 * Every size, count and time limit of the core, with its default, in one place
 * (docs/security.md lists them for people).
 *
 * @module
 */

/** Size and count limits of requests, channel messages and invocations. */
export interface Limits {
  /**
   * Largest request body, bytes (64 KiB).
   *
   * @default {65536}
   */
  maxBodyBytes: number;
  /**
   * Largest channel message, bytes (1 MiB).
   *
   * @default {1048576}
   */
  maxMessageBytes: number;
  /**
   * Largest state snapshot kept whole, bytes of JSON (256 KiB); larger ones are cut.
   * @default {262144}
   */
  maxStateBytes: number;
  /**
   * Invocations in flight per session.
   *
   * @default {8}
   */
  maxInFlight: number;
  /**
   * How long a request body may take to arrive, ms.
   *
   * @default {10000}
   */
  bodyTimeoutMs: number;
}

/** The default {@linkcode Limits}. */
export const DEFAULT_LIMITS: Readonly<Limits> = {
  maxBodyBytes: 64 * 1024,
  maxMessageBytes: 1024 * 1024,
  maxStateBytes: 256 * 1024,
  maxInFlight: 8,
  bodyTimeoutMs: 10_000,
};

/** The defaults of the core's other limits and timings. */
export const DEFAULTS = {
  /** The longest a session may stay idle (seed 003). */
  idleMs: 60 * 60 * 1000,
  /** Idle time of a session no tab bound and nobody used. */
  freshIdleMs: 2 * 60 * 1000,
  /** Sessions held at once. */
  maxSessions: 100_000,
  /** Unused sessions one client address may hold. */
  maxFreshPerClient: 1000,
  /** `Idempotency-Key`s remembered per session. */
  maxIdempotencyKeys: 256,
  /** Bytes of idempotent answers kept per session. */
  maxIdempotencyBytes: 1024 * 1024,
  /** Tab lease; the tab heartbeats at a third of it. */
  leaseMs: 15_000,
  /** How long an invocation waits for the tab's answer. */
  tabTimeoutMs: 30_000,
  /**
   * How long a bridge that stops lets the calls under way be answered before it ends every
   * session: long enough for a tab that has run an action to report it, short enough that
   * every long poll, stream and waiting call gets its end promptly.
   */
  shutdownGraceMs: 2_000,
  /**
   * How long a shutdown waits, once sessions are handed over or ended, for the HTTP server's
   * open requests to finish: a client that never reads or closes cannot keep the process alive.
   */
  serverCloseMs: 2_000,
  /** How long it waits once the tab says a person is asked. */
  confirmTimeoutMs: 5 * 60 * 1000,
  /**
   * How long an answer waits for the page to finish reacting: the work a page action declares
   * after its handler, the page's reaction to a sign-in or sign-out.
   */
  settleTimeoutMs: 3000,
  /** How long a new channel may take to say hello. */
  helloTimeoutMs: 10_000,
  /** Sockets open at once for one session: a person's tabs, not a flood. */
  maxTabs: 8,
  /** Requests one session may hold open waiting for a change: event streams and long polls. */
  maxWaitingRequests: 4,
  /**
   * Milliseconds of computing change documents (JSON Patch, merge patch) not found cached, added
   * per second and held at most, per session and per client address; past them, the whole
   * manifest.
   */
  changeBudget: {
    session: { msPerSecond: 25, burstMs: 250 },
    client: { msPerSecond: 100, burstMs: 1000 },
  },
  /**
   * How long a request over its client address's share of costly work (a session mint, a password
   * check, a run) waits in line for its turn, ms; then 429. A client that sends more than its
   * share at once waits instead of spinning on refusals, which would cost the bridge as much.
   */
  lineWaitMs: 1000,
  /** Requests of one client address that may wait in one line at once (as many as its streams). */
  maxWaitingPerClient: 64,
  /** Requests that may wait in one line at once, in all. */
  maxWaiting: 1024,
  /** Sessions one client address may open: a burst, then so many a second. */
  mintRate: { burst: 64, perSecond: 16 },
  /** Session mints of one client address under way at once (each awaits the shared store). */
  maxMintsPerClient: 8,
  /**
   * Event streams and long polls (of every protocol) open at once from one client address.
   */
  maxStreamsPerClient: 64,
  /**
   * Event streams and long polls open at once in all; `serve` lowers it to a quarter of the
   * process's file limit.
   */
  maxStreams: 1024,
} as const;

/** The longest wait a client may ask a manifest's long poll for (`Prefer: wait=N`), seconds. */
export const MAX_WAIT_SECONDS = 60;
