/**
 * Findings 3 and 5: what binds a tab to a session is a credential the agent never sees; the
 * agent's token, however it is sent, never opens the tab channel, holds the lease or gets the
 * tab key; signing in and out rotates the credential and the tab key; a page adopts no
 * session its own tab did not open.
 */
import assert from "node:assert/strict";
import { encode as encodeToon } from "@toon-format/toon";
import { requireSession } from "../../bridge/mod.ts";
import { createUserStore, hashPassword } from "../../bridge/core/login.ts";
import { startBridge, tabHandshake, type TestBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { credentials, FakeTab } from "../helpers/fake_tab.ts";

/** Every way an agent holding only the token could try to be the tab. */
function agentAttempts(bridge: TestBridge, token: string): Record<string, string>[] {
  const asProtocol = `aim-tab-v1, aim-credential.${token}`;
  return [
    { Authorization: `Bearer ${token}` },
    { Authorization: `Bearer ${token}`, Origin: bridge.origin },
    { Cookie: `aim_session=${token}` },
    { Cookie: `aim_session=${token}`, Origin: bridge.origin },
    { "Sec-WebSocket-Protocol": asProtocol },
    { "Sec-WebSocket-Protocol": asProtocol, Origin: bridge.origin, Cookie: `aim_session=${token}` },
    { "Sec-WebSocket-Protocol": "aim-tab-v1", Authorization: `Bearer ${token}` },
  ];
}

const USERS = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }) },
]);

Deno.test("the agent's token, however it is sent, never opens the tab channel", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  for (const headers of agentAttempts(bridge, token)) {
    const answer = await tabHandshake(bridge, headers);
    assert.match(answer, /^HTTP\/1\.1 403/, JSON.stringify(headers));
    assert.match(answer, /tab_credential_required/);
  }
});

Deno.test("when the person's tab goes away, the agent still cannot take the lease or the tab key", async () => {
  await using bridge = await startBridge({ leaseMs: 300 });
  const token = await bridge.openSession("/control-panel");
  const person = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await person.next("lease");
  const { tabKey } = await person.next("session");
  await person.close();
  for (const headers of agentAttempts(bridge, token)) {
    assert.match(await tabHandshake(bridge, headers), /^HTTP\/1\.1 403/);
  }
  // Opening a session with the token gives a new session, never this one's credential.
  const res = await bridge.fetch("/__aim/session", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ page: "/control-panel", resume: token }),
  });
  const grant = await res.json();
  assert.equal(grant.resumed, false);
  assert.notEqual(grant.sessionToken, token);
  assert.notEqual(grant.tabCredential, credentials.get(token));
  assert.doesNotMatch(JSON.stringify(grant), new RegExp(tabKey));
});

Deno.test("no answer readable with the token carries the tab credential or the tab key", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const credential = credentials.get(token)!;
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const { tabKey } = await tab.next("session");
  await tab.register([{ id: "search", handler: () => ({ found: 1 }) }]);
  tab.setState({ rows: [1, 2] });
  const auth = { Authorization: `Bearer ${token}` };
  const texts = [
    await (await bridge.fetch("/control-panel.json", { headers: auth })).text(),
    await (await bridge.fetch("/control-panel.toon", { headers: auth })).text(),
    await (await bridge.invoke(token, "search", "x")).text(),
    await (await bridge.fetch("/__aim/activity", { headers: auth })).text(),
    await (await bridge.fetch("/sitemap.json", { headers: auth })).text(),
    await (await bridge.fetch("/agents", { headers: auth })).text(),
  ];
  for (const text of texts) {
    assert.ok(!text.includes(credential), text.slice(0, 80));
    assert.ok(!text.includes(tabKey), text.slice(0, 80));
  }
  assert.ok(encodeToon({}).length >= 0);
});

