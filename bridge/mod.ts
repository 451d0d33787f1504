/**
 * @module The public API of the bridge: create one over a site folder, serve it, and embed
 * it in an app with its own user store and server actions.
 */
import { BridgeCore, type BridgeCoreOptions } from "./core/bridge.ts";
import { DEFAULTS } from "./core/limits.ts";
import {
  type AppOptions,
  createApp,
  fastReads,
  PublicManifests,
  type RequestLogEntry,
  SessionManifests,
} from "./http/app.ts";
import { isLoopback } from "./http/request.ts";
import type { SessionManifestsOptions } from "./http/session_manifests.ts";
import { auditEntry, AuditLog } from "./store/audit.ts";
import { RedisShare } from "./store/redis.ts";
import type { SessionShare } from "./core/share.ts";
import { InvocationStats } from "./acp/stats.ts";
import type { RunStoreOptions } from "./acp/runs.ts";
import { acpRoutes } from "./acp/routes.ts";
import { a2aRoutes } from "./a2a/routes.ts";
import type { A2ATasksOptions } from "./a2a/tasks.ts";
import { McpEndpoint, type McpEndpointOptions } from "./mcp/routes.ts";

export {
  type AppEnv,
  type RequestLogEntry,
  requireSession,
  type RequireSessionOptions,
  TAB_KEY_HEADER,
} from "./http/app.ts";
export { readJson } from "./http/request.ts";
export { MCP_PATH, McpEndpoint, type McpEndpointOptions } from "./mcp/routes.ts";
export { A2A_PATH, AGENT_CARD_PATH } from "./a2a/routes.ts";
export { READ_TOOL } from "./mcp/tools.ts";

export {
  BridgeCore,
  type BridgeCoreOptions,
  DEFAULT_LIMITS,
  type InvocationRecord,
  type Limits,
} from "./core/bridge.ts";
export {
  AttemptLimiter,
  createUserStore,
  hashPassword,
  rejectUnknownUser,
  type UserRecord,
  type UserStore,
  verifyPassword,
} from "./core/auth.ts";
export type { ServerAction, ServerActionContext } from "./core/server_actions.ts";
export type { Identity, Session } from "./core/sessions.ts";
export { AimError } from "./protocol/errors.ts";
import type { AuditEntry } from "./store/audit.ts";
export {
  type AuditEntry,
  AuditLog,
  type AuditLogOptions,
  DEFAULT_AUDIT_RETENTION_DAYS,
} from "./store/audit.ts";
export * as schemas from "./protocol/schemas.ts";
export * as channel from "./protocol/channel.ts";

/** Options of {@linkcode createBridge}. */
export interface BridgeOptions extends BridgeCoreOptions {
  /** Where invocations are recorded; default an in-memory log, closed with the bridge. */
  audit?: AuditLog | undefined;
  /**
   * Host names allowed in `Host` besides loopback names, or null for no Host check. Default:
   * the check is on when the bridge listens on a loopback address.
   */
  allowedHosts?: readonly string[] | null | undefined;
  /** Called for unexpected errors. */
  onError?: ((error: unknown) => void) | undefined;
  /** Told when the shared store (`redis`) becomes unreachable and when it is back. */
  onStatus?: ((message: string) => void) | undefined;
  /** The origin agents and browsers reach the bridge at, behind a proxy. */
  publicUrl?: string | undefined;
  /** Honour `X-Forwarded-Proto` and `X-Forwarded-Host`. */
  trustProxy?: boolean | undefined;
  /** Called once per answered request. */
  log?: ((entry: RequestLogEntry) => void) | undefined;
  /**
   * Answer repeated manifest reads before routing (bridge/http/fast_reads.ts). Default true;
   * tests turn it off to reach the full route's checks.
   */
  fastReads?: boolean | undefined;
  /** Adds an embedding app's own routes (use {@linkcode requireSession} in them). */
  routes?: AppOptions["routes"];
  /**
   * Milliseconds of computing change documents (not found cached) per second, per session and per
   * client address; past them a read asking for one gets the whole manifest (docs/security.md,
   * "Change documents").
   */
  changeBudget?: SessionManifestsOptions["changeBudget"];
  /** Limits of the ACP run store (docs/security.md, "ACP runs"). */
  acpRuns?: RunStoreOptions;
  /** Limits of the MCP endpoint `/__aim/mcp` (docs/mcp.md). */
  mcp?: Omit<McpEndpointOptions, "onError">;
  /** Limits of the A2A tasks at `/__aim/a2a` (docs/a2a.md); the defaults are ACP runs'. */
  a2aTasks?: A2ATasksOptions;
  /**
   * `redis://HOST:PORT/DB`: share sessions, leases and limits with every bridge on the same
   * Redis, so that several run behind a load balancer (docs/scaling.md). Default: this process
   * holds them all.
   */
  redis?: string | undefined;
}

