/**
 * Test helper: aim as docs/scaling.md runs it, several bridges sharing Redis behind HAProxy
 * (round-robin, no stickiness, WebSockets passed through), each part stopped and started again
 * on its own port, all of it shut down with `await using`.
 *
 * @module
 */
import { join } from "node:path";
import { serve, type ServedBridge, type ServeOptions } from "../../bridge/mod.ts";
import { type RunningAim, startAim } from "./cli.ts";

/** How long a server may take to start before the test fails with its output. */
const START_TIMEOUT_MS = 15_000;
/** The pause between two polls of a port or of HAProxy's view of its servers. */
const POLL_INTERVAL_MS = 20;
/** The most output kept of a server, its end. */
const OUTPUT_LIMIT = 64 * 1024;
/** Where Debian's package puts HAProxy. */
const HAPROXY_PATHS = ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"];
/** Where Debian's package puts Redis. */
const REDIS_PATHS = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"];

/** Free TCP ports on 127.0.0.1, all different: each is listened on until all are chosen. */
export function freePorts(count: number): number[] {
  const listeners = Array.from(
    { length: count },
    () => Deno.listen({ hostname: "127.0.0.1", port: 0 }),
  );
  const ports = listeners.map((listener) => (listener.addr as Deno.NetAddr).port);
  for (const listener of listeners) listener.close();
  return ports;
}

/** A free TCP port on 127.0.0.1 (listened on, read, closed). */
export function freePort(): number {
  return freePorts(1)[0]!;
}

/** The first of `candidates` that exists, else the one named `name` on the `PATH`. */
function findBinary(name: string, candidates: readonly string[]): string | undefined {
  const dirs = (Deno.env.get("PATH") ?? "").split(":").filter(Boolean);
  for (const path of [...candidates, ...dirs.map((dir) => join(dir, name))]) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not there */ }
  }
  return undefined;
}

/**
 * True when `redis-server` or HAProxy is missing: the tests of several bridges are then skipped,
 * saying why (`.ci/run` installs both).
 */
export const NO_CLUSTER: boolean = !findBinary("redis-server", REDIS_PATHS) ||
  !findBinary("haproxy", HAPROXY_PATHS);
if (NO_CLUSTER) {
  console.warn(
    "redis-server or haproxy is missing: the tests of several bridges are skipped (apt-get install redis-server haproxy).",
  );
}

/** A server run as a child process whose output is kept. */
interface ChildServer {
  readonly child: Deno.ChildProcess;
  /** What it printed on stdout and stderr so far (the last 64 KiB). */
  output(): string;
  /** Resolves with its status once it has exited and its output is read. */
  readonly exited: Promise<Deno.CommandStatus>;
  /** Sends `signal` (unless it has exited) and waits for the exit. */
  stop(signal: Deno.Signal): Promise<Deno.CommandStatus>;
  /** Resolves once its output matches `pattern`; rejects on an exit or after `timeoutMs`. */
  printed(pattern: RegExp, what: string, timeoutMs: number): Promise<void>;
}

