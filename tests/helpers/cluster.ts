/**
 * Test helper: aim as docs/scaling.md runs it, several bridges sharing Redis behind HAProxy
 * (round-robin, no stickiness, WebSockets passed through), each part stopped and started again
 * on its own port, all of it shut down with `await using`. Redis alone is tests/helpers/redis.ts,
 * HAProxy alone tests/helpers/haproxy.ts.
 *
 * @module
 */
import { serve, type ServedBridge, type ServeOptions } from "../../bridge/mod.ts";
import { type RunningAim, startAim } from "./cli.ts";
import { freePorts, portTaken } from "./servers.ts";
import { redisBinary, type RedisServer, startRedis } from "./redis.ts";
import { type Balancer, haproxyBinary, startBalancer } from "./haproxy.ts";

/**
 * True when `redis-server` or HAProxy is missing: the tests of several bridges are then skipped,
 * saying why (`.ci/run` installs both).
 */
export const NO_CLUSTER: boolean = !redisBinary() || !haproxyBinary();
if (NO_CLUSTER) {
  console.warn(
    "redis-server or haproxy is missing: the tests of several bridges are skipped (apt-get install redis-server haproxy).",
  );
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
