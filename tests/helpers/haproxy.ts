/**
 * Test helper: HAProxy in front of some backends on 127.0.0.1, as docs/scaling.md configures it
 * (round-robin, no stickiness, WebSockets passed through), with its view of each backend.
 *
 * @module
 */
import { join } from "node:path";
import { findBinary, freePort, pollUntil, spawnServer, START_TIMEOUT_MS } from "./servers.ts";

/** Where Debian's package puts HAProxy. */
const HAPROXY_PATHS = ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"];
/** Where `haproxy` is, if it is installed. */
export function haproxyBinary(): string | undefined {
  return findBinary("haproxy", HAPROXY_PATHS);
}

/** Options of {@linkcode startBalancer}. */
export interface StartBalancerOptions {
  /** The port to listen on; default a free one. */
  port?: number;
  /** The path HAProxy's health checks and the readiness poll ask for. @default "/__aim/health" */
  checkPath?: string;
  /** How long HAProxy may take until a request through it answers 200. @default 15_000 */
  timeoutMs?: number;
}

/** HAProxy's word on one backend server: `UP`, `DOWN`, `UP 1/2` (going down) and so on. */
export type ServerState = string;

/** HAProxy in front of some backends on 127.0.0.1. */
export interface Balancer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly port: number;
  /** The backends' ports, in the order HAProxy names them `s0`, `s1`, … */
  readonly backendPorts: readonly number[];
  /** The HAProxy configuration written. */
  readonly config: string;
  /** What HAProxy printed so far. */
  output(): string;
  /** HAProxy's view of each backend, in the order of `backendPorts`. */
  states(): Promise<ServerState[]>;
  /** Waits until HAProxy sees backend `index` (of `backendPorts`) in `state`. */
  waitForState(index: number, state: "UP" | "DOWN", timeoutMs?: number): Promise<void>;
  /**
   * Starts a soft stop: HAProxy stops listening, and exits once the requests and WebSockets under
   * way through it have ended (at most 45 s later).
   */
  drain(): void;
  /** Drains HAProxy, waits until it has exited and removes its configuration. */
  stop(): Promise<void>;
}

/** The HAProxy configuration of a balancer on `port` over `backendPorts`. */
export function balancerConfig(options: {
  port: number;
  backendPorts: readonly number[];
  checkPath: string;
  socket: string;
}): string {
  return `global
  maxconn 1024
  # A soft stop (SIGUSR1) waits for the connections under way, WebSockets too, this long at most.
  hard-stop-after 5s
  stats socket ${options.socket} mode 600 level admin

defaults
  mode http
  timeout connect 1s
  # Longer than the longest long poll (Prefer: wait=60).
  timeout client 75s
  timeout server 75s
  # A WebSocket (the tab channel) is a tunnel once upgraded.
  timeout tunnel 1h
  timeout check 2s
  option forwardfor
  # A client that hangs up withdraws its call: the bridge sees the abort.
  option abortonclose
  # Only requests that never reached a server are retried, each on another server.
  option redispatch 1
  retries 3
  # Not empty-response: a bridge that died after it received an invocation may have run it.
  retry-on conn-failure

frontend public
  bind 127.0.0.1:${options.port}
  http-request set-header X-Forwarded-Proto http
  http-request set-header X-Forwarded-Host %[req.hdr(host)]
  default_backend bridges

backend bridges
  # Round-robin and no stickiness: any request may reach any bridge.
  balance roundrobin
  option httpchk GET ${options.checkPath}
  http-check send hdr Host 127.0.0.1
${
    options.backendPorts.map((port, index) =>
      `  server s${index} 127.0.0.1:${port} check inter 250 fall 2 rise 1\n`
    ).join("")
  }`;
}

/** Sends one command to HAProxy's stats socket; returns its answer. */
async function haproxyCommand(socket: string, command: string): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path: socket });
  try {
    await conn.write(new TextEncoder().encode(command + "\n"));
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(16 * 1024);
    let text = "";
    while (true) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n), { stream: true });
    }
    return text;
  } finally {
    conn.close();
  }
}