function spawnServer(path: string, args: string[], cwd: string): ChildServer {
  const child = new Deno.Command(path, {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let output = "";
  const listeners = new Set<() => void>();
  const read = async (stream: ReadableStream<Uint8Array<ArrayBuffer>>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      output = (output + chunk).slice(-OUTPUT_LIMIT);
      for (const listener of listeners) listener();
    }
  };
  const exited = Promise.all([read(child.stdout), read(child.stderr)]).then(() => child.status);
  let done = false;
  void exited.then(() => done = true);
  return {
    child,
    output: () => output,
    exited,
    async stop(signal) {
      if (!done) {
        try {
          child.kill(signal);
        } catch { /* exited meanwhile */ }
      }
      return await exited;
    },
    printed(pattern, what, timeoutMs) {
      return new Promise<void>((resolve, reject) => {
        let settled = false;
        const settle = (error?: Error) => {
          if (settled) return;
          settled = true;
          listeners.delete(check);
          clearTimeout(timer);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (pattern.test(output)) settle();
        };
        const timer = setTimeout(
          () => settle(new Error(`${what} was not ready within ${timeoutMs} ms:\n${output}`)),
          timeoutMs,
        );
        listeners.add(check);
        void exited.then((status) =>
          settle(new Error(`${what} exited (code ${status.code}) before it was ready:\n${output}`))
        );
        check();
      });
    },
  };
}

/**
 * Polls `attempt` every few milliseconds until it returns true; throws what `failure` says
 * (a server that exited) at once, or after `timeoutMs` the message of `late`.
 */
async function pollUntil(
  attempt: () => Promise<boolean>,
  options: { timeoutMs: number; late: () => string; failure?: () => string | undefined },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (true) {
    if (await attempt()) return;
    const failure = options.failure?.();
    if (failure !== undefined) throw new Error(failure);
    if (Date.now() > deadline) throw new Error(options.late());
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

/** Options of {@linkcode startRedis}. */
export interface StartRedisOptions {
  /** The port to listen on; default a free one. */
  port?: number;
  /** How long Redis may take to start. @default 15_000 */
  timeoutMs?: number;
}

/** A Redis server without persistence, for one test. */
export interface RedisServer extends AsyncDisposable {
  /** `redis://127.0.0.1:PORT/0` */
  readonly url: string;
  readonly port: number;
  /** Whether it is running (started and not stopped). */
  readonly running: boolean;
  /** What it printed so far. */
  output(): string;
  /** Stops it (default with SIGKILL, as a crash; SIGTERM is a clean shutdown) and waits for the exit. */
  stop(signal?: Deno.Signal): Promise<void>;
  /** Starts it again on the same port, empty, and waits until it accepts connections. */
  start(): Promise<void>;
}

/** Starts `redis-server` on 127.0.0.1 without persistence and waits until it accepts connections. */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  const binary = findBinary("redis-server", REDIS_PATHS);
  if (!binary) {
    throw new Error("Redis is not installed: no redis-server (apt-get install redis-server)");
  }
  if (options.port === undefined) {
    // A port chosen free may be taken before Redis binds it (test files run in parallel).
    for (let attempt = 1;; attempt++) {
      try {
        return await startRedis({ ...options, port: freePort() });
      } catch (error) {
        if (attempt >= 3 || !portTaken(error)) throw error;
      }
    }
  }
  const port = options.port;
  const timeoutMs = options.timeoutMs ?? START_TIMEOUT_MS;
  const dir = await Deno.makeTempDir({ prefix: "aim-redis-" });
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
  ];
  let server: ChildServer | undefined;
  const start = async () => {
    if (server) throw new Error(`Redis on port ${port} is already running`);
    const started = spawnServer(binary, args, dir);
    server = started;
    try {
      await started.printed(/Ready to accept connections/, `Redis on port ${port}`, timeoutMs);
    } catch (error) {
      server = undefined;
      await started.stop("SIGKILL");
      throw error;
    }
  };
  const stop = async (signal: Deno.Signal = "SIGKILL") => {
    const running = server;
    server = undefined;
    await running?.stop(signal);
  };
  try {
    await start();
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    get running() {
      return server !== undefined;
    },
    output: () => server?.output() ?? "",
    stop,
    start,
    async [Symbol.asyncDispose]() {
      await stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
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
  const binary = findBinary("haproxy", HAPROXY_PATHS);
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

/** Bridge options a cluster's in-process bridges are given besides its own. */
export type ClusterBridgeOptions = Omit<ServeOptions, "root" | "port">;

/** Options of {@linkcode startCluster}. */
export interface StartClusterOptions {
  /** The site folder every bridge serves. */
  root: string;
  /** How many bridges. @default 3 */
  instances?: number;
  /**
   * Bridges made with `serve()` in this process (true), or `aim serve` subprocesses that a test
   * can SIGKILL (false). @default true
   */
  inProcess?: boolean;
  /** More options of the in-process bridges (after the cluster's own, so they win). */
  bridge?: ClusterBridgeOptions;
  /** More arguments of the `aim serve` subprocesses. */
  args?: string[];
  /** Environment of the `aim serve` subprocesses. */
  env?: Record<string, string>;
}

/** One bridge of a cluster. */
export interface Instance {
  /** `http://127.0.0.1:PORT`, the bridge itself, not through the balancer. */
  readonly url: string;
  readonly port: number;
  /** The bridge, while an in-process one runs. */
  readonly served: ServedBridge | undefined;
  /** The `aim serve` subprocess, while one runs. */
  readonly process: RunningAim | undefined;
  readonly running: boolean;
  /**
   * Stops the bridge and waits until it has: a subprocess with `signal` (default SIGTERM, which
   * drains; SIGKILL is a crash), an in-process bridge with a graceful shutdown whatever the signal.
   */
  stop(signal?: Deno.Signal): Promise<void>;
  /** Starts it again on the same port and waits until HAProxy routes to it again. */
  start(): Promise<void>;
}

/**
 * Bridges sharing one Redis behind one HAProxy. Disposing of it stops the balancer taking
 * connections, stops the bridges (which drain through it), waits for the balancer to exit, then
 * stops Redis and removes the temporary folders.
 */
export interface Cluster extends AsyncDisposable {
  /** The balancer's origin: the public URL every bridge is given. */
  readonly origin: string;
  readonly redis: RedisServer;
  readonly balancer: Balancer;
  readonly instances: readonly Instance[];
}

/** An in-process bridge on `port`, ready once its Redis connection is up. */
async function startServed(options: ServeOptions): Promise<ServedBridge> {
  const served = serve(options);
  try {
    await served.ready;
  } catch (error) {
    await served.shutdown();
    throw error;
  }
  return served;
}

function instanceOf(
  port: number,
  launch: () => Promise<ServedBridge | RunningAim>,
  waitRouted: () => Promise<void>,
): Instance & { launch(): Promise<void> } {
  let running: ServedBridge | RunningAim | undefined;
  const isProcess = (value: unknown): value is RunningAim =>
    value !== undefined && "process" in (value as object);
  const instance = {
    url: `http://127.0.0.1:${port}`,
    port,
    get served() {
      return running && !isProcess(running) ? running : undefined;
    },
    get process() {
      return isProcess(running) ? running : undefined;
    },
    get running() {
      return running !== undefined;
    },
    async launch() {
      if (running) throw new Error(`The bridge on port ${port} is already running`);
      running = await launch();
    },
    async stop(signal: Deno.Signal = "SIGTERM") {
      const stopping = running;
      running = undefined;
      if (isProcess(stopping)) await stopping.stop(signal);
      else await stopping?.shutdown();
    },
    async start() {
      await instance.launch();
      await waitRouted();
    },
  };
  return instance;
}

/** Whether starting failed because a port chosen as free was taken before it was bound. */
function portTaken(error: unknown): boolean {
  return error instanceof Deno.errors.AddrInUse ||
    // Deno's error, HAProxy's, and `aim serve`'s own ("port N is already in use").
    /address already in use|cannot bind socket|AddrInUse|port \d+ is already in use/i.test(
      String(error),
    );
}

/**
 * Starts Redis, `instances` bridges over `root` sharing it, and HAProxy in front of them; the
 * balancer's port is chosen first, as it is the public URL every bridge is given. Ports are
 * chosen free, then bound: another process (test files run in parallel) may take one in
 * between, and then the whole cluster starts again on other ports, up to three times.
 */
export async function startCluster(options: StartClusterOptions): Promise<Cluster> {
  for (let attempt = 1;; attempt++) {
    try {
      return await startClusterOnce(options);
    } catch (error) {
      if (attempt >= 3 || !portTaken(error)) throw error;
    }
  }
}

async function startClusterOnce(options: StartClusterOptions): Promise<Cluster> {
  const count = options.instances ?? 3;
  const inProcess = options.inProcess ?? true;
  await using stack = new AsyncDisposableStack();
  const [balancerPort, ...ports] = freePorts(count + 1) as [number, ...number[]];
  const origin = `http://127.0.0.1:${balancerPort}`;
  const redis = stack.use(await startRedis());
  const front: { balancer?: Balancer } = {};
  const instances = ports.map((port, index) =>
    instanceOf(
      port,
      async () => {
        if (!inProcess) {
          return await startAim([
            "serve",
            options.root,
            "--port",
            String(port),
            "--redis",
            redis.url,
            "--public-url",
            origin,
            "--trust-proxy",
            ...options.args ?? [],
          ], options.env ? { env: options.env } : {});
        }
        return await startServed({
          hostname: "127.0.0.1",
          publicUrl: origin,
          trustProxy: true,
          ...options.bridge,
          root: options.root,
          port,
          redis: redis.url,
        });
      },
      async () => await front.balancer?.waitForState(index, "UP"),
    )
  );
  // The balancer stops taking connections first; the bridges then drain through it (tabs are
  // told, invocations under way answered) before it exits; Redis goes last.
  stack.defer(async () => {
    front.balancer?.drain();
    await Promise.all(instances.map((instance) => instance.stop()));
    await front.balancer?.stop();
  });
  const launched = await Promise.allSettled(instances.map((instance) => instance.launch()));
  for (const result of launched) if (result.status === "rejected") throw result.reason;
  front.balancer = await startBalancer(ports, { port: balancerPort });
  const owned = stack.move();
  return {
    origin,
    redis,
    balancer: front.balancer,
    instances,
    [Symbol.asyncDispose]: () => owned.disposeAsync(),
  };
}
