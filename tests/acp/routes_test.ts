/**
 * The ACP routes (bridge/acp/routes.ts), imported directly and mounted on a hono app over a real
 * core: each route's other methods refused 405 with the methods it takes, the agents listed
 * without a token and cached accordingly, each bad token refused 401 in ACP's shape, another
 * origin refused, and a run that is not the caller's answered as a missing one. Runs over HTTP
 * with the SDK's client: tests/acp/.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { acpRoutes } from "../../bridge/acp/routes.ts";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import { writeSite } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";

const ORIGIN = "http://127.0.0.1:8000";
const RUN_ID = "0b8e1c9a-3f4d-4e2a-9c1b-2d3e4f5a6b7c";

/** The ACP routes on an app over a core on a temporary site, and an open session's token. */
async function mount() {
  const dir = await tempDir();
  writeSite(dir.path);
  const core = new BridgeCore({ root: dir.path });
  const { token } = await core.openSession("/control-panel");
  const errors: unknown[] = [];
  const app = new Hono();
  app.use(async (c, next) => {
    c.set("origin" as never, ORIGIN as never);
    c.set("client" as never, "127.0.0.1" as never);
    await next();
  });
  app.route("/", acpRoutes(core, { onError: (e) => errors.push(e) }));
  return {
    app,
    token,
    errors,
    async [Symbol.asyncDispose]() {
      core.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("each ACP route refuses the methods it does not take with 405 and the ones it does", async () => {
  await using t = await mount();
  const routes: [string, string[], string][] = [
    ["/ping", ["POST", "DELETE"], "GET"],
    ["/agents", ["POST", "PUT"], "GET"],
    ["/agents/control-panel", ["POST", "DELETE"], "GET"],
    ["/runs", ["GET", "PUT"], "POST"],
    [`/runs/${RUN_ID}`, ["PUT", "DELETE"], "GET, POST"],
    [`/runs/${RUN_ID}/events`, ["POST"], "GET"],
    [`/runs/${RUN_ID}/cancel`, ["GET"], "POST"],
    [`/sessions/${RUN_ID}`, ["POST"], "GET"],
  ];
  for (const [path, methods, allow] of routes) {
    for (const method of methods) {
      const response = await t.app.request(path, { method });
      assert.equal(response.status, 405, `${method} ${path}`);
      assert.equal(response.headers.get("Allow"), allow, `${method} ${path}`);
      await response.body?.cancel();
    }
  }
  assert.deepEqual(await (await t.app.request("/ping")).json(), {});
  assert.deepEqual(t.errors, []);
});

Deno.test("the agents are listed without a token, cached only then; a token that does not work is refused 401", async () => {
  await using t = await mount();
  const open = await t.app.request("/agents");
  assert.equal(open.status, 200);
  assert.equal(open.headers.get("Cache-Control"), "no-cache");
  const names = (await open.json()).agents.map((a: { name: string }) => a.name);
  assert.ok(names.length > 0);
  const mine = await t.app.request("/agents", { headers: { Authorization: `Bearer ${t.token}` } });
  assert.equal(mine.status, 200);
  assert.equal(mine.headers.get("Cache-Control"), "no-store", "the caller's own listing");
  await mine.body?.cancel();
  for (const authorization of [`Bearer ${t.token}x`, "Bearer", "Basic x"]) {
    const response = await t.app.request("/agents", { headers: { Authorization: authorization } });
    assert.equal(response.status, 401, authorization);
    await response.body?.cancel();
  }
});

Deno.test("a run is the caller's own: another's or none is 404, without a token 401, from another origin 403", async () => {
  await using t = await mount();
  const auth = { Authorization: `Bearer ${t.token}` };
  const missing = await t.app.request(`/runs/${RUN_ID}`, { headers: auth });
  assert.equal(missing.status, 404);
  assert.match(JSON.stringify(await missing.json()), new RegExp(`Run ${RUN_ID} not found`));
  const anonymous = await t.app.request(`/runs/${RUN_ID}`);
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
  const cross = await t.app.request("/runs", {
    method: "POST",
    headers: { ...auth, Origin: "http://evil.example", "Content-Type": "application/json" },
    body: JSON.stringify({ agent_name: "control-panel", input: [] }),
  });
  assert.equal(cross.status, 403);
  await cross.body?.cancel();
});
