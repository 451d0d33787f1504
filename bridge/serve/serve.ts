/**
 * Serving a bridge with `Deno.serve`: listening again when Deno's accept loop fails (a flood of
 * connections past the file limit), streams bounded by the file limit, a graceful shutdown. The
 * process's file limit is raised only when asked ({@linkcode ServeOptions.raiseFileLimit}:
 * `aim serve` does; a library embedding the bridge keeps its process as it is).
 *
 * @module
 */
import { DEFAULTS } from "../core/limits.ts";
import { isLoopback } from "../http/request.ts";
import { fileLimit, raiseFileLimit } from "../utils/files.ts";
import { type Bridge, type BridgeOptions, createBridge } from "./bridge.ts";
import {
  METRICS_LISTEN_DEFAULTS,
  METRICS_PATH,
  metricsHosts,
  MetricsListenError,
  type MetricsListenOptions,
} from "../metrics/endpoint.ts";

/** Options of {@linkcode serve}. */
export interface ServeOptions extends Omit<BridgeOptions, "metrics"> {
  /**
   * Serve `GET /__aim/metrics` on a listener of its own, at this address (never the bridge's
   * own port: docs/scaling.md, "Metrics"); without it, no metrics.
   */
  metrics?: MetricsListenOptions | undefined;
  /**
   * Port; 0 picks a free one.
   *
   * @default {8000}
   */
  port?: number;
  /**
   * Address to listen on.
   *
   * @default {"127.0.0.1"}
   */
  hostname?: string;
  /** HTTPS certificate, PEM (with {@linkcode ServeOptions.key}). */
  cert?: string | undefined;
  /** HTTPS private key, PEM (with {@linkcode ServeOptions.cert}). */
  key?: string | undefined;
  /** Called once listening. */
  onListen?: (addr: { hostname: string; port: number; url: string }) => void;
  /**
   * Raise the process's soft file limit (`RLIMIT_NOFILE`) to its hard one before listening, by
   * FFI where the process may load libc (`--allow-ffi`, Linux): every connection holds a file.
   * A change to the whole process, so off unless asked; `aim serve` asks.
   *
   * @default {false}
   */
  raiseFileLimit?: boolean | undefined;
}

/** The defaults of {@linkcode ServeOptions}, as its `@default` tags say. */
export const SERVE_DEFAULTS: {
  readonly port: number;
  readonly hostname: string;
  readonly raiseFileLimit: boolean;
} = { port: 8000, hostname: "127.0.0.1", raiseFileLimit: false };

/** `HOST:PORT` of a listening address, an IPv6 host in brackets. */
function shownAddress(addr: Deno.NetAddr): string {
  return `${addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname}:${addr.port}`;
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
  /** The bridge served. */
  readonly bridge: Bridge;
  /** Where it listens: `http://127.0.0.1:8000` (`https:` with a certificate). */
  readonly url: string;
  /** The port it listens on (the one picked when asked for 0). */
  readonly port: number;
  /** The address it listens on. */
  readonly hostname: string;
  /** Where the metrics are served (`http://127.0.0.1:9464/__aim/metrics`), when asked for. */
  readonly metricsUrl: string | undefined;
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
 * import { createUserStore, hashPassword, serve } from "../mod.ts";
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
  const hostname = options.hostname ?? SERVE_DEFAULTS.hostname;
  const loopback = isLoopback(hostname);
  // Every connection holds a file: streams take at most a quarter of the soft limit, raised to the
  // hard one first when the caller asks (a process-wide change: `aim serve` asks, a library not).
  const raise = options.raiseFileLimit ?? SERVE_DEFAULTS.raiseFileLimit;
  const files = raise ? raiseFileLimit() : fileLimit();
  if (files && files.soft < LOW_FILE_LIMIT) {
    options.onStatus?.(
      `the file limit is ${files.soft} open files, which bounds connections; raise it with ` +
        `'ulimit -n' (docs/security.md, "Connections and streams")`,
    );
  }
  const streamsByFiles = files ? Math.floor(files.soft / 4) : UNKNOWN_LIMIT_STREAMS;
  const status = { listening: false, relistens: 0 };
  const metricsAt = options.metrics;
  const metricsHost = metricsAt?.hostname ?? METRICS_LISTEN_DEFAULTS.hostname;
  const bridge = createBridge({
    ...options,
    metrics: metricsAt && { allowedHosts: metricsHosts(metricsHost) },
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
  // The metrics' own listener, first: a port taken there fails before the bridge listens.
  let metricsServer: Deno.HttpServer | undefined;
  if (metricsAt) {
    try {
      metricsServer = Deno.serve(
        { port: metricsAt.port, hostname: metricsHost, onListen: () => {} },
        bridge.metrics!.fetch,
      );
    } catch (error) {
      bridge.close();
      throw new MetricsListenError(metricsHost, metricsAt.port, error);
    }
  }
  let server: Deno.HttpServer;
  try {
    server = listen(options.port ?? SERVE_DEFAULTS.port);
  } catch (error) {
    void metricsServer?.shutdown();
    throw error;
  }
  status.listening = true;
  const servers = [server];
  const addr = server.addr as Deno.NetAddr;
  const scheme = options.cert ? "https" : "http";
  const url = `${scheme}://${shownAddress(addr)}`;
  const metricsUrl = metricsServer &&
    `http://${shownAddress(metricsServer.addr as Deno.NetAddr)}${METRICS_PATH}`;
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
        Promise.allSettled(
          [...servers, ...metricsServer ? [metricsServer] : []].map((each) => each.shutdown()),
        ),
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
    metricsUrl,
    shutdown,
    finished,
    ready: bridge.core.ready(),
    [Symbol.asyncDispose]: shutdown,
  };
}
