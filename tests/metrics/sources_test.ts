/** @module The metrics of ACP and A2A invocations, of the app behind `--upstream`, and of Redis. */
import assert from "node:assert/strict";
import { expectError } from "../helpers/errors.ts";
import { ONE_PROCESS, startBridge } from "../helpers/bridge.ts";
import { freePort } from "../helpers/servers.ts";
import { NO_CLUSTER } from "../helpers/cluster.ts";
import { startRedis } from "../helpers/redis.ts";
import { startAim, startApp } from "../helpers/upstream.ts";
import { connected, jsonPart, message, postRun } from "../acp/helpers.ts";
import { action, asTask, connectClient } from "../a2a/helpers.ts";
import { scrape } from "./scrape.ts";

Deno.test(
  "an ACP run and an A2A task count under their own protocol, by outcome",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge({ metrics: { port: 0 } });
    const url = bridge.served.metricsUrl!;
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    const body = (actionId: string, input: unknown) => ({
      agent_name: "control-panel",
      input: [message(jsonPart(actionId, input))],
      mode: "sync",
    });
    await (await postRun(bridge, token, body("search", "pending"))).body?.cancel();
    await (await postRun(bridge, token, body("nope", "x"))).body?.cancel();
    const client = await connectClient("v1", bridge.origin, token);
    asTask(await client.sendMessage(action("search", "pending")));
    const now = await scrape(url);
    assert.equal(now.value("aim_invocations_total", { protocol: "acp", outcome: "ok" }), 1);
    assert.equal(
      now.value("aim_invocations_total", { protocol: "acp", outcome: "unknown_action" }),
      1,
    );
    assert.equal(now.value("aim_invocations_total", { protocol: "a2a", outcome: "ok" }), 1);
    assert.equal(now.value("aim_invocations_total", { protocol: "http" }), 0);
    assert.ok(now.value("aim_http_requests_total", { family: "acp", status: "2xx" }) >= 1);
    assert.ok(now.value("aim_http_requests_total", { family: "a2a", status: "2xx" }) >= 2);
  },
);

Deno.test("the app's failures behind --upstream count by kind: 502 unreachable, 504 too slow; the app's own 502 and a client that hung up do not", async () => {
  const aborted: Promise<void>[] = [];
  await using app = startApp((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/app-502") return new Response("the app's own", { status: 502 });
    if (path === "/slow") {
      // Answers only once aim gives up on it.
      const gone = Promise.withResolvers<Response>();
      const seen = Promise.withResolvers<void>();
      aborted.push(seen.promise);
      request.signal.addEventListener("abort", () => {
        seen.resolve();
        gone.resolve(new Response("late"));
      });
      return gone.promise;
    }
    return new Response("<p>page</p>", { headers: { "Content-Type": "text/html" } });
  });
  await using aim = startAim(app.url, { metrics: { port: 0 }, proxy: { timeoutMs: 300 } });
  const url = aim.metricsUrl!;
  const get = (path: string, init?: RequestInit) => fetch(aim.url + path, init);
  await (await get("/page")).body?.cancel();
  const own = await get("/app-502");
  assert.equal(own.status, 502);
  assert.equal(await own.text(), "the app's own");
  await expectError(await get("/slow"), 504, "gateway_timeout");
  let now = await scrape(url);
  assert.equal(now.value("aim_upstream_failures_total", { code: "gateway_timeout" }), 1);
  assert.equal(now.value("aim_upstream_failures_total", { code: "bad_gateway" }), 0);
  assert.equal(now.value("aim_http_requests_total", { family: "upstream", status: "2xx" }), 1);
  assert.equal(now.value("aim_http_requests_total", { family: "upstream", status: "5xx" }), 2);

  // A client that hangs up before the app answers: no failure of the app's.
  const hangUp = new AbortController();
  const left = get("/slow", { signal: hangUp.signal }).catch(() => undefined);
  while (aborted.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  hangUp.abort();
  await left;
  await aborted[1];
  now = await scrape(url);
  assert.equal(now.value("aim_upstream_failures_total", { code: "gateway_timeout" }), 1);
  assert.equal(now.value("aim_upstream_failures_total", { code: "bad_gateway" }), 0);

  // Nothing listens where the app should be.
  await using down = startAim(`http://127.0.0.1:${freePort()}`, { metrics: { port: 0 } });
  await expectError(await fetch(down.url + "/page"), 502, "bad_gateway");
  const ws = new WebSocket(down.url.replace(/^http/, "ws") + "/app-socket");
  await new Promise((resolve) => ws.addEventListener("close", resolve, { once: true }));
  now = await scrape(down.metricsUrl!);
  assert.equal(now.value("aim_upstream_failures_total", { code: "bad_gateway" }), 2);
  assert.equal(now.value("aim_upstream_failures_total", { code: "gateway_timeout" }), 0);
});

Deno.test({
  name: "Redis round trips count by command, with their latency, and failed ones as errors",
  ignore: NO_CLUSTER,
  fn: async () => {
    await using redis = await startRedis();
    await using bridge = await startBridge({ metrics: { port: 0 }, redis: redis.url });
    await bridge.served.ready;
    const url = bridge.served.metricsUrl!;
    const token = await bridge.openSession("/control-panel");
    const before = await scrape(url);
    const trips = before.value("aim_redis_round_trip_seconds_count");
    assert.ok(trips >= 1, "opening a session is a round trip");
    const read = await bridge.fetch("/control-panel.json", {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(read.status, 200);
    await read.body?.cancel();
    const after = await scrape(url);
    assert.ok(after.value("aim_redis_round_trip_seconds_count") > trips);
    assert.ok(after.value("aim_redis_round_trip_seconds_sum") > 0);
    const commands = new Set(
      after.samples.filter((s) => s.name === "aim_redis_round_trip_seconds_count")
        .map((s) => s.labels.command),
    );
    assert.ok(commands.has("EVALSHA") || commands.has("EVAL"), [...commands].join(", "));
    assert.equal(
      after.value("aim_redis_errors_total"),
      0,
      JSON.stringify(after.samples.filter((s) => s.name === "aim_redis_errors_total")),
    );

    await redis.stop();
    const refused = await bridge.fetch("/control-panel.json", {
      headers: { Authorization: `Bearer ${token}` },
    });
    await expectError(refused, 503, "store_unavailable");
    const down = await scrape(url);
    assert.ok(down.value("aim_redis_errors_total") >= 1);
  },
});
