/**
 * What crosses the proxy of `aim serve --upstream` and what does not: hop-by-hop headers
 * dropped both ways, aim's own credentials (its cookie, the tab key, a token or tab credential
 * aim issued, in `Authorization` or a WebSocket subprotocol) never sent to the app, where a
 * request came from said by aim alone, and no `Set-Cookie` of the app able to set aim's cookie.
 * @module
 */
import { SESSION_COOKIE } from "../http/request.ts";
import { withoutSecrets } from "../http/credentials.ts";

/** Hop-by-hop headers (RFC 9110 §7.6.1), never forwarded either way. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Request headers of aim's own that the app never receives. */
const AIM_REQUEST_HEADERS = new Set(["x-aim-tab"]);

/** Whether a cookie name is one of aim's: `aim_session`, with or without a `__Host-` prefix. */
export function isAimCookie(name: string): boolean {
  const bare = name.trim().toLowerCase().replace(/^__(host|secure)-/, "");
  return bare === SESSION_COOKIE || bare.startsWith("aim_");
}

/** The `Cookie` header without aim's cookies; null when nothing is left. */
export function appCookies(header: string): string | null {
  const kept = header.split(";").filter((part) => {
    const eq = part.indexOf("=");
    return part.trim() !== "" && !isAimCookie(eq < 0 ? part : part.slice(0, eq));
  });
  return kept.length ? kept.map((part) => part.trim()).join("; ") : null;
}

const NONE_LISTED: ReadonlySet<string> = new Set();

/** The names a `Connection` header lists, which are hop-by-hop for that message. */
function connectionListed(headers: Headers): ReadonlySet<string> {
  const header = headers.get("connection");
  if (header === null) return NONE_LISTED;
  const listed = new Set<string>();
  for (const name of header.split(",")) {
    const trimmed = name.trim().toLowerCase();
    if (trimmed) listed.add(trimmed);
  }
  return listed;
}

/** Options of {@linkcode upstreamRequestHeaders}. */
export interface ForwardOptions {
  /** The client's address: the socket's peer, or behind a trusted proxy its last forwarded hop. */
  client: string;
  /** The socket's peer (the client, or the proxy in front), the hop aim appends. */
  peer: string;
  /** The origin the client reached aim at: `X-Forwarded-Proto` and `-Host` come from it. */
  origin: string;
  /** Keep the client's `Host` (true) or send the upstream's own. */
  preserveHost: boolean;
  /** Set `X-Forwarded-For`, `-Proto`, `-Host`, `Forwarded` and `X-Real-IP`. */
  forwarded: boolean;
  /**
   * Keep the forwarding headers the proxy in front set (`X-Forwarded-For` and `Forwarded` hops;
   * only behind a proxy aim trusts).
   */
  trustForwarded: boolean;
  /**
   * aim's secrets the request carries (bridge/http/credentials.ts): a member of `Authorization`
   * or `Sec-WebSocket-Protocol` carrying one is removed.
   */
  secrets: ReadonlySet<string>;
}

/** Whether a header says where a request came from: the client's to write unless trusted. */
function isForwarding(name: string): boolean {
  return name.startsWith("x-forwarded-") || name === "forwarded" || name === "x-real-ip";
}

/** A `Forwarded` parameter's value (RFC 7239): a token, or a quoted string. */
function forwardedValue(value: string): string {
  return /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(value) ? value : `"${value.replace(/["\\]/g, "")}"`;
}

/** A `Forwarded` node: an IPv6 address in brackets, `unknown` when aim does not know it. */
function forwardedNode(address: string): string {
  return address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;
}

/** Header name and value pairs, as `fetch` takes them (cheaper for it to read than `Headers`). */
export type HeaderPairs = [string, string][];

/**
 * The headers the app receives for a client's request: the client's own (User-Agent,
 * Accept-Language, Accept-Encoding, the app's cookies and authorization unchanged), without
 * hop-by-hop headers and without aim's credentials. Where the request came from is aim's to
 * say: `X-Forwarded-*`, `Forwarded` and `X-Real-IP` of the client are replaced (with
 * `forwarded`) or dropped (without), and kept only from a trusted proxy, each chain with aim's
 * hop appended.
 */
export function upstreamRequestHeaders(incoming: Headers, options: ForwardOptions): Headers {
  return new Headers(upstreamRequestPairs(incoming, options));
}

/**
 * {@linkcode upstreamRequestHeaders} as name and value pairs, each name once, as the proxy hands
 * them to `fetch`.
 */
