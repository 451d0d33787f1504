/**
 * The front door (bridge/http/front_door.ts): one Host verdict, remembered per scheme,
 * authority, `Host` (and forwarded headers when trusted), serves both the manifest hot path and
 * the requests it forwards to an app; a verdict given for one of them never answers a request
 * that differs in any of them. Each answer it gives is logged once.
 * @module
 */
import assert from "node:assert/strict";
import type { RequestLogEntry } from "../../bridge/http/middleware.ts";
import { startBridge } from "../helpers/bridge.ts";
import { startAim, startApp } from "../helpers/upstream.ts";

/** Sends one request as written; returns the whole answer as text. */
async function raw(port: number, target: string, headers: string[] = []): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const lines = [`GET ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, "Connection: close"];
  await conn.write(new TextEncoder().encode(`${[...lines, ...headers].join("\r\n")}\r\n\r\n`));
  return new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
}

Deno.test("a Host verdict the hot path remembered never answers an absolute request line naming another host", async () => {
  await using bridge = await startBridge({ fastReads: true });
  const { port } = bridge;
  // Read twice: the public manifest is then answered on the hot path, its Host verdict kept.
  for (let i = 0; i < 2; i++) {
    assert.match(await raw(port, "/control-panel.json"), /^HTTP\/1\.1 200/);
  }
  const answer = await raw(port, "http://evil.example/control-panel.json");
  assert.match(answer, /^HTTP\/1\.1 403/);
  assert.match(answer, /"forbidden_host"/);
});

Deno.test("in front of an app, a remembered Host verdict never forwards a request to another host", async () => {
  await using app = startApp((request) => new Response(new URL(request.url).pathname));
  await using aim = startAim(app.url);
  assert.match(await raw(aim.port, "/page"), /^HTTP\/1\.1 200/);
  const answer = await raw(aim.port, "http://evil.example/page");
  assert.match(answer, /^HTTP\/1\.1 403/);
  assert.match(answer, /"forbidden_host"/);
  assert.deepEqual(app.seen, ["GET /page"]);
});

Deno.test("behind a trusted proxy the verdict follows X-Forwarded-Host: another one is checked again", async () => {
  await using app = startApp(() => new Response("the app"));
  await using aim = startAim(app.url, { trustProxy: true });
  assert.match(await raw(aim.port, "/page", ["X-Forwarded-Host: localhost"]), /^HTTP\/1\.1 200/);
  const answer = await raw(aim.port, "/page", ["X-Forwarded-Host: evil.example"]);
  assert.match(answer, /^HTTP\/1\.1 403/);
  assert.deepEqual(app.seen, ["GET /page"]);
});

Deno.test("each request the front door answers is logged once: a hot read, a forwarded one, a refused spelling", async () => {
  const entries: RequestLogEntry[] = [];
  await using app = startApp(() => new Response("the app"));
  await using aim = startAim(app.url, { log: (entry) => entries.push(entry) });
  await (await fetch(`${aim.url}/page`)).body?.cancel();
  await (await fetch(`${aim.url}/__aim;x/session`)).body?.cancel();
  await (await fetch(`${aim.url}/__aim/health`)).body?.cancel();
  assert.deepEqual(
    entries.map(({ method, path, status }) => ({ method, path, status })),
    [
      { method: "GET", path: "/page", status: 200 },
      { method: "GET", path: "/__aim;x/session", status: 400 },
    ],
  );
});
