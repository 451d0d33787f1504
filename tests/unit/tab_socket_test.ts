/**
 * The tab channel's HTTP side (bridge/http/tab_socket.ts), imported directly: its route on a
 * hono app over a real core, served by Deno.serve on port 0. Each refusal before any socket (no
 * WebSocket upgrade, another origin, each way of offering no tab credential or an agent's token,
 * no tab protocol) with its status, code and headers, and the socket it opens for the session's
 * tab credential. What the channel carries: tests/protocol/channel_test.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { tabRoutes } from "../../bridge/http/tab_socket.ts";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { CREDENTIAL_PROTOCOL_PREFIX, TAB_PROTOCOL } from "../../bridge/wire/names.ts";
import type { AppEnv } from "../../bridge/http/env.ts";
import { writeSite } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";

/** The tab route served on port 0, over a core on a temporary site, with a session opened. */
async function serve() {
  const dir = await tempDir();
  writeSite(dir.path);
  const core = new BridgeCore({ root: dir.path });
  const opened = await core.openSession("/control-panel");
  let origin = "";
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("origin", origin);
    c.set("client", "127.0.0.1");
    await next();
  });
  app.route("/", tabRoutes(core));
  app.onError((error) =>
    error instanceof AimError ? error.getResponse() : new Response("?", { status: 500 })
  );
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
  origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    token: opened.token,
    credential: opened.credential!,
    request: (headers: Record<string, string>) => app.request("/__aim/tab", { headers }),
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      core.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("the tab route refuses a request that is no WebSocket upgrade with 426 and Upgrade: websocket", async () => {
  await using t = await serve();
  for (const headers of [{}, { Upgrade: "h2c" }, { Upgrade: "websockets" }]) {
    const response = await t.request(headers);
    assert.equal(response.status, 426, JSON.stringify(headers));
    assert.equal(response.headers.get("Upgrade"), "websocket");
    assert.equal((await response.json()).error, "upgrade_required");
  }
});

Deno.test("the tab route refuses another origin with 403 forbidden_origin, by Origin or Sec-Fetch-Site", async () => {
  await using t = await serve();
  const own = `${CREDENTIAL_PROTOCOL_PREFIX}${t.credential}, ${TAB_PROTOCOL}`;
  const cases: Record<string, string>[] = [
    { Origin: "http://evil.example" },
    { Origin: `${t.origin}.evil.example` },
    { Origin: "null" },
    { "Sec-Fetch-Site": "cross-site" },
    { "Sec-Fetch-Site": "same-site" },
  ];
  for (const extra of cases) {
    const response = await t.request({
      Upgrade: "WebSocket",
      "Sec-WebSocket-Protocol": own,
      ...extra,
    });
    assert.equal(response.status, 403, JSON.stringify(extra));
    assert.equal((await response.json()).error, "forbidden_origin");
  }
});

Deno.test("the tab route opens only with the session's tab credential and the tab protocol: never a token, a cookie or a guess", async () => {
  await using t = await serve();
  const cases: Record<string, string>[] = [
    {},
    { "Sec-WebSocket-Protocol": TAB_PROTOCOL },
    { "Sec-WebSocket-Protocol": `${CREDENTIAL_PROTOCOL_PREFIX}${t.credential}` },
    { "Sec-WebSocket-Protocol": `${CREDENTIAL_PROTOCOL_PREFIX}${t.token}, ${TAB_PROTOCOL}` },
    { "Sec-WebSocket-Protocol": `${CREDENTIAL_PROTOCOL_PREFIX}${t.credential}x, ${TAB_PROTOCOL}` },
    { "Sec-WebSocket-Protocol": `${t.credential}, ${TAB_PROTOCOL}` },
    { "Sec-WebSocket-Protocol": TAB_PROTOCOL, Authorization: `Bearer ${t.token}` },
    { "Sec-WebSocket-Protocol": TAB_PROTOCOL, Cookie: `aim_session=${t.token}` },
  ];
  for (const extra of cases) {
    const response = await t.request({ Upgrade: "websocket", ...extra });
    assert.equal(response.status, 403, JSON.stringify(extra));
    assert.equal((await response.json()).error, "tab_credential_required");
  }
});

Deno.test("the tab route opens a WebSocket of the tab protocol for the session's tab credential", async () => {
  await using t = await serve();
  const socket = new WebSocket(`${t.origin.replace("http", "ws")}/__aim/tab`, [
    TAB_PROTOCOL,
    `${CREDENTIAL_PROTOCOL_PREFIX}${t.credential}`,
  ]);
  const opened = Promise.withResolvers<void>();
  const closed = Promise.withResolvers<void>();
  socket.onopen = () => opened.resolve();
  socket.onerror = () => opened.reject(new Error("the socket did not open"));
  socket.onclose = () => closed.resolve();
  await opened.promise;
  assert.equal(socket.protocol, TAB_PROTOCOL);
  socket.close();
  await closed.promise;
});
