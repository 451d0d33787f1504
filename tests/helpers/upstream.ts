/**
 * Test helper: an app on port 0 (a `Deno.serve` handler, or a raw TCP server for garbage), and
 * aim in front of it with `--upstream`, both shut down with `await using`. With
 * `AIM_TEST_BESIDE=nginx` (or `haproxy`), aim runs beside that web server instead, configured by
 * `aim proxy-config`: the web server sends aim's routes to aim and the rest straight to the app
 * (docs/upstream.md, "Production: aim beside your web server"), and the same tests run through it.
 * @module
 */
import { serve, type ServedBridge, type ServeOptions } from "../../bridge/mod.ts";
import {
  INSTALLED,
  startWebServer,
  type WebServer,
  webServerConfig,
  type WebServerKind,
} from "./web_server.ts";

/**
 * The web server `AIM_TEST_BESIDE` puts beside aim, or undefined: aim in front of the app (also
 * when that web server is not installed, which it says).
 *
 * @throws {Error} when it names another web server.
 */
function besideKind(): WebServerKind | undefined {
  const value = Deno.env.get("AIM_TEST_BESIDE") ?? "";
  if (value === "") return undefined;
  if (value !== "nginx" && value !== "haproxy") {
    throw new Error(`AIM_TEST_BESIDE must be nginx or haproxy, got "${value}"`);
  }
  if (!INSTALLED[value]) {
    console.warn(
      `AIM_TEST_BESIDE=${value}: ${value} is not installed (apt-get install ${value}); the ` +
        "upstream tests run with aim in front of the app instead.",
    );
    return undefined;
  }
  return value;
}

/** The web server the upstream tests run aim beside (`AIM_TEST_BESIDE`); undefined: in front. */
export const BESIDE: WebServerKind | undefined = besideKind();

/**
 * Test options of a test about aim's own proxy (its streaming, its 502/504 bodies, its options,
 * its Host check), which the web server beside aim does its own way (docs/upstream.md): under
 * `AIM_TEST_BESIDE` it is skipped, and says so once.
 */
export const IN_FRONT: { readonly ignore: boolean } = {
  // Read when a test file declares its tests: a file with such tests says once why they skip.
  get ignore(): boolean {
    if (BESIDE && !onceWarned) {
      onceWarned = true;
      console.warn(
        `AIM_TEST_BESIDE=${BESIDE}: the tests here about aim's own proxy (streaming, its 502/504 ` +
          `bodies, its options, its Host check) are skipped: ${BESIDE} does that part beside aim.`,
      );
    }
    return BESIDE !== undefined;
  },
};

let onceWarned = false;

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

/** aim beside a web server: the bridge, and its origin and port are the web server's. */
export interface BesideAim extends ServedBridge {
  /** aim itself, not through the web server. */
  readonly aim: ServedBridge;
  /** The web server in front of the app, with aim beside it. */
  readonly web: WebServer;
}

/**
 * aim in front of `upstream` on port 0; with `AIM_TEST_BESIDE`, aim beside that web server,
 * whose origin the answer's `url` and `port` are.
 */
export function startAim(
  upstream: string,
  options: Omit<ServeOptions, "upstream" | "port"> = {},
): ServedBridge {
  return BESIDE ? startBeside(BESIDE, upstream, options) : startFront(upstream, options);
}

/** aim in front of `upstream` on port 0, whatever `AIM_TEST_BESIDE` says. */
export function startFront(
  upstream: string,
  options: Omit<ServeOptions, "upstream" | "port"> = {},
): ServedBridge {
  return serve({ hostname: "127.0.0.1", onListen() {}, ...options, upstream, port: 0 });
}

/** aim beside `kind` in front of `upstream`, as docs/upstream.md runs it (`--trust-proxy`). */
export function startBeside(
  kind: WebServerKind,
  upstream: string,
  options: Omit<ServeOptions, "upstream" | "port"> = {},
): BesideAim {
  const aim = serve({
    hostname: "127.0.0.1",
    onListen() {},
    trustProxy: true,
    ...options,
    upstream,
    port: 0,
  });
  let web: WebServer;
  try {
    web = startWebServer(
      kind,
      (port) =>
        webServerConfig(kind, { app: upstream, aim: aim.url, port, routes: aim.bridge.routes }),
    );
  } catch (error) {
    void aim.shutdown();
    throw error;
  }
  const stop = async () => {
    await web.stop();
    await aim.shutdown();
  };
  return {
    aim,
    web,
    bridge: aim.bridge,
    url: web.url,
    port: web.port,
    hostname: "127.0.0.1",
    metricsUrl: aim.metricsUrl,
    finished: aim.finished,
    ready: aim.ready,
    shutdown: stop,
    [Symbol.asyncDispose]: stop,
  };
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