/** Activity entries kept per session in a shared store, newest first. */
const SHARED_ACTIVITY = 100;

/** The Host names a loopback bridge answers to: its own, and the public URL's behind a proxy. */
function allowedHosts(options: BridgeOptions): readonly string[] | null {
  if (options.allowedHosts === null) return null;
  const names = [...(options.allowedHosts ?? [])];
  if (options.publicUrl) names.push(new URL(options.publicUrl).hostname.toLowerCase());
  return names;
}

/** A bridge: its protocol core and its request handler. */
export interface Bridge {
  readonly core: BridgeCore;
  readonly audit: AuditLog;
  fetch(request: Request, info?: Deno.ServeHandlerInfo): Response | Promise<Response>;
  /** Every route the bridge answers, as hono registered it (middleware included). */
  readonly routes: readonly { method: string; path: string }[];
  close(): void;
}

/**
 * Creates a bridge over `options.root`: its protocol core and a request handler to serve
 * with `Deno.serve` or to put behind another server.
 *
 * @example
 * ```ts
 * import { createBridge } from "./mod.ts";
 *
 * const bridge = createBridge({ root: "site", allowedHosts: [] });
 * Deno.serve({ port: 8000 }, bridge.fetch);
 * ```
 */
export function createBridge(options: BridgeOptions): Bridge {
  const audit = options.audit ?? new AuditLog();
  const stats = new InvocationStats();
  const share: SessionShare | undefined = options.redis
    ? new RedisShare({ url: options.redis, onError: options.onError, onStatus: options.onStatus })
    : options.share;
  const core = new BridgeCore({
    ...options,
    share,
    onInvocation: (record) => {
      audit.record(record);
      if (share?.shared) {
        // What the page's activity panel shows, wherever the agent's request landed.
        share.record(record.sessionId, auditEntry(record), {
          keep: SHARED_ACTIVITY,
          ttlMs: core.sessions.idleMs,
        }).catch(() => {});
      }
      // What a page reports of its in-browser agents is its word: not in the public statistics.
      if (record.via !== "webmcp") stats.record(record);
      options.onInvocation?.(record);
    },
  });
  const mcp = new McpEndpoint(core, { ...options.mcp, onError: options.onError });
  const manifests = new SessionManifests(core, { changeBudget: options.changeBudget });
  const publics = new PublicManifests();
  const origins = {
    allowedHosts: allowedHosts(options),
    publicUrl: options.publicUrl,
    trustProxy: options.trustProxy,
  };
  // A session's repeated manifest reads are answered before routing (bridge/http/fast_reads.ts).
  const instance = share?.shared ? share.instance : undefined;
  const fast = options.fastReads === false
    ? () => undefined
    : fastReads(core, { manifests, publics, ...origins, log: options.log, instance });
  const app = createApp(core, {
    ...origins,
    manifests,
    publics,
    onError: options.onError,
    log: options.log,
    routes: options.routes,
    activity: share?.shared
      ? (session) => share.activity(session.id, SHARED_ACTIVITY) as Promise<AuditEntry[]>
      : (session) => audit.forSession(session.id),
    instance,
    protocols: [
      acpRoutes(core, { stats, runs: options.acpRuns, onError: options.onError }),
      mcp.routes,
      a2aRoutes(core, { tasks: options.a2aTasks }),
    ],
  });
  return {
    core,
    audit,
    fetch: (request, info) => fast(request) ?? app.fetch(request, { info }),
    routes: app.routes.map(({ method, path }) => ({ method, path })),
    close: () => {
      core.close();
      // Ends the MCP clients' streams, which would otherwise hold the server open.
      void mcp.close();
      audit.close();
    },
  };
}

