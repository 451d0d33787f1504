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
import type { EventEmitter } from "node:events";
import { createClient } from "@redis/client";
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
import { SCRIPTS } from "./redis_scripts.ts";
import { fieldsOf, KeptClaim, parseMessage, record } from "./redis_messages.ts";
import { BEAT_MS, RedisRouter } from "./redis_routing.ts";

/** A client that knows aim's scripts (`client.createSession(…)`, …). */
function newClient(options: Omit<Parameters<typeof createClient>[0] & object, "scripts">) {
  return createClient({ ...options, scripts: SCRIPTS });
}

type Client = ReturnType<typeof newClient>;

/** Options of {@linkcode RedisShare}. */
export interface RedisShareOptions {
  /** `redis://HOST:PORT/DB` */
  url: string;
  /** Prefix of every key and channel. @default {"aim:"} */
  prefix?: string;
  /** How long a command may take before the store counts as unavailable. @default {2000} */
  commandTimeoutMs?: number;
  /** Called for unexpected errors (bugs), without request data. */
  onError?: ((error: unknown) => void) | undefined;
  /**
   * Told, in a sentence, when Redis becomes unreachable and when it is back: once per outage,
   * never with the URL (it may hold a password). Default: `onError`.
   */
  onStatus?: ((message: string) => void) | undefined;
}

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

/** A {@linkcode SessionShare} on Redis. */
export class RedisShare implements SessionShare {
  readonly instance: string = crypto.randomUUID().slice(0, 8);
  readonly shared = true;
  readonly #p: string;
  readonly #client: Client;
  readonly #sub: Client;
  readonly #timeoutMs: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #status: (message: string) => void;
  readonly #ready: Promise<void>;
  readonly #watchers = new Map<string, Set<(signal: SessionSignal) => void>>();
  readonly #router: RedisRouter;
  #beat: ReturnType<typeof setInterval> | undefined;
  #down = false;
  #closed = false;

