/**
 * The cluster harness itself: Redis that stops and starts again on its port; HAProxy
 * that spreads requests round-robin, passes WebSockets through and routes around a stopped
 * backend (its backends here are tiny servers answering their own name); and a cluster of
 * bridges whose instances stop and start again behind it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { BASIC_SITE } from "../helpers/bridge.ts";
import { freePorts } from "../helpers/servers.ts";
import { NO_CLUSTER, startCluster } from "../helpers/cluster.ts";
import { startBalancer } from "../helpers/haproxy.ts";
import { startRedis } from "../helpers/redis.ts";
import { tempDir } from "../helpers/temp.ts";

/** Sends PING to Redis over a raw TCP socket; returns the first line of the answer. */
async function ping(port: number): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode("*1\r\n$4\r\nPING\r\n"));
    const buffer = new Uint8Array(64);
    const n = await conn.read(buffer);
    return new TextDecoder().decode(buffer.subarray(0, n ?? 0)).split("\r\n")[0]!;
  } finally {
    conn.close();
  }
}

/** A tiny backend on `port` answering its `name`, forwarded headers at /headers, echo at /echo. */
function backend(name: string, port: number): Deno.HttpServer {
  return Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === "/echo" && request.headers.get("upgrade") === "websocket") {
      const { socket, response } = Deno.upgradeWebSocket(request);
      socket.onmessage = (event) => socket.send(`${name}: ${event.data}`);
      return response;
    }
    if (pathname === "/headers") {
      return Response.json(Object.fromEntries(request.headers), { headers: { "X-Backend": name } });
    }
    return new Response(name);
  });
}

/** Three backends named a, b and c and their ports; stopped on dispose. */
function backends(): { ports: number[]; servers: Deno.HttpServer[] } & AsyncDisposable {
  const ports = freePorts(3);
  const servers = ports.map((port, index) => backend("abc"[index]!, port));
  return {
    ports,
    servers,
    async [Symbol.asyncDispose]() {
      await Promise.all(servers.map((server) => server.shutdown()));
    },
  };
}

/** The names of the backends that answer `count` GET requests sent one after another. */
async function names(origin: string, count: number): Promise<string[]> {
  const answered: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(origin + "/");
    assert.equal(response.status, 200);
    answered.push(await response.text());
  }
  return answered;
}

Deno.test("Redis starts, answers PING, and stops and starts again on the same port", {
  ignore: NO_CLUSTER,
}, async () => {
  await using redis = await startRedis();
  assert.equal(redis.url, `redis://127.0.0.1:${redis.port}/0`);
  assert.equal(await ping(redis.port), "+PONG");

  await redis.stop();
  assert.equal(redis.running, false);
  await assert.rejects(ping(redis.port), Deno.errors.ConnectionRefused);

  await redis.start();
  assert.equal(redis.running, true);
  assert.equal(await ping(redis.port), "+PONG");
});

Deno.test("HAProxy spreads plain GET requests over three backends round-robin", {
  ignore: NO_CLUSTER,
}, async () => {
  await using servers = backends();
  await using balancer = await startBalancer(servers.ports, { checkPath: "/" });
  const answered = await names(balancer.origin, 9);
  assert.equal(new Set(answered.slice(0, 3)).size, 3, answered.join(","));
  for (let i = 3; i < answered.length; i++) {
    assert.equal(answered[i], answered[i - 3], answered.join(","));
  }
  assert.deepEqual(await balancer.states(), ["UP", "UP", "UP"]);
});

Deno.test("HAProxy tells the backends who asked, over which scheme and for which host", {
  ignore: NO_CLUSTER,
}, async () => {
  await using servers = backends();
  await using balancer = await startBalancer(servers.ports, { checkPath: "/" });
  const response = await fetch(balancer.origin + "/headers", {
    headers: { "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example" },
  });
  const headers = await response.json();
  assert.equal(headers["x-forwarded-proto"], "http");
  assert.equal(headers["x-forwarded-host"], `127.0.0.1:${balancer.port}`);
  assert.equal(headers["host"], `127.0.0.1:${balancer.port}`);
  assert.equal(headers["x-forwarded-for"], "127.0.0.1");
});

Deno.test(
  "HAProxy passes a WebSocket upgrade through to one backend",
  { ignore: NO_CLUSTER },
  async () => {
    await using servers = backends();
    await using balancer = await startBalancer(servers.ports, { checkPath: "/" });
    const socket = new WebSocket(balancer.origin.replace("http:", "ws:") + "/echo");
    const closed = new Promise<CloseEvent>((resolve) => socket.onclose = resolve);
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = () => reject(new Error("The WebSocket through HAProxy did not open"));
    });
    const answers: string[] = [];
    const twoAnswers = new Promise<void>((resolve) => {
      socket.onmessage = (event) => {
        answers.push(event.data);
        if (answers.length === 2) resolve();
      };
    });
    socket.send("hello");
    socket.send("again");
    await twoAnswers;
    // Both messages went over the one upgraded connection, so one backend answered both.
    const name = answers[0]!.split(":")[0]!;
    assert.deepEqual(answers, [`${name}: hello`, `${name}: again`]);
    socket.close();
    assert.equal((await closed).wasClean, true);
  },
);

