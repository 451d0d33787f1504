/**
 * Reading requests (bridge/http/request.ts), through a hono app as routes read them: the token in
 * every spelling of `Bearer` and from either session cookie (never two), the client's address
 * behind a proxy, the request's origin, the Origin check, JSON bodies within their size and time
 * limits, and the Host names a loopback-bound bridge answers.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type Context, Hono } from "hono";
import {
  addressOf,
  BODY_TIMEOUT_MS,
  clientAddress,
  forbiddenOrigin,
  hostName,
  isAllowedHost,
  isCrossOrigin,
  isLoopback,
  readBearer,
  readJson,
  readToken,
  remoteAddress,
  requestOrigin,
  SESSION_COOKIE,
} from "../../bridge/http/request.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { expectError } from "../helpers/errors.ts";

const TOKEN = "tok_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop";

/** An app whose one route answers what `read` makes of the request, errors as AimError says. */
function appOf(read: (c: Context) => unknown) {
  const app = new Hono();
  app.all("/", async (c) => c.json({ value: (await read(c)) ?? null }));
  app.onError((error) => {
    if (error instanceof AimError) return error.getResponse();
    throw error;
  });
  return app;
}

async function valueOf(res: Response): Promise<unknown> {
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()).value;
}

Deno.test("readBearer() reads the token after Bearer in any case, spaces or tabs around it", async () => {
  const app = appOf((c) => readBearer(c));
  for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
    for (const [before, after] of [[" ", ""], ["  ", ""], ["\t", ""], [" ", " "], [" ", "\t "]]) {
      const header = `${scheme}${before}${TOKEN}${after}`;
      const res = await app.request("/", { headers: { Authorization: header } });
      assert.equal(await valueOf(res), TOKEN, JSON.stringify(header));
    }
  }
  assert.equal(await valueOf(await app.request("/")), null, "no Authorization: no token");
});

Deno.test("readBearer() answers 401 invalid_token to an Authorization header that is not one Bearer token", async () => {
  const app = appOf((c) => readBearer(c));
  for (
    const header of [
      "",
      "Bearer",
      "Bearer ",
      `Bearer${TOKEN}`,
      `Basic ${btoa("a:b")}`,
      `Token ${TOKEN}`,
      `Bearer ${TOKEN} extra`,
      `Bearer ${TOKEN} X-Other: y`,
      `Bearer: ${TOKEN}`,
      `Bearers ${TOKEN}`,
    ]
  ) {
    const res = await app.request("/", { headers: { Authorization: header } });
    await expectError(res, 401, "invalid_token", {
      "WWW-Authenticate": 'Bearer error="invalid_token"',
      "Cache-Control": "private, no-store",
    });
  }
});

Deno.test("readToken() reads the Bearer token first, else either session cookie", async () => {
  const app = appOf((c) => readToken(c));
  const read = async (headers: Record<string, string>) =>
    await valueOf(await app.request("/", { headers }));
  assert.equal(SESSION_COOKIE, "aim_session");
  assert.equal(await read({}), null);
  assert.deepEqual(await read({ Authorization: `Bearer ${TOKEN}` }), {
    token: TOKEN,
    via: "bearer",
  });
  assert.deepEqual(await read({ Cookie: `aim_session=${TOKEN}` }), { token: TOKEN, via: "cookie" });
  assert.deepEqual(await read({ Cookie: `theme=dark; __Host-aim_session=${TOKEN}` }), {
    token: TOKEN,
    via: "cookie",
  });
  assert.deepEqual(
    await read({ Authorization: `Bearer ${TOKEN}`, Cookie: "aim_session=other" }),
    { token: TOKEN, via: "bearer" },
    "the Bearer token wins over the cookie",
  );
  assert.equal(await read({ Cookie: "theme=dark; aim_sessions=x; xaim_session=y" }), null);
  assert.equal(await read({ Cookie: "aim_session=" }), null, "an empty cookie is none");
});

