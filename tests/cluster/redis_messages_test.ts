/**
 * What RedisShare reads back from Redis is checked against its zod schema: a message or a kept
 * claim of the wrong shape (another writer, a bug, an older instance) is dropped and said, or
 * fails closed, and the share goes on serving.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createClient } from "@redis/client";
import { RedisShare } from "../../bridge/share/redis.ts";
import { NO_CLUSTER } from "../helpers/cluster.ts";
import { startRedis } from "../helpers/redis.ts";

Deno.test(
  "a malformed call, reply or signal on Redis is dropped and reported, and the share goes on",
  { ignore: NO_CLUSTER },
  async () => {
    await using redis = await startRedis();
    const admin = createClient({ url: redis.url });
    await admin.connect();
    const errors: string[] = [];
    const share = new RedisShare({
      url: redis.url,
      onError: (error) => errors.push(String((error as Error).message)),
    });
    try {
      await share.ready();
      const signals: unknown[] = [];
      let last!: () => void;
      const sentinel = new Promise<void>((resolve) => last = resolve);
      const stop = share.watch("s1", (signal) => {
        signals.push(signal);
        if (signal.type === "changed") last();
      });
      const heard = new Promise<unknown>((resolve) => share.listen("news", resolve));
      // Published by hand: each fits no schema of its channel.
      await admin.publish(`aim:q:${share.instance}`, '{"id":"1","from":"x","call":{"body":1}}');
      await admin.publish(`aim:r:${share.instance}`, '{"id":"1","type":"answer","ok":true}');
      // A subscription is made in the background: the watch is live once a signal arrives.
      while (signals.length === 0) {
        await admin.publish("aim:e:s1", '{"type":"released"}');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await admin.publish("aim:e:s1", '{"type":"ended","reason":"bored"}');
      // One connection delivers in order: once this arrives, so have all the others.
      await admin.publish("aim:e:s1", '{"type":"changed","version":9}');
      await sentinel;
      assert.deepEqual(errors.sort(), [
        "A malformed call message from Redis was dropped",
        "A malformed reply message from Redis was dropped",
        "A malformed session signal from Redis was dropped",
      ]);
      assert.deepEqual(signals.at(-1), { type: "changed", version: 9 });
      assert.ok(
        signals.slice(0, -1).every((signal) => JSON.stringify(signal) === '{"type":"released"}'),
      );
      // And well-formed messages still get through.
      assert.equal(await share.tell(share.instance, "news", { n: 1 }), true);
      assert.deepEqual(await heard, { n: 1 });
      stop();
    } finally {
      await share.close();
      await admin.close();
    }
  },
);

Deno.test(
  "an Idempotency-Key claim of the wrong shape in Redis counts as lost: its call never runs again",
  { ignore: NO_CLUSTER },
  async () => {
    await using redis = await startRedis();
    const admin = createClient({ url: redis.url });
    await admin.connect();
    const share = new RedisShare({ url: redis.url });
    try {
      await share.ready();
      const options = { ttlMs: 60_000, maxKeys: 10 };
      assert.deepEqual(await share.claim("t1", "k1", "f", options), { state: "new" });
      await admin.set("aim:d:t1:k2", '{"fingerprint":"f","owner":"gone","outcome":"done"}');
      assert.deepEqual(await share.claim("t1", "k2", "f", options), { state: "lost" });
      assert.deepEqual(await share.outcome("t1", "k2", 50), { state: "lost" });
    } finally {
      await share.close();
      await admin.close();
    }
  },
);
