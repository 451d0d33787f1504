/**
 * The reverse proxy's own decisions (bridge/upstream/proxy.ts), on `UpstreamProxy` itself in
 * front of an app on port 0, without a bridge: which upstreams it takes, which URL of the app a
 * request goes to, what is forwarded (the method, the body, the headers without aim's secrets;
 * every value of their shape when it cannot look them up), when the app's time to answer runs,
 * how each failure is answered and told, which `Location` is rewritten, and which door answers
 * what. How a WebSocket is opened to the app is tests/upstream/forward_websocket_test.ts's;
 * tests/upstream/proxy_test.ts holds the same through a real aim.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import {
  AimCredentials,
  type IssuedSecrets,
  secretCandidates,
} from "../../bridge/http/credentials.ts";
import type { AppEnv } from "../../bridge/http/env.ts";
import { hashToken, newToken } from "../../bridge/core/tokens.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import {
  CLIENT_CLOSED_REQUEST,
  HANG_UP_WATCH_MS,
  type ProxyOptions,
  proxyRoutes,
  UpstreamProxy,
} from "../../bridge/upstream/proxy.ts";
import { aimPaths } from "../../bridge/upstream/routes.ts";
import { startApp, startRawApp } from "../helpers/upstream.ts";
import { expectError } from "../helpers/errors.ts";
import { echoApp, failures, FROM, rejectsWith } from "../helpers/proxy_checks.ts";

/**
 * `answer`, or a rejection after 2 s: a bound, not a wait, so that a hang-up the proxy missed
 * (which would leave the answer pending) fails the test instead of hanging it.
 */
async function withinBound(answer: Promise<Response>): Promise<Response> {
  let bound: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    bound = setTimeout(() => reject(new Error("the hang-up was not seen within 2 s")), 2_000);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(bound);
  }
}

Deno.test("an upstream is an http or https URL; any other scheme is refused", () => {
  for (const url of ["http://127.0.0.1:1", "https://app.example/base/"]) {
    using proxy = new UpstreamProxy(url);
    assert.equal(proxy.upstream.href, new URL(url).href);
  }
  for (const url of ["ftp://app.example", "ws://app.example", "file:///srv", "data:,x"]) {
    assert.throws(() => new UpstreamProxy(url), TypeError, url);
  }
});

Deno.test("target() is the app's URL of a request's path and query: under the upstream's path, without the fragment", () => {
  const table: [string, string, "ws" | undefined, string][] = [
    ["http://app:1", "http://aim.example/x?y=1", undefined, "http://app:1/x?y=1"],
    ["http://app:1", "http://aim.example/x?y=1#top", undefined, "http://app:1/x?y=1"],
    ["http://app:1", "http://aim.example/a#b?c", undefined, "http://app:1/a"],
    ["http://app:1/base/", "http://aim.example/x", undefined, "http://app:1/base/x"],
    ["http://app:1/base", "http://aim.example/x", undefined, "http://app:1/base/x"],
    ["http://app:1", "http://aim.example", undefined, "http://app:1/"],
    ["http://app:1", "http://aim.example/socket", "ws", "ws://app:1/socket"],
    ["https://app.example/b/", "http://aim.example/socket?x", "ws", "wss://app.example/b/socket?x"],
  ];
  for (const [upstream, url, scheme, target] of table) {
    using proxy = new UpstreamProxy(upstream);
    assert.equal(proxy.target(url, scheme), target, `${upstream} ${url} ${scheme}`);
  }
});

Deno.test("a request reaches the app with its method, path, query and body, and the forwarding headers", async () => {
  await using app = echoApp();
  using proxy = new UpstreamProxy(app.url);
  const res = await proxy.forwardRequest(
    new Request("http://aim.example/items/3?edit=1", {
      method: "PUT",
      body: "name=pen",
      headers: { Host: "aim.example", "X-App": "kept" },
    }),
    FROM,
  );
  const seen = await res.json();
  assert.equal(seen.method, "PUT");
  assert.equal(seen.path, "/items/3?edit=1");
  assert.equal(seen.body, "name=pen");
  assert.equal(seen.headers.host, "aim.example");
  assert.equal(seen.headers["x-app"], "kept");
  assert.equal(seen.headers["x-forwarded-for"], "192.0.2.9");
  assert.equal(seen.headers["x-real-ip"], "192.0.2.1");
  assert.equal(seen.headers["x-forwarded-proto"], "http");
});

