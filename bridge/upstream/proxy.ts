/**
 * The reverse proxy of `aim serve --upstream URL`: every request that names none of aim's
 * routes goes to the app, bodies streamed both ways (uploads and downloads of any size, server-
 * sent events), the app's WebSockets relayed (bridge/upstream/websocket.ts), redirects and
 * cookies passed as they are. An app that is down, slow or answers garbage gets the client 502
 * or 504 with aim's error body.
 * @module
 */
import type { Context, Hono } from "hono";
import { AimError, badRequest, notFound } from "../errors/aim_error.ts";
import type { AppEnv } from "../http/env.ts";
import { remoteAddress } from "../http/request.ts";
import { type AimCredentials, secretCandidates } from "../http/credentials.ts";
import { ambiguousPath, type AppDoor, type RequestFrom } from "../http/front_door.ts";
import {
  appAnswer,
  clientResponseHeaders,
  fetchDecodes,
  type HeaderPairs,
  upstreamRequestPairs,
} from "./headers.ts";
import { Deadlines } from "./deadlines.ts";
import { type AimPaths, pathVerdict } from "./routes.ts";
import { upstreamBody } from "./request_body.ts";
import { relay, RELAY_DEFAULTS } from "./websocket.ts";
import { handsBack, misdirected } from "./beside.ts";

export type { RequestFrom };

/** Options of {@linkcode UpstreamProxy}. */
export interface ProxyOptions {
  /**
   * Keep the client's `Host` when asking the app (apps build absolute URLs from it).
   *
   * @default {true}
   */
  preserveHost?: boolean | undefined;
  /**
   * Set `X-Forwarded-For`, `-Proto`, `-Host`, `Forwarded` and `X-Real-IP`.
   *
   * @default {true}
   */
  forwarded?: boolean | undefined;
  /**
   * Keep the forwarding headers of the proxy in front (aim behind a trusted proxy).
   *
   * @default {false}
   */
  trustForwarded?: boolean | undefined;
  /**
   * How long the app may take to answer with its headers (or open a WebSocket), ms.
   *
   * @default {30000}
   */
  timeoutMs?: number | undefined;
  /**
   * Idle connections kept open to the app.
   *
   * @default {64}
   */
  keepAlive?: number | undefined;
  /**
   * Bytes of a relayed WebSocket's messages that may wait for either side to read them; past
   * it the relay ends (bridge/upstream/websocket.ts).
   *
   * @default {8388608}
   */
  webSocketBufferBytes?: number | undefined;
  /**
   * How aim's own credentials are recognised (`createBridge` gives its sessions'). Without it,
   * every value of their shape (43 base64url characters) counts as aim's: fail closed.
   */
  credentials?: AimCredentials | undefined;
  /**
   * Told each time the app gave no answer: none at all (`bad_gateway`), or not within `timeoutMs`
   * (`gateway_timeout`); never for a client that hung up. For the metrics (bridge/metrics/).
   */
  onFailure?: ((code: "bad_gateway" | "gateway_timeout") => void) | undefined;
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

/**
 * The status logged for a request whose client hung up before the app answered (nginx's
 * "client closed request"); nothing is sent to anyone.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/** The defaults of {@linkcode ProxyOptions}. */
export const PROXY_DEFAULTS = {
  preserveHost: true,
  forwarded: true,
  trustForwarded: false,
  timeoutMs: 30_000,
  keepAlive: 64,
  webSocketBufferBytes: RELAY_DEFAULTS.bufferBytes,
} as const;

const NO_SECRETS: ReadonlySet<string> = new Set();

/**
 * How long a request waits for the app's answer before aim watches for its client hanging up,
 * ms. Watching costs the runtime a task per request, which most pages (answered sooner) never
 * need; a client that hung up earlier is seen as soon as the watch starts.
 */
export const HANG_UP_WATCH_MS = 20;

/** The reason a request to the app is withdrawn with when the app's time to answer ran out. */
const TIMED_OUT = new DOMException("The app did not answer in time", "TimeoutError");

/** A request waiting for the app's answer, as the hang-up watch holds it. */
interface Waiting {
  request: Request;
  controller: AbortController;
  /** The listener on the client's signal, once watched. */
  hangUp?: () => void;
}

/** Starts watching a waiting request's client: one that hung up already withdraws it at once. */
function watchHangUp(waiting: Waiting): void {
  const { request, controller } = waiting;
  if (request.signal.aborted) return controller.abort();
  waiting.hangUp = () => controller.abort();
  request.signal.addEventListener("abort", waiting.hangUp, { once: true });
}

/** Withdraws a request whose time to answer ran out. */
function timeOut(controller: AbortController): void {
  controller.abort(TIMED_OUT);
}

/** A proxy to one app. */
export class UpstreamProxy implements Disposable {
  /** The app's origin (and base path) requests are forwarded to. */
  readonly upstream: URL;
  readonly #client: Deno.HttpClient;
  readonly #options: ProxyOptions;
  readonly #timeoutMs: number;
  /** The app's origin and base path, without a trailing slash. */
  readonly #base: string;
  /** When each request waiting for the app's headers times out: one timer for all of them. */
  readonly #deadlines: Deadlines<AbortController>;
  /** When aim starts watching each request still waiting for its client hanging up. */
  readonly #watches: Deadlines<Waiting> = new Deadlines(HANG_UP_WATCH_MS, watchHangUp);

