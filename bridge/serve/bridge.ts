/**
 * A bridge assembled: its protocol core, the HTTP app with every protocol (MCP, A2A, ACP), the
 * audit log, the shared store (`redis`) and, in front of an app, the proxy; one request handler
 * for `Deno.serve` or another server.
 *
 * @module
 */
import { BridgeCore } from "../core/bridge.ts";
import type { BridgeCoreOptions } from "../core/core_options.ts";
import {
  type AppRoutes,
  createApp,
  PublicManifests,
  type RequestLogEntry,
  SessionManifests,
} from "../http/app.ts";
import type { ChangeBudget } from "../http/session_manifests.ts";
import { frontDoor } from "../http/front_door.ts";
import { aimCredentials } from "../http/credentials.ts";
import { type AuditEntry, auditEntry, AuditLog } from "../audit/log.ts";
import { RedisShare } from "../share/redis.ts";
import type { SessionShare } from "../share/share.ts";
import { InvocationStats } from "../acp/stats.ts";
import type { RunStoreOptions } from "../acp/runs.ts";
import { acpRoutes } from "../acp/routes.ts";
import { a2aRoutes } from "../a2a/routes.ts";
import type { A2ATasksOptions } from "../a2a/tasks.ts";
import { McpEndpoint, type McpEndpointOptions } from "../mcp/routes.ts";
import { type ProxyOptions, UpstreamProxy } from "../upstream/proxy.ts";
import { UpstreamCatalog, type UpstreamCatalogOptions } from "../upstream/catalog.ts";
import { proxyRoutes } from "../upstream/proxy.ts";
import type { Hono } from "hono";
import type { AppEnv as HonoEnv } from "../http/env.ts";
import { type AimPaths, aimPaths } from "../upstream/routes.ts";
import { BridgeMetrics } from "../metrics/metrics.ts";
import type { MetricsFetchOptions } from "../metrics/endpoint.ts";

/** Options of {@linkcode createBridge}. */
export interface BridgeOptions extends BridgeCoreOptions {
  /** Where invocations are recorded; without it, a log in memory, closed with the bridge. */
  audit?: AuditLog | undefined;
  /**
   * Host names allowed in `Host` besides loopback names, or null for no Host check. Without it,
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
   * Answer repeated manifest reads before routing (bridge/http/fast_reads.ts); tests turn it off
   * to reach the full route's checks.
   *
   * @default {true}
   */
  fastReads?: boolean | undefined;
  /** Adds an embedding app's own routes (use {@linkcode requireSession} in them). */
  routes?: AppRoutes | undefined;
  /**
   * Milliseconds of computing change documents (not found cached) per second, per session and per
   * client address; past them a read asking for one gets the whole manifest (docs/security.md,
   * "Change documents").
   */
  changeBudget?: Partial<ChangeBudget> | undefined;
  /** Fields added to `GET /__aim/health` (`serve` adds whether it listens). */
  health?: (() => Record<string, unknown>) | undefined;
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
  /**
   * The app to stand in front of (`aim serve --upstream URL`, docs/upstream.md): aim answers its
   * own routes and forwards every other request to it; pages come from the app, not a folder.
   */
  upstream?: string | URL | undefined;
  /** How requests are forwarded to `upstream`. */
  proxy?: ProxyOptions | undefined;
  /** Bounds of the public catalog read from `upstream`. */
  upstreamCatalog?: UpstreamCatalogOptions | undefined;
  /**
   * Keep metrics ({@linkcode Bridge.metrics}), to serve on a listener of their own (docs/scaling.md,
   * "Metrics"); `serve()` takes the listener's address instead. Without it, none are kept.
   */
  metrics?: boolean | MetricsFetchOptions | undefined;
}

/** The defaults of {@linkcode BridgeOptions}, as its `@default` tags say. */
export const BRIDGE_DEFAULTS: { readonly fastReads: boolean } = { fastReads: true };

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
  /** The protocol core: sessions, manifests, invocations. */
  readonly core: BridgeCore;
  /** Where invocations are recorded (`options.audit`, or a log in memory). */
  readonly audit: AuditLog;
  /** Answers one request: hand it to `Deno.serve` or call it from another server. */
  fetch(request: Request, info?: Deno.ServeHandlerInfo): Response | Promise<Response>;
  /** Every route the bridge answers, as hono registered it (middleware included). */
  readonly routes: readonly { method: string; path: string }[];
  /** The metrics, when asked for: `metrics.fetch` answers `GET /__aim/metrics`. */
  readonly metrics: BridgeMetrics | undefined;
  /** Stops the core, the metrics, the MCP streams and the proxy, and closes the audit log. */
  close(): void;
}