Deno.test("readToken() refuses two session cookies, whichever their names: one was planted", async () => {
  const app = appOf((c) => readToken(c));
  for (
    const cookie of [
      `aim_session=${TOKEN}; aim_session=other`,
      `aim_session=${TOKEN}; __Host-aim_session=other`,
      `__Host-aim_session=${TOKEN};__Host-aim_session=other`,
      ` aim_session =a; theme=dark;  aim_session=b`,
    ]
  ) {
    const res = await app.request("/", { headers: { Cookie: cookie } });
    await expectError(res, 401, "invalid_token");
  }
});

Deno.test("addressOf() takes the last X-Forwarded-For hop when it is an address, else the peer", () => {
  const table: [string | null | undefined, string][] = [
    ["203.0.113.7", "203.0.113.7"],
    ["198.51.100.1, 203.0.113.7", "203.0.113.7"],
    ["198.51.100.1,203.0.113.7 ", "203.0.113.7"],
    ["2001:DB8::1", "2001:db8::1"],
    ["[2001:db8::1]", "[2001:db8::1]"],
    ["::", "::"],
    [":", "peer"],
    ["", "peer"],
    [null, "peer"],
    [undefined, "peer"],
    ["203.0.113.7, evil.example", "peer"],
    ["203.0.113.7, ", "peer"],
    ["unknown", "peer"],
    ["1".repeat(64), "1".repeat(64)],
    ["1".repeat(65), "peer"],
  ];
  for (const [header, address] of table) {
    assert.equal(addressOf(header, "peer"), address, JSON.stringify(header));
  }
});

Deno.test("clientAddress() is the socket's peer, and the proxy's last hop only when the proxy is trusted", async () => {
  const app = new Hono();
  app.get("/", (c) =>
    c.json({
      plain: clientAddress(c),
      trusted: clientAddress(c, { trustProxy: true }),
      remote: remoteAddress(c) ?? null,
    }));
  const headers = { "X-Forwarded-For": "198.51.100.1, 203.0.113.7" };
  const info = { remoteAddr: { transport: "tcp", hostname: "192.0.2.1", port: 4000 } };
  const res = await app.request("/", { headers }, { info });
  assert.deepEqual(await res.json(), {
    plain: "192.0.2.1",
    trusted: "203.0.113.7",
    remote: info.remoteAddr,
  });
  const unknown = await app.request("/", { headers });
  assert.deepEqual(await unknown.json(), {
    plain: "unknown",
    trusted: "203.0.113.7",
    remote: null,
  });
});

/** A request head of `url` with `headers`. */
function head(url: string, headers: Record<string, string> = {}) {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { url, header: (name: string) => lower.get(name.toLowerCase()) };
}

Deno.test("requestOrigin() is the URL's origin, or the public URL's, and null for a malformed Host", () => {
  assert.equal(requestOrigin(head("http://127.0.0.1:8000/a/b?c")), "http://127.0.0.1:8000");
  assert.equal(requestOrigin(head("http://127.0.0.1:8000")), "http://127.0.0.1:8000");
  assert.equal(
    requestOrigin(head("http://127.0.0.1:8000/", { Host: "127.0.0.1:8000" }), {
      publicUrl: "https://aim.example/base",
    }),
    "https://aim.example",
  );
  for (
    const host of ["", "a b", "evil.example/x", "a@b", "[::1", "host:123456", "a..b", "-:1x"]
  ) {
    assert.equal(requestOrigin(head("http://127.0.0.1/", { Host: host })), null, host);
  }
  for (const host of ["localhost", "localhost:8000", "a-b.example.", "[::1]:80", "10.0.0.1"]) {
    assert.equal(
      requestOrigin(head("http://127.0.0.1/", { Host: host })),
      "http://127.0.0.1",
      host,
    );
  }
  assert.equal(requestOrigin(head("not a url")), null);
});

