/**
 * A sign-in is answered only once the new identity is in the shared store: behind a load balancer
 * the agent's next call may reach another bridge, which reads the session from Redis, and must
 * find the session signed in. Two bridges on a real Redis; the first one's writes are held back
 * until the test lets them through.
 *
 * @module
 */
import assert from "node:assert/strict";
import { RedisShare } from "../../bridge/share/redis.ts";
import { startBridge } from "../helpers/bridge.ts";
import { NO_CLUSTER } from "../helpers/cluster.ts";
import { users } from "../helpers/connected_tab.ts";
import { expectError } from "../helpers/errors.ts";
import { startRedis } from "../helpers/redis.ts";

Deno.test({
  name:
    "a login answers once its identity is shared, so the agent's next call on another bridge is signed in",
  ignore: NO_CLUSTER,
  async fn() {
    await using redis = await startRedis();
    const share = new RedisShare({ url: redis.url });
    // The first bridge's session writes wait for `release` once `hold` is set.
    let hold = false;
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    let holding!: () => void;
    const heldBack = new Promise<void>((resolve) => holding = resolve);
    const update = share.update.bind(share);
    share.update = async (...args) => {
      if (hold) {
        holding();
        await held;
      }
      return await update(...args);
    };
    await using first = await startBridge({ users, share });
    await using second = await startBridge({ users, redis: redis.url });
    const token = await first.openSession("/control-panel");
    hold = true;
    let answered = false;
    const login = first.invoke(token, "login", { username: "alice", password: "wonderland" })
      .then((res) => {
        answered = true;
        return res;
      });
    await heldBack;
    // A request the first bridge answers after the login's action ran: the login is still waiting.
    assert.equal((await first.fetch("/__aim/health")).status, 200);
    assert.equal(answered, false, "the login answered before its identity was shared");
    release();
    const res = await login;
    assert.equal(res.status, 200);
    await res.body?.cancel();
    // Signed in on the second bridge too: a protected action finds no tab, not a missing login.
    await expectError(
      await second.invoke(token, "approve_request", "req-3"),
      409,
      "browser_not_connected",
    );
  },
});