  /**
   * A proxy to the app at `upstream`, an http(s) URL.
   *
   * @throws {TypeError} when `upstream` is not an http(s) URL.
   */
  constructor(upstream: string | URL, options: ProxyOptions = {}) {
    this.upstream = new URL(upstream);
    if (this.upstream.protocol !== "http:" && this.upstream.protocol !== "https:") {
      throw new TypeError("The upstream must be an http(s) URL");
    }
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? PROXY_DEFAULTS.timeoutMs;
    this.#deadlines = new Deadlines(this.#timeoutMs, timeOut);
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

  /**
   * The headers the app gets, once aim's secrets among the request's are known: at once when
   * they are known in memory (no shared store, or seen before), which is every page of a person.
   */
  #headers(request: Request, from: RequestFrom): HeaderPairs | Promise<HeaderPairs> {
    const credentials = this.#options.credentials;
    if (credentials) {
      const found = credentials.issuedIn(request.headers);
      if (found instanceof Promise) {
        return found.then((secrets) => this.#pairs(request, from, secrets));
      }
      return this.#pairs(request, from, found ?? NO_SECRETS);
    }
    const candidates = [
      ...secretCandidates(request.headers.get("authorization") ?? ""),
      ...secretCandidates(request.headers.get("sec-websocket-protocol") ?? ""),
    ];
    return this.#pairs(request, from, candidates.length ? new Set(candidates) : NO_SECRETS);
  }

  /** {@linkcode upstreamRequestPairs} of a request with these secrets. */
  #pairs(request: Request, from: RequestFrom, secrets: ReadonlySet<string>): HeaderPairs {
    return upstreamRequestPairs(request.headers, {
      client: from.client,
      peer: from.peer,
      origin: from.origin,
      preserveHost: this.#options.preserveHost ?? PROXY_DEFAULTS.preserveHost,
      forwarded: this.#options.forwarded ?? PROXY_DEFAULTS.forwarded,
      trustForwarded: this.#options.trustForwarded ?? PROXY_DEFAULTS.trustForwarded,
      secrets,
    });
  }

  /** Forwards one request (of a hono route) to the app and streams its answer back. */
  forward(c: Context<AppEnv>): Promise<Response> {
    const peer = (remoteAddress(c) as Deno.NetAddr | undefined)?.hostname ?? "unknown";
    return this.forwardRequest(c.req.raw, {
      origin: c.get("origin"),
      client: c.get("client"),
      peer,
    });
  }

  /**
   * Forwards one request to the app and streams its answer back. A client that hangs up
   * before the app answered gets (and is logged with) {@linkcode CLIENT_CLOSED_REQUEST}.
   */
  async forwardRequest(request: Request, from: RequestFrom): Promise<Response> {
    // The web server beside aim sends it to the app itself (bridge/upstream/beside.ts).
    if (handsBack(request)) throw misdirected();
    const url = request.url;
    if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
      return await this.#websocket(request, from, url);
    }
    const pending = this.#headers(request, from);
    const headers = pending instanceof Promise ? await pending : pending;
    // One controller: the timeout, or a client that hangs up, withdraws the request from the app.
    const controller = new AbortController();
    const signal = controller.signal;
    let answered = false;
    // The app's time to answer counts once it has the whole request: an upload takes its time.
    const arm = () => void (answered || this.#deadlines.add(controller));
    const waiting: Waiting = { request, controller };
    this.#watches.add(waiting);
    let answer: Response;
    try {
      // A small body of a declared length goes with it (bridge/upstream/request_body.ts).
      const sent = upstreamBody(request, arm);
      const { body, streams } = sent instanceof Promise ? await sent : sent;
      answer = await fetch(this.target(url), {
        method: request.method,
        headers,
        body,
        redirect: "manual",
        signal,
        client: this.#client,
        ...(streams ? { duplex: "half" } : {}),
      } as RequestInit);
    } catch (error) {
      if (signal.reason === TIMED_OUT) {
        this.#options.onFailure?.("gateway_timeout");
        throw gatewayTimeout(this.#timeoutMs);
      }
      // Nobody is left to answer: the log says so, not that the app failed.
      if (request.signal.aborted) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
      this.#options.onFailure?.("bad_gateway");
      throw Object.assign(badGateway(), { cause: error });
    } finally {
      // Past the headers, the body streams for as long as it takes (downloads, event streams).
      answered = true;
      this.#deadlines.delete(controller);
      this.#watches.delete(waiting);
      if (waiting.hangUp) request.signal.removeEventListener("abort", waiting.hangUp);
    }
    const appHeaders = answer.headers;
    const decoded = fetchDecodes(headers);
    const read = appAnswer(appHeaders, decoded);
    // RFC 9112 §6.3: both is a message framed two ways (smuggling, or a broken app): an error.
    if (read.framedTwice) {
      await answer.body?.cancel().catch(() => {});
      this.#options.onFailure?.("bad_gateway");
      throw badGateway();
    }
    let out = read.headers;
    const location = read.location;
    if (location && !(this.#options.preserveHost ?? PROXY_DEFAULTS.preserveHost)) {
      const rewritten = this.#ownLocation(location, from.origin);
      if (rewritten !== undefined) {
        // The app's own headers cannot change (fetch made them immutable): a copy can.
        if (out === appHeaders) out = clientResponseHeaders(appHeaders, decoded);
        out.set("location", rewritten);
      }
    }
    const nullBody = request.method === "HEAD" || [101, 204, 205, 304].includes(answer.status);
    return new Response(nullBody ? null : answer.body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: out,
    });
  }

  /**
   * A `Location` that names the app itself (its origin exactly), as the client reaches it
   * through aim; undefined for any other (relative, or another origin).
   */
  #ownLocation(location: string, origin: string): string | undefined {
    if (!/^(?:[A-Za-z][A-Za-z0-9+.-]*:|\/\/)/.test(location)) return undefined;
    let url: URL;
    try {
      url = new URL(location, this.upstream);
    } catch {
      return undefined;
    }
    if (url.origin !== this.upstream.origin) return undefined;
    return origin + url.pathname + url.search + url.hash;
  }