Deno.test("requestOrigin() behind a trusted proxy honours X-Forwarded-Proto and -Host, ignoring what they cannot be", () => {
  const url = "http://127.0.0.1:8000/page";
  const trust = { trustProxy: true };
  const table: [Record<string, string>, string][] = [
    [{}, "http://127.0.0.1:8000"],
    [{ "X-Forwarded-Proto": "https" }, "https://127.0.0.1:8000"],
    [{ "X-Forwarded-Proto": "HTTPS, http" }, "https://127.0.0.1:8000"],
    [{ "X-Forwarded-Proto": "ftp" }, "http://127.0.0.1:8000"],
    [{ "X-Forwarded-Proto": "javascript" }, "http://127.0.0.1:8000"],
    [{ "X-Forwarded-Host": "aim.example" }, "http://aim.example"],
    [{ "X-Forwarded-Host": "aim.example:8443, other.example" }, "http://aim.example:8443"],
    [{ "X-Forwarded-Host": "evil.example/path" }, "http://127.0.0.1:8000"],
    [{ "X-Forwarded-Host": "evil@example" }, "http://127.0.0.1:8000"],
    [
      { "X-Forwarded-Proto": "https", "X-Forwarded-Host": "aim.example" },
      "https://aim.example",
    ],
  ];
  for (const [headers, origin] of table) {
    assert.equal(requestOrigin(head(url, headers), trust), origin, JSON.stringify(headers));
    if (Object.keys(headers).length) {
      assert.equal(requestOrigin(head(url, headers)), "http://127.0.0.1:8000", "untrusted");
    }
  }
  assert.equal(requestOrigin(head("not a url"), trust), null);
});

Deno.test("isCrossOrigin() compares Origin, else reads Sec-Fetch-Site; forbiddenOrigin() is 403", async () => {
  const app = appOf((c) => isCrossOrigin(c, "http://127.0.0.1:8000"));
  const table: [Record<string, string>, boolean][] = [
    [{}, false],
    [{ Origin: "http://127.0.0.1:8000" }, false],
    [{ Origin: "http://127.0.0.1:8001" }, true],
    [{ Origin: "https://127.0.0.1:8000" }, true],
    [{ Origin: "null" }, true],
    [{ Origin: "" }, true],
    [{ Origin: "http://127.0.0.1:8000", "Sec-Fetch-Site": "cross-site" }, false],
    [{ "Sec-Fetch-Site": "same-origin" }, false],
    [{ "Sec-Fetch-Site": "none" }, false],
    [{ "Sec-Fetch-Site": "same-site" }, true],
    [{ "Sec-Fetch-Site": "cross-site" }, true],
  ];
  for (const [headers, cross] of table) {
    assert.equal(
      await valueOf(await app.request("/", { headers })),
      cross,
      JSON.stringify(headers),
    );
  }
  const error = forbiddenOrigin();
  assert.equal(error.status, 403);
  assert.equal(error.code, "forbidden_origin");
});

/** An app that answers the JSON body read with `maxBytes` and `timeoutMs`. */
function jsonApp(maxBytes: number, timeoutMs?: number) {
  return appOf((c) => readJson(c, maxBytes, timeoutMs));
}

const JSON_HEADERS = { "Content-Type": "application/json" };

Deno.test("readJson() reads a JSON body of exactly the limit, and refuses one byte more with 413", async () => {
  const body = JSON.stringify({ a: "x".repeat(20) });
  const app = jsonApp(body.length);
  const at = await app.request("/", { method: "POST", headers: JSON_HEADERS, body });
  assert.deepEqual(await valueOf(at), { a: "x".repeat(20) });
  const over = JSON.stringify({ a: "x".repeat(21) });
  const res = await app.request("/", { method: "POST", headers: JSON_HEADERS, body: over });
  const error = await expectError(res, 413, "payload_too_large");
  assert.equal(error.limit, body.length);
});