Deno.test("the proxy's options reach the headers: the app's own Host, no forwarding headers, a trusted chain", async () => {
  await using app = echoApp();
  const request = () =>
    new Request("http://aim.example/", {
      headers: { Host: "aim.example", "X-Forwarded-For": "203.0.113.5" },
    });
  const table: [ProxyOptions, string, string | undefined][] = [
    [{}, "aim.example", "192.0.2.9"],
    [{ preserveHost: false }, new URL(app.url).host, "192.0.2.9"],
    [{ forwarded: false }, "aim.example", undefined],
    [{ trustForwarded: true }, "aim.example", "203.0.113.5, 192.0.2.9"],
  ];
  for (const [options, host, forwardedFor] of table) {
    using proxy = new UpstreamProxy(app.url, options);
    const seen = await (await proxy.forwardRequest(request(), FROM)).json();
    assert.equal(seen.headers.host, host, JSON.stringify(options));
    assert.equal(seen.headers["x-forwarded-for"], forwardedFor, JSON.stringify(options));
  }
});

Deno.test("without a way to look secrets up, every value of their shape is kept from the app; with one, only aim's", async () => {
  await using app = echoApp();
  const aims = newToken();
  const apps = newToken();
  const headers = {
    Authorization: `Bearer ${apps}, Basic eDp5`,
    "Sec-WebSocket-Protocol": `chat, ${aims}`,
  };
  {
    using proxy = new UpstreamProxy(app.url);
    const request = new Request("http://aim.example/", { headers });
    const seen = await (await proxy.forwardRequest(request, FROM)).json();
    assert.equal(seen.headers.authorization, "Basic eDp5");
    assert.equal(seen.headers["sec-websocket-protocol"], "chat");
  }
  const store = {
    holds: (hash: string) => hash === hashToken(aims),
    share: { shared: false },
  } as unknown as IssuedSecrets;
  using proxy = new UpstreamProxy(app.url, { credentials: new AimCredentials(store) });
  const seen =
    await (await proxy.forwardRequest(new Request("http://aim.example/", { headers }), FROM))
      .json();
  assert.equal(seen.headers.authorization, `Bearer ${apps}, Basic eDp5`);
  assert.equal(seen.headers["sec-websocket-protocol"], "chat");
  // Nothing of their shape: nothing removed, with or without a lookup.
  assert.deepEqual(secretCandidates("Basic eDp5"), []);
  using plain = new UpstreamProxy(app.url);
  const basic = await (await plain.forwardRequest(
    new Request("http://aim.example/", { headers: { Authorization: "Basic eDp5" } }),
    FROM,
  )).json();
  assert.equal(basic.headers.authorization, "Basic eDp5");
});

Deno.test("a redirect is the client's to follow, not the proxy's", async () => {
  await using app = startApp((request) =>
    new URL(request.url).pathname === "/go"
      ? new Response(null, { status: 302, headers: { Location: "/there" } })
      : new Response("there")
  );
  using proxy = new UpstreamProxy(app.url);
  const res = await proxy.forwardRequest(new Request("http://aim.example/go"), FROM);
  assert.equal(res.status, 302);
  assert.equal(res.headers.get("location"), "/there");
  assert.deepEqual(app.seen, ["GET /go"]);
});

Deno.test("an app that is down is a 502 told as bad_gateway; one that answers garbage too", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const down = failures();
  using proxy = new UpstreamProxy(`http://127.0.0.1:${port}`, down.options);
  await rejectsWith(
    proxy.forwardRequest(new Request("http://aim.example/"), FROM),
    "bad_gateway",
    502,
  );
  assert.deepEqual(down.told, ["bad_gateway"]);
  await using garbage = startRawApp("this is not HTTP\r\n\r\n");
  const broken = failures();
  using other = new UpstreamProxy(garbage.url, broken.options);
  await rejectsWith(
    other.forwardRequest(new Request("http://aim.example/"), FROM),
    "bad_gateway",
    502,
  );
  assert.deepEqual(broken.told, ["bad_gateway"]);
});

