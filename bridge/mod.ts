/**
 * The public API of the bridge: create one over a site folder, serve it, and embed
 * it in an app with its own user store and server actions.
 *
 * @module
 */
import { BridgeCore, type BridgeCoreOptions } from "./core/bridge.ts";
import { DEFAULTS } from "./core/limits.ts";
import {
  type AppOptions,
  createApp,
  PublicManifests,
  type RequestLogEntry,
  SessionManifests,
} from "./http/app.ts";
import { frontDoor } from "./http/front_door.ts";
import { aimCredentials } from "./http/credentials.ts";
import { isLoopback } from "./http/request.ts";
import type { SessionManifestsOptions } from "./http/session_manifests.ts";
import { raiseFileLimit } from "./utils/files.ts";
import { auditEntry, AuditLog } from "./audit/log.ts";
import { RedisShare } from "./share/redis.ts";
import type { SessionShare } from "./share/share.ts";
import { InvocationStats } from "./acp/stats.ts";
import type { RunStoreOptions } from "./acp/runs.ts";
import { acpRoutes } from "./acp/routes.ts";
import { a2aRoutes } from "./a2a/routes.ts";
import type { A2ATasksOptions } from "./a2a/tasks.ts";
import { McpEndpoint, type McpEndpointOptions } from "./mcp/routes.ts";
import { type ProxyOptions, UpstreamProxy } from "./upstream/proxy.ts";
import { UpstreamCatalog, type UpstreamCatalogOptions } from "./upstream/catalog.ts";
import { proxyRoutes } from "./upstream/proxy.ts";
import type { Hono } from "hono";
import type { AppEnv as HonoEnv } from "./http/env.ts";
import { type AimPaths, aimPaths } from "./upstream/routes.ts";

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
export { type ProxyOptions, UpstreamProxy } from "./upstream/proxy.ts";
export { AimCredentials, type AimCredentialsOptions } from "./http/credentials.ts";
export { UpstreamCatalog, type UpstreamCatalogOptions } from "./upstream/catalog.ts";

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
} from "./core/login.ts";
export type { ServerAction, ServerActionContext } from "./core/server_actions.ts";
export type { Identity } from "./core/sessions.ts";
export type { Session } from "./core/session.ts";
export { AimError } from "./wire/errors.ts";
import type { AuditEntry } from "./audit/log.ts";
export {
  type AuditEntry,
  AuditLog,
  type AuditLogOptions,
  DEFAULT_AUDIT_RETENTION_DAYS,
} from "./audit/log.ts";
export * as schemas from "./wire/schemas.ts";
export * as channel from "./wire/channel.ts";

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
  /** Fields added to `GET /__aim/health` (`serve` adds whether it listens). */
  health?: AppOptions["health"];
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
  const audit = options.audit ?? new AuditLog(":memory:", { onError: options.onError });
  const stats = new InvocationStats();
  const share: SessionShare | undefined = options.redis
    ? new RedisShare({ url: options.redis, onError: options.onError, onStatus: options.onStatus })
    : options.share;
  const core = new BridgeCore({
    ...options,
    ...(options.upstream
      ? { catalog: new UpstreamCatalog(options.upstream, options.upstreamCatalog) }
      : {}),
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
  // aim's own credentials, told from the app's by lookup (bridge/http/credentials.ts).
  const proxy = options.upstream
    ? new UpstreamProxy(options.upstream, {
      ...options.proxy,
      credentials: aimCredentials(core.sessions),
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
    log: options.log,
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
    fastReads: options.fastReads,
    app: proxy?.door(() => paths!),
    log: options.log,
    onError: options.onError,
  });
  return {
    core,
    audit,
    fetch: (request, info) => door(request, info) ?? app.fetch(request, { info }),
    routes: app.routes.map(({ method, path }) => ({ method, path })),
    close: () => {
      core.close();
      // Ends the MCP clients' streams, which would otherwise hold the server open.
      void mcp.close();
      audit.close();
      proxy?.close();
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

/** Below this soft file limit, `serve` warns that it bounds connections. */
const LOW_FILE_LIMIT = 4096;
/** Streams open at once in all when the file limit cannot be read: a quarter of Linux's 1,024. */
const UNKNOWN_LIMIT_STREAMS = 256;
/** The first wait before listening again, and the longest, ms. */
const RELISTEN_FIRST_MS = 50;
const RELISTEN_MAX_MS = 1000;
/** How long a server must have listened for the next failure to wait the first wait again. */
const RELISTEN_LASTED_MS = 10_000;
/** Servers kept to shut down: the one listening and the last ones whose accepting failed. */
const KEPT_SERVERS = 8;

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
  /**
   * Resolves once `shutdown()` stopped the server. A server whose accepting failed (a flood of
   * connections past the file limit) is replaced by a new one on the same port, not finished.
   */
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
  // Every connection holds a file: the soft limit is raised to the hard one where the process
  // may, and streams take at most a quarter of it.
  const files = raiseFileLimit();
  if (files && files.soft < LOW_FILE_LIMIT) {
    options.onStatus?.(
      `the file limit is ${files.soft} open files, which bounds connections; raise it with ` +
        `'ulimit -n' (docs/security.md, "Connections and streams")`,
    );
  }
  const streamsByFiles = files ? Math.floor(files.soft / 4) : UNKNOWN_LIMIT_STREAMS;
  const status = { listening: false, relistens: 0 };
  const bridge = createBridge({
    ...options,
    streams: {
      ...options.streams,
      total: options.streams?.total ?? Math.min(DEFAULTS.maxStreams, streamsByFiles),
    },
    allowedHosts: options.allowedHosts === undefined
      ? (loopback ? [] : null)
      : options.allowedHosts,
    health: () => ({ listening: status.listening, relistens: status.relistens }),
  });
  const listen = (port: number) =>
    Deno.serve({
      port,
      hostname,
      ...(options.cert && options.key ? { cert: options.cert, key: options.key } : {}),
      onListen: () => {},
    }, bridge.fetch);
  let server = listen(options.port ?? 8000);
  status.listening = true;
  const servers = [server];
  const addr = server.addr as Deno.NetAddr;
  const scheme = options.cert ? "https" : "http";
  const shownHost = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  const url = `${scheme}://${shownHost}:${addr.port}`;
  options.onListen?.({ hostname: addr.hostname, port: addr.port, url });
  let stopping: Promise<void> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  // Listening fails again at once while the flood lasts: each attempt waits twice as long as
  // the one before (up to a second), from the first wait again once a server lasted.
  let backoffMs = RELISTEN_FIRST_MS;
  let listenedAt = Date.now();
  const { promise: finished, resolve: finish } = Promise.withResolvers<void>();
  // Deno's accept loop ends for good when accepting fails (`Too many open files` under a flood
  // of connections): the server would stay up with no socket listening. It listens again on
  // the same port, as soon as the flood leaves it a file to do so.
  const relisten = () => {
    retry = undefined;
    if (stopping) return;
    try {
      server = listen(addr.port);
    } catch {
      retry = setTimeout(relisten, backoffMs);
      backoffMs = Math.min(backoffMs * 2, RELISTEN_MAX_MS);
      return;
    }
    listenedAt = Date.now();
    // The failed ones go on answering the connections they hold; a few are kept to shut down.
    servers.push(server);
    if (servers.length > KEPT_SERVERS) servers.shift();
    status.listening = true;
    status.relistens++;
    options.onStatus?.(`listening again at ${url}`);
    watch(server);
  };
  const watch = (watched: Deno.HttpServer) => {
    const ended = (error?: unknown) => {
      if (stopping || watched !== server) return;
      status.listening = false;
      const reason = error instanceof Error ? error.message : "it stopped";
      options.onStatus?.(`the server stopped accepting connections (${reason}); listening again`);
      if (Date.now() - listenedAt > RELISTEN_LASTED_MS) backoffMs = RELISTEN_FIRST_MS;
      retry = setTimeout(relisten, backoffMs);
      backoffMs = Math.min(backoffMs * 2, RELISTEN_MAX_MS);
    };
    watched.finished.then(() => ended(), ended);
  };
  watch(server);
  const shutdown = () => {
    stopping ??= (async () => {
      clearTimeout(retry);
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
      // A server whose accept loop failed may still hold connections it answers on. Deno.serve
      // waits for every open request; one that never ends would hold the process past its
      // drain, so the wait is bounded (`aim serve` exits when `finished` resolves).
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled(servers.map((each) => each.shutdown())),
        new Promise((resolve) => timer = setTimeout(resolve, DEFAULTS.serverCloseMs)),
      ]);
      clearTimeout(timer);
      status.listening = false;
      finish();
    })();
    return stopping;
  };
  return {
    bridge,
    url,
    port: addr.port,
    hostname: addr.hostname,
    shutdown,
    finished,
    ready: bridge.core.ready(),
    [Symbol.asyncDispose]: shutdown,
  };
}
