/**
 * The connection of a {@linkcode RedisShare} to Redis: a client for commands and one for
 * subscriptions (both knowing aim's scripts), every command bounded by a timeout and answered
 * 503 `store_unavailable` when Redis cannot be reached, one status line per outage, and the
 * instance's beat (`i:{instance}`) that tells the others it is alive.
 *
 * @module
 */
import type { EventEmitter } from "node:events";
import {
  createClient,
  type RedisClientType,
  type RedisFunctions,
  type RedisModules,
  type RespVersions,
  type TypeMapping,
} from "@redis/client";
import { AimError } from "../errors/aim_error.ts";
import { SCRIPTS } from "./redis_scripts.ts";
import { BEAT_MS } from "./redis_routing.ts";

/** A client that knows aim's scripts (`client.createSession(…)`, …). */
function newClient(
  options: Omit<Parameters<typeof createClient>[0] & object, "scripts">,
): RedisClientType<RedisModules, RedisFunctions, typeof SCRIPTS, RespVersions, TypeMapping> {
  return createClient({ ...options, scripts: SCRIPTS });
}

/** A Redis client that knows aim's scripts. */
export type RedisClient = ReturnType<typeof newClient>;

/** How long an instance counts as alive after its last beat, and how often it beats. */
const ALIVE_MS = 3000;

/** 503 `store_unavailable`: Redis cannot be reached; the bridge recovers when it is back. */
export function storeUnavailable(cause?: unknown): AimError {
  return new AimError(
    "store_unavailable",
    "The session store cannot be reached; retry in a few seconds.",
    { headers: { "Retry-After": "2" }, cause },
  );
}

/** Options of {@linkcode RedisConnection}. */
export interface RedisConnectionOptions {
  /** `redis://HOST:PORT/DB` */
  url: string;
  /** Prefix of every key and channel. */
  prefix: string;
  /** How long a command may take before the store counts as unavailable, ms. */
  commandTimeoutMs: number;
  /** This instance's id: its beat and its channels are named by it. */
  instance: string;
  /** Told, in a sentence, when Redis becomes unreachable and when it is back. */
  onStatus: (message: string) => void;
}

/** What the connection's subscriptions hand on: calls to this instance and their answers. */
export interface RedisChannels {
  /** A message on this instance's call channel (`q:{instance}`). */
  onCall: (message: string) => void;
  /** A message on this instance's reply channel (`r:{instance}`). */
  onReply: (message: string) => void;
}

/** The two clients of one bridge instance, its commands' timeout and its beat. */
export class RedisConnection {
  /** The client for commands; it fails at once while Redis is away. */
  readonly client: RedisClient;
  /** The client for subscriptions. */
  readonly sub: RedisClient;
  readonly #options: RedisConnectionOptions;
  #beat: ReturnType<typeof setInterval> | undefined;
  #down = false;
  #closed = false;

  /** Both clients, not connected yet ({@linkcode RedisConnection.start} connects them). */
  constructor(options: RedisConnectionOptions) {
    this.#options = options;
    const socket = {
      connectTimeout: 2000,
      // Tried again for as long as the bridge runs: it recovers by itself when Redis is back.
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000),
    };
    // Commands fail at once while Redis is away (503), rather than wait in a queue. The client's
    // own command timeout is off: it keeps a timer and a signal alive for 5 s after every
    // command (8 per connecting tab), where run()'s timer is cleared as soon as Redis answers.
    const commandOptions = { timeout: 0 };
    this.client = newClient({
      url: options.url,
      disableOfflineQueue: true,
      socket,
      commandOptions,
    });
    this.sub = newClient({ url: options.url, socket, commandOptions });
    for (const redis of [this.client, this.sub]) {
      // The client is an EventEmitter; its type leaves `on` optional.
      const client = redis as unknown as EventEmitter;
      client.on("error", (error: unknown) => {
        if (this.#down) return;
        this.#down = true;
        const reason = error instanceof Error ? error.message : String(error);
        options.onStatus(`Redis cannot be reached (${reason}); answering 503 until it is back`);
      });
      client.on("ready", () => {
        if (!this.#down) return;
        this.#down = false;
        options.onStatus("Redis is reachable again");
      });
    }
  }

  /** Whether {@linkcode RedisConnection.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Connects both clients, subscribes to this instance's channels and starts its beat. */
  async start(channels: RedisChannels): Promise<void> {
    const { instance } = this.#options;
    await Promise.all([this.client.connect(), this.sub.connect()]);
    await this.sub.subscribe(this.key("q", instance), channels.onCall);
    await this.sub.subscribe(this.key("r", instance), channels.onReply);
    const beat = () => {
      this.client.set(this.key("i", instance), "1", { PX: ALIVE_MS }).catch(() => {});
    };
    beat();
    this.#beat = setInterval(beat, BEAT_MS);
    Deno.unrefTimer(this.#beat as unknown as number);
  }

  /** Stops the beat, says this instance is gone, and closes both clients. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#beat);
    await this.client.del(this.key("i", this.#options.instance)).catch(() => {});
    await Promise.allSettled([this.client.close(), this.sub.close()]);
  }

  /** The key (or channel) of `kind` for `id`, with the prefix. */
  key(kind: string, id: string): string {
    return this.#options.prefix + kind + ":" + id;
  }

  /** The key of `kind` alone (a set of every session, …), with the prefix. */
  root(kind: string): string {
    return this.#options.prefix + kind;
  }

  /** Runs a command within the timeout; any failure is 503 `store_unavailable`. */
  async run<T>(command: () => Promise<T>): Promise<T> {
    if (this.#closed) throw storeUnavailable();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        command(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error("Redis did not answer in time")),
            this.#options.commandTimeoutMs,
          );
        }),
      ]);
    } catch (error) {
      if (error instanceof AimError) throw error;
      if (Deno.env.get("AIM_DEBUG")) console.error("redis", error);
      throw storeUnavailable(error);
    } finally {
      clearTimeout(timer);
    }
  }
}
