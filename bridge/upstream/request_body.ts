/**
 * The body of a request aim forwards to the app. A body whose length the client declared
 * (`Content-Length`), up to {@linkcode BUFFERED_BODY_BYTES}, is read whole and sent with that
 * length, as a web server in front of an app does: app servers that read only a declared length
 * (Fossil's own server, HTTP/1.0 servers, many CGI and WSGI setups) see a chunked body as no
 * body at all, and a person's form would post empty. A larger body, or one the client sends
 * chunked, streams to the app chunked, as it comes.
 *
 * @module
 */

/** The largest body read whole and sent with its `Content-Length`, in bytes. */
export const BUFFERED_BODY_BYTES = 256 * 1024;

/** What `fetch` sends the app: the body, and whether it streams. */
export interface UpstreamBody {
  body: Uint8Array | ReadableStream<Uint8Array> | null;
  /** True when the body streams (`fetch` then needs `duplex: "half"`, and sends it chunked). */
  streams: boolean;
}

/** The length `headers` declare, or null when none (or not one plain number). */
export function declaredLength(headers: Headers): number | null {
  const value = headers.get("content-length");
  return value !== null && /^[0-9]{1,15}$/.test(value) ? Number(value) : null;
}

/**
 * The body of `request` as aim sends it on: `null` for none, the bytes when the client declared
 * at most {@linkcode BUFFERED_BODY_BYTES} of them (read here: the returned promise waits for the
 * upload, and rejects when the client hangs up), else the stream, passed through `onEnd` once
 * the last byte went. Only a body read whole is a promise: a page's `GET` costs no wait.
 */
export function upstreamBody(
  request: Request,
  onEnd: () => void,
): UpstreamBody | Promise<UpstreamBody> {
  if (request.method === "GET" || request.method === "HEAD" || request.body === null) {
    onEnd();
    return NO_BODY;
  }
  const length = declaredLength(request.headers);
  if (length !== null && length <= BUFFERED_BODY_BYTES) {
    return request.arrayBuffer().then((bytes) => {
      onEnd();
      return { body: new Uint8Array(bytes), streams: false };
    });
  }
  return { body: request.body.pipeThrough(new TransformStream({ flush: onEnd })), streams: true };
}

const NO_BODY: UpstreamBody = Object.freeze({ body: null, streams: false });