/** Resolves once `origin` refuses connections, polling it; rejects if it still answers after 5 s. */
async function refusing(origin: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    try {
      await (await fetch(origin + "/")).body?.cancel();
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${origin} still answers`);
}

Deno.test("HAProxy stopping takes no new request but lets those under way and WebSockets end", {
  ignore: NO_CLUSTER,
}, async () => {
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const { promise: arrived, resolve: arrive } = Promise.withResolvers<void>();
  const sockets: WebSocket[] = [];
  const [port] = freePorts(1) as [number];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen: () => {} },
    async (request) => {
      if (request.headers.get("upgrade") === "websocket") {
        const { socket, response } = Deno.upgradeWebSocket(request);
        sockets.push(socket);
        return response;
      }
      if (new URL(request.url).pathname === "/slow") {
        arrive();
        await released;
      }
      return new Response("answered");
    },
  );
  try {
    await using balancer = await startBalancer([port], { checkPath: "/" });
    const socket = new WebSocket(balancer.origin.replace("http:", "ws:") + "/");
    const closed = new Promise<CloseEvent>((resolve) => socket.onclose = resolve);
    const told = new Promise<string>((resolve) =>
      socket.onmessage = (event) => resolve(event.data)
    );
    await new Promise((resolve) => socket.onopen = resolve);
    const pending = fetch(balancer.origin + "/slow");
    await arrived;

    balancer.drain();
    await refusing(balancer.origin);
    release();
    assert.equal(await (await pending).text(), "answered");
    sockets[0]!.send("going away");
    sockets[0]!.close(1001, "stopped");
    assert.equal(await told, "going away");
    const event = await closed;
    assert.deepEqual([event.code, event.reason], [1001, "stopped"]);
    await balancer.stop();
  } finally {
    await server.shutdown();
  }
});

Deno.test("HAProxy routes around a stopped backend and back to it once it is started again", {
  ignore: NO_CLUSTER,
}, async () => {
  await using servers = backends();
  await using balancer = await startBalancer(servers.ports, { checkPath: "/" });
  await servers.servers[1]!.shutdown();

  // At once, before any health check saw it go: requests it refuses are sent to another.
  const answered = await names(balancer.origin, 6);
  assert.ok(!answered.includes("b"), answered.join(","));
  assert.deepEqual(new Set(answered), new Set(["a", "c"]));
  await balancer.waitForState(1, "DOWN");
  assert.ok(!(await names(balancer.origin, 4)).includes("b"));

  servers.servers[1] = backend("b", servers.ports[1]!);
  await balancer.waitForState(1, "UP");
  assert.deepEqual(new Set(await names(balancer.origin, 3)), new Set(["a", "b", "c"]));
});

/** A temporary copy of the basic site, removed on dispose. */
async function basicSite() {
  const dir = await tempDir("aim-cluster-site-");
  for (const [path, content] of Object.entries(BASIC_SITE)) {
    await Deno.mkdir(`${dir.path}/${path}`.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir.path}/${path}`, content);
  }
  return dir;
}

/** The `sitemap` URL of a manifest fetched from `origin`: it is made from the public URL. */
async function sitemapUrl(origin: string): Promise<string> {
  const response = await fetch(origin + "/control-panel.json");
  assert.equal(response.status, 200);
  return (await response.json()).sitemap;
}

Deno.test("a cluster puts its bridges behind the balancer, each given its origin as public URL", {
  ignore: NO_CLUSTER,
}, async () => {
  await using site = await basicSite();
  await using cluster = await startCluster({ root: site.path, instances: 2 });
  assert.equal(cluster.origin, cluster.balancer.origin);
  assert.deepEqual(cluster.balancer.backendPorts, cluster.instances.map((i) => i.port));
  assert.notEqual(cluster.instances[0]!.port, cluster.instances[1]!.port);
  for (let i = 0; i < 4; i++) {
    assert.equal(await sitemapUrl(cluster.origin), `${cluster.origin}/sitemap.json`);
  }
  for (const instance of cluster.instances) {
    assert.equal(instance.served?.port, instance.port);
    assert.equal(await sitemapUrl(instance.url), `${cluster.origin}/sitemap.json`);
  }
});

Deno.test("a cluster's bridges answer the requests through the balancer in turn", {
  ignore: NO_CLUSTER,
}, async () => {
  await using site = await basicSite();
  await using cluster = await startCluster({ root: site.path, instances: 3 });
  const answered: string[] = [];
  for (let i = 0; i < 6; i++) {
    const response = await fetch(cluster.origin + "/sitemap.json");
    await response.body?.cancel();
    answered.push(response.headers.get("X-Aim-Instance") ?? "none");
  }
  assert.equal(new Set(answered.slice(0, 3)).size, 3, answered.join(","));
  assert.deepEqual(answered.slice(3), answered.slice(0, 3));
});

Deno.test("a cluster's bridge stopped is routed around, and started again on its port is back", {
  ignore: NO_CLUSTER,
}, async () => {
  await using site = await basicSite();
  await using cluster = await startCluster({ root: site.path, instances: 2 });
  const [, second] = cluster.instances;
  await second!.stop();
  assert.equal(second!.running, false);
  assert.equal(second!.served, undefined);
  for (let i = 0; i < 4; i++) await sitemapUrl(cluster.origin);
  await cluster.balancer.waitForState(1, "DOWN");

  await second!.start();
  assert.deepEqual(await cluster.balancer.states(), ["UP", "UP"]);
  assert.equal(await sitemapUrl(second!.url), `${cluster.origin}/sitemap.json`);
});

Deno.test("a cluster of aim serve processes survives one killed and started again", {
  ignore: NO_CLUSTER,
}, async () => {
  await using site = await basicSite();
  await using cluster = await startCluster({
    root: site.path,
    instances: 2,
    inProcess: false,
    args: ["--quiet"],
  });
  const [first, second] = cluster.instances;
  assert.ok(first!.process && second!.process);
  await second!.stop("SIGKILL");
  for (let i = 0; i < 4; i++) await sitemapUrl(cluster.origin);
  await second!.start();
  assert.equal(await sitemapUrl(second!.url), `${cluster.origin}/sitemap.json`);
});
