import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startDemo } from "../../demo/app.ts";

async function signedIn(origin: string, username = "alice", password = "wonderland") {
  const res = await fetch(`${origin}/__aim/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ page: "/control-panel" }),
  });
  const { sessionToken } = await res.json();
  const login = await fetch(`${origin}/__aim/invoke`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${sessionToken}` },
    body: JSON.stringify({ actionId: "login", input: { username, password } }),
  });
  assert.equal(login.status, 200, await login.clone().text());
  await login.body?.cancel();
  return sessionToken as string;
}

function api(origin: string, token: string | null, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (token) headers.set("Authorization", `Bearer ${token}`);
  return fetch(`${origin}${path}`, { ...init, headers });
}

async function expectError(res: Response, status: number, code: string) {
  assert.equal(res.status, status);
  const body = await res.json();
  assert.equal(body.error, code);
  assert.ok(body.message.length > 0);
}

Deno.test("the demo API refuses a request without the session's signed-in identity", async () => {
  const data = Deno.makeTempDirSync();
  await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  const origin = demo.served.url;
  await expectError(await api(origin, null, "/api/requests"), 401, "missing_token");
  await expectError(await api(origin, "forged", "/api/requests"), 401, "invalid_token");
  const res = await fetch(`${origin}/__aim/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ page: "/control-panel" }),
  });
  const { sessionToken } = await res.json();
  await expectError(await api(origin, sessionToken, "/api/requests"), 403, "login_required");
  await expectError(
    await api(origin, sessionToken, "/api/requests/req-3/approve", { method: "POST" }),
    403,
    "login_required",
  );
  Deno.removeSync(data, { recursive: true });
});

Deno.test("the demo API lists, approves, rejects and comments as the signed-in user", async () => {
  const data = Deno.makeTempDirSync();
  await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  const origin = demo.served.url;
  const token = await signedIn(origin);
  const list = await (await api(origin, token, "/api/requests")).json();
  assert.deepEqual(list.requests.map((r: { id: string }) => r.id), [
    "req-1",
    "req-2",
    "req-3",
    "req-4",
    "req-5",
  ]);
  const pending = await (await api(origin, token, "/api/requests?status=pending")).json();
  assert.deepEqual(pending.requests.map((r: { id: string }) => r.id), ["req-3", "req-4", "req-5"]);
  const approved = await api(origin, token, "/api/requests/req-3/approve", { method: "POST" });
  assert.equal(approved.status, 200);
  const body = await approved.json();
  assert.equal(body.request.status, "approved");
  assert.equal(body.request.decided_by, "alice");
  await expectError(
    await api(origin, token, "/api/requests/req-3/reject", { method: "POST" }),
    409,
    "conflict",
  );
  const rejected = await api(origin, token, "/api/requests/req-4/reject", { method: "POST" });
  assert.equal((await rejected.json()).request.status, "rejected");
  const comment = await api(origin, token, "/api/requests/req-5/comments", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ text: "<img src=x onerror=alert(1)> looks fine" }),
  });
  assert.equal(comment.status, 201);
  assert.equal((await comment.json()).comment.text, "<img src=x onerror=alert(1)> looks fine");
  Deno.removeSync(data, { recursive: true });
});

Deno.test("the demo API answers bad input with a clear error", async () => {
  const data = Deno.makeTempDirSync();
  await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  const origin = demo.served.url;
  const token = await signedIn(origin);
  const post = (path: string, body?: string, type = "application/json") =>
    api(origin, token, path, {
      method: "POST",
      headers: { "Content-Type": type },
      ...(body === undefined ? {} : { body }),
    });
  await expectError(await post("/api/requests/req-99/approve"), 404, "not_found");
  await expectError(await post("/api/requests/DROP%20TABLE/approve"), 404, "not_found");
  await expectError(await post("/api/requests/req-5/comments", "{}"), 400, "bad_request");
  await expectError(await post("/api/requests/req-5/comments", '{"text": 5}'), 400, "bad_request");
  await expectError(
    await post("/api/requests/req-5/comments", '{"text": "   "}'),
    400,
    "bad_request",
  );
  await expectError(
    await post("/api/requests/req-5/comments", JSON.stringify({ text: "x".repeat(1001) })),
    400,
    "bad_request",
  );
  await expectError(await post("/api/requests/req-5/comments", "{nope"), 400, "bad_request");
  await expectError(
    await post("/api/requests/req-5/comments", '{"text":"hi"}', "text/plain"),
    400,
    "bad_request",
  );
  await expectError(
    await post("/api/requests/req-5/comments", JSON.stringify({ text: "x".repeat(9000) })),
    413,
    "payload_too_large",
  );
  await expectError(await post("/api/requests/req-77/comments", '{"text":"hi"}'), 404, "not_found");
  await expectError(await api(origin, token, "/api/requests?status=lost"), 400, "bad_request");
  const cross = await fetch(`${origin}/api/requests/req-5/approve`, {
    method: "POST",
    headers: { Cookie: `aim_session=${token}`, Origin: "https://evil.example" },
  });
  await expectError(cross, 403, "forbidden_origin");
  Deno.removeSync(data, { recursive: true });
});

Deno.test("many agents approving one request at once: one wins, the rest get 409", async () => {
  const data = Deno.makeTempDirSync();
  await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  const origin = demo.served.url;
  const tokens = await Promise.all(
    Array.from(
      { length: 12 },
      (_, i) => signedIn(origin, i % 2 ? "bob" : "alice", i % 2 ? "builder" : "wonderland"),
    ),
  );
  const answers = await Promise.all(
    tokens.map((t) => api(origin, t, "/api/requests/req-5/approve", { method: "POST" })),
  );
  const statuses = answers.map((r) => r.status).sort();
  await Promise.all(answers.map((r) => r.body?.cancel()));
  assert.deepEqual(statuses, [200, ...Array(11).fill(409)]);
  assert.equal(demo.store.get("req-5").status, "approved");
  Deno.removeSync(data, { recursive: true });
});

Deno.test("a restart over the same data keeps the data and the audit trail, not the sessions", async () => {
  const data = Deno.makeTempDirSync();
  let token: string;
  {
    await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
    token = await signedIn(demo.served.url);
    const res = await api(demo.served.url, token, "/api/requests/req-3/approve", {
      method: "POST",
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  await using again = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  await expectError(await api(again.served.url, token, "/api/requests"), 401, "invalid_token");
  assert.equal(again.store.get("req-3").status, "approved");
  const db = new DatabaseSync(join(data, "audit.sqlite"));
  const rows = db.prepare("SELECT action_id, status, input FROM audit").all();
  db.close();
  assert.deepEqual(rows.map((r) => [r.action_id, r.status]), [["login", 200]]);
  assert.ok(!String(rows[0].input).includes("wonderland"));
  Deno.removeSync(data, { recursive: true });
});