Deno.test("signing in and out rotates the tab credential of every tab and the tab key of the owner only", async () => {
  await using bridge = await startBridge({
    users: USERS,
    routes: (app, core) => {
      app.get(
        "/api/me",
        async (c) => c.json({ id: (await requireSession(c, core, { tab: true })).id }),
      );
    },
  });
  const token = await bridge.openSession("/control-panel");
  const first = credentials.get(token)!;
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const before = (await tab.next("session")).tabKey;
  // A second tab of the session waits for the lease: it is told the new credential, never a key.
  await using waiting = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  assert.equal((await waiting.next("lease")).status, "waiting");
  const apiWith = (key: string) => bridge.fetch("/api/me", { headers: { "X-Aim-Tab": key } });
  assert.equal((await apiWith(before)).status, 200);

  const rotated = tab.next("credential");
  const told = waiting.next("credential");
  const signedIn = tab.next("session", (m) => m.authenticated);
  const login = await bridge.invoke(token, "login", { username: "alice", password: "wonderland" });
  assert.equal(login.status, 200);
  await login.body?.cancel();
  const second = (await rotated).credential;
  const after = (await signedIn).tabKey;
  assert.notEqual(second, first);
  assert.notEqual(after, before);
  assert.equal((await told).credential, second);
  // Messages arrive in order: once the waiting tab has its answer to a heartbeat, it has
  // everything the sign-in sent it, and no session message (no tab key) among them.
  const answered = waiting.next("lease");
  waiting.send({ type: "heartbeat" });
  assert.equal((await answered).status, "waiting");
  assert.ok(!waiting.has("session"), "a waiting tab was sent the tab key");
  // The old tab key and the old credential are worth nothing now; the new ones work.
  await expectError(await apiWith(before), 403, "tab_required");
  assert.equal((await apiWith(after)).status, 200);
  const protocols = (c: string) => `aim-tab-v1, aim-credential.${c}`;
  const origin = { Origin: bridge.origin };
  assert.match(
    await tabHandshake(bridge, { ...origin, "Sec-WebSocket-Protocol": protocols(first) }),
    /^HTTP\/1\.1 403/,
  );
  assert.match(
    await tabHandshake(bridge, { ...origin, "Sec-WebSocket-Protocol": protocols(second) }),
    /^HTTP\/1\.1 101/,
  );

  const again = tab.next("credential");
  const logout = await bridge.invoke(token, "logout", {});
  assert.equal(logout.status, 200);
  await logout.body?.cancel();
  assert.notEqual((await again).credential, second);
});

Deno.test("the tab key names the session at /__aim/invoke in place of the token, while its tab holds the lease", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const { tabKey } = await tab.next("session");
  await tab.register([{ id: "search", handler: (q) => ({ found: q }) }]);
  const asPage = () =>
    bridge.fetch("/__aim/invoke", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Aim-Tab": tabKey },
      body: JSON.stringify({ actionId: "search", input: "x" }),
    });
  const res = await asPage();
  assert.equal(res.status, 200);
  assert.deepEqual((await res.json()).result, { found: "x" });
  // No tab holds the lease now: the key names nothing, though the token still works.
  await tab.close();
  await expectError(await asPage(), 403, "tab_required");
  await expectError(await bridge.invoke(token, "search", "x"), 409, "browser_not_connected");
});

Deno.test("session() never adopts a session by its cookie or its token alone", async () => {
  await using bridge = await startBridge();
  const attacker = await bridge.openSession("/control-panel");
  const cases: Record<string, string>[] = [
    { Cookie: `aim_session=${attacker}` },
    { Authorization: `Bearer ${attacker}` },
    { Cookie: `aim_session=${attacker}; aim_session=${attacker}` },
  ];
  for (const headers of cases) {
    for (const body of [{ page: "/control-panel" }, { page: "/", resume: attacker }]) {
      const res = await bridge.fetch("/__aim/session", {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200);
      const grant = await res.json();
      assert.notEqual(grant.sessionToken, attacker, JSON.stringify(headers));
      assert.equal(grant.resumed, false);
      assert.match(
        res.headers.get("set-cookie") ?? "",
        new RegExp(`^aim_session=${grant.sessionToken};`),
      );
    }
  }
  // The attacker's own credential with someone else's token resumes nothing either.
  const victim = await bridge.openSession("/control-panel");
  const res = await bridge.fetch("/__aim/session", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${victim}` },
    body: JSON.stringify({ page: "/control-panel", resume: credentials.get(attacker) }),
  });
  assert.equal((await res.json()).resumed, false);
});

Deno.test("two session cookies in one request are refused: one of them was planted", async () => {
  await using bridge = await startBridge();
  const a = await bridge.openSession("/control-panel");
  const b = await bridge.openSession("/control-panel");
  const res = await bridge.fetch("/control-panel.json", {
    headers: { Cookie: `aim_session=${a}; aim_session=${b}` },
  });
  await expectError(res, 401, "invalid_token", {
    "WWW-Authenticate": 'Bearer error="invalid_token"',
  });
});