Deno.test("an answer framed both by Transfer-Encoding and Content-Length is a 502 told as bad_gateway", async () => {
  await using app = startRawApp(
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5000\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
  );
  const told = failures();
  using proxy = new UpstreamProxy(app.url, told.options);
  await rejectsWith(
    proxy.forwardRequest(new Request("http://aim.example/"), FROM),
    "bad_gateway",
    502,
  );
  assert.deepEqual(told.told, ["bad_gateway"]);
});

Deno.test("an app slower than the timeout is a 504 told as gateway_timeout, the timeout said in seconds", async () => {
  const { promise: never, resolve: release } = Promise.withResolvers<void>();
  await using app = startApp(async () => {
    await never;
    return new Response("late");
  });
  const told = failures();
  using proxy = new UpstreamProxy(app.url, { ...told.options, timeoutMs: 50 });
  try {
    await assert.rejects(
      proxy.forwardRequest(new Request("http://aim.example/"), FROM),
      (error) =>
        error instanceof AimError && error.code === "gateway_timeout" && error.status === 504 &&
        error.message === "The app behind aim did not answer within 0.05 s; retry later.",
    );
    assert.deepEqual(told.told, ["gateway_timeout"]);
  } finally {
    release();
  }
});

Deno.test("the app's time to answer runs once it has the whole upload, not while the client sends it", async () => {
  const { promise: never, resolve: release } = Promise.withResolvers<void>();
  await using app = startApp(async (request) => {
    const body = await request.text();
    if (body === "hang") await never;
    return new Response(`got ${body.length}`);
  });
  using proxy = new UpstreamProxy(app.url, { timeoutMs: 100 });
  try {
    // An upload that takes three times the timeout: the app answers it.
    let sent = 0;
    const slow = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 3) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, 100));
        controller.enqueue(new Uint8Array([97]));
        sent++;
      },
    });
    const upload = new Request("http://aim.example/", {
      method: "POST",
      body: slow,
      duplex: "half",
    } as RequestInit);
    assert.equal(await (await proxy.forwardRequest(upload, FROM)).text(), "got 3");
    // Once the upload is whole, an app that does not answer runs out of time.
    const hang = new Request("http://aim.example/", { method: "POST", body: "hang" });
    await rejectsWith(proxy.forwardRequest(hang, FROM), "gateway_timeout", 504);
  } finally {
    release();
  }
});

Deno.test("a client that hangs up before the app answered gets 499, and no failure of the app is told", async () => {
  const { promise: reached, resolve: reach } = Promise.withResolvers<void>();
  const { promise: never, resolve: release } = Promise.withResolvers<void>();
  await using app = startApp(async () => {
    reach();
    await never;
    return new Response("late");
  });
  const told = failures();
  using proxy = new UpstreamProxy(app.url, told.options);
  try {
    const controller = new AbortController();
    const request = new Request("http://aim.example/", { signal: controller.signal });
    const answer = proxy.forwardRequest(request, FROM);
    await reached;
    controller.abort();
    assert.equal((await withinBound(answer)).status, CLIENT_CLOSED_REQUEST);
    assert.equal(CLIENT_CLOSED_REQUEST, 499);
    assert.deepEqual(told.told, []);
  } finally {
    release();
  }
});

Deno.test("a client that hangs up while aim already watches (an app slower than the watch's start) gets 499 at once", async () => {
  const { promise: reached, resolve: reach } = Promise.withResolvers<void>();
  const { promise: never, resolve: release } = Promise.withResolvers<void>();
  await using app = startApp(async () => {
    reach();
    await never;
    return new Response("late");
  });
  const told = failures();
  using proxy = new UpstreamProxy(app.url, told.options);
  try {
    const controller = new AbortController();
    const request = new Request("http://aim.example/", { signal: controller.signal });
    const answer = proxy.forwardRequest(request, FROM);
    await reached;
    // The watch starts HANG_UP_WATCH_MS after the request came: the hang-up comes later.
    await new Promise((resolve) => setTimeout(resolve, 3 * HANG_UP_WATCH_MS));
    controller.abort();
    assert.equal((await withinBound(answer)).status, CLIENT_CLOSED_REQUEST);
    assert.deepEqual(told.told, []);
  } finally {
    release();
  }
});

