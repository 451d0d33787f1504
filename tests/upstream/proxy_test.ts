/**
 * `aim serve --upstream`: what a reverse proxy must do, spoken over real sockets to an app on
 * port 0 (headers, bodies streamed both ways, server-sent events, WebSockets, redirects,
 * cookies, compression), and how it fails (502/504 with aim's error body, never a hang).
 * @module
 */
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { IN_FRONT, startAim, startApp, startRawApp } from "../helpers/upstream.ts";

/** An app that answers with what it received. */
function echoApp() {
  return startApp(async (request) => {
    const url = new URL(request.url);
    const headers = Object.fromEntries(request.headers);
    const body = request.body ? await request.text() : "";
    return Response.json({
      path: url.pathname + url.search,
      method: request.method,
      headers,
      body,
    });
  });
}

async function assertAimError(res: Response, status: number, code: string): Promise<void> {
  assert.equal(res.status, status);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  assert.equal(res.headers.get("cache-control"), "private, no-store");
  const body = await res.json();
  assert.equal(body.error, code);
  assert.equal(typeof body.message, "string");
}

Deno.test("a request is forwarded with its method, path, query, body and the browser's Host", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url);
  const res = await fetch(`${aim.url}/items/3?edit=1&x=%20y`, {
    method: "PUT",
    body: "name=pen",
    headers: {
      "User-Agent": "agent-test/1",
      "Accept-Language": "fr-CH",
      "X-App-Thing": "kept",
      "Authorization": "Basic dXNlcjpwYXNz",
    },
  });
  assert.equal(res.status, 200);
  const seen = await res.json();
  assert.equal(seen.method, "PUT");
  assert.equal(seen.path, "/items/3?edit=1&x=%20y");
  assert.equal(seen.body, "name=pen");
  assert.equal(seen.headers.host, new URL(aim.url).host);
  assert.equal(seen.headers["user-agent"], "agent-test/1");
  assert.equal(seen.headers["accept-language"], "fr-CH");
  assert.equal(seen.headers["x-app-thing"], "kept");
  assert.equal(seen.headers.authorization, "Basic dXNlcjpwYXNz");
  assert.equal(seen.headers["x-forwarded-for"], "127.0.0.1");
  assert.equal(seen.headers["x-forwarded-proto"], "http");
  assert.equal(seen.headers["x-forwarded-host"], new URL(aim.url).host);
});

Deno.test(
  "with preserveHost off the app gets its own Host, and a Location naming it is rewritten",
  IN_FRONT,
  async () => {
    await using app = startApp((request) => {
      const url = new URL(request.url);
      if (url.pathname === "/go") {
        return new Response(null, { status: 302, headers: { Location: `${app.url}/there?a=1` } });
      }
      return Response.json({ host: request.headers.get("host") });
    });
    await using aim = startAim(app.url, { proxy: { preserveHost: false, forwarded: false } });
    const seen = await (await fetch(`${aim.url}/`)).json();
    assert.equal(seen.host, new URL(app.url).host);
    const res = await fetch(`${aim.url}/go`, { redirect: "manual" });
    await res.body?.cancel();
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), `${aim.url}/there?a=1`);
  },
);

Deno.test("a client's X-Forwarded-For is replaced, not trusted, unless aim trusts the proxy in front", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url);
  const seen = await (await fetch(`${aim.url}/`, {
    headers: { "X-Forwarded-For": "6.6.6.6", "X-Forwarded-Host": "evil.example" },
  })).json();
  assert.equal(seen.headers["x-forwarded-for"], "127.0.0.1");
  assert.equal(seen.headers["x-forwarded-host"], new URL(aim.url).host);
});

