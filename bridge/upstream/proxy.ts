/**
 * The reverse proxy of `aim serve --upstream URL`: every request that names none of aim's
 * routes goes to the app, bodies streamed both ways (uploads and downloads of any size, server-
 * sent events), the app's WebSockets piped, redirects and cookies passed as they are. An app
 * that is down, slow or answers garbage gets the client 502 or 504 with aim's error body.
 * @module
 */
import type { Context, Hono } from "hono";
import { AimError, notFound } from "../wire/errors.ts";
import type { AppEnv } from "../http/env.ts";
import { clientResponseHeaders, fetchDecodes, upstreamRequestHeaders } from "./headers.ts";
import { type AimPaths, isAimPath } from "./routes.ts";
import { handsBack, misdirected } from "./beside.ts";

/** Who sent a request: the origin it was sent to (as the client sees aim), and its address. */
export interface RequestFrom {
  origin: string;
  client: string;
}

/** Options of {@linkcode UpstreamProxy}. */
export interface ProxyOptions {
  /** Keep the client's `Host` when asking the app (apps build absolute URLs from it). @default true */
  preserveHost?: boolean | undefined;
  /** Set `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host`. @default true */
  forwarded?: boolean | undefined;
  /** Keep the client's `X-Forwarded-For` hops (aim itself behind a trusted proxy). @default false */
  trustForwarded?: boolean | undefined;
  /** How long the app may take to answer with its headers (or open a WebSocket), ms. @default 30000 */
  timeoutMs?: number | undefined;
  /** Idle connections kept open to the app. @default 64 */
  keepAlive?: number | undefined;
}

/** The proxy's answer when the app cannot be reached or answers garbage. */
export function badGateway(): AimError {
  return new AimError(
    "bad_gateway",
    "The app behind aim could not be reached or gave no valid answer; retry later.",
  );
}

/** The proxy's answer when the app took too long to answer. */
export function gatewayTimeout(timeoutMs: number): AimError {
  return new AimError(
    "gateway_timeout",
    `The app behind aim did not answer within ${timeoutMs / 1000} s; retry later.`,
  );
}

/** The defaults of {@linkcode ProxyOptions}. */
export const PROXY_DEFAULTS = { timeoutMs: 30_000, keepAlive: 64 } as const;

/** A proxy to one app. */
export class UpstreamProxy implements Disposable {
  readonly upstream: URL;
  readonly #client: Deno.HttpClient;
  readonly #options: ProxyOptions;
  readonly #timeoutMs: number;
  /** The app's origin and base path, without a trailing slash. */
  readonly #base: string;

