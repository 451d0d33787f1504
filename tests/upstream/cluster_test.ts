/**
 * aim in front of an app, several instances on Redis behind HAProxy: the app's pages pass
 * through every instance, and a session opened through one is driven through the others.
 * @module
 */
import assert from "node:assert/strict";
import { NO_CLUSTER, startCluster } from "../helpers/cluster.ts";
import { FakeTab, rememberCredential } from "../helpers/fake_tab.ts";
import { startApp } from "../helpers/upstream.ts";
import { newToken } from "../../bridge/core/tokens.ts";

Deno.test({
  name:
    "behind HAProxy with sessions on Redis, two aims in front of one app serve its pages and one session",
  ignore: NO_CLUSTER,
  async fn() {
    await using app = startApp((request) =>
      Response.json({ path: new URL(request.url).pathname, cookie: request.headers.get("cookie") })
    );
    const root = await Deno.makeTempDir({ prefix: "aim-upstream-cluster-" });
    try {
      await using cluster = await startCluster({
        root,
        instances: 2,
        bridge: { upstream: app.url },
      });
      const origin = cluster.origin;
      for (let i = 0; i < 4; i++) {
        const seen = await (await fetch(`${origin}/dashboard`, {
          headers: { Cookie: "sid=1; aim_session=secret" },
        })).json();
        assert.deepEqual(seen, { path: "/dashboard", cookie: "sid=1" });
      }
      const res = await fetch(`${origin}/__aim/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: origin },
        body: JSON.stringify({ page: "/dashboard" }),
      });
      const grant = await res.json();
      rememberCredential(grant.sessionToken, grant.tabCredential);
      await using tab = await FakeTab.open(origin, {
        token: grant.sessionToken,
        page: "/dashboard",
      });
      await tab.next("lease");
      await tab.register([{ id: "refresh", handler: () => "refreshed" }]);
      // Several calls: HAProxy spreads them over both instances; each reaches the one tab.
      const instances = new Set<string | null>();
      for (let i = 0; i < 4; i++) {
        const answer = await fetch(`${origin}/__aim/invoke`, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Authorization: `Bearer ${grant.sessionToken}`,
            Connection: "close",
          },
          body: JSON.stringify({ actionId: "refresh", input: "now" }),
        });
        assert.equal(answer.status, 200, await answer.clone().text());
        instances.add(answer.headers.get("x-aim-instance"));
        assert.equal((await answer.json()).result, "refreshed");
      }
      assert.equal(instances.size, 2, [...instances].join(", "));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "with sessions on Redis, an aim that never saw a session still keeps its token and tab credential from the app",
  ignore: NO_CLUSTER,
  async fn() {
    await using app = startApp((request) =>
      Response.json({
        authorization: request.headers.get("authorization"),
        protocol: request.headers.get("sec-websocket-protocol"),
      })
    );
    const root = await Deno.makeTempDir({ prefix: "aim-upstream-cluster-" });
    try {
      await using cluster = await startCluster({
        root,
        instances: 2,
        bridge: { upstream: app.url },
      });
      const [minting, other] = cluster.instances;
      // Opened on one instance, used on the other: only Redis knows the session there.
      const res = await fetch(`${minting!.url}/__aim/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: cluster.origin },
        body: JSON.stringify({ page: "/dashboard" }),
      });
      const grant = await res.json();
      const own = newToken();
      const ask = async (headers: Record<string, string>) =>
        await (await fetch(`${other!.url}/dashboard`, { headers })).json();
      assert.deepEqual(
        await ask({
          Authorization: `Bearer ${grant.sessionToken}`,
          "Sec-WebSocket-Protocol": `aim-tab-v1, aim-credential.${grant.tabCredential}`,
        }),
        { authorization: null, protocol: "aim-tab-v1" },
      );
      assert.deepEqual(await ask({ Authorization: `Bearer ${own}` }), {
        authorization: `Bearer ${own}`,
        protocol: null,
      });
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