export function upstreamRequestPairs(incoming: Headers, options: ForwardOptions): HeaderPairs {
  const out: HeaderPairs = [];
  const listed = connectionListed(incoming);
  const trusted = options.trustForwarded;
  let hostHeader: string | undefined;
  // `forEach`, not `for…of`: the runtime's iterator costs several times as much. Either joins a
  // name's repeated values, so that each name comes once.
  incoming.forEach((value, name) => {
    if (name === "host") hostHeader = value;
    if (HOP_BY_HOP.has(name) || listed.has(name) || AIM_REQUEST_HEADERS.has(name)) return;
    if (name === "host" && !options.preserveHost) return;
    if (isForwarding(name) && (options.forwarded || !trusted)) return;
    if (name === "cookie") {
      const kept = appCookies(value);
      if (kept !== null) out.push(["cookie", kept]);
      return;
    }
    if (name === "authorization" || name === "sec-websocket-protocol") {
      const kept = withoutSecrets(value, options.secrets);
      if (kept !== null) out.push([name, kept]);
      return;
    }
    out.push([name, value]);
  });
  if (options.forwarded) {
    // An origin is `scheme://authority`: cut, not parsed again on every request.
    const origin = options.origin;
    const proto = origin.slice(0, origin.indexOf(":"));
    const host = hostHeader ?? origin.slice(origin.indexOf("//") + 2);
    const earlierFor = trusted ? incoming.get("x-forwarded-for") : null;
    out.push(["x-forwarded-for", earlierFor ? `${earlierFor}, ${options.peer}` : options.peer]);
    out.push(["x-forwarded-proto", proto]);
    out.push(["x-forwarded-host", host]);
    const hop = `for=${forwardedValue(forwardedNode(options.peer))};host=${
      forwardedValue(host)
    };proto=${proto}`;
    const earlier = trusted ? incoming.get("forwarded") : null;
    out.push(["forwarded", earlier ? `${earlier}, ${hop}` : hop]);
    out.push(["x-real-ip", options.client]);
  }
  return out;
}

/** Content codings the runtime's `fetch` decodes by itself (and then keeps the header of). */
const DECODED_BY_FETCH = new Set(["gzip", "br"]);

/** Names of answer headers some rule of {@linkcode clientResponseHeaders} may remove. */
const ANSWER_FILTERED: ReadonlySet<string> = new Set([...HOP_BY_HOP, "set-cookie"]);

/** What the proxy reads of the app's answer headers, in one pass over them. */
export interface AppAnswer {
  /** The headers the client receives: {@linkcode clientAnswerHeaders}. */
  headers: Headers;
  /**
   * Whether the answer is framed both by `Transfer-Encoding` and `Content-Length` (RFC 9112
   * §6.3: smuggling, or a broken app), which the proxy refuses.
   */
  framedTwice: boolean;
  /** The app's `Location` (repeated values joined, as `Headers.get` joins them), or null. */
  location: string | null;
}

/**
 * The app's answer headers read once: what the client receives, whether the answer is framed
 * two ways, and its `Location`. One `forEach`, not a lookup per rule: the runtime keeps the
 * sorted list of an answer's (immutable) headers after the first pass, where each lookup scans
 * them all again.
 */
export function appAnswer(upstream: Headers, decoded: boolean): AppAnswer {
  const seen = { filtered: false, chunked: false, length: false, location: null as string | null };
  upstream.forEach((value, name) => {
    if (ANSWER_FILTERED.has(name) || (decoded && name === "content-encoding")) seen.filtered = true;
    if (name === "transfer-encoding") seen.chunked = true;
    else if (name === "content-length") seen.length = true;
    else if (name === "location") seen.location = value;
  });
  return {
    headers: seen.filtered ? clientResponseHeaders(upstream, decoded) : upstream,
    framedTwice: seen.chunked && seen.length,
    location: seen.location,
  };
}

/**
 * The headers the client receives for the app's answer, as {@linkcode clientResponseHeaders}
 * filters them; the app's own `Headers`, unread and unchanged (immutable, as `fetch` made them),
 * when they hold no name any rule removes: most answers, which then cost no copy.
 */
export function clientAnswerHeaders(upstream: Headers, decoded: boolean): Headers {
  return appAnswer(upstream, decoded).headers;
}

/**
 * The headers the client receives for the app's answer: without hop-by-hop headers, without a
 * `Set-Cookie` of aim's cookie, and without `Content-Encoding` and `Content-Length` when the
 * runtime's `fetch` already decoded the body (the server compresses it again for a client that
 * accepts it).
 */
export function clientResponseHeaders(upstream: Headers, decoded: boolean): Headers {
  const out = new Headers();
  const listed = connectionListed(upstream);
  const coding = upstream.get("content-encoding")?.trim().toLowerCase();
  const strip = decoded && coding !== undefined && DECODED_BY_FETCH.has(coding);
  upstream.forEach((value, name) => {
    if (HOP_BY_HOP.has(name) || listed.has(name) || name === "set-cookie") return;
    if (strip && (name === "content-encoding" || name === "content-length")) return;
    out.append(name, value);
  });
  for (const cookie of upstream.getSetCookie()) {
    const eq = cookie.indexOf("=");
    if (isAimCookie(eq < 0 ? cookie : cookie.slice(0, eq))) continue;
    out.append("set-cookie", cookie);
  }
  return out;
}

/** Whether the runtime's `fetch` decodes a compressed answer to a request with these headers. */
export function fetchDecodes(sent: Headers | HeaderPairs): boolean {
  const coding = sent instanceof Headers
    ? sent.get("accept-encoding")
    : sent.find(([name]) => name === "accept-encoding")?.[1];
  return coding?.trim().toLowerCase() !== "identity";
}