Deno.test("with preserveHost off, a Location is rewritten to aim's origin only when it names the app's own", async () => {
  let location = "";
  await using app = startApp(() =>
    new Response(null, { status: 302, headers: { Location: location } })
  );
  const own = app.url;
  const port = Number(new URL(own).port);
  const table: [string, string][] = [
    [`${own}/there?a=1#h`, "http://aim.example/there?a=1#h"],
    [`${own.toUpperCase()}/x`, "http://aim.example/x"],
    [`//127.0.0.1:${port}/x`, "http://aim.example/x"],
    [`http://127.0.0.1:${port}0/x`, `http://127.0.0.1:${port}0/x`],
    ["https://other.example/x", "https://other.example/x"],
    ["/relative?a=1", "/relative?a=1"],
    ["relative", "relative"],
    ["http://[::1", "http://[::1"],
    ["mailto:someone@example.com", "mailto:someone@example.com"],
  ];
  using rewriting = new UpstreamProxy(own, { preserveHost: false });
  using keeping = new UpstreamProxy(own);
  for (const [sent, seen] of table) {
    location = sent;
    const res = await rewriting.forwardRequest(new Request("http://aim.example/go"), FROM);
    assert.equal(res.headers.get("location"), seen, sent);
    const kept = await keeping.forwardRequest(new Request("http://aim.example/go"), FROM);
    assert.equal(kept.headers.get("location"), sent, `${sent}, host preserved`);
  }
});

Deno.test("a GET or HEAD that carries a body reaches the app without it", async () => {
  await using app = echoApp();
  using proxy = new UpstreamProxy(app.url);
  // Deno.serve hands over a GET with a body as it came: only a raw client sends one.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => proxy.forwardRequest(request, FROM),
  );
  try {
    for (const method of ["GET", "HEAD"]) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
      await conn.write(
        new TextEncoder().encode(
          `${method} /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc`,
        ),
      );
      const text = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
      assert.match(text, /^HTTP\/1\.1 200/, `${method}: ${text}`);
      if (method === "GET") assert.match(text, /"method":"GET".*"body":""/s);
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("the proxy's door judges paths by aim's routes and forwards the app's", async () => {
  await using app = echoApp();
  using proxy = new UpstreamProxy(app.url);
  const door = proxy.door(() => aimPaths([{ path: "/__aim/tab" }]));
  assert.equal(door.verdict("/__aim/tab"), "aim");
  assert.equal(door.verdict("/__aim;x/tab"), "ambiguous");
  assert.equal(door.verdict("/page"), "app");
  const seen = await (await door.forward(new Request("http://aim.example/page?x=1"), FROM)).json();
  assert.equal(seen.path, "/page?x=1");
});

Deno.test("the router's last route forwards the app's paths, and answers aim's and their spellings itself", async () => {
  await using app = echoApp();
  using proxy = new UpstreamProxy(app.url);
  const router = new Hono<AppEnv>();
  router.use((c, next) => {
    c.set("origin", "http://aim.example");
    c.set("client", "192.0.2.1");
    return next();
  });
  router.get("/__aim/tab", (c) => c.text("aim's"));
  proxyRoutes(router, proxy, aimPaths(router.routes));
  const body = await expectError(
    await router.request("/__aim/tab", { method: "POST" }),
    404,
    "not_found",
  );
  assert.equal(body.message, "/__aim/tab is one of aim's routes, and not with this method.");
  await expectError(await router.request("/__aim;x/tab?q=1"), 400, "bad_request");
  const seen = await (await router.request("/page?q=1")).json();
  assert.equal(seen.path, "/page?q=1");
  assert.equal(seen.headers["x-real-ip"], "192.0.2.1");
  assert.deepEqual(app.seen, ["GET /page?q=1"]);
});
