import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startDemo } from "../../demo/app.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab, openPageSession } from "../helpers/fake_tab.ts";
import { tempDir } from "../helpers/temp.ts";

/** Tab keys by token: the page's API answers only requests that carry the session's one. */
const keys = new Map<string, string>();

/**
 * Sessions signed in as the demo's page does it: a tab holds each one (and learns its tab key),
 * and acts like the control panel, running approve_request through the demo's API.
 */
class Tabs implements AsyncDisposable {
  readonly tabs: FakeTab[] = [];

  async signIn(origin: string, username = "alice", password = "wonderland"): Promise<string> {
    const sessionToken = await openPageSession(origin, "/control-panel");
    const tab = await FakeTab.open(origin, { token: sessionToken, page: "/control-panel" });
    this.tabs.push(tab);
    await tab.next("session");
    const decide = (verb: string) => async (id: unknown) => {
      const answer = await api(origin, sessionToken, `/api/requests/${id}/${verb}`, {
        method: "POST",
      });
      const body = await answer.json();
      if (!answer.ok) throw new Error(body.message);
      return { id: body.request.id, status: body.request.status };
    };
    await tab.register([
      {
        id: "approve_request",
        input_example: "req-3",
        protected: true,
        handler: decide("approve"),
      },
      { id: "reject_request", input_example: "req-4", protected: true, handler: decide("reject") },
    ]);
    // Signing in gives the tab a new tab key.
    const rotated = tab.next("session", (m) => m.authenticated);
    const login = await invoke(origin, sessionToken, "login", { username, password });
    assert.equal(login.status, 200, await login.clone().text());
    await login.body?.cancel();
    keys.set(sessionToken, (await rotated).tabKey);
    return sessionToken;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Promise.all(this.tabs.map((t) => t.close()));
  }
}

function invoke(origin: string, token: string, actionId: string, input: unknown) {
  return fetch(`${origin}/__aim/invoke`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ actionId, input }),
  });
}

function api(origin: string, token: string | null, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (token) headers.set("Authorization", `Bearer ${token}`);
  const key = token && keys.get(token);
  if (key) headers.set("X-Aim-Tab", key);
  return fetch(`${origin}${path}`, { ...init, headers });
}

Deno.test("the demo API refuses a request without the session's signed-in identity", async () => {
  await using dir = await tempDir("aim-demo-");
  const data = dir.path;
  await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  const origin = demo.served.url;
  await expectError(await api(origin, null, "/api/requests"), 401, "missing_token");
  await expectError(await api(origin, "forged", "/api/requests"), 401, "invalid_token");
  const sessionToken = await openPageSession(origin, "/control-panel");
  await using tab = await FakeTab.open(origin, { token: sessionToken, page: "/control-panel" });
  keys.set(sessionToken, (await tab.next("session")).tabKey);
  await expectError(await api(origin, sessionToken, "/api/requests"), 403, "login_required");
  await expectError(
    await api(origin, sessionToken, "/api/requests/req-3/approve", { method: "POST" }),
    403,
    "login_required",
  );
});

