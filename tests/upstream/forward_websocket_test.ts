/**
 * The reverse proxy's WebSockets (bridge/upstream/proxy.ts), on `UpstreamProxy` itself in front
 * of an app on port 0: the protocols offered, none carrying a secret, the handshake's own
 * headers, a socket the app refuses or does not open in time, an upgrade that is no handshake,
 * and the byte bound of a relayed socket. The proxy's other decisions are
 * tests/upstream/forward_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { newToken } from "../../bridge/core/tokens.ts";
import type { AimError } from "../../bridge/errors/aim_error.ts";
import { UpstreamProxy } from "../../bridge/upstream/proxy.ts";
import { startApp } from "../helpers/upstream.ts";
import { expectError } from "../helpers/errors.ts";
import { failures, FROM, rejectsWith } from "../helpers/proxy_checks.ts";

/** A server whose every request goes through `proxy` (a WebSocket upgrade needs one). */
function served(proxy: UpstreamProxy) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) =>
      proxy.forwardRequest(request, FROM).catch((error: AimError) => error.getResponse()),
  );
  return {
    url: `ws://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** Opens a WebSocket; its first message, chosen protocol and close code. */
async function socket(
  url: string,
  protocols: string[] = [],
  headers: Record<string, string> = {},
): Promise<{ first?: string; protocol: string; code: number }> {
  const ws = new WebSocket(url, { protocols, headers } as unknown as string[]);
  const first = Promise.withResolvers<string | undefined>();
  const closed = Promise.withResolvers<number>();
  ws.onmessage = (event) => {
    first.resolve(event.data);
    ws.close();
  };
  ws.onclose = (event) => {
    first.resolve(undefined);
    closed.resolve(event.code);
  };
  ws.onerror = () => {};
  const message = await first.promise;
  const code = await closed.promise;
  return { ...(message === undefined ? {} : { first: message }), protocol: ws.protocol, code };
}

Deno.test("a WebSocket reaches the app with the protocols offered, none carrying a secret, and its handshake headers its own", async () => {
  const secret = newToken();
  await using app = startApp((request) => {
    const seen = {
      protocols: request.headers.get("sec-websocket-protocol"),
      extensions: request.headers.get("sec-websocket-extensions"),
      cookie: request.headers.get("cookie"),
    };
    const offered = seen.protocols?.split(",").map((p) => p.trim()) ?? [];
    const { socket, response } = Deno.upgradeWebSocket(
      request,
      offered.includes("chat.v2") ? { protocol: "chat.v2" } : {},
    );
    socket.onopen = () => socket.send(JSON.stringify(seen));
    return response;
  });
  using proxy = new UpstreamProxy(app.url);
  await using aim = served(proxy);
  const chat = await socket(
    `${aim.url}/socket`,
    ["chat.v1", `aim-credential.${secret}`, "chat.v2"],
    {
      Cookie: "sid=1; aim_session=x",
    },
  );
  assert.equal(chat.protocol, "chat.v2");
  const seen = JSON.parse(chat.first!);
  assert.equal(seen.protocols, "chat.v1, chat.v2");
  assert.equal(seen.cookie, "sid=1");
  // Without protocols: none offered, none chosen.
  const plain = await socket(`${aim.url}/socket`);
  assert.equal(plain.protocol, "");
  assert.equal(JSON.parse(plain.first!).protocols, null);
  // Only aim's secret offered: the app is offered nothing.
  const only = await socket(`${aim.url}/socket`, [secret]);
  assert.equal(JSON.parse(only.first!).protocols, null);
});

Deno.test("a WebSocket the app refuses, or does not open in time, is a 502 told as bad_gateway", async () => {
  await using refusing = startApp(() => new Response("no", { status: 404 }));
  const told = failures();
  using proxy = new UpstreamProxy(refusing.url, told.options);
  await using aim = served(proxy);
  const refused = await fetch(aim.url.replace("ws", "http") + "/socket", {
    headers: {
      Upgrade: "websocket",
      Connection: "Upgrade",
      "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version": "13",
    },
  });
  await expectError(refused, 502, "bad_gateway");
  assert.deepEqual(told.told, ["bad_gateway"]);
  // An app that takes the connection and never answers the handshake.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })().catch(() => {});
  try {
    const slow = failures();
    using late = new UpstreamProxy(`http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`, {
      ...slow.options,
      timeoutMs: 100,
    });
    await using lateAim = served(late);
    const res = await fetch(lateAim.url.replace("ws", "http") + "/socket", {
      headers: {
        Upgrade: "websocket",
        Connection: "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
      },
    });
    await expectError(res, 502, "bad_gateway");
    assert.deepEqual(slow.told, ["bad_gateway"]);
  } finally {
    listener.close();
    for (const conn of held) conn.close();
    await accepting;
  }
});

Deno.test("an upgrade that is no valid WebSocket handshake is a 400, and the app's socket is closed", async () => {
  const { promise: closed, resolve: close } = Promise.withResolvers<number>();
  await using app = startApp((request) => {
    if (request.headers.get("upgrade") !== "websocket") return new Response("plain");
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.onclose = (event) => close(event.code);
    return response;
  });
  using proxy = new UpstreamProxy(app.url);
  // Upgrade in any case is a WebSocket's; a Request not served by Deno.serve cannot upgrade.
  for (const upgrade of ["websocket", "WebSocket"]) {
    const request = new Request("http://aim.example/socket", { headers: { Upgrade: upgrade } });
    await rejectsWith(proxy.forwardRequest(request, FROM), "bad_request", 400);
  }
  await closed;
  // Another Upgrade is the app's plain request.
  const h2c = await proxy.forwardRequest(
    new Request("http://aim.example/x", { headers: { Upgrade: "h2c" } }),
    FROM,
  );
  assert.equal(await h2c.text(), "plain");
});

Deno.test("a relayed WebSocket keeps the proxy's byte bound: past it the client is closed with 1013", async () => {
  await using app = startApp((request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.onopen = () => socket.send("x".repeat(64));
    return response;
  });
  using proxy = new UpstreamProxy(app.url, { webSocketBufferBytes: 16 });
  await using aim = served(proxy);
  const bounded = await socket(`${aim.url}/socket`);
  assert.equal(bounded.first, undefined);
  assert.equal(bounded.code, 1013);
  using roomy = new UpstreamProxy(app.url);
  await using roomyAim = served(roomy);
  assert.equal((await socket(`${roomyAim.url}/socket`)).first, "x".repeat(64));
});
