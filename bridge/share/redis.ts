/**
 * RedisShare: sessions, leases, idempotent answers, login throttling and activity kept
 * in Redis, so that several bridge instances behind a load balancer serve the same sessions;
 * invocations reach the instance holding a tab over publish/subscribe.
 *
 * Keys (prefix `aim:` by default): `s:{tokenHash}` a session's hash, `c:{hash}` and `k:{hash}`
 * its tab credential's and tab key's aliases, `l:{tokenHash}` its lease, `i:{instance}` an
 * instance's liveness, `n` and `f` / `f:{client}` sorted sets that count sessions, `d:…`
 * idempotent answers, `t:…` login failures, `a:{sessionId}` activity. Channels: `e:{sessionId}`
 * a session's signals, `q:{instance}` calls to an instance, `r:{instance}` its answers.
 *
 * @module
 */
import type { EndReason } from "../wire/channel.ts";
import { AimError } from "../errors/aim_error.ts";
import type { InvokeResult } from "../wire/schemas.ts";
import type {
  AttemptPolicy,
  Attempts,
  CreateLimits,
  ForwardedCall,
  ForwardHandler,
  ForwardOptions,
  IdempotencyClaim,
  KeptOutcome,
  SessionRecord,
  SessionShare,
} from "./share.ts";
import { SessionSignal } from "./share.ts";
import { fieldsOf, parseMessage, record } from "./redis_messages.ts";
import { RedisRouter } from "./redis_routing.ts";
import { RedisConnection } from "./redis_connection.ts";
import { RedisIdempotency } from "./redis_idempotency.ts";

/** Options of {@linkcode RedisShare}. */
export interface RedisShareOptions {
  /** `redis://HOST:PORT/DB` */
  url: string;
  /**
   * Prefix of every key and channel.
   *
   * @default {"aim:"}
   */
  prefix?: string;
  /**
   * How long a command may take before the store counts as unavailable, ms.
   *
   * @default {2000}
   */
  commandTimeoutMs?: number;
  /** Called for unexpected errors (bugs), without request data. */
  onError?: ((error: unknown) => void) | undefined;
  /**
   * Told, in a sentence, when Redis becomes unreachable and when it is back: once per outage,
   * never with the URL (it may hold a password); without it, told to `onError`.
   */
  onStatus?: ((message: string) => void) | undefined;
}

/** The defaults of {@linkcode RedisShareOptions}, as its `@default` tags say. */
export const REDIS_DEFAULTS: { readonly prefix: string; readonly commandTimeoutMs: number } = {
  prefix: "aim:",
  commandTimeoutMs: 2000,
};

/** A {@linkcode SessionShare} on Redis. */
export class RedisShare implements SessionShare {
  /** This instance's id, among the bridges sharing the store. */
  readonly instance: string = crypto.randomUUID().slice(0, 8);
  /** A store several bridges share. */
  readonly shared = true;
  readonly #redis: RedisConnection;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #ready: Promise<void>;
  readonly #watchers = new Map<string, Set<(signal: SessionSignal) => void>>();
  readonly #router: RedisRouter;
  readonly #idempotency: RedisIdempotency;