Deno.test("the demo API answers only the page's own tab, not an agent holding the token", async () => {
  await using dir = await tempDir("aim-demo-");
  const data = dir.path;
  await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  await using tabs = new Tabs();
  const origin = demo.served.url;
  const token = await tabs.signIn(origin);
  const asAgent = (path: string, key?: string) =>
    fetch(`${origin}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, ...(key ? { "X-Aim-Tab": key } : {}) },
    });
  await expectError(await asAgent("/api/requests/req-3/approve"), 403, "tab_required");
  await expectError(await asAgent("/api/requests/req-3/approve", "guess"), 403, "tab_required");
  const cookie = await fetch(`${origin}/api/requests/req-3/approve`, {
    method: "POST",
    headers: { Cookie: `aim_session=${token}` },
  });
  await expectError(cookie, 403, "tab_required");
  assert.equal(demo.store.get("req-3").status, "pending");
});

Deno.test("the demo API lists, approves, rejects, files and comments as the signed-in user", async () => {
  await using dir = await tempDir("aim-demo-");
  const data = dir.path;
  await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  await using tabs = new Tabs();
  const origin = demo.served.url;
  const token = await tabs.signIn(origin);
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
  const filed = await api(origin, token, "/api/requests", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ amount: "99.50", currency: "GBP", purpose: "Taxi" }),
  });
  assert.equal(filed.status, 201);
  const request = (await filed.json()).request;
  assert.deepEqual(
    [request.id, request.amount, request.currency, request.requester, request.status],
    ["req-6", 99.5, "GBP", "Alice Martin", "pending"],
  );
});

Deno.test("the demo API answers bad input with a clear error", async () => {
  await using dir = await tempDir("aim-demo-");
  const data = dir.path;
  await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  await using tabs = new Tabs();
  const origin = demo.served.url;
  const token = await tabs.signIn(origin);
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
  await expectError(
    await post("/api/requests/req-77/comments", '{"text":"hi"}'),
    404,
    "not_found",
  );
  await expectError(await api(origin, token, "/api/requests?status=lost"), 400, "bad_request");
  const badRequests: unknown[] = [
    {},
    { amount: "ten", currency: "EUR", purpose: "x" },
    { amount: "0", currency: "EUR", purpose: "x" },
    { amount: "-5", currency: "EUR", purpose: "x" },
    { amount: 25, currency: "EUR", purpose: "x" },
    { amount: "25", currency: "BTC", purpose: "x" },
    { amount: "25", currency: "EUR", purpose: "" },
    { amount: "25", currency: "EUR", purpose: "x".repeat(201) },
    { amount: "25", currency: "EUR", purpose: "x", requester: "mallory" },
  ];
  for (const body of badRequests) {
    await expectError(await post("/api/requests", JSON.stringify(body)), 400, "bad_request");
  }
  assert.equal(demo.store.list().length, 5);
  const cross = await fetch(`${origin}/api/requests/req-5/approve`, {
    method: "POST",
    headers: {
      Cookie: `aim_session=${token}`,
      "X-Aim-Tab": keys.get(token)!,
      Origin: "https://evil.example",
    },
  });
  await expectError(cross, 403, "forbidden_origin");
});

Deno.test("many agents approving one request at once: one wins, the rest fail, all audited", async () => {
  await using dir = await tempDir("aim-demo-");
  const data = dir.path;
  await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  await using tabs = new Tabs();
  const origin = demo.served.url;
  const tokens: string[] = [];
  for (let i = 0; i < 12; i++) {
    tokens.push(
      await tabs.signIn(origin, i % 2 ? "bob" : "alice", i % 2 ? "builder" : "wonderland"),
    );
  }
  const answers = await Promise.all(
    tokens.map((t) => invoke(origin, t, "approve_request", "req-5")),
  );
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, ...Array(11).fill(422)]);
  for (const res of answers) {
    if (res.status === 200) await res.body?.cancel();
    else assert.match((await expectError(res, 422, "action_failed")).message, /already approved/);
  }
  assert.equal(demo.store.get("req-5").status, "approved");
  // Every invocation is in the audit trail exactly once: no lost or doubled entries. Its rows
  // are written once the event loop turns after each answer: write those still queued.
  demo.audit.flush();
  const db = new DatabaseSync(join(data, "audit.sqlite"));
  const rows = db.prepare(
    "SELECT status, count(*) AS n FROM audit WHERE action_id = 'approve_request' GROUP BY status",
  ).all();
  db.close();
  assert.deepEqual(rows.map((r) => [r.status, r.n]), [[200, 1], [422, 11]]);
});

Deno.test("a restart over the same data keeps the data and the audit trail, not the sessions", async () => {
  await using dir = await tempDir("aim-demo-");
  const data = dir.path;
  let token: string;
  {
    await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
    await using tabs = new Tabs();
    token = await tabs.signIn(demo.served.url);
    const res = await invoke(demo.served.url, token, "approve_request", "req-3");
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  await using again = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  await expectError(await api(again.served.url, token, "/api/requests"), 403, "tab_required");
  await expectError(await invoke(again.served.url, token, "search", "x"), 401, "invalid_token");
  assert.equal(again.store.get("req-3").status, "approved");
  again.audit.flush();
  const db = new DatabaseSync(join(data, "audit.sqlite"));
  const rows = db.prepare("SELECT action_id, status, input FROM audit ORDER BY id").all();
  db.close();
  assert.deepEqual(rows.map((r) => [r.action_id, r.status]), [
    ["login", 200],
    ["approve_request", 200],
  ]);
  assert.equal(rows[1]?.input, JSON.stringify("req-3"));
  assert.ok(!String(rows[0]?.input).includes("wonderland"));
});

Deno.test("a data folder from before requests had a purpose is upgraded, not broken", async () => {
  await using dir = await tempDir("aim-demo-");
  const data = dir.path;
  const old = new DatabaseSync(join(data, "demo.sqlite"));
  old.exec(
    `CREATE TABLE requests (id TEXT PRIMARY KEY, amount REAL NOT NULL, currency TEXT NOT NULL,
    requester TEXT NOT NULL, status TEXT NOT NULL, decided_by TEXT);
    INSERT INTO requests VALUES ('req-1', 10, 'EUR', 'Old Timer', 'pending', NULL);`,
  );
  old.close();
  await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  assert.deepEqual(demo.store.get("req-1").purpose, "");
  assert.equal(demo.store.create(5, "EUR", "Coffee", "Ann").id, "req-2");
});