  /** Relays a WebSocket between the client and the app, once the app accepted it. */
  async #websocket(request: Request, from: RequestFrom, url: string): Promise<Response> {
    const headers = new Headers(await this.#headers(request, from));
    // The protocols the client offered, without any that carries aim's secrets.
    const protocols = (headers.get("sec-websocket-protocol") ?? "").split(",")
      .map((p) => p.trim()).filter(Boolean);
    for (const name of [...headers.keys()]) {
      if (name.startsWith("sec-websocket-")) headers.delete(name);
    }
    const app = new WebSocket(
      this.target(url, "ws"),
      { protocols, headers } as unknown as string[],
    );
    const opened = await new Promise<boolean>((resolve) => {
      const timeout = setTimeout(() => resolve(false), this.#timeoutMs);
      app.onopen = () => {
        clearTimeout(timeout);
        resolve(true);
      };
      app.onerror = app.onclose = () => {
        clearTimeout(timeout);
        resolve(false);
      };
    });
    if (!opened) {
      app.close();
      this.#options.onFailure?.("bad_gateway");
      throw badGateway();
    }
    let upgraded: { socket: WebSocket; response: Response };
    try {
      upgraded = Deno.upgradeWebSocket(request, {
        ...(app.protocol ? { protocol: app.protocol } : {}),
      });
    } catch {
      app.close();
      throw badRequest("This is no valid WebSocket upgrade (its handshake headers are missing).");
    }
    relay(upgraded.socket, app, { bufferBytes: this.#options.webSocketBufferBytes });
    return upgraded.response;
  }

  /**
   * The front door's view of this proxy (bridge/http/front_door.ts) over aim's paths.
   *
   * @internal The bridge's front door calls it.
   */
  door(paths: () => AimPaths): AppDoor {
    return {
      verdict: (path) => pathVerdict(paths(), path),
      forward: (request, from) => this.forwardRequest(request, from),
    };
  }

  /** Closes the connections kept to the app. */
  close(): void {
    this.#client.close();
    this.#deadlines.close();
    this.#watches.close();
  }

  /** Closes the proxy (`using`). */
  [Symbol.dispose](): void {
    this.close();
  }
}

/**
 * The catch-all route that forwards to the app, mounted last: a path that names one of aim's
 * routes (`paths`) never reaches the app, whatever its method or spelling, and a spelling of one
 * that servers read differently is refused.
 */
export function proxyRoutes(app: Hono<AppEnv>, proxy: UpstreamProxy, paths: AimPaths): void {
  app.all("*", (c) => {
    const raw = c.req.raw.url;
    const pathStart = raw.indexOf("/", raw.indexOf("//") + 2);
    const query = raw.indexOf("?", pathStart);
    const path = raw.slice(pathStart, query < 0 ? undefined : query);
    const verdict = pathVerdict(paths, path);
    if (verdict === "aim") {
      throw notFound(`${path} is one of aim's routes, and not with this method.`);
    }
    if (verdict === "ambiguous") throw ambiguousPath(path);
    return proxy.forward(c);
  });
}