/**
 * Creates a bridge over `options.root`: its protocol core and a request handler to serve
 * with `Deno.serve` or to put behind another server.
 *
 * @example
 * ```ts
 * import { createBridge } from "../mod.ts";
 *
 * const bridge = createBridge({ root: "site", allowedHosts: [] });
 * Deno.serve({ port: 8000 }, bridge.fetch);
 * ```
 */
export function createBridge(options: BridgeOptions): Bridge {
  const audit = options.audit ?? new AuditLog(":memory:", { onError: options.onError });
  const stats = new InvocationStats();
  const share: SessionShare | undefined = options.redis
    ? new RedisShare({ url: options.redis, onError: options.onError, onStatus: options.onStatus })
    : options.share;
  // Metrics: every hook below is a no-op without them (bridge/metrics/).
  const metrics = options.metrics
    ? new BridgeMetrics({
      ...(options.metrics === true ? {} : options.metrics),
      upstream: Boolean(options.upstream),
      redis: Boolean(options.redis),
    })
    : undefined;
  const log = metrics ? metrics.logTo(options.log) : options.log;
  const core = new BridgeCore({
    ...options,
    ...(options.upstream
      ? {
        catalog: new UpstreamCatalog(options.upstream, {
          pageQuery: options.pageQuery,
          // The app sees the browser's Host: the catalog reads as a visitor at the public URL.
          publicOrigin: options.proxy?.preserveHost === false ? undefined : options.publicUrl,
          ...options.upstreamCatalog,
        }),
      }
      : {}),
    share,
    watchInvocation: metrics?.watchInvocation,
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
      else metrics?.pageRun(record.outcome);
      options.onInvocation?.(record);
    },
  });
  metrics?.watch(core);
  // aim's own credentials, told from the app's by lookup (bridge/http/credentials.ts).
  const proxy = options.upstream
    ? new UpstreamProxy(options.upstream, {
      ...options.proxy,
      credentials: aimCredentials(core.sessions),
      ...(metrics ? { onFailure: metrics.failureTo(options.proxy?.onFailure) } : {}),
    })
    : undefined;
  const mcp = new McpEndpoint(core, { ...options.mcp, onError: options.onError });
  const manifests = new SessionManifests(core, { changeBudget: options.changeBudget });
  const publics = new PublicManifests();
  const origins = {
    allowedHosts: allowedHosts(options),
    publicUrl: options.publicUrl,
    trustProxy: options.trustProxy,
  };
  const instance = share?.shared ? share.instance : undefined;
  // aim's paths in front of an app, read from the router once its routes are all there.
  let paths: AimPaths | undefined;
  const app = createApp(core, {
    ...origins,
    manifests,
    publics,
    onError: options.onError,
    log,
    routes: options.routes,
    health: options.health,
    activity: share?.shared
      ? (session) => share.activity(session.id, SHARED_ACTIVITY) as Promise<AuditEntry[]>
      : (session) => audit.forSession(session.id),
    instance,
    ...(proxy
      ? { last: (app: Hono<HonoEnv>) => proxyRoutes(app, proxy, paths = aimPaths(app.routes)) }
      : {}),
    protocols: [
      acpRoutes(core, { stats, runs: options.acpRuns, onError: options.onError }),
      mcp.routes,
      a2aRoutes(core, { tasks: options.a2aTasks }),
    ],
  });
  // Before routing: repeated manifest reads, and in front of an app the app's requests
  // (bridge/http/front_door.ts), judged by the paths the router's last route was given.
  const door = frontDoor(core, {
    ...origins,
    manifests,
    publics,
    instance,
    fastReads: options.fastReads ?? BRIDGE_DEFAULTS.fastReads,
    app: proxy?.door(() => paths!),
    log,
    onError: options.onError,
  });
  return {
    core,
    audit,
    fetch: (request, info) => door(request, info) ?? app.fetch(request, { info }),
    routes: app.routes.map(({ method, path }) => ({ method, path })),
    metrics,
    close: () => {
      core.close();
      metrics?.close();
      // Ends the MCP clients' streams, which would otherwise hold the server open.
      void mcp.close();
      audit.close();
      proxy?.close();
    },
  };
}
