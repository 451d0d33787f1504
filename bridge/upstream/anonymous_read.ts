/**
 * One anonymous `GET` to the app, as the public catalog makes it: the request carries `Accept`,
 * `User-Agent`, `Host` and the revalidators given, and nothing else (no cookie, no
 * `Authorization`, and none of the `Accept-Language` and `Accept-Encoding` the runtime's `fetch`
 * adds by itself, which is why it goes through `node:http`); the connection is closed after it. A
 * redirect is not followed, and the whole read (headers and body) is bounded in time and bytes.
 * @module
 */
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";

/** Options of {@linkcode readAnonymously}. */
export interface AnonymousReadOptions {
  /** The `Accept` header. */
  accept: string;
  /** The `User-Agent` header. */
  userAgent: string;
  /** The `Host` header; without it, the URL's host. */
  host?: string | undefined;
  /** Revalidators (`If-None-Match`, `If-Modified-Since`), by lower-case name. */
  revalidate?: Record<string, string> | undefined;
  /** Bytes of the (decoded) body read at most; a longer body is not read. */
  maxBytes: number;
  /** How long the whole read may take, headers and body, ms. */
  timeoutMs: number;
  /** Withdraws the read (the catalog closes). */
  signal?: AbortSignal | undefined;
  /** Whether the body of an answer is wanted; an unwanted body is not read. */
  wants(status: number, headers: Headers): boolean;
}

/** What the app answered. */
export interface AnonymousAnswer {
  status: number;
  headers: Headers;
  /** The body, decoded from `gzip` or `deflate`; null when not wanted, too long or garbled. */
  body: Uint8Array<ArrayBuffer> | null;
}

/** The content codings a body is decoded from; any other leaves it unread. */
const CODINGS: Readonly<Record<string, CompressionFormat>> = {
  gzip: "gzip",
  "x-gzip": "gzip",
  deflate: "deflate",
};

/** A stream that decodes `format`, typed as the byte streams it goes between. */
export function decompress(
  format: CompressionFormat,
): ReadableWritablePair<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>> {
  return new DecompressionStream(format) as unknown as ReadableWritablePair<
    Uint8Array<ArrayBuffer>,
    Uint8Array<ArrayBuffer>
  >;
}

/** At most `max` bytes of a stream, or null when it is longer; the stream is cancelled then. */
export async function boundedBytes(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > max) return null;
      parts.push(value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/** The answer's headers as a `Headers` (a header it repeats is joined, as `fetch` does). */
function headersOf(raw: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, one);
      } catch {
        // A value `Headers` refuses is no header of ours.
      }
    }
  }
  return headers;
}

/**
 * GETs `url` anonymously within the bounds of `options`.
 *
 * @throws {Error} when the app cannot be reached, answers garbage or runs out of time.
 */
export function readAnonymously(url: URL, options: AnonymousReadOptions): Promise<AnonymousAnswer> {
  const signal = AbortSignal.any([
    AbortSignal.timeout(options.timeoutMs),
    ...(options.signal ? [options.signal] : []),
  ]);
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: "GET",
      // No pooled connection: nothing of one read lingers into the next, and close() leaves
      // nothing open.
      agent: false,
      signal,
      headers: {
        accept: options.accept,
        "user-agent": options.userAgent,
        host: options.host ?? url.host,
        ...options.revalidate,
      },
    }, (response) => {
      const status = response.statusCode ?? 0;
      const headers = headersOf(response.headers);
      const coding = (headers.get("content-encoding") ?? "identity").trim().toLowerCase();
      const format = CODINGS[coding];
      if (!options.wants(status, headers) || (coding !== "identity" && !format)) {
        response.destroy();
        return resolve({ status, headers, body: null });
      }
      let body = Readable.toWeb(response) as ReadableStream<Uint8Array<ArrayBuffer>>;
      if (format) body = body.pipeThrough(decompress(format));
      boundedBytes(body, options.maxBytes).then(
        (bytes) => resolve({ status, headers, body: bytes }),
        // A body cut short, or a coding that does not decode: nothing usable.
        () => resolve({ status, headers, body: null }),
      );
    });
    request.on("error", reject);
    request.end();
  });
}
