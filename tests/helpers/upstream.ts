/**
 * Test helper: an app on port 0 (a `Deno.serve` handler, or a raw TCP server for garbage), and
 * aim in front of it with `--upstream`, both shut down with `await using`.
 * @module
 */
import { serve, type ServedBridge, type ServeOptions } from "../../bridge/mod.ts";

/** An app listening on port 0. */
export interface TestApp extends AsyncDisposable {
  readonly url: string;
  /** Every request the app received, as `METHOD path?query`, in order. */
  readonly seen: string[];
}

/** Starts an app answering with `handler`; every request it gets is recorded in `seen`. */
export function startApp(
  handler: (request: Request) => Response | Promise<Response>,
): TestApp {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    seen.push(`${request.method} ${url.pathname}${url.search}`);
    return handler(request);
  });
  return {
    url: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`,
    seen,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** Starts a TCP server that answers every connection with `bytes` and closes it. */
export function startRawApp(bytes: string): TestApp & { readonly url: string } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      (async () => {
        const buffer = new Uint8Array(4096);
        await conn.read(buffer).catch(() => null);
        await conn.write(new TextEncoder().encode(bytes)).catch(() => 0);
        conn.close();
        conns.delete(conn);
      })();
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    seen: [],
    [Symbol.asyncDispose]: () => {
      listener.close();
      for (const conn of conns) conn.close();
      return Promise.resolve();
    },
  };
}

/** aim in front of `upstream` on port 0. */
export function startAim(
  upstream: string,
  options: Omit<ServeOptions, "upstream" | "port"> = {},
): ServedBridge {
  return serve({ hostname: "127.0.0.1", onListen() {}, ...options, upstream, port: 0 });
}

/** Opens a session on `page` as the page does; returns the grant. */
export async function openSession(
  origin: string,
  page: string,
): Promise<{ sessionToken: string; tabCredential: string }> {
  const res = await fetch(origin + "/__aim/session", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: origin },
    body: JSON.stringify({ page }),
  });
  if (res.status !== 200) throw new Error(`openSession: ${res.status} ${await res.text()}`);
  return await res.json();
}

/**
 * Pushes up to `total` bytes into a WebSocket, 64 KiB at a time with at most 4 MiB waiting in
 * the client, until it closes; the bytes pushed, or Infinity when it never closed.
 */
export async function pushUntilClosed(
  ws: WebSocket,
  closed: Promise<unknown>,
  total: number,
): Promise<number> {
  const chunk = new Uint8Array(64 * 1024);
  let sent = 0;
  let ended = false;
  closed.then(() => ended = true);
  while (!ended && sent < total) {
    // A step at a time, so that the client's own memory stays small and the close arrives.
    for (let i = 0; i < 16 && ws.readyState === WebSocket.OPEN; i++) {
      ws.send(chunk);
      sent += chunk.length;
    }
    while (ws.bufferedAmount > 4 * 1024 * 1024 && !ended) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return ended ? sent : Infinity;
}
