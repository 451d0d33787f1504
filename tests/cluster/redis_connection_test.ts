/**
 * The connection of a bridge instance to Redis (bridge/share/redis_connection.ts) and the
 * `Idempotency-Key` claims kept through it (bridge/share/redis_idempotency.ts), imported
 * directly and run against a real `redis-server` on a free port: the keys and channels it names,
 * its beat, 503 `store_unavailable` for each way a command fails, one status line per outage, and
 * each state a claim can be found in.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createClient } from "@redis/client";
import { RedisConnection, storeUnavailable } from "../../bridge/share/redis_connection.ts";
import { RedisIdempotency } from "../../bridge/share/redis_idempotency.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import type { KeptOutcome } from "../../bridge/share/share.ts";
import { redisBinary, startRedis } from "../helpers/redis.ts";

const NO_REDIS = { ignore: !redisBinary() };

/** A connection to `url` as instance `instance`, its status lines collected. */
function connect(url: string, instance = "i1", commandTimeoutMs = 2000) {
  const status: string[] = [];
  const connection = new RedisConnection({
    url,
    prefix: "t:",
    commandTimeoutMs,
    instance,
    onStatus: (line) => status.push(line),
  });
  return { connection, status };
}

/** A plain client, to look at Redis as an operator would. */
async function operator(url: string) {
  const client = createClient({ url });
  await client.connect();
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** Whether 503 store_unavailable, as every failed command is answered. */
function unavailable(error: unknown): boolean {
  return error instanceof AimError && error.status === 503 && error.code === "store_unavailable" &&
    error.getResponse().headers.get("Retry-After") === "2";
}

Deno.test("storeUnavailable() is 503 store_unavailable, retried after 2 s, with its cause kept", () => {
  const cause = new Error("ECONNREFUSED");
  const error = storeUnavailable(cause);
  assert.ok(unavailable(error));
  assert.equal(error.cause, cause);
  assert.equal(error.message, "The session store cannot be reached; retry in a few seconds.");
});

Deno.test(
  "RedisConnection names keys with its prefix, subscribes to its channels and beats until it closes",
  NO_REDIS,
  async () => {
    await using redis = await startRedis();
    await using admin = await operator(redis.url);
    const { connection } = connect(redis.url);
    assert.equal(connection.key("s", "abc"), "t:s:abc");
    assert.equal(connection.root("sessions"), "t:sessions");
    const calls = Promise.withResolvers<string>();
    const replies = Promise.withResolvers<string>();
    await connection.start({ onCall: calls.resolve, onReply: replies.resolve });
    try {
      assert.equal(await admin.get("t:i:i1"), "1", "the beat is set at once");
      const ttl = await admin.pTTL("t:i:i1");
      assert.ok(ttl > 0 && ttl <= 3000, `the beat lives 3 s at most (${ttl} ms)`);
      assert.equal(await admin.publish("t:q:i1", "call"), 1);
      assert.equal(await admin.publish("t:r:i1", "reply"), 1);
      assert.equal(await calls.promise, "call");
      assert.equal(await replies.promise, "reply");
      assert.equal(await admin.publish("t:q:i2", "not mine"), 0);
    } finally {
      await connection.close();
    }
    assert.equal(connection.closed, true);
    assert.equal(await admin.get("t:i:i1"), null, "closing says the instance is gone");
    await assert.rejects(connection.run(() => Promise.resolve(1)), unavailable);
  },
);

Deno.test(
  "RedisConnection.run() answers 503 for a command that fails, hangs or throws, and passes an AimError on",
  NO_REDIS,
  async () => {
    await using redis = await startRedis();
    const { connection } = connect(redis.url, "i1", 50);
    await connection.start({ onCall: () => {}, onReply: () => {} });
    try {
      assert.equal(await connection.run(() => connection.client.set("t:x", "1")), "OK");
      const cases: [string, () => Promise<unknown>][] = [
        ["an error reply", () => connection.client.sendCommand(["NO.SUCH.COMMAND"])],
        ["no answer in time", () => new Promise(() => {})],
        ["a thrown error", () => Promise.reject(new TypeError("x"))],
      ];
      for (const [name, command] of cases) {
        await assert.rejects(connection.run(command), unavailable, name);
      }
      const own = new AimError("not_found", "No such session.");
      await assert.rejects(connection.run(() => Promise.reject(own)), (e) => e === own);
    } finally {
      await connection.close();
    }
  },
);

Deno.test(
  "RedisConnection says once that Redis is away and once that it is back, and answers 503 meanwhile",
  NO_REDIS,
  async () => {
    await using redis = await startRedis();
    const { connection, status } = connect(redis.url);
    await connection.start({ onCall: () => {}, onReply: () => {} });
    try {
      await redis.stop();
      await assert.rejects(connection.run(() => connection.client.get("t:x")), unavailable);
      while (status.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      await redis.start();
      while (status.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      // Both clients came back; a command runs once the command client is ready.
      while (!connection.client.isReady || !connection.sub.isReady) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(await connection.run(() => connection.client.set("t:x", "1")), "OK");
      // One line for the outage, whatever number of failed reconnections each client made.
      assert.equal(status.length, 2, status.join("\n"));
      assert.match(status[0]!, /^Redis cannot be reached \(.*\); answering 503 until it is back$/);
      assert.equal(status[1], "Redis is reachable again");
    } finally {
      await connection.close();
    }
  },
);

const DONE: KeptOutcome = { ok: true, result: { ok: true, actionId: "a", result: 1 } };
const OPTIONS = { ttlMs: 60_000, maxKeys: 3 };

Deno.test(
  "RedisIdempotency finds a key new, then running, done, reused with another request, and forgotten when refused",
  NO_REDIS,
  async () => {
    await using redis = await startRedis();
    const { connection } = connect(redis.url);
    await connection.start({ onCall: () => {}, onReply: () => {} });
    const alive = new Set(["i1"]);
    const keys = new RedisIdempotency(connection, {
      instance: "i1",
      alive: (id) => Promise.resolve(alive.has(id)),
    });
    try {
      assert.deepEqual(await keys.claim("h", "k", "f1", OPTIONS), { state: "new" });
      assert.deepEqual(await keys.claim("h", "k", "f1", OPTIONS), { state: "running" });
      assert.deepEqual(await keys.claim("h", "k", "f2", OPTIONS), { state: "reused" });
      assert.deepEqual(await keys.outcome("h", "k", 60), { state: "running" });
      const settle = { ttlMs: 60_000, ran: true, maxBytes: 10_000 };
      await keys.settle("h", "k", DONE, settle);
      assert.deepEqual(await keys.claim("h", "k", "f1", OPTIONS), { state: "done", outcome: DONE });
      assert.deepEqual(await keys.outcome("h", "k", 1000), { state: "done", outcome: DONE });
      // A request refused before it ran forgets its key: the next one is new.
      assert.deepEqual(await keys.claim("h", "r", "f1", OPTIONS), { state: "new" });
      await keys.settle("h", "r", undefined, { ...settle, ran: false });
      assert.deepEqual(await keys.claim("h", "r", "f1", OPTIONS), { state: "new" });
      // Another session's key of the same name is its own.
      assert.deepEqual(await keys.claim("h2", "k", "f9", OPTIONS), { state: "new" });
    } finally {
      await connection.close();
    }
  },
);

Deno.test(
  "RedisIdempotency keeps as lost an answer past the session's bytes, a claim whose instance stopped, and one that fits no schema",
  NO_REDIS,
  async () => {
    await using redis = await startRedis();
    await using admin = await operator(redis.url);
    const { connection } = connect(redis.url);
    await connection.start({ onCall: () => {}, onReply: () => {} });
    const alive = new Set(["i1"]);
    const keys = new RedisIdempotency(connection, {
      instance: "i1",
      alive: (id) => Promise.resolve(alive.has(id)),
    });
    try {
      await keys.claim("h", "big", "f", OPTIONS);
      const answer = JSON.stringify({ fingerprint: "f", owner: "i1", outcome: DONE });
      await keys.settle("h", "big", DONE, {
        ttlMs: 60_000,
        ran: true,
        maxBytes: answer.length - 1,
      });
      assert.deepEqual(await keys.claim("h", "big", "f", OPTIONS), { state: "lost" });
      // Exactly the bytes left: kept.
      await keys.claim("h2", "fits", "f", OPTIONS);
      await keys.settle("h2", "fits", DONE, { ttlMs: 60_000, ran: true, maxBytes: answer.length });
      assert.deepEqual(await keys.claim("h2", "fits", "f", OPTIONS), {
        state: "done",
        outcome: DONE,
      });
      // Its instance stopped: never run again.
      await keys.claim("h", "stopped", "f", OPTIONS);
      alive.delete("i1");
      assert.deepEqual(await keys.claim("h", "stopped", "f", OPTIONS), { state: "lost" });
      assert.deepEqual(await keys.outcome("h", "stopped", 1000), { state: "lost" });
      for (const garbage of ["{", '{"fingerprint":1}', "null"]) {
        await admin.set("t:d:h:bad", garbage);
        assert.deepEqual(await keys.claim("h", "bad", "f", OPTIONS), { state: "lost" }, garbage);
        assert.deepEqual(await keys.outcome("h", "bad", 1000), { state: "lost" }, garbage);
      }
      assert.deepEqual(await keys.outcome("h", "none", 1000), { state: "lost" }, "no claim at all");
    } finally {
      await connection.close();
    }
  },
);

Deno.test(
  "RedisIdempotency keeps at most maxKeys keys of a session, forgetting the oldest",
  NO_REDIS,
  async () => {
    await using redis = await startRedis();
    const { connection } = connect(redis.url);
    await connection.start({ onCall: () => {}, onReply: () => {} });
    const keys = new RedisIdempotency(connection, {
      instance: "i1",
      alive: () => Promise.resolve(true),
    });
    try {
      for (const key of ["k1", "k2", "k3", "k4"]) {
        assert.deepEqual(await keys.claim("h", key, "f", OPTIONS), { state: "new" });
        // Distinct times: the oldest is the first claimed.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      assert.deepEqual(
        await keys.claim("h", "k1", "f", OPTIONS),
        { state: "new" },
        "k1 was forgotten",
      );
      assert.deepEqual(await keys.claim("h", "k4", "f", OPTIONS), { state: "running" });
    } finally {
      await connection.close();
    }
  },
);
