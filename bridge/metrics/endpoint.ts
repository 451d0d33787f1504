/**
 * `GET /__aim/metrics` on a listener of its own, never the bridge's: the address agents and
 * browsers reach (often the internet, through a balancer) never answers it. Bound to loopback, it
 * answers only to loopback `Host` names, as the bridge does (DNS rebinding).
 *
 * @module
 */
import type { Registry } from "prom-client";
import { AimError, notFound } from "../errors/aim_error.ts";
import { isLoopback } from "../http/request.ts";
import { checkedOrigin } from "../http/middleware.ts";
import { methodNotAllowed } from "../http/responses.ts";

/** The path of the metrics, on their own listener. */
export const METRICS_PATH = "/__aim/metrics";

/** The metrics listener's address when only a port is given. */
export const METRICS_DEFAULT_HOST = "127.0.0.1";

/** Where the metrics listen (`aim serve --metrics HOST:PORT`). */
export interface MetricsListenOptions {
  /** Port; 0 picks a free one. */
  port: number;
  /**
   * Address to listen on.
   *
   * @default {"127.0.0.1"}
   */
  hostname?: string | undefined;
}

/** The defaults of {@linkcode MetricsListenOptions}, as its `@default` tags say. */
export const METRICS_LISTEN_DEFAULTS: { readonly hostname: string } = {
  hostname: METRICS_DEFAULT_HOST,
};

/** Options of {@linkcode metricsFetch}. */
export interface MetricsFetchOptions {
  /**
   * Host names allowed in `Host` besides loopback names, or null for no Host check (a listener
   * on another interface, where Prometheus asks by address).
   *
   * @default {[]}
   */
  allowedHosts?: readonly string[] | null | undefined;
}

/** The defaults of {@linkcode MetricsFetchOptions}, as its `@default` tags say. */
export const METRICS_FETCH_DEFAULTS: { readonly allowedHosts: readonly string[] } = {
  allowedHosts: [],
};

const HEADERS = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

/** A handler that answers `GET /__aim/metrics` with `registry`'s text, and nothing else. */
export function metricsFetch(
  registry: Registry,
  options: MetricsFetchOptions = {},
): (request: Request) => Promise<Response> {
  const allowedHosts = options.allowedHosts === undefined
    ? METRICS_FETCH_DEFAULTS.allowedHosts
    : options.allowedHosts;
  return async (request) => {
    // The bridge's own check: a malformed Host, or a name this listener does not answer to
    // (in `Host` or an absolute request line).
    const origin = checkedOrigin(
      { url: request.url, header: (name) => request.headers.get(name) ?? undefined },
      { allowedHosts },
    );
    if (origin instanceof AimError) return origin.getResponse();
    if (new URL(request.url).pathname !== METRICS_PATH) {
      return notFound(`Only ${METRICS_PATH} is served here.`).getResponse();
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return methodNotAllowed("GET, HEAD").getResponse();
    }
    const text = await registry.metrics();
    return new Response(request.method === "HEAD" ? null : text, {
      headers: { "Content-Type": registry.contentType, ...HEADERS },
    });
  };
}

/**
 * The `--metrics` address: `PORT`, `HOST:PORT` or `[IPv6]:PORT`; a message saying what is wrong
 * when it is none of them.
 */
export function parseMetricsAddress(text: string): MetricsListenOptions | string {
  const expected = `PORT or HOST:PORT, such as ${METRICS_DEFAULT_HOST}:9464`;
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text.trim());
  if (!match) return `--metrics must be ${expected}, got "${text}"`;
  const port = Number(match[2]);
  if (port > 65535) return `--metrics port must be from 0 to 65535, got "${text}"`;
  const host = match[1];
  return {
    port,
    hostname: host === undefined
      ? METRICS_DEFAULT_HOST
      : host.startsWith("[")
      ? host.slice(1, -1)
      : host.toLowerCase(),
  };
}

/** The metrics' listener could not listen (its port taken, an address not this machine's). */
export class MetricsListenError extends Error {
  /** The error of listening on `hostname`:`port`, for the reason `cause` gives. */
  constructor(hostname: string, port: number, cause: unknown) {
    const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
    const reason = cause instanceof Deno.errors.AddrInUse
      ? "the port is already in use"
      : cause instanceof Error
      ? cause.message
      : String(cause);
    super(`cannot listen for metrics on ${shown}:${port}: ${reason}`, { cause });
    this.name = "MetricsListenError";
  }
}

/** Whether `hostname` listens on every interface (`0.0.0.0`, `::`). */
export function isWildcard(hostname: string): boolean {
  return hostname === "0.0.0.0" || hostname === "::" || hostname === "[::]";
}

/** The Host check of a metrics listener on `hostname`: on loopback, loopback names only. */
export function metricsHosts(hostname: string): readonly string[] | null {
  return isLoopback(hostname) ? [] : null;
}