Deno.test(
  "hop-by-hop headers are dropped both ways, those named in Connection included",
  IN_FRONT,
  async () => {
    await using app = startApp((request) =>
      Response.json(Object.fromEntries(request.headers), {
        headers: {
          "Connection": "x-app-hop",
          "X-App-Hop": "1",
          "Keep-Alive": "timeout=5",
          "X-End": "kept",
        },
      })
    );
    await using aim = startAim(app.url);
    const res = await fetch(`${aim.url}/`, {
      headers: {
        "Connection": "x-client-hop",
        "X-Client-Hop": "secret",
        "TE": "trailers",
        "Proxy-Authorization": "Basic eDp5",
        "Keep-Alive": "timeout=5",
      },
    });
    const seen = await res.json();
    for (const name of ["x-client-hop", "te", "proxy-authorization", "keep-alive"]) {
      assert.equal(seen[name], undefined, name);
    }
    assert.equal(res.headers.get("x-app-hop"), null);
    assert.equal(res.headers.get("keep-alive"), null);
    assert.equal(res.headers.get("x-end"), "kept");
  },
);

Deno.test(
  "redirects and the app's cookies pass unchanged, and no app can set aim's cookie",
  IN_FRONT,
  async () => {
    await using app = startApp(() => {
      const headers = new Headers({ Location: "/login?next=%2Fedit" });
      headers.append("Set-Cookie", "PHPSESSID=abc; Path=/; HttpOnly");
      headers.append("Set-Cookie", "theme=dark; Path=/; Max-Age=60");
      headers.append("Set-Cookie", "aim_session=planted; Path=/");
      headers.append("Set-Cookie", "__Host-aim_session=planted; Path=/; Secure");
      headers.append("Set-Cookie", "AIM_SESSION=planted; Path=/");
      return new Response(null, { status: 303, headers });
    });
    await using aim = startAim(app.url);
    const res = await fetch(`${aim.url}/edit`, { method: "POST", body: "x", redirect: "manual" });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/login?next=%2Fedit");
    assert.deepEqual(res.headers.getSetCookie(), [
      "PHPSESSID=abc; Path=/; HttpOnly",
      "theme=dark; Path=/; Max-Age=60",
    ]);
  },
);

