/**
 * aim's routes by one canonical path, through a real aim in front of an app that records every
 * request it gets: no spelling of one of aim's routes (tests/upstream/paths_test.ts's table, and
 * `/__aim` in every case) ever reaches the app, each refused with 400 and aim's error body; the
 * app's paths, in any spelling, are forwarded as sent.
 * @module
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import type { AppEnv } from "../../bridge/http/env.ts";
import { proxyRoutes, UpstreamProxy } from "../../bridge/upstream/proxy.ts";
import { aimPaths } from "../../bridge/upstream/routes.ts";
import { startAim, startApp } from "../helpers/upstream.ts";
import { expectError } from "../helpers/errors.ts";
import { SPELLINGS } from "../helpers/spellings.ts";

/** An app that records every request it gets. */
function recordingApp() {
  return startApp(() => new Response("the app"));
}

Deno.test("no spelling of one of aim's routes reaches the app: refused with 400 and aim's error body", async () => {
  await using app = recordingApp();
  await using aim = startAim(app.url);
  const ambiguous = SPELLINGS.filter(([path, verdict]) =>
    verdict === "ambiguous" && !path.includes("\\") && !/\/\.\.?(\/|$)/.test(path)
  );
  for (const [path] of ambiguous) {
    for (const method of ["GET", "POST"]) {
      const res = await rawRequest(aim.port, method, path);
      assert.equal(res.status, 400, `${method} ${path}: ${res.status}`);
      assert.equal(res.headers["cache-control"], "private, no-store", path);
      assert.equal(res.headers["x-content-type-options"], "nosniff", path);
      assert.match(res.headers["content-type"] ?? "", /^application\/json/, path);
      assert.equal(JSON.parse(res.body).error, "bad_request", path);
    }
  }
  // The client may send a WebSocket upgrade with the tab credential to a spelling of the tab.
  const ws = await rawRequest(aim.port, "GET", "/__aim;/tab", {
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Protocol": "aim-tab-v1, aim-credential.x",
  });
  assert.equal(ws.status, 400);
  assert.deepEqual(app.seen, []);
});

Deno.test("/__aim in any case and spelling is never forwarded, whatever the method", async () => {
  await using app = recordingApp();
  await using aim = startAim(app.url);
  const cases = ["__aim", "__AIM", "__Aim", "__aIm", "__AiM", "%5F%5Faim", "%5f%5FAIM"];
  for (const name of cases) {
    for (const rest of ["", "/", "/session", "/tab", "/x"]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const res = await rawRequest(aim.port, method, `/${name}${rest}`);
        assert.ok(
          [400, 404, 405, 426].includes(res.status),
          `${method} /${name}${rest}: ${res.status}`,
        );
      }
    }
  }
  assert.deepEqual(app.seen, []);
});

Deno.test("the app's paths in any spelling are forwarded as sent", async () => {
  await using app = recordingApp();
  await using aim = startAim(app.url);
  const forwarded = SPELLINGS.filter(([path, verdict]) =>
    verdict === "app" && !/\/\.\.?(\/|$)/.test(path)
  ).map(([path]) => path);
  for (const path of forwarded) {
    const res = await rawRequest(aim.port, "GET", path);
    assert.equal(res.status, 200, `${path}: ${res.status} ${res.body}`);
    assert.equal(res.body, "the app");
  }
  // Deno's request URL keeps the escapes and parameters; `seen` is what the app's URL parser read.
  assert.equal(app.seen.length, forwarded.length);
  assert.ok(app.seen.includes("GET /shop;jsessionid=A1B2"));
  assert.ok(app.seen.includes("GET /files/a%2Fb"));
});

Deno.test("a route aim has, asked with a method it does not answer, is aim's 404 or 405, never the app's", async () => {
  await using app = recordingApp();
  await using aim = startAim(app.url);
  await expectError(
    await fetch(`${aim.url}/__aim/session`, { method: "PUT", body: "{}" }),
    405,
    "method_not_allowed",
    { allow: "POST", "cache-control": "private, no-store" },
  );
  await expectError(
    await fetch(`${aim.url}/__aim/unknown`, { method: "DELETE" }),
    404,
    "not_found",
    { "cache-control": "private, no-store" },
  );
  // ACP's routes answer in ACP's error shape.
  const ping = await fetch(`${aim.url}/ping`, { method: "POST", body: "{}" });
  assert.equal(ping.status, 405);
  assert.equal((await ping.json()).code, "server_error");
  assert.deepEqual(app.seen, []);
});

/** An answer read off a raw socket: the request is sent exactly as written. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends one request with its target exactly as given, over a new connection. */
async function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const lines = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, "Connection: close"];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (method !== "GET") lines.push("Content-Length: 2");
  await conn.write(
    new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n${method === "GET" ? "" : "{}"}`),
  );
  const text = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
  const [head = "", ...rest] = text.split("\r\n\r\n");
  const [status = "", ...fields] = head.split("\r\n");
  const parsed: Record<string, string> = {};
  for (const field of fields) {
    const colon = field.indexOf(":");
    parsed[field.slice(0, colon).toLowerCase()] = field.slice(colon + 1).trim();
  }
  let body = rest.join("\r\n\r\n");
  if (parsed["transfer-encoding"] === "chunked") body = dechunk(body);
  return { status: Number(status.split(" ")[1]), headers: parsed, body };
}

function dechunk(text: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const end = text.indexOf("\r\n", at);
    const size = parseInt(text.slice(at, end), 16);
    if (!size) return out;
    out += text.slice(end + 2, end + 2 + size);
    at = end + 2 + size + 2;
  }
}

Deno.test("the router's last route refuses a spelling of aim's routes itself, and aim's own paths", async () => {
  await using app = recordingApp();
  using proxy = new UpstreamProxy(app.url);
  const router = new Hono<AppEnv>();
  router.use((c, next) => {
    c.set("origin", "http://127.0.0.1");
    c.set("client", "127.0.0.1");
    return next();
  });
  router.get("/__aim/tab", (c) => c.text("aim's"));
  const paths = aimPaths(router.routes);
  proxyRoutes(router, proxy, paths);
  for (const path of ["/__aim;/tab", "/__AIM/tab", "/x/..;/__aim/tab"]) {
    await expectError(await router.request(path), 400, "bad_request");
  }
  await expectError(await router.request("/__aim/tab", { method: "POST" }), 404, "not_found");
  assert.equal(await (await router.request("/page")).text(), "the app");
  assert.deepEqual(app.seen, ["GET /page"]);
});
