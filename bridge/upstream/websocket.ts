/**
 * The app's WebSockets relayed through aim, with a byte bound each way. Deno 2.9 offers no way
 * to stop reading a WebSocket (the `WebSocket` of `Deno.upgradeWebSocket` reads on by itself;
 * `WebSocketStream`, which would, is a client only and behind `--unstable-net`), so the bound is
 * kept on what waits to be written: a message is relayed only while the bytes waiting for the
 * other side (its `bufferedAmount`, or the messages held before the client's socket opened)
 * stay within the bound with it. A side that sends faster than the other reads past the bound
 * ends the relay: the client gets close 1013 (try again later), the app 4013. A side that fails
 * makes aim close the other with a code it may send: 1011 to the client, 4011 to the app (a
 * client may send neither 1011 nor 1013). Nothing here throws.
 *
 * @module
 */

/** The defaults of {@linkcode RelayOptions}. */
export const RELAY_DEFAULTS: { readonly bufferBytes: number } = { bufferBytes: 8 * 1024 * 1024 };

/** The close codes aim sends when it ends a relay itself. */
export const RELAY_CLOSE = {
  /** To the client: the app failed (1011, an internal error on aim's side of the client). */
  appFailed: 1011,
  /** To the client: one side sends faster than the other reads (1013, try again later). */
  overloaded: 1013,
  /** To the app: the client failed (4011: a client may not send 1011). */
  clientFailed: 4011,
  /** To the app: one side sends faster than the other reads (4013: as 1013). */
  appOverloaded: 4013,
} as const;

/** Options of {@linkcode relay}. */
export interface RelayOptions {
  /**
   * Bytes that may wait to be written to either side; a larger message is never relayed.
   *
   * @default {8388608}
   */
  bufferBytes?: number | undefined;
}

/** The bytes of a message: exact for binary ones, and for text at least its UTF-8 length. */
function sizeOf(data: string | ArrayBuffer, room: number): number {
  if (typeof data !== "string") return data.byteLength;
  // A UTF-16 unit is at most 3 bytes of UTF-8: count them only when it may matter.
  if (data.length * 3 <= room) return data.length;
  return new TextEncoder().encode(data).byteLength;
}

/** A close reason within the 123 bytes of UTF-8 a close frame allows. */
function closeReason(reason: string): string {
  const bytes = new TextEncoder().encode(reason);
  return bytes.length <= 123 ? reason : new TextDecoder().decode(bytes.slice(0, 120)).replace(
    /\uFFFD$/,
    "",
  );
}

/** Closes a socket with `code`, or without one when the runtime refuses it; never throws. */
function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === WebSocket.CONNECTING) {
    // A server's socket closed before it opened would never tell its client.
    socket.addEventListener("open", () => closeQuietly(socket, code, reason), { once: true });
    return;
  }
  if (socket.readyState !== WebSocket.OPEN) return;
  try {
    socket.close(code, closeReason(reason));
  } catch {
    try {
      socket.close();
    } catch {
      // Nothing else to do: it is closing already.
    }
  }
}

/** The code the app is told a client's close with: its own when a client may send it. */
function codeForApp(code: number): number {
  if (code === 1000 || (code >= 3000 && code < 5000)) return code;
  // 1006 (the connection broke), 1011: the client failed; any other (1001, 1005): a plain end.
  return code === 1006 || code === 1011 ? RELAY_CLOSE.clientFailed : 1000;
}

/** The code the client is told an app's close with: its own when a server may send it. */
function codeForClient(code: number): number {
  if ((code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1013)) return code;
  if (code >= 3000 && code < 5000) return code;
  // 1006 or none (the connection broke): the app failed; 1005 (no code): a plain end.
  return code === 1005 ? 1000 : RELAY_CLOSE.appFailed;
}

/**
 * Relays messages between `client` (the socket of `Deno.upgradeWebSocket`, opening) and `app`
 * (open), both ways, within the byte bound, until either closes.
 */
export function relay(client: WebSocket, app: WebSocket, options: RelayOptions = {}): void {
  const bound = options.bufferBytes ?? RELAY_DEFAULTS.bufferBytes;
  client.binaryType = "arraybuffer";
  app.binaryType = "arraybuffer";
  // The app's messages that come before the client's socket is open, bounded by their bytes.
  let early: (string | ArrayBuffer)[] = [];
  let earlyBytes = 0;
  let ended = false;

  const overloaded = (slow: "app" | "client") => {
    if (ended) return;
    ended = true;
    early = [];
    const reason = slow === "app"
      ? `The app did not read the messages sent to it fast enough (over ${bound} bytes waiting).`
      : `The client did not read the app's messages fast enough (over ${bound} bytes waiting).`;
    closeQuietly(client, RELAY_CLOSE.overloaded, reason);
    closeQuietly(app, RELAY_CLOSE.appOverloaded, reason);
  };

  app.onmessage = (event: MessageEvent<string | ArrayBuffer>) => {
    if (ended) return;
    const data = event.data;
    if (client.readyState === WebSocket.CONNECTING) {
      const size = sizeOf(data, bound - earlyBytes);
      if (earlyBytes + size > bound) return overloaded("client");
      earlyBytes += size;
      early.push(data);
    } else if (client.readyState === WebSocket.OPEN) {
      const waiting = client.bufferedAmount;
      if (waiting + sizeOf(data, bound - waiting) > bound) return overloaded("client");
      client.send(data);
    }
  };
  client.onopen = () => {
    const held = early;
    early = [];
    earlyBytes = 0;
    for (const data of held) client.send(data);
  };
  client.onmessage = (event: MessageEvent<string | ArrayBuffer>) => {
    if (ended || app.readyState !== WebSocket.OPEN) return;
    const data = event.data;
    const waiting = app.bufferedAmount;
    if (waiting + sizeOf(data, bound - waiting) > bound) return overloaded("app");
    app.send(data);
  };
  client.onclose = (event) => {
    ended = true;
    early = [];
    closeQuietly(app, codeForApp(event.code), event.reason);
  };
  app.onclose = (event) => {
    // What the app sent before it closed still reaches a client that opens (onopen runs first).
    ended = true;
    closeQuietly(client, codeForClient(event.code), event.reason);
  };
  client.onerror = () => closeQuietly(app, RELAY_CLOSE.clientFailed, "The client failed.");
  app.onerror = () => closeQuietly(client, RELAY_CLOSE.appFailed, "The app failed.");
}