Deno.test("aim's cookie, the tab key and an aim token are never sent to the app; the app's own are", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url);
  const grant = await (await fetch(`${aim.url}/__aim/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: aim.url },
    body: JSON.stringify({ page: "/page" }),
  })).json();
  const token: string = grant.sessionToken;
  const seen = await (await fetch(`${aim.url}/page`, {
    headers: {
      Cookie: `PHPSESSID=abc; aim_session=${token}; __Host-aim_session=${token}; theme=dark`,
      Authorization: `Bearer ${token}`,
      "X-Aim-Tab": "tab-key",
    },
  })).json();
  assert.equal(seen.headers.cookie, "PHPSESSID=abc; theme=dark");
  assert.equal(seen.headers.authorization, undefined);
  assert.equal(seen.headers["x-aim-tab"], undefined);
  assert.ok(!JSON.stringify(seen).includes(token));
  assert.ok(!JSON.stringify(seen).includes(grant.tabCredential));
});

Deno.test("a path that names one of aim's routes never reaches the app, whatever its method or spelling", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url);
  const paths = [
    "/__aim/session",
    "/__aim/invoke",
    "/__aim/tab",
    "/__aim/mcp",
    "/__aim/unknown",
    "/__AIM/session",
    "/__aim",
    "//__aim/session",
    "/%5F%5Faim/session",
    "/%2F__aim/session",
    "/x/../__aim/session",
    "/sitemap.json",
    "/sitemap.toon",
    "/page.toon",
    "/ping",
    "/agents",
    "/agents/home",
    "/runs",
    "/runs/1/events",
    "/.well-known/agent-card.json",
  ];
  for (const path of paths) {
    for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const res = await fetch(`${aim.url}${path}`, {
        method,
        ...(method === "GET" ? {} : { body: "{}" }),
      });
      await res.body?.cancel();
    }
  }
  // What the app may see: the public catalog's anonymous reads (a manifest names a page; the
  // site map lists them), never one of the requests above.
  assert.deepEqual(app.seen.filter((s) => s !== "GET /page" && s !== "GET /sitemap.xml"), []);
});

Deno.test(
  "an upload of 100 MB streams through: the app reads it before the client has sent it all",
  IN_FRONT,
  async () => {
    const total = 100 * 1024 * 1024;
    const chunk = new Uint8Array(256 * 1024).fill(97);
    const { promise: appReading, resolve: appStarted } = Promise.withResolvers<void>();
    let received = 0;
    await using app = startApp(async (request) => {
      for await (const part of request.body!) {
        received += part.length;
        if (received >= 8 * chunk.length) appStarted();
      }
      return Response.json({ received });
    });
    await using aim = startAim(app.url);
    let sent = 0;
    let sentWhenAppRead = -1;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent >= total) return controller.close();
        // Half-way, the client waits until the app has read some: a proxy that buffered the whole
        // upload would never pass it on, and this test would time out.
        if (sent === total / 2) {
          await appReading;
          sentWhenAppRead = sent;
        }
        controller.enqueue(chunk.slice());
        sent += chunk.length;
      },
    });
    const res = await fetch(`${aim.url}/upload`, {
      method: "POST",
      body,
      duplex: "half",
      signal: AbortSignal.timeout(60_000),
    } as RequestInit);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: total });
    assert.equal(sentWhenAppRead, total / 2);
  },
);

Deno.test("a download and server-sent events stream: the first event arrives before the app sends the next", async () => {
  const { promise: clientGotFirst, resolve: gotFirst } = Promise.withResolvers<void>();
  await using app = startApp(() => {
    const encoder = new TextEncoder();
    const stream = new ReadableStream({
      async start(controller) {
        controller.enqueue(encoder.encode("data: one\n\n"));
        await clientGotFirst;
        controller.enqueue(encoder.encode("data: two\n\n"));
        controller.close();
      },
    });
    return new Response(stream, {
      headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" },
    });
  });
  await using aim = startAim(app.url);
  const res = await fetch(`${aim.url}/events`);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("data: one\n\n")) text += (await reader.read()).value ?? "";
  assert.ok(!text.includes("two"));
  gotFirst();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  assert.equal(text, "data: one\n\ndata: two\n\n");
});

Deno.test("the app's WebSocket is piped both ways, with its subprotocol and the app's cookies", async () => {
  await using app = startApp((request) => {
    if (request.headers.get("upgrade") !== "websocket") return new Response("no", { status: 400 });
    const cookie = request.headers.get("cookie");
    const { socket, response } = Deno.upgradeWebSocket(request, { protocol: "chat.v1" });
    socket.onmessage = (e) => socket.send(`echo ${e.data} cookie=${cookie}`);
    return response;
  });
  await using aim = startAim(app.url);
  const ws = new WebSocket(`${aim.url.replace("http", "ws")}/socket`, {
    protocols: ["chat.v1"],
    headers: { Cookie: "PHPSESSID=abc; aim_session=secret" },
  } as unknown as string[]);
  const { promise: opened, resolve: open } = Promise.withResolvers<void>();
  const { promise: message, resolve: got } = Promise.withResolvers<string>();
  const { promise: closed, resolve: close } = Promise.withResolvers<void>();
  ws.onopen = () => open();
  ws.onmessage = (e) => got(e.data);
  ws.onclose = () => close();
  await opened;
  assert.equal(ws.protocol, "chat.v1");
  ws.send("hi");
  assert.equal(await message, "echo hi cookie=PHPSESSID=abc");
  ws.close();
  await closed;
});

Deno.test("a gzip answer reaches a client that accepts gzip as the same bytes", async () => {
  const text = "compressible ".repeat(2000);
  const gzipped = new Uint8Array(
    await new Response(
      new Blob([new TextEncoder().encode(text)]).stream().pipeThrough(
        new CompressionStream("gzip"),
      ),
    ).arrayBuffer(),
  );
  await using app = startApp(() =>
    new Response(gzipped, {
      headers: { "Content-Type": "text/plain", "Content-Encoding": "gzip" },
    })
  );
  await using aim = startAim(app.url);
  // A client that decodes by itself: the raw bytes and their coding, through a TCP socket.
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: aim.port });
  await conn.write(
    new TextEncoder().encode(
      `GET / HTTP/1.1\r\nHost: 127.0.0.1:${aim.port}\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n`,
    ),
  );
  const raw = new Uint8Array(await new Response(conn.readable).arrayBuffer());
  const split = raw.findIndex((_, i) =>
    raw[i] === 13 && raw[i + 1] === 10 && raw[i + 2] === 13 && raw[i + 3] === 10
  );
  const head = new TextDecoder().decode(raw.slice(0, split)).toLowerCase();
  let body: Uint8Array = raw.slice(split + 4);
  if (head.includes("transfer-encoding: chunked")) body = dechunk(body);
  const plain = head.includes("content-encoding: gzip") ? gunzipSync(body) : body;
  assert.equal(new TextDecoder().decode(plain), text);
});

/** The body of a chunked message. */
function dechunk(data: Uint8Array): Uint8Array {
  const out: number[] = [];
  let at = 0;
  for (;;) {
    const end = data.indexOf(13, at);
    const size = parseInt(new TextDecoder().decode(data.slice(at, end)), 16);
    if (!size) break;
    out.push(...data.slice(end + 2, end + 2 + size));
    at = end + 2 + size + 2;
  }
  return new Uint8Array(out);
}

Deno.test(
  "an app that is down gets the client 502 bad_gateway with aim's error body",
  IN_FRONT,
  async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await using aim = startAim(`http://127.0.0.1:${port}`);
    await assertAimError(await fetch(`${aim.url}/anything`), 502, "bad_gateway");
  },
);