  constructor(options: RedisShareOptions) {
    this.#p = options.prefix ?? "aim:";
    this.#timeoutMs = options.commandTimeoutMs ?? 2000;
    this.#onError = options.onError;
    this.#router = new RedisRouter({
      instance: this.instance,
      key: (kind, id) => this.#key(kind, id),
      publish: (channel, message) => this.#client.publish(channel, message),
      run: (command) => this.#run(command),
      alive: (instance) => this.alive(instance),
      onError: this.#onError,
    });
    this.#status = options.onStatus ??
      ((message: string) => this.#onError?.(new Error(message)));
    const socket = {
      connectTimeout: 2000,
      // Tried again for as long as the bridge runs: it recovers by itself when Redis is back.
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000),
    };
    // Commands fail at once while Redis is away (503), rather than wait in a queue. The client's
    // own command timeout is off: it keeps a timer and a signal alive for 5 s after every
    // command (8 per connecting tab), where #run's timer is cleared as soon as Redis answers.
    const commandOptions = { timeout: 0 };
    this.#client = newClient({
      url: options.url,
      disableOfflineQueue: true,
      socket,
      commandOptions,
    });
    this.#sub = newClient({ url: options.url, socket, commandOptions });
    for (const redis of [this.#client, this.#sub]) {
      // The client is an EventEmitter; its type leaves `on` optional.
      const client = redis as unknown as EventEmitter;
      client.on("error", (error: unknown) => {
        if (this.#down) return;
        this.#down = true;
        const reason = error instanceof Error ? error.message : String(error);
        this.#status(`Redis cannot be reached (${reason}); answering 503 until it is back`);
      });
      client.on("ready", () => {
        if (!this.#down) return;
        this.#down = false;
        this.#status("Redis is reachable again");
      });
    }
    this.#ready = this.#start();
    // A bridge that never reaches Redis still answers (503), so nothing may be left unhandled.
    this.#ready.catch(() => {});
  }

  async #start(): Promise<void> {
    await Promise.all([this.#client.connect(), this.#sub.connect()]);
    await this.#sub.subscribe(
      this.#p + "q:" + this.instance,
      (m: string) => this.#router.onCall(m),
    );
    await this.#sub.subscribe(
      this.#p + "r:" + this.instance,
      (m: string) => this.#router.onReply(m),
    );
    const beat = () => {
      this.#client.set(this.#p + "i:" + this.instance, "1", { PX: ALIVE_MS }).catch(() => {});
    };
    beat();
    this.#beat = setInterval(beat, BEAT_MS);
    Deno.unrefTimer(this.#beat as unknown as number);
  }

  ready(): Promise<void> {
    return this.#ready;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#beat);
    this.#router.close();
    await this.#client.del(this.#p + "i:" + this.instance).catch(() => {});
    await Promise.allSettled([this.#client.close(), this.#sub.close()]);
  }

  /** Runs a command within the timeout; any failure is 503 `store_unavailable`. */
  async #run<T>(command: () => Promise<T>): Promise<T> {
    if (this.#closed) throw storeUnavailable();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        command(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error("Redis did not answer in time")),
            this.#timeoutMs,
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

  #key(kind: string, id: string): string {
    return this.#p + kind + ":" + id;
  }

  async create(tokenHash: string, rec: SessionRecord, limits: CreateLimits): Promise<string[]> {
    const ended = await this.#run(() =>
      this.#client.createSession({
        keys: [
          this.#key("s", tokenHash),
          this.#key("c", rec.credentialHash),
          this.#key("k", rec.tabKeyHash),
          this.#p + "n",
          this.#p + "f",
          this.#key("f", rec.client),
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
    const flat = await this.#run(() =>
      this.#client.loadSession({
        keys: [this.#key("s", tokenHash), this.#key("l", tokenHash)],
        arguments: [this.#p + "i:"],
      })
    ) as string[];
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return record(fields);
  }

  alias(kind: "credential" | "tabKey", hash: string): Promise<string | null> {
    return this.#run(() => this.#client.get(this.#key(kind === "credential" ? "c" : "k", hash)));
  }

  async update(
    tokenHash: string,
    fields: Partial<SessionRecord>,
    options: {
      bump?: boolean;
      replaces?: Pick<SessionRecord, "credentialHash" | "tabKeyHash">;
    } = {},
  ): Promise<number> {
    const keys = [this.#key("s", tokenHash)];
    const { replaces } = options;
    if (replaces) {
      keys.push(this.#key("c", replaces.credentialHash), this.#key("c", fields.credentialHash!));
      keys.push(this.#key("k", replaces.tabKeyHash), this.#key("k", fields.tabKeyHash!));
    }
    const { holder: _, ...stored } = fields;
    const result = await this.#run(() =>
      this.#client.updateSession({
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
    await this.#run(() =>
      this.#client.multi()
        .pExpire(this.#key("s", tokenHash), ttlMs)
        .pExpire(this.#key("c", rec.credentialHash), ttlMs)
        .pExpire(this.#key("k", rec.tabKeyHash), ttlMs)
        .zAdd(this.#p + "n", { score: expires, value: tokenHash }, { condition: "XX" })
        .exec()
    );
  }

  /** A session in use leaves the sets of unused ones. */
  async inUse(tokenHash: string, client: string): Promise<void> {
    await this.#run(() =>
      this.#client.multi()
        .zRem(this.#p + "f", tokenHash)
        .zRem(this.#key("f", client), tokenHash)
        .hSet(this.#key("s", tokenHash), "inUse", "1")
        .exec()
    );
  }

  async remove(
    tokenHash: string,
    rec: Pick<SessionRecord, "id" | "credentialHash" | "tabKeyHash" | "client">,
    reason: EndReason,
  ): Promise<void> {
    await this.#run(() =>
      this.#client.multi()
        .del([
          this.#key("s", tokenHash),
          this.#key("c", rec.credentialHash),
          this.#key("k", rec.tabKeyHash),
          this.#key("l", tokenHash),
        ])
        .zRem(this.#p + "n", tokenHash)
        .zRem(this.#p + "f", tokenHash)
        .zRem(this.#key("f", rec.client), tokenHash)
        .exec()
    );
    this.signal(rec.id, { type: "ended", reason });
  }

  async acquire(tokenHash: string, ms: number): Promise<number> {
    const left = await this.#run(() =>
      this.#client.acquireLease({
        keys: [this.#key("l", tokenHash)],
        arguments: [this.instance, String(ms), this.#p + "i:"],
      })
    );
    return Number(left);
  }

  async renew(tokenHash: string, ms: number): Promise<boolean> {
    const got = await this.#run(() =>
      this.#client.renewLease({
        keys: [this.#key("l", tokenHash)],
        arguments: [this.instance, String(ms)],
      })
    );
    return got === 1;
  }

  async release(tokenHash: string): Promise<void> {
    await this.#run(() =>
      this.#client.releaseLease({ keys: [this.#key("l", tokenHash)], arguments: [this.instance] })
    );
  }

  async alive(instance: string): Promise<boolean> {
    return await this.#run(() => this.#client.exists(this.#key("i", instance))) === 1;
  }

  signal(sessionId: string, signal: SessionSignal): void {
    this.#client.publish(this.#key("e", sessionId), JSON.stringify(signal)).catch(() => {});
  }

  watch(sessionId: string, onSignal: (signal: SessionSignal) => void): () => void {
    const channel = this.#key("e", sessionId);
    let set = this.#watchers.get(channel);
    if (!set) {
      const watchers = set = new Set();
      this.#watchers.set(channel, set);
      this.#sub.subscribe(channel, (message: string) => {
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
      this.#sub.unsubscribe(channel).catch(() => {});
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

  async claim(
    tokenHash: string,
    key: string,
    fingerprint: string,
    options: { ttlMs: number; maxKeys: number },
  ): Promise<IdempotencyClaim> {
    const name = this.#key("d", tokenHash + ":" + key);
    const mine = JSON.stringify({ fingerprint, owner: this.instance });
    const seen = await this.#run(() =>
      this.#client.claimKey({
        keys: [name, this.#key("dk", tokenHash)],
        arguments: [
          mine,
          String(options.ttlMs),
          String(Date.now()),
          key,
          String(options.maxKeys),
          this.#key("d", tokenHash + ":"),
        ],
      })
    ) as string | null;
    if (seen === null) return { state: "new" };
    // A claim that fits no schema is lost: its call is never run again.
    const kept = parseMessage(KeptClaim, seen);
    if (kept === undefined) return { state: "lost" };
    if (kept.fingerprint !== fingerprint) return { state: "reused" };
    return await this.#claimed(name, kept, 0);
  }

  async #claimed(
    name: string,
    kept: KeptClaim,
    ms: number,
  ): Promise<IdempotencyClaim> {
    if (kept.outcome) return { state: "done", outcome: kept.outcome };
    if (kept.lost) return { state: "lost" };
    // Under way on another call: its answer is waited for, unless its instance stopped.
    if (!(await this.alive(kept.owner))) return { state: "lost" };
    return ms > 0 ? await this.outcome(name, "", ms) : { state: "running" };
  }

  async outcome(tokenHashOrName: string, key: string, ms: number): Promise<IdempotencyClaim> {
    const name = key ? this.#key("d", tokenHashOrName + ":" + key) : tokenHashOrName;
    const until = Date.now() + ms;
    let delay = 20;
    while (Date.now() < until) {
      const seen = await this.#run(() => this.#client.get(name));
      if (seen === null) return { state: "lost" };
      const kept = parseMessage(KeptClaim, seen);
      if (kept === undefined) return { state: "lost" };
      if (kept.outcome || kept.lost || !(await this.alive(kept.owner))) {
        return await this.#claimed(name, kept, 0);
      }
      if (this.#closed) break;
      // The first answer is polled for: retries of one key are rare, and each ends in `ms`.
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 250);
    }
    return { state: "running" };
  }

  async settle(
    tokenHash: string,
    key: string,
    outcome: KeptOutcome | undefined,
    options: { ttlMs: number; ran: boolean; maxBytes: number },
  ): Promise<void> {
    const name = this.#key("d", tokenHash + ":" + key);
    if (!options.ran) {
      await this.#run(() => this.#client.del(name));
      return;
    }
    const seen = await this.#run(() => this.#client.get(name));
    if (seen === null) return;
    const kept = parseMessage(KeptClaim, seen);
    if (kept === undefined) return;
    const answer = outcome ? JSON.stringify({ ...kept, outcome }) : "";
    // Within the session's byte budget, else kept as lost: a retry is refused, never run again.
    await this.#run(() =>
      this.#client.settleKey({
        keys: [name, this.#key("db", tokenHash)],
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

  async attempts(key: string): Promise<Attempts | null> {
    const fields = await this.#run(() => this.#client.hGetAll(this.#key("t", key)));
    if (!fields.count) return null;
    return { count: Number(fields.count), last: Number(fields.last) };
  }

  async fail(key: string, windowMs: number, now: number): Promise<Attempts> {
    const count = await this.#run(() =>
      this.#client.failAttempt({
        keys: [this.#key("t", key)],
        arguments: [String(now), String(windowMs)],
      })
    );
    return { count: Number(count), last: now };
  }

  async claimAttempts(keys: string[], policy: AttemptPolicy): Promise<number> {
    const wait = await this.#run(() =>
      this.#client.claimAttempts({
        keys: keys.map((key) => this.#key("t", key)),
        arguments: [policy.now, policy.windowMs, policy.max, policy.baseDelayMs, policy.maxDelayMs]
          .map(String),
      })
    );
    return Number(wait);
  }

  async forgive(key: string): Promise<void> {
    await this.#run(() =>
      this.#client.forgiveAttempt({ keys: [this.#key("t", key)], arguments: [] })
    );
  }

  async reset(key: string): Promise<void> {
    await this.#run(() => this.#client.del(this.#key("t", key)));
  }

  async put(kind: string, id: string, value: unknown, ttlMs: number): Promise<void> {
    const text = JSON.stringify(value);
    await this.#run(() => this.#client.set(this.#key("o:" + kind, id), text, { PX: ttlMs }));
  }

  async get(kind: string, id: string): Promise<unknown | null> {
    const text = await this.#run(() => this.#client.get(this.#key("o:" + kind, id)));
    return text === null ? null : JSON.parse(text);
  }

  async del(kind: string, id: string): Promise<void> {
    await this.#run(() => this.#client.del(this.#key("o:" + kind, id)));
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
    const key = this.#key("a", sessionId);
    await this.#run(() =>
      this.#client.multi()
        .lPush(key, JSON.stringify(entry))
        .lTrim(key, 0, options.keep - 1)
        .pExpire(key, options.ttlMs)
        .exec()
    );
  }

  async activity(sessionId: string, limit: number): Promise<unknown[]> {
    const items = await this.#run(() =>
      this.#client.lRange(this.#key("a", sessionId), 0, limit - 1)
    );
    return items.map((item: string) => JSON.parse(item));
  }
}