  /** Connects to `options.url`; {@linkcode RedisShare.ready} says when it is reached. */
  constructor(options: RedisShareOptions) {
    this.#onError = options.onError;
    const redis = this.#redis = new RedisConnection({
      url: options.url,
      prefix: options.prefix ?? REDIS_DEFAULTS.prefix,
      commandTimeoutMs: options.commandTimeoutMs ?? REDIS_DEFAULTS.commandTimeoutMs,
      instance: this.instance,
      onStatus: options.onStatus ?? ((message: string) => this.#onError?.(new Error(message))),
    });
    this.#router = new RedisRouter({
      instance: this.instance,
      key: (kind, id) => redis.key(kind, id),
      publish: (channel, message) => redis.client.publish(channel, message),
      run: (command) => redis.run(command),
      alive: (instance) => this.alive(instance),
      onError: this.#onError,
    });
    this.#idempotency = new RedisIdempotency(redis, {
      instance: this.instance,
      alive: (instance) => this.alive(instance),
    });
    this.#ready = redis.start({
      onCall: (message) => this.#router.onCall(message),
      onReply: (message) => this.#router.onReply(message),
    });
    // A bridge that never reaches Redis still answers (503), so nothing may be left unhandled.
    this.#ready.catch(() => {});
  }

  ready(): Promise<void> {
    return this.#ready;
  }

  async close(): Promise<void> {
    if (this.#redis.closed) return;
    this.#router.close();
    await this.#redis.close();
  }

  async create(tokenHash: string, rec: SessionRecord, limits: CreateLimits): Promise<string[]> {
    const ended = await this.#redis.run(() =>
      this.#redis.client.createSession({
        keys: [
          this.#redis.key("s", tokenHash),
          this.#redis.key("c", rec.credentialHash),
          this.#redis.key("k", rec.tabKeyHash),
          this.#redis.root("n"),
          this.#redis.root("f"),
          this.#redis.key("f", rec.client),
        ],
        arguments: [
          tokenHash,
          String(Date.now()),
          String(limits.ttlMs),
          String(limits.maxSessions),
          String(limits.maxFreshPerClient),
          ...fieldsOf(rec),
        ],
      })
    );
    if (ended === -1) {
      throw new AimError(
        "too_many_requests",
        "The bridge holds as many sessions as it can; retry in a minute.",
        { headers: { "Retry-After": "60" } },
      );
    }
    return ended as string[];
  }

  async load(tokenHash: string): Promise<SessionRecord | null> {
    // One round trip: the session, and who holds its lease if that instance is alive.
    const flat = await this.#redis.run(() =>
      this.#redis.client.loadSession({
        keys: [this.#redis.key("s", tokenHash), this.#redis.key("l", tokenHash)],
        arguments: [this.#redis.key("i", "")],
      })
    ) as string[];
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return record(fields);
  }

  alias(kind: "credential" | "tabKey", hash: string): Promise<string | null> {
    return this.#redis.run(() =>
      this.#redis.client.get(this.#redis.key(kind === "credential" ? "c" : "k", hash))
    );
  }

  async update(
    tokenHash: string,
    fields: Partial<SessionRecord>,
    options: {
      bump?: boolean;
      replaces?: Pick<SessionRecord, "credentialHash" | "tabKeyHash">;
    } = {},
  ): Promise<number> {
    const keys = [this.#redis.key("s", tokenHash)];
    const { replaces } = options;
    if (replaces) {
      keys.push(
        this.#redis.key("c", replaces.credentialHash),
        this.#redis.key("c", fields.credentialHash!),
      );
      keys.push(
        this.#redis.key("k", replaces.tabKeyHash),
        this.#redis.key("k", fields.tabKeyHash!),
      );
    }
    const { holder: _, ...stored } = fields;
    const result = await this.#redis.run(() =>
      this.#redis.client.updateSession({
        keys,
        arguments: [tokenHash, ...fieldsOf(stored), options.bump ? "bump" : "keep"],
      })
    );
    return Number(result);
  }

  async touch(
    tokenHash: string,
    rec: Pick<SessionRecord, "credentialHash" | "tabKeyHash" | "client">,
    ttlMs: number,
  ): Promise<void> {
    const expires = Date.now() + ttlMs;
    await this.#redis.run(() =>
      this.#redis.client.multi()
        .pExpire(this.#redis.key("s", tokenHash), ttlMs)
        .pExpire(this.#redis.key("c", rec.credentialHash), ttlMs)
        .pExpire(this.#redis.key("k", rec.tabKeyHash), ttlMs)
        .zAdd(this.#redis.root("n"), { score: expires, value: tokenHash }, { condition: "XX" })
        .exec()
    );
  }

  /** A session in use leaves the sets of unused ones. */
  async inUse(tokenHash: string, client: string): Promise<void> {
    await this.#redis.run(() =>
      this.#redis.client.multi()
        .zRem(this.#redis.root("f"), tokenHash)
        .zRem(this.#redis.key("f", client), tokenHash)
        .hSet(this.#redis.key("s", tokenHash), "inUse", "1")
        .exec()
    );
  }

  async remove(
    tokenHash: string,
    rec: Pick<SessionRecord, "id" | "credentialHash" | "tabKeyHash" | "client">,
    reason: EndReason,
  ): Promise<void> {
    await this.#redis.run(() =>
      this.#redis.client.multi()
        .del([
          this.#redis.key("s", tokenHash),
          this.#redis.key("c", rec.credentialHash),
          this.#redis.key("k", rec.tabKeyHash),
          this.#redis.key("l", tokenHash),
        ])
        .zRem(this.#redis.root("n"), tokenHash)
        .zRem(this.#redis.root("f"), tokenHash)
        .zRem(this.#redis.key("f", rec.client), tokenHash)
        .exec()
    );
    this.signal(rec.id, { type: "ended", reason });
  }

  async acquire(tokenHash: string, ms: number): Promise<number> {
    const left = await this.#redis.run(() =>
      this.#redis.client.acquireLease({
        keys: [this.#redis.key("l", tokenHash)],
        arguments: [this.instance, String(ms), this.#redis.key("i", "")],
      })
    );
    return Number(left);
  }

  async renew(tokenHash: string, ms: number): Promise<boolean> {
    const got = await this.#redis.run(() =>
      this.#redis.client.renewLease({
        keys: [this.#redis.key("l", tokenHash)],
        arguments: [this.instance, String(ms)],
      })
    );
    return got === 1;
  }

  async release(tokenHash: string): Promise<void> {
    await this.#redis.run(() =>
      this.#redis.client.releaseLease({
        keys: [this.#redis.key("l", tokenHash)],
        arguments: [this.instance],
      })
    );
  }

  async alive(instance: string): Promise<boolean> {
    return await this.#redis.run(() =>
      this.#redis.client.exists(this.#redis.key("i", instance))
    ) === 1;
  }

  signal(sessionId: string, signal: SessionSignal): void {
    this.#redis.client.publish(this.#redis.key("e", sessionId), JSON.stringify(signal)).catch(
      () => {},
    );
  }

  watch(sessionId: string, onSignal: (signal: SessionSignal) => void): () => void {
    const channel = this.#redis.key("e", sessionId);
    let set = this.#watchers.get(channel);
    if (!set) {
      const watchers = set = new Set();
      this.#watchers.set(channel, set);
      this.#redis.sub.subscribe(channel, (message: string) => {
        const signal = parseMessage(SessionSignal, message);
        if (signal === undefined) {
          this.#onError?.(new Error("A malformed session signal from Redis was dropped"));
          return;
        }
        for (const watcher of [...watchers]) watcher(signal);
      }).catch(() => {});
    }
    set.add(onSignal);
    return () => {
      set.delete(onSignal);
      if (set.size > 0 || this.#watchers.get(channel) !== set) return;
      this.#watchers.delete(channel);
      this.#redis.sub.unsubscribe(channel).catch(() => {});
    };
  }

  forward(
    instance: string,
    tokenHash: string,
    call: ForwardedCall,
    options: ForwardOptions,
  ): Promise<InvokeResult> {
    return this.#router.forward(instance, tokenHash, call, options);
  }

  serve(handler: ForwardHandler): void {
    this.#router.serve(handler);
  }

  claim(
    tokenHash: string,
    key: string,
    fingerprint: string,
    options: { ttlMs: number; maxKeys: number },
  ): Promise<IdempotencyClaim> {
    return this.#idempotency.claim(tokenHash, key, fingerprint, options);
  }

  outcome(tokenHashOrName: string, key: string, ms: number): Promise<IdempotencyClaim> {
    return this.#idempotency.outcome(tokenHashOrName, key, ms);
  }

  settle(
    tokenHash: string,
    key: string,
    outcome: KeptOutcome | undefined,
    options: { ttlMs: number; ran: boolean; maxBytes: number },
  ): Promise<void> {
    return this.#idempotency.settle(tokenHash, key, outcome, options);
  }

  async attempts(key: string): Promise<Attempts | null> {
    const fields = await this.#redis.run(() =>
      this.#redis.client.hGetAll(this.#redis.key("t", key))
    );
    if (!fields.count) return null;
    return { count: Number(fields.count), last: Number(fields.last) };
  }

  async fail(key: string, windowMs: number, now: number): Promise<Attempts> {
    const count = await this.#redis.run(() =>
      this.#redis.client.failAttempt({
        keys: [this.#redis.key("t", key)],
        arguments: [String(now), String(windowMs)],
      })
    );
    return { count: Number(count), last: now };
  }

  async claimAttempts(keys: string[], policy: AttemptPolicy): Promise<number> {
    const wait = await this.#redis.run(() =>
      this.#redis.client.claimAttempts({
        keys: keys.map((key) => this.#redis.key("t", key)),
        arguments: [policy.now, policy.windowMs, policy.max, policy.baseDelayMs, policy.maxDelayMs]
          .map(String),
      })
    );
    return Number(wait);
  }

  async forgive(key: string): Promise<void> {
    await this.#redis.run(() =>
      this.#redis.client.forgiveAttempt({ keys: [this.#redis.key("t", key)], arguments: [] })
    );
  }

  async reset(key: string): Promise<void> {
    await this.#redis.run(() => this.#redis.client.del(this.#redis.key("t", key)));
  }

  async put(kind: string, id: string, value: unknown, ttlMs: number): Promise<void> {
    const text = JSON.stringify(value);
    await this.#redis.run(() =>
      this.#redis.client.set(this.#redis.key("o:" + kind, id), text, { PX: ttlMs })
    );
  }

  async get(kind: string, id: string): Promise<unknown | null> {
    const text = await this.#redis.run(() =>
      this.#redis.client.get(this.#redis.key("o:" + kind, id))
    );
    return text === null ? null : JSON.parse(text);
  }

  async del(kind: string, id: string): Promise<void> {
    await this.#redis.run(() => this.#redis.client.del(this.#redis.key("o:" + kind, id)));
  }

  tell(instance: string, topic: string, message: unknown): Promise<boolean> {
    return this.#router.tell(instance, topic, message);
  }

  listen(topic: string, handler: (message: unknown) => void): void {
    this.#router.listen(topic, handler);
  }

  async record(
    sessionId: string,
    entry: unknown,
    options: { keep: number; ttlMs: number },
  ): Promise<void> {
    const key = this.#redis.key("a", sessionId);
    await this.#redis.run(() =>
      this.#redis.client.multi()
        .lPush(key, JSON.stringify(entry))
        .lTrim(key, 0, options.keep - 1)
        .pExpire(key, options.ttlMs)
        .exec()
    );
  }

  async activity(sessionId: string, limit: number): Promise<unknown[]> {
    const items = await this.#redis.run(() =>
      this.#redis.client.lRange(this.#redis.key("a", sessionId), 0, limit - 1)
    );
    return items.map((item: string) => JSON.parse(item));
  }
}
