/**
 * The options of a bridge's protocol core ({@linkcode BridgeCoreOptions}) and the defaults it
 * falls back to ({@linkcode CORE_DEFAULTS}), gathered from the modules that own each one.
 *
 * @module
 */
import type { PageCatalog } from "../site/catalog.ts";
import type { SessionShare } from "../share/share.ts";
import type { AttemptLimiterOptions, UserStore } from "./login.ts";
import type { InvocationRecord } from "./invocations.ts";
import { DEFAULTS, type Limits } from "./limits.ts";
import type { ServerAction } from "./server_actions.ts";
import { SESSION_STORE_DEFAULTS } from "./session_store_options.ts";
import type { Rate } from "./fair_gate.ts";
import { STREAM_DEFAULTS, type StreamLimits } from "./streams.ts";
import { TAB_MESSAGE_DEFAULTS } from "./tab_messages.ts";
import { TAB_CHANNEL_DEFAULTS } from "./tab_connection.ts";
import type { WatchInvocation } from "./invocation_watch.ts";

/** Options of a bridge's protocol core (`BridgeCore`). */
export interface BridgeCoreOptions {
  /** The site's folder; or give `catalog`. */
  root?: string | undefined;
  /**
   * Where pages are read from, in place of a folder (an app in front of which aim stands).
   *
   * @internal `createBridge` makes it of its `upstream` option.
   */
  catalog?: PageCatalog | undefined;
  /**
   * Query parameters that are part of a page's identity (`["id"]`: `/edit.php?id=1` and
   * `/edit.php?id=2` are two pages).
   *
   * @default {[]}
   */
  pageQuery?: readonly string[] | undefined;
  /** Verifies `login`; without it every login fails. */
  users?: UserStore | undefined;
  /** Actions the embedding app runs on the server. */
  serverActions?: ServerAction[];
  /**
   * Idle time before a session expires, ms; at most one hour.
   *
   * @default {3600000}
   */
  idleMs?: number;
  /**
   * Tab lease length, ms.
   *
   * @default {15000}
   */
  leaseMs?: number;
  /**
   * How long a new channel may take to say hello before it is closed, ms.
   *
   * @default {10000}
   */
  helloTimeoutMs?: number;
  /**
   * Sessions held at once; when full, the oldest session no tab bound and nobody used makes
   * room, and with none such new ones are refused (429).
   *
   * @default {100000}
   */
  maxSessions?: number;
  /**
   * Idle time of a session no tab bound and nobody used, ms.
   *
   * @default {120000}
   */
  freshIdleMs?: number;
  /**
   * Unused sessions one client address may hold; its oldest ends past it.
   *
   * @default {1000}
   */
  maxFreshPerClient?: number;
  /**
   * Bytes of idempotent answers kept per session (1 MiB).
   *
   * @default {1048576}
   */
  maxIdempotencyBytes?: number;
  /**
   * How long an invocation waits for the tab, ms.
   *
   * @default {30000}
   */
  tabTimeoutMs?: number;
  /**
   * How long it waits once the tab says a person must confirm, ms.
   *
   * @default {300000}
   */
  confirmTimeoutMs?: number;
  /**
   * How long an invocation's answer waits for the page to finish reacting (the work a page
   * action declares, a page's reaction to a sign-in or sign-out); past it, the answer says
   * `"settled": false`. In ms.
   *
   * @default {3000}
   */
  settleTimeoutMs?: number;
  /** Login throttling (docs/security.md, "Login"). */
  loginAttempts?: AttemptLimiterOptions;
  /** Size and count limits; see {@linkcode DEFAULT_LIMITS}. */
  limits?: Partial<Limits>;
  /**
   * Sessions one client address may open (`POST /__aim/session`): a burst, then so many a
   * second. Past it a mint waits in line for its turn (at most 1 s; 64 of one address, 1,024 in
   * all), then is refused with 429.
   *
   * @default {{ burst: 64, perSecond: 16 }}
   */
  mintRate?: Rate | undefined;
  /**
   * Event streams and long polls open at once, per client address and in all (429 past
   * either).
   *
   * @default {{ perClient: 64, total: 1024 }}
   */
  streams?: Partial<StreamLimits> | undefined;
  /**
   * Called after every invocation that reached an action, and for every run by an agent in the
   * browser that a tab reports (`via: "webmcp"`).
   */
  onInvocation?: ((record: InvocationRecord) => void) | undefined;
  /** Called for unexpected errors (bugs), without request data. */
  onError?: ((error: unknown) => void) | undefined;
  /**
   * Told of every invocation an agent sends to this instance, by any protocol: when the person
   * is asked, and how it ended (the metrics, bridge/metrics/).
   */
  watchInvocation?: WatchInvocation | undefined;
  /**
   * Where sessions are shared with other instances (docs/scaling.md); without it, this process
   * holds them all.
   *
   * @internal `createBridge` makes it of its `redis` option.
   */
  share?: SessionShare | undefined;
  /** The clock; without it, `Date.now`. */
  now?: () => number;
  /**
   * The clock the checks of new actions are timed by, ms, for their budget
   * (`SCHEMA_CHECK_BUDGET`); without it, `performance.now`. A test's own makes a check cost
   * what the test says, whatever the machine's speed.
   */
  workClock?: (() => number) | undefined;
}

/** The defaults of {@linkcode BridgeCoreOptions}, as its `@default` tags say. */
export const CORE_DEFAULTS: {
  readonly pageQuery: readonly string[];
  readonly idleMs: number;
  readonly leaseMs: number;
  readonly helloTimeoutMs: number;
  readonly maxSessions: number;
  readonly freshIdleMs: number;
  readonly maxFreshPerClient: number;
  readonly maxIdempotencyBytes: number;
  readonly tabTimeoutMs: number;
  readonly confirmTimeoutMs: number;
  readonly settleTimeoutMs: number;
  readonly mintRate: Readonly<Rate>;
  readonly streams: Readonly<StreamLimits>;
} = {
  pageQuery: [],
  idleMs: SESSION_STORE_DEFAULTS.idleMs,
  leaseMs: TAB_CHANNEL_DEFAULTS.leaseMs,
  helloTimeoutMs: TAB_MESSAGE_DEFAULTS.helloTimeoutMs,
  maxSessions: SESSION_STORE_DEFAULTS.maxSessions,
  freshIdleMs: SESSION_STORE_DEFAULTS.freshIdleMs,
  maxFreshPerClient: SESSION_STORE_DEFAULTS.maxFreshPerClient,
  maxIdempotencyBytes: SESSION_STORE_DEFAULTS.maxIdempotencyBytes,
  tabTimeoutMs: TAB_CHANNEL_DEFAULTS.tabTimeoutMs,
  confirmTimeoutMs: TAB_CHANNEL_DEFAULTS.confirmTimeoutMs,
  settleTimeoutMs: DEFAULTS.settleTimeoutMs,
  mintRate: DEFAULTS.mintRate,
  streams: STREAM_DEFAULTS,
};
