import assert from "node:assert/strict";
import { ONE_PROCESS, startBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { credentials, FakeTab } from "../helpers/fake_tab.ts";
import { tempDir } from "../helpers/temp.ts";

function post(origin: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${origin}/__aim/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

Deno.test("session() answers a token, its expiry and page, and sets a strict HttpOnly cookie", async () => {
  await using bridge = await startBridge();
  const res = await post(bridge.origin, { page: "/control-panel" }, { Origin: bridge.origin });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.match(body.sessionToken, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(body.page, "/control-panel");
  const expires = Date.parse(body.expiresAt);
  assert.ok(expires > Date.now() && expires <= Date.now() + 3600_000 + 1000);
  const cookie = res.headers.get("set-cookie") ?? "";
  assert.match(cookie, new RegExp(`^aim_session=${body.sessionToken};`));
  assert.match(cookie, /; HttpOnly/);
  assert.match(cookie, /; SameSite=Strict/);
  assert.match(cookie, /; Path=\//);
  assert.doesNotMatch(cookie, /Secure/);
  assert.equal(res.headers.get("cache-control"), "no-store");
});

Deno.test("session() gives every page load its own 256-bit token", async () => {
  await using bridge = await startBridge();
  const tokens = new Set<string>();
  for (let i = 0; i < 20; i++) tokens.add(await bridge.openSession("/control-panel"));
  assert.equal(tokens.size, 20);
});

Deno.test("session() resumes the page's own session with its credential and token, re-attached to the page", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const again = await post(
    bridge.origin,
    { page: "/orders", resume: credentials.get(token) },
    { Authorization: `Bearer ${token}` },
  );
  const body = await again.json();
  assert.equal(body.sessionToken, token);
  assert.equal(body.resumed, true);
  assert.equal(body.tabCredential, undefined);
  assert.equal(body.page, "/orders");
  const manifest = await bridge.fetch("/orders.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(manifest.status, 200);
  const old = await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(old.status, 409);
  assert.equal((await old.json()).connected_page, "/orders");
});

Deno.test("session() with an expired or unknown cookie starts a new session", async () => {
  await using bridge = await startBridge();
  const res = await post(bridge.origin, { page: "/" }, { Cookie: `aim_session=${"x".repeat(43)}` });
  assert.equal(res.status, 200);
  assert.notEqual((await res.json()).sessionToken, "x".repeat(43));
});

Deno.test("session() refuses another origin with 403 and sets no cookie", async () => {
  await using bridge = await startBridge();
  const cases: Record<string, string>[] = [
    { Origin: "https://evil.example" },
    { Origin: "null" },
    { "Sec-Fetch-Site": "cross-site" },
  ];
  for (const headers of cases) {
    const res = await post(bridge.origin, { page: "/control-panel" }, headers);
    assert.equal(res.headers.get("set-cookie"), null);
    await expectError(res, 403, "forbidden_origin");
  }
});

Deno.test("session() answers 400 bad_request for bad bodies and 404 for unknown pages", async () => {
  await using bridge = await startBridge();
  const cases: [unknown, Record<string, string>, number][] = [
    ["{not json", {}, 400],
    [{}, {}, 400],
    [{ page: 3 }, {}, 400],
    [{ page: "relative" }, {}, 400],
    [{ page: "/control-panel", extra: 1 }, {}, 400],
    [{ page: "/../etc/passwd" }, {}, 400],
    [{ page: "/control-panel" }, { "Content-Type": "text/plain" }, 400],
    [{ page: "/nope" }, {}, 404],
    [{ page: "/plain" }, {}, 404],
  ];
  for (const [body, headers, status] of cases) {
    const res = await post(bridge.origin, body, headers);
    await expectError(res, status, status === 400 ? "bad_request" : "not_found");
  }
  const big = await post(bridge.origin, { page: "/" + "a".repeat(70_000) });
  await expectError(big, 413, "payload_too_large");
  const get = await bridge.fetch("/__aim/session");
  await expectError(get, 405, "method_not_allowed", { Allow: "POST" });
});

Deno.test("session() sets a __Host- cookie, Secure, behind HTTPS", async () => {
  // The bridge trusts the request's own URL; an HTTPS listener gives https: URLs.
  const { createBridge } = await import("../../bridge/mod.ts");
  await using root = await tempDir("aim-site-");
  Deno.writeTextFileSync(`${root.path}/index.html`, `<aim-state name="x"></aim-state>`);
  const bridge = createBridge({ root: root.path, allowedHosts: null });
  try {
    const res = await bridge.fetch(
      new Request("https://aim.example/__aim/session", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ page: "/" }),
      }),
    );
    assert.equal(res.status, 200);
    const cookie = res.headers.get("set-cookie") ?? "";
    assert.match(cookie, /^__Host-aim_session=[A-Za-z0-9_-]{43};/);
    assert.match(cookie, /; Secure/);
    assert.match(cookie, /; Path=\//);
    assert.doesNotMatch(cookie, /Domain=/i);
  } finally {
    bridge.close();
  }
});

Deno.test("a session expires after its idle time and use renews it", ONE_PROCESS, async () => {
  let now = Date.now();
  await using bridge = await startBridge({ now: () => now, idleMs: 60_000 });
  const token = await bridge.openSession("/control-panel");
  const read = () =>
    bridge.fetch("/control-panel.json", { headers: { Authorization: `Bearer ${token}` } });
  now += 50_000;
  assert.equal((await read()).status, 200); // renews
  now += 50_000;
  assert.equal((await read()).status, 200);
  now += 60_001;
  await expectError(await read(), 401, "invalid_token");
});

Deno.test("a session's idle time is never over one hour", ONE_PROCESS, async () => {
  let now = Date.now();
  await using bridge = await startBridge({ now: () => now, idleMs: 10 * 3600_000 });
  const token = await bridge.openSession("/control-panel");
  const read = () =>
    bridge.fetch("/control-panel.json", { headers: { Authorization: `Bearer ${token}` } });
  // Used once: a session in use, past the short idle time of one nobody used.
  const used = await read();
  assert.equal(used.status, 200);
  await used.body?.cancel();
  now += 3600_000 + 1;
  await expectError(await read(), 401, "invalid_token");
});

Deno.test("a tab that connects gives its session the full idle time of a session in use", async () => {
  let now = Date.now();
  await using bridge = await startBridge({
    now: () => now,
    freshIdleMs: 120_000,
    idleMs: 600_000,
    leaseMs: 3_600_000,
  });
  const token = await bridge.openSession("/control-panel");
  now += 100_000;
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  // 200 s after opening: past the 120 s of a session nobody uses, inside 600 s from the tab.
  now += 100_000;
  const res = await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("a tab heartbeat renews the session", async () => {
  let now = Date.now();
  // A lease longer than the jumps of this clock, so that only the session's expiry is tested.
  await using bridge = await startBridge({ now: () => now, idleMs: 60_000, leaseMs: 600_000 });
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  now += 50_000;
  tab.send({ type: "heartbeat" });
  await tab.next("lease", (m) => m.status === "granted");
  now += 50_000;
  const res = await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
});

Deno.test("disconnect ends the session: its token answers 401 and the tab is told", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const res = await bridge.invoke(token, "disconnect", {});
  assert.equal(res.status, 200);
  assert.deepEqual((await res.json()).result, { disconnected: true });
  assert.deepEqual(await tab.next("ended"), { type: "ended", reason: "disconnected" });
  assert.equal((await tab.closed).code, 4001);
  const after = await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(after.status, 401);
  await expectError(await bridge.invoke(token, "disconnect", {}), 401, "invalid_token");
});

Deno.test("no session survives a restart of the bridge", async () => {
  await using root = await tempDir("aim-site-");
  Deno.writeTextFileSync(`${root.path}/index.html`, `<aim-state name="x"></aim-state>`);
  let token: string;
  {
    await using first = await startBridge({ root: root.path });
    token = await first.openSession("/");
  }
  await using second = await startBridge({ root: root.path });
  const res = await second.fetch("/index.json", { headers: { Authorization: `Bearer ${token}` } });
  await expectError(res, 401, "invalid_token");
});

Deno.test("a token is kept only as a hash", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const store = bridge.served.bridge.core.sessions;
  const session = (await store.find(token))!;
  assert.ok(session);
  assert.notEqual(session.tokenHash, token);
  const seen = new Set<unknown>();
  const text = JSON.stringify(session, (_key, value) => {
    if (typeof value === "object" && value !== null) {
      if (seen.has(value)) return undefined;
      seen.add(value);
    }
    return value instanceof Map ? [...value] : value;
  });
  assert.ok(text.includes(session.tokenHash));
  assert.ok(!text.includes(token));
});

Deno.test("session() re-attaches by the page's cookie only, never by an agent's Bearer token", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const res = await post(bridge.origin, { page: "/" }, { Authorization: `Bearer ${token}` });
  const body = await res.json();
  assert.notEqual(body.sessionToken, token);
  const still = await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(still.status, 200);
  await still.body?.cancel();
});

Deno.test("a full bridge refuses new sessions with 429 and never ends a live one", async () => {
  await using bridge = await startBridge({ maxSessions: 3 });
  const tokens = await Promise.all([1, 2, 3].map(() => bridge.openSession("/control-panel")));
  // In use: an agent has read each one.
  for (const token of tokens) {
    const res = await bridge.fetch("/control-panel.json", {
      headers: { Authorization: `Bearer ${token}` },
    });
    await res.body?.cancel();
  }
  const refused = await post(bridge.origin, { page: "/control-panel" });
  await expectError(refused, 429, "too_many_requests", { "Retry-After": "60" });
  for (const token of tokens) {
    const res = await bridge.fetch("/control-panel.json", {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
});

Deno.test("a page whose HTML holds only <aim-panel> hosts sessions: its tab's actions make the session manifest, and it has no public one", async () => {
  await using bridge = await startBridge({
    site: {
      "tools.html": `<!doctype html><title>Tools</title>
<script type="module" src="/__aim/elements.js"></script><aim-panel></aim-panel>`,
      "plain.html": "<!doctype html><title>Plain</title><p>No agent here.</p>",
    },
  });
  const plain = await post(bridge.origin, { page: "/plain" });
  await expectError(plain, 404, "not_found");
  const token = await bridge.openSession("/tools");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/tools" });
  await tab.next("lease");
  tab.setState({ count: 1 });
  const registered = await tab.register([{ id: "add_item", handler: (input) => `added ${input}` }]);
  assert.deepEqual(registered.accepted, ["add_item"]);
  const res = await bridge.fetch("/tools.json", { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  const manifest = await res.json();
  assert.equal(manifest.page, "/tools");
  assert.ok(manifest.actions.some((a: { id: string }) => a.id === "add_item"));
  assert.equal(manifest.state.count, 1);
  const answer = await (await bridge.invoke(token, "add_item", "pen")).json();
  assert.equal(answer.result, "added pen");
  await expectError(await bridge.fetch("/tools.json"), 404, "not_found");
  const sitemap = await (await bridge.fetch("/sitemap.json")).json();
  assert.deepEqual(sitemap.pages, []);
  // Another session's page, or a plain page, is still not readable through this session.
  const other = await bridge.fetch("/plain.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  await expectError(other, 404, "not_found");
});