Deno.test("readJson() refuses a declared length over the limit before reading, and counts a chunked body", async () => {
  const app = jsonApp(10);
  const declared = await app.request("/", {
    method: "POST",
    headers: { ...JSON_HEADERS, "Content-Length": "11" },
    body: "{}",
  });
  await expectError(declared, 413, "payload_too_large");
  const chunks = (parts: string[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
  const over = await app.request("/", {
    method: "POST",
    headers: JSON_HEADERS,
    body: chunks(['{"a":', '"123456"}']),
  });
  await expectError(over, 413, "payload_too_large");
  const within = await app.request("/", {
    method: "POST",
    headers: JSON_HEADERS,
    body: chunks(['{"a":', "1}"]),
  });
  assert.deepEqual(await valueOf(within), { a: 1 });
});

Deno.test("readJson() takes application/json in any case and with parameters, and refuses any other type", async () => {
  const app = jsonApp(100);
  for (const type of ["application/json", "Application/JSON", "application/json; charset=utf-8"]) {
    const res = await app.request("/", {
      method: "POST",
      headers: { "Content-Type": type },
      body: "[1]",
    });
    assert.deepEqual(await valueOf(res), [1], type);
  }
  for (const type of [undefined, "text/plain", "application/jsonx", "application/x-json"]) {
    const res = await app.request("/", {
      method: "POST",
      headers: type === undefined ? {} : { "Content-Type": type },
      body: "[1]",
    });
    const error = await expectError(res, 400, "bad_request");
    assert.match(error.message, /Content-Type: application\/json/, String(type));
  }
});

Deno.test("readJson() answers 400 to an empty body, one that is not UTF-8 and one that is not JSON", async () => {
  const app = jsonApp(100);
  const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
    app.request("/", { method: "POST", headers: { ...JSON_HEADERS, ...headers }, body });
  assert.match((await expectError(await post(null), 400, "bad_request")).message, /empty/);
  assert.match(
    (await expectError(await post("", { "Content-Length": "0" }), 400, "bad_request")).message,
    /empty/,
  );
  const latin1 = new Uint8Array([0x22, 0xe9, 0x22]);
  assert.match((await expectError(await post(latin1), 400, "bad_request")).message, /UTF-8/);
  await expectError(await post("{"), 400, "bad_request");
  await expectError(await post("{'a': 1}"), 400, "bad_request");
});

Deno.test("readJson() answers 408 with Connection: close to a body that takes longer than its time", async () => {
  assert.equal(BODY_TIMEOUT_MS, 10_000);
  const app = jsonApp(100, 50);
  let cancelled = false;
  const slow = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("{"));
    },
    cancel() {
      cancelled = true;
    },
  });
  const res = await app.request("/", { method: "POST", headers: JSON_HEADERS, body: slow });
  await expectError(res, 408, "request_timeout", { Connection: "close" });
  assert.equal(cancelled, false, "the read is left to the connection's end");
});

Deno.test("hostName() is the Host without its port, lowercased, an IPv6 address with its brackets", () => {
  const table: [string, string][] = [
    ["localhost", "localhost"],
    ["LocalHost:8000", "localhost"],
    [" example.com:443 ", "example.com"],
    ["example.com:", "example.com"],
    ["[::1]", "[::1]"],
    ["[::1]:8000", "[::1]"],
    ["[2001:DB8::1]:80", "[2001:db8::1]"],
  ];
  for (const [host, name] of table) assert.equal(hostName(host), name, host);
});

Deno.test("isAllowedHost() lets every loopback name through and only the listed others", () => {
  const allowed = ["aim.example"];
  for (
    const host of [
      "localhost",
      "LOCALHOST:8000",
      "app.localhost",
      "a-b.localhost:1",
      "127.0.0.1",
      "127.0.0.1:8000",
      "127.255.1.2",
      "[::1]",
      "[::1]:8000",
      "aim.example",
      "AIM.example:443",
    ]
  ) {
    assert.equal(isAllowedHost(host, allowed), true, host);
    assert.equal(isAllowedHost(host, allowed), true, `${host}, remembered`);
  }
  for (
    const host of [
      undefined,
      "",
      "evil.example",
      "localhost.evil.example",
      "127.0.0.1.evil.example",
      "evil.example.localhost.example",
      "128.0.0.1",
      "[::2]",
      "sub.aim.example",
      "0.0.0.0",
    ]
  ) {
    assert.equal(isAllowedHost(host, allowed), false, String(host));
  }
  assert.equal(isAllowedHost("aim.example", []), false, "a verdict is per list of allowed names");
});

Deno.test("isLoopback() says which listening names are loopback", () => {
  for (const name of ["localhost", "127.0.0.1", "127.0.1.1", "::1", "[::1]", "x.localhost"]) {
    assert.equal(isLoopback(name), true, name);
  }
  for (const name of ["0.0.0.0", "::", "192.168.1.2", "example.com"]) {
    assert.equal(isLoopback(name), false, name);
  }
});