/**
 * Starts HAProxy (`haproxy -f CFG -db`) on 127.0.0.1 in front of `backendPorts` and waits until
 * a request through it answers 200 and every backend passed a health check.
 */
export async function startBalancer(
  backendPorts: readonly number[],
  options: StartBalancerOptions = {},
): Promise<Balancer> {
  const binary = haproxyBinary();
  if (!binary) throw new Error("HAProxy is not installed: no haproxy (apt-get install haproxy)");
  const port = options.port ?? freePort();
  const checkPath = options.checkPath ?? "/__aim/health";
  const timeoutMs = options.timeoutMs ?? START_TIMEOUT_MS;
  const origin = `http://127.0.0.1:${port}`;
  const dir = await Deno.makeTempDir({ prefix: "aim-haproxy-" });
  const socket = join(dir, "admin.sock");
  const config = balancerConfig({ port, backendPorts, checkPath, socket });
  const file = join(dir, "haproxy.cfg");
  await Deno.writeTextFile(file, config);
  const server = spawnServer(binary, ["-f", file, "-db"], dir);
  let exited = false;
  void server.exited.then(() => exited = true);
  let draining = false;
  const drain = () => {
    if (draining || exited) return;
    draining = true;
    try {
      server.child.kill("SIGUSR1");
    } catch { /* exited meanwhile */ }
  };
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      drain();
      await server.exited;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    })();
    return stopping;
  };
  const states = async (): Promise<ServerState[]> => {
    // The socket appears only once HAProxy bound its ports; a HAProxy that could not (another
    // process took the port, which also answered the first poll) exits, and `failure` says so.
    let csv: string;
    try {
      csv = await haproxyCommand(socket, "show stat");
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.ConnectionRefused) {
        return backendPorts.map(() => "unknown");
      }
      throw error;
    }
    const [header = "", ...rows] = csv.trim().split("\n");
    const columns = header.replace(/^# /, "").split(",");
    const [name, server, status] = ["pxname", "svname", "status"].map((c) => columns.indexOf(c));
    const found = new Map<string, string>();
    for (const row of rows) {
      const cells = row.split(",");
      if (cells[name!] === "bridges") found.set(cells[server!] ?? "", cells[status!] ?? "");
    }
    return backendPorts.map((_, index) => found.get(`s${index}`) ?? "unknown");
  };
  try {
    await pollUntil(async () => {
      try {
        const response = await fetch(origin + checkPath);
        await response.body?.cancel();
        return response.status === 200;
      } catch {
        return false;
      }
    }, {
      timeoutMs,
      late: () =>
        `HAProxy on port ${port} did not answer 200 within ${timeoutMs} ms:\n${server.output()}`,
      failure: () =>
        exited
          ? `HAProxy on port ${port} exited before it was ready:\n${server.output()}`
          : undefined,
    });
    // Servers start as UP but unchecked ("UP 1/2"): wait until each passed a health check.
    let last: ServerState[] = [];
    await pollUntil(async () => (last = await states()).every((state) => state === "UP"), {
      timeoutMs,
      late: () =>
        `HAProxy on port ${port} did not see every backend UP within ${timeoutMs} ms: ${
          last.join(", ")
        }\n${server.output()}`,
      failure: () =>
        exited
          ? `HAProxy on port ${port} exited before it was ready:\n${server.output()}`
          : undefined,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    origin,
    port,
    backendPorts,
    config,
    output: server.output,
    states,
    async waitForState(index, state, waitMs = START_TIMEOUT_MS) {
      let last: string[] = [];
      await pollUntil(async () => (last = await states())[index] === state, {
        timeoutMs: waitMs,
        late: () =>
          `HAProxy did not see backend ${index} (port ${
            backendPorts[index]
          }) ${state} within ${waitMs} ms: ${last.join(", ")}`,
        failure: () => exited ? `HAProxy exited:\n${server.output()}` : undefined,
      });
    },
    drain,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