Deno.test(
  "an app that answers garbage gets the client 502 bad_gateway",
  IN_FRONT,
  async () => {
    await using app = startRawApp("this is not HTTP\r\n\r\n");
    await using aim = startAim(app.url);
    await assertAimError(await fetch(`${aim.url}/`), 502, "bad_gateway");
  },
);

Deno.test(
  "an app slower than the timeout gets the client 504 gateway_timeout, and aim goes on",
  IN_FRONT,
  async () => {
    const { promise: never, resolve: release } = Promise.withResolvers<void>();
    await using app = startApp(async (request) => {
      if (new URL(request.url).pathname === "/slow") await never;
      return new Response("fast");
    });
    await using aim = startAim(app.url, { proxy: { timeoutMs: 200 } });
    try {
      await assertAimError(await fetch(`${aim.url}/slow`), 504, "gateway_timeout");
      assert.equal(await (await fetch(`${aim.url}/fast`)).text(), "fast");
    } finally {
      release();
    }
  },
);

Deno.test("an app that dies mid-answer cuts the client's body, and aim goes on answering", async () => {
  await using app = startApp((request) => {
    if (new URL(request.url).pathname === "/ok") return new Response("ok");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(64 * 1024).fill(98));
      },
      pull(controller) {
        controller.error(new Error("the app died"));
      },
    });
    return new Response(stream, { headers: { "Content-Type": "application/octet-stream" } });
  });
  await using aim = startAim(app.url);
  const res = await fetch(`${aim.url}/download`);
  assert.equal(res.status, 200);
  await assert.rejects(() => res.arrayBuffer());
  assert.equal(await (await fetch(`${aim.url}/ok`)).text(), "ok");
});

Deno.test(
  "the Host check holds in front of an app: a foreign Host is refused and never forwarded",
  IN_FRONT,
  async () => {
    await using app = echoApp();
    await using aim = startAim(app.url);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: aim.port });
    await conn.write(
      new TextEncoder().encode(
        "GET /page HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
      ),
    );
    const text = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
    assert.match(text, /^HTTP\/1\.1 403/);
    assert.match(text, /"forbidden_host"/);
    assert.deepEqual(app.seen, []);
  },
);

Deno.test("the Origin check holds in front of an app: another origin mints no session", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url);
  const res = await fetch(`${aim.url}/__aim/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: "https://evil.example" },
    body: JSON.stringify({ page: "/page" }),
  });
  await assertAimError(res, 403, "forbidden_origin");
  assert.equal(res.headers.get("set-cookie"), null);
  assert.deepEqual(app.seen, []);
});