/** Options of {@linkcode serve}. */
export interface ServeOptions extends BridgeOptions {
  /** Port; 0 picks a free one. Default 8000. */
  port?: number;
  /** Address to listen on. Default 127.0.0.1. */
  hostname?: string;
  /** HTTPS certificate and key, PEM. */
  cert?: string | undefined;
  key?: string | undefined;
  /** Called once listening. */
  onListen?: (addr: { hostname: string; port: number; url: string }) => void;
}

/** A running bridge. */
export interface ServedBridge extends AsyncDisposable {
  readonly bridge: Bridge;
  readonly url: string;
  readonly port: number;
  readonly hostname: string;
  /**
   * Lets invocations under way be answered (for at most `DEFAULTS.shutdownGraceMs`; up to the
   * tab timeout when sessions live in a shared store), ends every session (tabs are told; long
   * polls, streams and waiting calls get their end), then stops the server once its open
   * requests are answered.
   */
  shutdown(): Promise<void>;
  readonly finished: Promise<void>;
  /** Resolves once the shared store (`redis`) is reached; at once without one. */
  readonly ready: Promise<void>;
}

/**
 * Serves a bridge with `Deno.serve`; `await using` (or `shutdown()`) stops it gracefully.
 *
 * @example
 * ```ts
 * import { createUserStore, hashPassword, serve } from "./mod.ts";
 *
 * await using served = serve({
 *   root: "site",
 *   port: 8000,
 *   users: createUserStore([
 *     { username: "alice", passwordHash: await hashPassword("a long passphrase") },
 *   ]),
 * });
 * console.log(`aim at ${served.url}`);
 * ```
 */
export function serve(options: ServeOptions): ServedBridge {
  const hostname = options.hostname ?? "127.0.0.1";
  const loopback = isLoopback(hostname);
  const bridge = createBridge({
    ...options,
    allowedHosts: options.allowedHosts === undefined
      ? (loopback ? [] : null)
      : options.allowedHosts,
  });
  const server = Deno.serve({
    port: options.port ?? 8000,
    hostname,
    ...(options.cert && options.key ? { cert: options.cert, key: options.key } : {}),
    onListen: () => {},
  }, bridge.fetch);
  const addr = server.addr as Deno.NetAddr;
  const scheme = options.cert ? "https" : "http";
  const shownHost = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  const url = `${scheme}://${shownHost}:${addr.port}`;
  options.onListen?.({ hostname: addr.hostname, port: addr.port, url });
  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    stopping ??= (async () => {
      // Tabs must be told before the server stops, which cuts upgraded sockets.
      // Sessions this process holds end with it: calls under way get a short grace, so that
      // every wait on them ends promptly. Sessions in a shared store live on: their calls may
      // take the whole tab timeout before the tabs are handed over.
      const tabTimeoutMs = options.tabTimeoutMs ?? DEFAULTS.tabTimeoutMs;
      await bridge.core.drain(
        bridge.core.sessions.share.shared
          ? tabTimeoutMs
          : Math.min(tabTimeoutMs, DEFAULTS.shutdownGraceMs),
      );
      bridge.close();
      await bridge.core.share.close();
      await server.shutdown();
    })();
    return stopping;
  };
  return {
    bridge,
    url,
    port: addr.port,
    hostname: addr.hostname,
    shutdown,
    finished: server.finished,
    ready: bridge.core.ready(),
    [Symbol.asyncDispose]: shutdown,
  };
}
