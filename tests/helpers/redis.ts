/**
 * Test helper: a Redis server of its own for one test, without persistence, stopped and started
 * again on its port as a test needs.
 *
 * @module
 */
import {
  type ChildServer,
  findBinary,
  freePort,
  portTaken,
  spawnServer,
  START_TIMEOUT_MS,
} from "./servers.ts";

/** Where Debian's package puts Redis. */
const REDIS_PATHS = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"];

/** Where `redis-server` is, if it is installed. */
export function redisBinary(): string | undefined {
  return findBinary("redis-server", REDIS_PATHS);
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
  const binary = redisBinary();
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
