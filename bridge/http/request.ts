/**
 * Reading requests: the session token, JSON bodies within a size limit, and the
 * Origin and Host checks.
 *
 * @module
 */
import { BoundedMap } from "../utils/bounded_map.ts";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { getCookie } from "hono/cookie";
import { AimError, badRequest, invalidToken } from "../errors/aim_error.ts";
import { jsonProblemMessage, parseUntrustedJson } from "../wire/json.ts";

/** The session cookie's name; over HTTPS it carries the `__Host-` prefix. */
export const SESSION_COOKIE = "aim_session";
const HOST_COOKIE = `__Host-${SESSION_COOKIE}`;

/** Where a request's token came from. */
export interface RequestToken {
  token: string;
  via: "bearer" | "cookie";
}

/**
 * The token of a request's `Authorization: Bearer` header, if it has one.
 *
 * @throws {AimError} 401 `invalid_token` for an Authorization header that is not Bearer.
 */
export function readBearer(c: Context): string | undefined {
  const header = c.req.header("Authorization");
  if (header === undefined) return undefined;
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  if (!match) throw invalidToken();
  return match[1];
}

/**
 * The token of a request: `Authorization: Bearer`, else the `aim_session` cookie.
 *
 * @throws {AimError} 401 `invalid_token` for an Authorization header that is not Bearer.
 */
export function readToken(c: Context): RequestToken | undefined {
  const bearer = readBearer(c);
  if (bearer !== undefined) return { token: bearer, via: "bearer" };
  const cookies = c.req.header("Cookie");
  if (!cookies) return undefined;
  // Two session cookies mean one was planted (another port, a sibling subdomain): trust neither.
  const count = cookies.split(";").filter((part) => {
    const name = part.slice(0, part.indexOf("=")).trim();
    return name === SESSION_COOKIE || name === HOST_COOKIE;
  }).length;
  if (count > 1) throw invalidToken();
  const cookie = getCookie(c, HOST_COOKIE) ?? getCookie(c, SESSION_COOKIE);
  return cookie ? { token: cookie, via: "cookie" } : undefined;
}

/**
 * The address of the client: the socket's peer, or with `trustProxy` the last
 * `X-Forwarded-For` hop (the one the proxy in front added; earlier ones are the client's to
 * write). `"unknown"` when neither is known.
 */
export function clientAddress(
  c: Context,
  options: OriginOptions = {},
): string {
  const peer = (remoteAddress(c) as Deno.NetAddr | undefined)?.hostname ?? "unknown";
  return options.trustProxy ? addressOf(c.req.header("X-Forwarded-For"), peer) : peer;
}

/**
 * The client's address behind a trusted proxy: the last hop of `X-Forwarded-For` when it is an
 * address, else the socket's `peer`.
 */
export function addressOf(forwardedFor: string | null | undefined, peer: string): string {
  const hops = forwardedFor?.split(",");
  const last = hops?.[hops.length - 1]?.trim();
  return last && /^[0-9A-Fa-f.:[\]]{2,64}$/.test(last) ? last.toLowerCase() : peer;
}

/** The socket's peer of a request `Deno.serve` handed over; undefined behind another server. */
export function remoteAddress(c: Context): Deno.Addr | undefined {
  const env = c.env as { info?: Deno.ServeHandlerInfo } | undefined;
  return env?.info?.remoteAddr;
}

/** What the origin of a request is read from: hono's `c.req`, or a raw request's. */
export interface RequestHead {
  readonly url: string;
  header(name: string): string | undefined;
}

/** How the bridge learns its own origin. */
export interface OriginOptions {
  /** The origin the bridge is reached at behind a proxy, e.g. `https://aim.example`. */
  publicUrl?: string | undefined;
  /** Honour `X-Forwarded-Proto` and `X-Forwarded-Host` from a proxy in front. */
  trustProxy?: boolean | undefined;
}

const hostShapes = new BoundedMap<string, boolean>(256);

/** Whether a `Host` header has the shape of one, remembered for the few a bridge sees. */
function wellFormedHost(host: string): boolean {
  return hostShapes.getOrSet(host, () => HOST_SHAPE.test(host));
}

/** A `Host` header's shape: a name or address, then an optional port. */
const HOST_SHAPE = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin this request was sent to, as the agent or browser sees it; null when its `Host`
 * is malformed.
 */
export function requestOrigin(req: RequestHead, options: OriginOptions = {}): string | null {
  const hostHeader = req.header("Host");
  if (hostHeader !== undefined && !wellFormedHost(hostHeader)) return null;
  if (options.publicUrl) return new URL(options.publicUrl).origin;
  if (!options.trustProxy) {
    try {
      return urlOrigin(req.url);
    } catch {
      return null;
    }
  }
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return null;
  }
  const forwardedProto = req.header("X-Forwarded-Proto")?.split(",")[0]?.trim().toLowerCase();
  const forwardedHost = req.header("X-Forwarded-Host")?.split(",")[0]?.trim();
  const proto = forwardedProto === "http" || forwardedProto === "https"
    ? forwardedProto
    : url.protocol.slice(0, -1);
  const host = forwardedHost && /^[A-Za-z0-9.:[\]-]+$/.test(forwardedHost)
    ? forwardedHost
    : url.host;
  try {
    return new URL(`${proto}://${host}`).origin;
  } catch {
    return url.origin;
  }
}

