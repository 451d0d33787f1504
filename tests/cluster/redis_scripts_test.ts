/**
 * RedisShare's Lua scripts run through `@redis/client`'s own script support: by SHA-1 once Redis
 * holds them, and sent again by their text whenever Redis lost them (a restart, `SCRIPT FLUSH`).
 *
 * @module
 */
import assert from "node:assert/strict";
import { createClient } from "@redis/client";
import { RedisShare } from "../../bridge/share/redis.ts";
import { SCRIPTS } from "../../bridge/share/redis_scripts.ts";
import { NO_CLUSTER } from "../helpers/cluster.ts";
import { startRedis } from "../helpers/redis.ts";

/** A plain client on `url`, closed on dispose, to look at Redis as an operator would. */
async function operator(url: string) {
  const client = createClient({ url });
  await client.connect();
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

Deno.test(
  "a script Redis has never seen runs, and Redis keeps it for the next call by SHA-1",
  { ignore: NO_CLUSTER },
  async () => {
    await using redis = await startRedis();
    await using admin = await operator(redis.url);
    const share = new RedisShare({ url: redis.url });
    try {
      await share.ready();
      assert.equal(await share.acquire("t1", 5000), 0);
      const [held] = await admin.scriptExists([SCRIPTS.acquireLease.SHA1]);
      assert.equal(held, 1, "the EVAL fallback left the script in Redis's cache");
      assert.equal(await share.renew("t1", 5000), true);
    } finally {
      await share.close();
    }
  },
);

Deno.test(
  "after SCRIPT FLUSH every script still runs: the client sends it again by its text",
  { ignore: NO_CLUSTER },
  async () => {
    await using redis = await startRedis();
    await using admin = await operator(redis.url);
    const share = new RedisShare({ url: redis.url });
    try {
      await share.ready();
      assert.equal(await share.acquire("t1", 5000), 0);
      assert.equal((await share.fail("k", 60_000, Date.now())).count, 1);
      await admin.scriptFlush();
      const sha = SCRIPTS.acquireLease.SHA1;
      assert.deepEqual(await admin.scriptExists([sha]), [0], "Redis lost the scripts");
      assert.equal(await share.renew("t1", 5000), true);
      assert.equal(await share.acquire("t1", 5000), 0);
      assert.equal((await share.fail("k", 60_000, Date.now())).count, 2);
      await share.forgive("k");
      assert.deepEqual(await admin.scriptExists([sha]), [1]);
    } finally {
      await share.close();
    }
  },
);
