/**
 * The A2A routes (bridge/a2a/routes.ts), imported directly and mounted on a hono app over a real
 * core: the Agent Card in v1's or v0.3's shape for each spelling of `A2A-Version`, never cached
 * stale and varying by that header, 405 for any other method, and each refusal of the endpoint
 * before a task (another origin, each bad or missing token, a version the card does not offer).
 * Tasks over HTTP with the SDK's client: tests/a2a/a2a_test.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { A2A_PATH, a2aRoutes, AGENT_CARD_PATH } from "../../bridge/a2a/routes.ts";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import type { AppEnv } from "../../bridge/http/env.ts";
import { writeSite } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";

const ORIGIN = "http://127.0.0.1:8000";

/** The A2A routes on an app over a core on a temporary site, and an open session's token. */
async function mount() {
  const dir = await tempDir();
  writeSite(dir.path);
  const core = new BridgeCore({ root: dir.path });
  const { token } = await core.openSession("/control-panel");
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("origin", ORIGIN);
    c.set("client", "127.0.0.1");
    await next();
  });
  app.route("/", a2aRoutes(core));
  app.onError((error) =>
    error instanceof AimError ? error.getResponse() : new Response(String(error), { status: 500 })
  );
  return {
    app,
    token,
    async [Symbol.asyncDispose]() {
      core.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("the Agent Card is v0.3's for no version or a 0.x one, and v1's for any other, never cached stale", async () => {
  await using t = await mount();
  const cases: [Record<string, string>, boolean][] = [
    [{}, true],
    [{ "A2A-Version": "" }, true],
    [{ "A2A-Version": " 0.3 " }, true],
    [{ "A2A-Version": "0.2" }, true],
    [{ "A2A-Version": "1.0" }, false],
    [{ "A2A-Version": " 1.0" }, false],
  ];
  for (const [headers, legacy] of cases) {
    const response = await t.app.request(AGENT_CARD_PATH, { headers });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("Cache-Control"), "no-cache");
    assert.equal(response.headers.get("Vary"), "A2A-Version");
    const card = await response.json();
    assert.equal(card.protocolVersion === "0.3", legacy, JSON.stringify(headers));
    assert.equal("supportedInterfaces" in card, true);
    assert.equal(card.name, "aim at 127.0.0.1:8000");
    assert.ok(card.skills.some((s: { id: string }) => s.id === "/control-panel"));
  }
  for (const method of ["POST", "PUT", "DELETE"]) {
    const response = await t.app.request(AGENT_CARD_PATH, { method });
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.get("Allow"), "GET");
  }
});

Deno.test("the A2A endpoint refuses another origin, and each bad or missing token, before any task", async () => {
  await using t = await mount();
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } });
  const post = (headers: Record<string, string>) =>
    t.app.request(A2A_PATH, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body,
    });
  const cross = await post({ Authorization: `Bearer ${t.token}`, Origin: "http://evil.example" });
  assert.equal(cross.status, 403);
  assert.equal((await cross.json()).error, "forbidden_origin");
  const cases: [Record<string, string>, string][] = [
    [{}, "missing_token"],
    [{ Cookie: `aim_session=${t.token}` }, "missing_token"],
    [{ Authorization: "Bearer" }, "invalid_token"],
    [{ Authorization: "Basic abc" }, "invalid_token"],
    [{ Authorization: `Bearer ${t.token}x` }, "invalid_token"],
  ];
  for (const [headers, code] of cases) {
    const response = await post(headers);
    assert.equal(response.status, 401, JSON.stringify(headers));
    assert.equal((await response.json()).error, code, JSON.stringify(headers));
    assert.match(response.headers.get("WWW-Authenticate") ?? "", /^Bearer/);
  }
});

Deno.test("the A2A endpoint answers a version its card does not offer with a JSON-RPC error of the request's id", async () => {
  await using t = await mount();
  const response = await t.app.request(A2A_PATH, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Authorization: `Bearer ${t.token}`,
      "A2A-Version": "9.9",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: "x" } }),
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  const answer = await response.json();
  assert.equal(answer.id, 7);
  assert.equal(typeof answer.error?.code, "number");
});