const origins = new BoundedMap<string, string>(256);

/** The origin of a request URL; parsed once per scheme and authority, not once per request. */
function urlOrigin(url: string): string {
  const end = url.indexOf("/", url.indexOf("//") + 2);
  const prefix = end < 0 ? url : url.slice(0, end);
  let origin = origins.get(prefix);
  if (origin === undefined) {
    origin = new URL(prefix).origin;
    origins.set(prefix, origin);
  }
  return origin;
}

/** Whether the request's `Origin` (when a browser sent one) is not `origin`. */
export function isCrossOrigin(c: Context, origin: string): boolean {
  const header = c.req.header("Origin");
  if (header !== undefined) return header !== origin;
  // Without Origin, a browser still says where a request came from.
  const site = c.req.header("Sec-Fetch-Site");
  return site !== undefined && site !== "same-origin" && site !== "none";
}

/** 403 `forbidden_origin`. */
export function forbiddenOrigin(): AimError {
  return new AimError(
    "forbidden_origin",
    "Requests from another origin may not open, attach or use a session.",
  );
}

/** How long a request body may take to arrive, whole. */
export const BODY_TIMEOUT_MS = 10_000;

/** Strict UTF-8: a body that is not is refused, not patched with U+FFFD. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The JSON body of a request, read up to `maxBytes` and within `timeoutMs`: a client that
 * sends its body a byte at a time holds nothing for long.
 *
 * @throws {AimError} 400 `bad_request` (not JSON, wrong content type, a Content-Length that is
 * no number), 408 `request_timeout`,
 * 413 `payload_too_large`.
 */
export async function readJson(
  c: Context,
  maxBytes: number,
  timeoutMs: number = BODY_TIMEOUT_MS,
): Promise<unknown> {
  const type = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") {
    throw badRequest("Send the body as JSON with 'Content-Type: application/json'.");
  }
  const tooLarge = () =>
    new AimError("payload_too_large", `The body is over the limit of ${maxBytes} bytes.`, {
      details: { limit: maxBytes },
    });
  // A declared length is checked here (no more bytes are read than it says): the usual case, and
  // the invocation's path, which hono's body limit would cost 15 µs more. hono's body limit
  // counts a chunked body as it arrives, stopping at the limit. Either way the body is then read
  // whole, in time.
  const length = c.req.header("Content-Length");
  // A length that is no number of bytes is refused: hono's body limit would take it for a length
  // it need not count, and the body would be read whole (Deno.serve refuses one itself; an app
  // the bridge is embedded in may not).
  if (length !== undefined && !/^\d+$/.test(length)) {
    throw badRequest("The Content-Length header is not a number of bytes.");
  }
  const declared = length === undefined ? undefined : Number(length);
  if (declared !== undefined && declared > maxBytes) throw tooLarge();
  // With a length declared, the body is not asked for as a stream (that stream costs 20 µs).
  if (declared === 0 || (declared === undefined && !c.req.raw.body)) {
    throw badRequest("The body is empty; send a JSON object.");
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // The read left pending ends with the connection, which `Connection: close` ends.
      reject(
        new AimError("request_timeout", `The body took over ${timeoutMs} ms to arrive.`, {
          headers: { Connection: "close" },
        }),
      );
    }, timeoutMs);
  });
  late.catch(() => {});
  const limit = declared === undefined
    ? bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw tooLarge();
      },
    })
    : undefined;
  const read = limit
    ? limit(c, () => Promise.resolve()).then(() => c.req.raw.arrayBuffer())
    : c.req.raw.arrayBuffer();
  read.catch(() => {});
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await Promise.race([read, late]));
  } finally {
    clearTimeout(timer);
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw badRequest("The body is not valid UTF-8.");
  }
  const parsed = parseUntrustedJson(text);
  if (parsed.ok) return parsed.value;
  throw badRequest(jsonProblemMessage(parsed.problem));
}

const LOOPBACK_NAMES = /^(localhost|[a-z0-9-]+\.localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** The host name of a `Host` header, without the port; lowercased. */
export function hostName(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith("[")) return trimmed.slice(0, trimmed.indexOf("]") + 1);
  return trimmed.replace(/:\d*$/, "");
}

const hostVerdicts = new BoundedMap<string, boolean>(256);

/** Whether a `Host` may reach a loopback-bound bridge (DNS rebinding guard). */
export function isAllowedHost(host: string | undefined, allowed: readonly string[]): boolean {
  if (!host) return false;
  const key = `${host}\n${allowed.join(",")}`;
  let verdict = hostVerdicts.get(key);
  if (verdict === undefined) {
    const name = hostName(host);
    verdict = LOOPBACK_NAMES.test(name) || allowed.includes(name);
    hostVerdicts.set(key, verdict);
  }
  return verdict;
}

/** Whether a listening host name is a loopback address. */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK_NAMES.test(hostname) || hostname === "::1";
}
