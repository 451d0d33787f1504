/**
 * Test helper: two bridges in this process over {@linkcode BASIC_SITE}, sharing one
 * Redis, each reached directly, as a round-robin balancer would send requests.
 *
 * @module
 */
import { serve, type ServedBridge, type ServeOptions } from "../../bridge/mod.ts";
import { bridgeAt, type TestBridge, writeSite } from "./bridge.ts";
import { type RedisServer, startRedis } from "./redis.ts";
import { tempDir } from "./temp.ts";

/** Two bridges sharing one Redis, all stopped on dispose. */
export interface BridgePair extends AsyncDisposable {
  readonly a: TestBridge;
  readonly b: TestBridge;
  readonly served: readonly [ServedBridge, ServedBridge];
  readonly redis: RedisServer;
  /** The site folder both serve. */
  readonly site: string;
}

/** Starts Redis and two bridges on it over a temporary copy of `BASIC_SITE`. */
export async function startPair(options: Partial<ServeOptions> = {}): Promise<BridgePair> {
  await using stack = new AsyncDisposableStack();
  const redis = stack.use(await startRedis());
  const site = stack.use(await tempDir("aim-site-"));
  writeSite(site.path);
  const start = async () => {
    const served = stack.use(
      serve({ ...options, root: site.path, port: 0, hostname: "127.0.0.1", redis: redis.url }),
    );
    await served.ready;
    return served;
  };
  const served = [await start(), await start()] as const;
  const owned = stack.move();
  // Disposed of in the reverse order: the bridges, then the site, then Redis.
  return {
    a: bridgeAt(served[0].url),
    b: bridgeAt(served[1].url),
    served,
    redis,
    site: site.path,
    [Symbol.asyncDispose]: () => owned.disposeAsync(),
  };
}

/**
 * Reads with `read` until `done` holds of what it read, every few milliseconds (what another
 * instance does is announced to nobody outside it); fails with the last value after `timeoutMs`.
 */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
