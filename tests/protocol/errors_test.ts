/**
 * Errors rendered one way: an `AimError` (a hono `HTTPException`) answers as itself wherever it
 * is thrown, in the bridge's routes, in an embedding app's routes and in the protocols' route
 * groups: its status from the one table, its body, aim's private headers and its own.
 *
 * @module
 */
import assert from "node:assert/strict";
import { HTTPException } from "hono/http-exception";
import { AimError, ERROR_STATUS, PRIVATE_HEADERS } from "../../bridge/errors/aim_error.ts";
import { startBridge } from "../helpers/bridge.ts";

/** Asserts an answer is aim's error `code` with aim's private headers; returns its body. */
async function expectAimError(
  res: Response,
  code: keyof typeof ERROR_STATUS,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  assert.equal(res.status, ERROR_STATUS[code], `${code}: status`);
  assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
  for (const [name, value] of Object.entries({ ...PRIVATE_HEADERS, ...headers })) {
    assert.equal(res.headers.get(name), value, `${code}: ${name}`);
  }
  const body = await res.json();
  assert.equal(body.error, code);
  assert.ok(typeof body.message === "string" && body.message.length > 0);
  return body;
}

Deno.test("an AimError thrown in an embedding app's route answers with its status, body and every header", async () => {
  const unexpected: unknown[] = [];
  const thrown: [string, AimError][] = [
    ["slow", new AimError("too_many_requests", "Wait.", { headers: { "Retry-After": "7" } })],
    [
      "who",
      new AimError("invalid_token", "Ask again.", {
        headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
      }),
    ],
    ["gone", new AimError("not_found", "No such order.", { details: { order: "o-1" } })],
    ["busy", new AimError("store_unavailable", "Retry.", { headers: { "Retry-After": "1" } })],
  ];
  await using bridge = await startBridge({
    onError: (error) => unexpected.push(error),
    routes: (app) => {
      for (const [path, error] of thrown) {
        app.get(`/app/${path}`, () => {
          throw error;
        });
      }
    },
  });
  for (const [path, error] of thrown) {
    const body = await expectAimError(
      await bridge.fetch(`/app/${path}`),
      error.code,
      error.headers,
    );
    assert.deepEqual(body, { ...error.details, error: error.code, message: error.message });
  }
  assert.deepEqual(unexpected, [], "protocol errors are not reported as bugs");
});

Deno.test("a bug in a route is a 500 server_error with aim's headers, reported once and never sent", async () => {
  const unexpected: unknown[] = [];
  const bug = new TypeError("secret internals");
  await using bridge = await startBridge({
    onError: (error) => unexpected.push(error),
    routes: (app) => {
      app.get("/app/bug", () => {
        throw bug;
      });
    },
  });
  const body = await expectAimError(await bridge.fetch("/app/bug"), "server_error");
  assert.doesNotMatch(JSON.stringify(body), /secret internals/);
  assert.deepEqual(unexpected, [bug]);
});

Deno.test("any hono HTTPException answers as itself, as hono's own handler would", async () => {
  const unexpected: unknown[] = [];
  await using bridge = await startBridge({
    onError: (error) => unexpected.push(error),
    routes: (app) => {
      app.get("/app/basic", () => {
        throw new HTTPException(401, {
          res: new Response("Unauthorized", {
            headers: { "WWW-Authenticate": 'Basic realm="app"' },
          }),
        });
      });
    },
  });
  const res = await bridge.fetch("/app/basic");
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("www-authenticate"), 'Basic realm="app"');
  assert.equal(await res.text(), "Unauthorized");
  assert.deepEqual(unexpected, []);
});

Deno.test("the bridge's own errors carry aim's headers on every route group", async () => {
  await using bridge = await startBridge();
  // The core routes.
  await expectAimError(
    await bridge.fetch("/__aim/invoke", { method: "POST", body: "{}" }),
    "missing_token",
    { "WWW-Authenticate": 'Bearer realm="aim"' },
  );
  await expectAimError(
    await bridge.fetch("/__aim/invoke", {
      method: "POST",
      headers: { Authorization: "Bearer nope" },
      body: "{}",
    }),
    "invalid_token",
    { "WWW-Authenticate": 'Bearer error="invalid_token"' },
  );
  // MCP's and A2A's route groups.
  const token = await bridge.openSession("/control-panel");
  await expectAimError(
    await bridge.fetch("/__aim/mcp", {
      method: "PUT",
      headers: { Authorization: `Bearer ${token}` },
    }),
    "method_not_allowed",
    { Allow: "GET, POST, DELETE" },
  );
  await expectAimError(
    await bridge.fetch("/__aim/mcp", { method: "POST", body: "{}" }),
    "missing_token",
  );
  await expectAimError(await bridge.fetch("/__aim/a2a", { method: "GET" }), "method_not_allowed", {
    Allow: "POST",
  });
  // No route at all.
  await expectAimError(await bridge.fetch("/__aim/no-such-route"), "not_found");
});
