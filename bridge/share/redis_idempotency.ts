/**
 * The answers kept in Redis for `Idempotency-Key`s (`d:{tokenHash}:{key}`): the first request
 * with a key claims it, a retry with the same request gets its answer (or waits for it while the
 * instance that runs it is alive), a retry with another request is refused, and an answer larger
 * than the session's byte budget (`db:{tokenHash}`) is kept as lost, so that it is never run
 * again.
 *
 * @module
 */
import type { IdempotencyClaim, KeptOutcome } from "./share.ts";
import { KeptClaim, parseMessage } from "./redis_messages.ts";
import type { RedisConnection } from "./redis_connection.ts";

/** Options of {@linkcode RedisIdempotency}. */
export interface RedisIdempotencyOptions {
  /** This instance's id: the owner of the claims it makes. */
  instance: string;
  /** Whether an instance beat recently. */
  alive: (instance: string) => Promise<boolean>;
}

/** The `Idempotency-Key` claims of the sessions of one store. */
export class RedisIdempotency {
  readonly #redis: RedisConnection;
  readonly #options: RedisIdempotencyOptions;

  /** Claims kept through `redis`. */
  constructor(redis: RedisConnection, options: RedisIdempotencyOptions) {
    this.#redis = redis;
    this.#options = options;
  }

  /** See {@linkcode SessionShare.claim}. */
  async claim(
    tokenHash: string,
    key: string,
    fingerprint: string,
    options: { ttlMs: number; maxKeys: number },
  ): Promise<IdempotencyClaim> {
    const redis = this.#redis;
    const name = redis.key("d", tokenHash + ":" + key);
    const mine = JSON.stringify({ fingerprint, owner: this.#options.instance });
    const seen = await redis.run(() =>
      redis.client.claimKey({
        keys: [name, redis.key("dk", tokenHash)],
        arguments: [
          mine,
          String(options.ttlMs),
          String(Date.now()),
          key,
          String(options.maxKeys),
          redis.key("d", tokenHash + ":"),
        ],
      })
    ) as string | null;
    if (seen === null) return { state: "new" };
    // A claim that fits no schema is lost: its call is never run again.
    const kept = parseMessage(KeptClaim, seen);
    if (kept === undefined) return { state: "lost" };
    if (kept.fingerprint !== fingerprint) return { state: "reused" };
    return await this.#claimed(kept);
  }

  /** See {@linkcode SessionShare.outcome}. */
  async outcome(tokenHashOrName: string, key: string, ms: number): Promise<IdempotencyClaim> {
    const redis = this.#redis;
    const name = key ? redis.key("d", tokenHashOrName + ":" + key) : tokenHashOrName;
    const until = Date.now() + ms;
    let delay = 20;
    while (Date.now() < until) {
      const seen = await redis.run(() => redis.client.get(name));
      if (seen === null) return { state: "lost" };
      const kept = parseMessage(KeptClaim, seen);
      if (kept === undefined) return { state: "lost" };
      if (kept.outcome || kept.lost || !(await this.#options.alive(kept.owner))) {
        return await this.#claimed(kept);
      }
      if (redis.closed) break;
      // The first answer is polled for: retries of one key are rare, and each ends in `ms`.
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 250);
    }
    return { state: "running" };
  }

  /** See {@linkcode SessionShare.settle}. */
  async settle(
    tokenHash: string,
    key: string,
    outcome: KeptOutcome | undefined,
    options: { ttlMs: number; ran: boolean; maxBytes: number },
  ): Promise<void> {
    const redis = this.#redis;
    const name = redis.key("d", tokenHash + ":" + key);
    if (!options.ran) {
      await redis.run(() => redis.client.del(name));
      return;
    }
    const seen = await redis.run(() => redis.client.get(name));
    if (seen === null) return;
    const kept = parseMessage(KeptClaim, seen);
    if (kept === undefined) return;
    const answer = outcome ? JSON.stringify({ ...kept, outcome }) : "";
    // Within the session's byte budget, else kept as lost: a retry is refused, never run again.
    await redis.run(() =>
      redis.client.settleKey({
        keys: [name, redis.key("db", tokenHash)],
        arguments: [
          answer,
          JSON.stringify({ ...kept, lost: true }),
          String(options.ttlMs),
          String(answer.length),
          String(options.maxBytes),
        ],
      })
    );
  }

  /** What a claim found kept says now: its answer, lost, or still running elsewhere. */
  async #claimed(kept: KeptClaim): Promise<IdempotencyClaim> {
    if (kept.outcome) return { state: "done", outcome: kept.outcome };
    if (kept.lost) return { state: "lost" };
    // Under way on another call: its answer is waited for, unless its instance stopped.
    if (!(await this.#options.alive(kept.owner))) return { state: "lost" };
    return { state: "running" };
  }
}