  constructor(upstream: string | URL, options: ProxyOptions = {}) {
    this.upstream = new URL(upstream);
    if (this.upstream.protocol !== "http:" && this.upstream.protocol !== "https:") {
      throw new TypeError("The upstream must be an http(s) URL");
    }
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? PROXY_DEFAULTS.timeoutMs;
    this.#base = this.upstream.origin + this.upstream.pathname.replace(/\/$/, "");
    // allowHost: the client's Host goes to the app; keep-alive through the pool.
    this.#client = Deno.createHttpClient({
      allowHost: true,
      poolMaxIdlePerHost: options.keepAlive ?? PROXY_DEFAULTS.keepAlive,
    });
  }

  /**
   * The app's URL of a request URL's path and query, as a string: the request URL is already
   * parsed and normalized by the server, so its path and query are cut out, not parsed again.
   */
  target(requestUrl: string, scheme?: "ws"): string {
    const pathStart = requestUrl.indexOf("/", requestUrl.indexOf("//") + 2);
    const hash = requestUrl.indexOf("#");
    const rest = pathStart < 0 ? "/" : requestUrl.slice(pathStart, hash < 0 ? undefined : hash);
    const base = scheme ? this.#base.replace(/^http/, "ws") : this.#base;
    return base + rest;
  }

  #headers(request: Request, from: RequestFrom): Headers {
    return upstreamRequestHeaders(request.headers, {
      client: from.client,
      origin: from.origin,
      preserveHost: this.#options.preserveHost ?? true,
      forwarded: this.#options.forwarded ?? true,
      trustForwarded: this.#options.trustForwarded ?? false,
    });
  }

  /** Forwards one request (of a hono route) to the app and streams its answer back. */
  forward(c: Context<AppEnv>): Promise<Response> {
    return this.forwardRequest(c.req.raw, { origin: c.get("origin"), client: c.get("client") });
  }

  /** Forwards one request to the app and streams its answer back. */
  async forwardRequest(request: Request, from: RequestFrom): Promise<Response> {
    // The web server beside aim sends it to the app itself (bridge/upstream/beside.ts).
    if (handsBack(request)) throw misdirected();
    const url = request.url;
    if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
      return await this.#websocket(request, from, url);
    }
    const headers = this.#headers(request, from);
    // One controller: the timeout, or a client that hangs up, withdraws the request from the app.
    const controller = new AbortController();
    const signal = controller.signal;
    let timedOut = false;
    let timeout: ReturnType<typeof setTimeout> | undefined;
    // The app's time to answer counts once it has the whole request: an upload takes its time.
    const arm = () =>
      void (timeout = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, this.#timeoutMs));
    const hangUp = () => controller.abort();
    request.signal.addEventListener("abort", hangUp, { once: true });
    const hasBody = request.body !== null && request.method !== "GET" && request.method !== "HEAD";
    const body = hasBody ? request.body!.pipeThrough(new TransformStream({ flush: arm })) : null;
    if (!hasBody) arm();
    let answer: Response;
    try {
      answer = await fetch(this.target(url), {
        method: request.method,
        headers,
        body,
        redirect: "manual",
        signal,
        client: this.#client,
        ...(hasBody ? { duplex: "half" } : {}),
      } as RequestInit);
    } catch (error) {
      request.signal.removeEventListener("abort", hangUp);
      throw timedOut
        ? gatewayTimeout(this.#timeoutMs)
        : Object.assign(badGateway(), { cause: error });
    } finally {
      // Past the headers, the body streams for as long as it takes (downloads, event streams).
      clearTimeout(timeout);
    }
    let location = answer.headers.get("location");
    const out = clientResponseHeaders(answer.headers, fetchDecodes(headers));
    if (location && !(this.#options.preserveHost ?? true)) {
      // The app named itself: the client goes on through aim.
      if (location.startsWith(this.upstream.origin)) {
        location = from.origin + location.slice(this.upstream.origin.length);
        out.set("location", location);
      }
    }
    const nullBody = request.method === "HEAD" || [101, 204, 205, 304].includes(answer.status);
    return new Response(nullBody ? null : answer.body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: out,
    });
  }

  /** Pipes a WebSocket between the client and the app, once the app accepted it. */
  async #websocket(request: Request, from: RequestFrom, url: string): Promise<Response> {
    const headers = this.#headers(request, from);
    for (const name of [...headers.keys()]) {
      if (name.startsWith("sec-websocket-")) headers.delete(name);
    }
    const protocols = (request.headers.get("sec-websocket-protocol") ?? "").split(",")
      .map((p) => p.trim()).filter(Boolean);
    const upstream = new WebSocket(
      this.target(url, "ws"),
      { protocols, headers } as unknown as string[],
    );
    upstream.binaryType = "arraybuffer";
    const opened = await new Promise<boolean>((resolve) => {
      const timeout = setTimeout(() => resolve(false), this.#timeoutMs);
      upstream.onopen = () => {
        clearTimeout(timeout);
        resolve(true);
      };
      upstream.onerror = upstream.onclose = () => {
        clearTimeout(timeout);
        resolve(false);
      };
    });
    if (!opened) {
      upstream.close();
      throw badGateway();
    }
    const { socket, response } = Deno.upgradeWebSocket(request, {
      ...(upstream.protocol ? { protocol: upstream.protocol } : {}),
    });
    socket.binaryType = "arraybuffer";
    const early: (string | ArrayBuffer)[] = [];
    upstream.onmessage = (e) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(e.data);
      else if (early.length < 1024) early.push(e.data);
      else upstream.close(1009, "too many messages before the client was ready");
    };
    socket.onopen = () => {
      for (const data of early.splice(0)) socket.send(data);
    };
    socket.onmessage = (e) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(e.data);
    };
    const closer = (other: WebSocket) => (e: CloseEvent) => {
      if (other.readyState !== WebSocket.OPEN && other.readyState !== WebSocket.CONNECTING) return;
      const code = e.code === 1000 || (e.code >= 3000 && e.code < 5000) ? e.code : 1000;
      try {
        other.close(code, e.reason.slice(0, 120));
      } catch {
        other.close();
      }
    };
    upstream.onclose = closer(socket);
    socket.onclose = closer(upstream);
    upstream.onerror = () => socket.readyState === WebSocket.OPEN && socket.close(1011);
    socket.onerror = () => upstream.readyState === WebSocket.OPEN && upstream.close(1011);
    return response;
  }

  close(): void {
    this.#client.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/**
 * The catch-all route that forwards to the app, mounted last: a path that names one of aim's
 * routes (`paths`) never reaches the app, whatever its method or spelling.
 */
export function proxyRoutes(app: Hono<AppEnv>, proxy: UpstreamProxy, paths: AimPaths): void {
  app.all("*", (c) => {
    if (isAimPath(paths, c.req.path)) {
      throw notFound(`${c.req.path} is one of aim's routes, and not with this method.`);
    }
    return proxy.forward(c);
  });
}
