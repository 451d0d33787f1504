/**
 * The app `bench/abuse.ts` puts behind `aim serve --upstream`: a raw TCP server, so that it can
 * do what a real app under attack does and `Deno.serve` would not. Its pages answer at once;
 * `/slow/…` pages answer only after `slowMs` (the catalog stall); a WebSocket at `/ws` is
 * accepted and then never read from again (the socket flood: what the client pushes can only
 * pile up in between).
 *
 * @module
 */

/** The app, listening on loopback. */
export interface AbuseApp extends AsyncDisposable {
  readonly url: string;
  /** Connections the app holds: slow pages waiting, WebSockets it does not read. */
  readonly held: number;
}

/** Options of {@linkcode startAbuseApp}. */
export interface AbuseAppOptions {
  /** How long a `/slow/…` page takes, ms. @default {20000} */
  slowMs?: number;
}

/** An agent-enabled page, as the app serves it to anyone. */
const PAGE = `<!doctype html><title>Page</title>
<script type="module" src="/__aim/elements.js"></script>
<aim-action name="look" description="Look at the page" input-example="x"></aim-action>`;

const encoder = new TextEncoder();

/** The head of one request (up to the blank line), at most 8 KiB; null when none came. */
async function readHead(conn: Deno.Conn): Promise<string | null> {
  const buffer = new Uint8Array(8192);
  let head = "";
  while (!head.includes("\r\n\r\n")) {
    const n = await conn.read(buffer).catch(() => null);
    if (!n) return null;
    head += new TextDecoder().decode(buffer.subarray(0, n));
    if (head.length > 8192) return null;
  }
  return head;
}

/** `Sec-WebSocket-Accept` for a client's key (RFC 6455 §4.2.2). */
async function acceptKey(key: string): Promise<string> {
  const data = encoder.encode(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", data));
  return btoa(String.fromCharCode(...digest));
}

function answer(status: string, type: string, body: string): Uint8Array {
  const bytes = encoder.encode(body);
  return encoder.encode(
    `HTTP/1.1 ${status}\r\nContent-Type: ${type}\r\nContent-Length: ${bytes.length}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

/** Starts the app on a free loopback port. */
export function startAbuseApp(options: AbuseAppOptions = {}): AbuseApp {
  const slowMs = options.slowMs ?? 20_000;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  const conns = new Set<Deno.Conn>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let held = 0;
  const serve = async (conn: Deno.Conn) => {
    const head = await readHead(conn);
    const [, path = "/"] = /^[A-Z]+ (\S+)/.exec(head ?? "") ?? [];
    const key = /^sec-websocket-key:\s*(\S+)\s*$/im.exec(head ?? "")?.[1];
    if (head === null) return conn.close();
    if (path === "/ws" && key) {
      // Accepted, then never read: the socket stays open until the app stops.
      held++;
      await conn.write(encoder.encode(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
          `Sec-WebSocket-Accept: ${await acceptKey(key)}\r\n\r\n`,
      )).catch(() => 0);
      return;
    }
    if (path.startsWith("/slow/")) {
      held++;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => (timers.delete(timer), resolve()), slowMs);
        timers.add(timer);
      });
      held--;
    }
    const body = path === "/sitemap.xml"
      ? `<urlset><url><loc>${url}/page</loc></url></urlset>`
      : PAGE;
    const type = path === "/sitemap.xml" ? "application/xml" : "text/html";
    await conn.write(answer("200 OK", type, body)).catch(() => 0);
    conns.delete(conn);
    conn.close();
  };
  (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      serve(conn).catch(() => {});
    }
  })().catch(() => {});
  return {
    url,
    get held() {
      return held;
    },
    [Symbol.asyncDispose]: () => {
      listener.close();
      for (const timer of timers) clearTimeout(timer);
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Closed already.
        }
      }
      return Promise.resolve();
    },
  };
}
