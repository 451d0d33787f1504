/**
 * Who a request to an app's own route speaks for (bridge/http/token.ts): `requireSession` on a
 * bridge's embedded routes, with a real tab. The tab key names the page's own session and wins
 * over any token; a route for the tab alone refuses every token; anything but GET and HEAD from
 * another origin is refused; a route that needs a signed-in person says so.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readSession, requireSession, TAB_KEY_HEADER } from "../../bridge/http/token.ts";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { expectError } from "../helpers/errors.ts";
import { createUserStore, hashPassword } from "../../bridge/core/login.ts";

const USERS = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }) },
]);

/** A bridge with routes answering the session id each way of reading it finds. */
function bridgeWithRoutes(): Promise<TestBridge> {
  return startBridge({
    users: USERS,
    routes: (app, core) => {
      app.all("/app/read", async (c) => c.json({ id: (await readSession(c, core)).id }));
      app.all("/app/any", async (c) => c.json({ id: (await requireSession(c, core)).id }));
      app.all("/app/signed-in", async (c) => {
        return c.json({ id: (await requireSession(c, core, { signedIn: true })).id });
      });
      app.all("/app/tab", async (c) => {
        return c.json({ id: (await requireSession(c, core, { tab: true })).id });
      });
    },
  });
}

/** The session id behind a token, as the bridge knows it. */
async function idOf(bridge: TestBridge, token: string): Promise<string> {
  return (await bridge.served.bridge.core.authenticate(token)).id;
}

async function idAnswer(res: Response): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text).id;
}

Deno.test("the tab key is sent as X-Aim-Tab", () => {
  assert.equal(TAB_KEY_HEADER, "X-Aim-Tab");
});

Deno.test("requireSession() finds the session of a Bearer token or of the session cookie", async () => {
  await using bridge = await bridgeWithRoutes();
  const token = await bridge.openSession("/control-panel");
  const id = await idOf(bridge, token);
  for (const path of ["/app/any", "/app/read"]) {
    const bearer = await bridge.fetch(path, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(await idAnswer(bearer), id, path);
    const cookie = await bridge.fetch(path, { headers: { Cookie: `aim_session=${token}` } });
    assert.equal(await idAnswer(cookie), id, path);
  }
});

Deno.test("requireSession() answers 401 without a token and with a token it does not know", async () => {
  await using bridge = await bridgeWithRoutes();
  for (const path of ["/app/any", "/app/signed-in", "/app/tab"]) {
    await expectError(await bridge.fetch(path), 401, "missing_token", {
      "WWW-Authenticate": 'Bearer realm="aim"',
    });
    const unknown = await bridge.fetch(path, {
      headers: { Authorization: `Bearer ${"A".repeat(43)}` },
    });
    await expectError(unknown, 401, "invalid_token", {
      "WWW-Authenticate": 'Bearer error="invalid_token"',
    });
  }
});

Deno.test("requireSession() refuses anything but GET and HEAD from another origin, with a valid token", async () => {
  await using bridge = await bridgeWithRoutes();
  const token = await bridge.openSession("/control-panel");
  const auth = { Authorization: `Bearer ${token}` };
  for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
    for (
      const cross of [{ Origin: "http://evil.example" }, { "Sec-Fetch-Site": "cross-site" }, {
        "Sec-Fetch-Site": "same-site",
      }]
    ) {
      const res = await bridge.fetch("/app/any", { method, headers: { ...auth, ...cross } });
      await expectError(res, 403, "forbidden_origin");
    }
    const own = await bridge.fetch("/app/any", {
      method,
      headers: { ...auth, Origin: bridge.origin },
    });
    assert.equal(own.status, 200, method);
    await own.body?.cancel();
  }
  for (const method of ["GET", "HEAD"]) {
    const res = await bridge.fetch("/app/any", {
      method,
      headers: { ...auth, Origin: "http://evil.example" },
    });
    assert.equal(res.status, 200, `${method} reads from anywhere`);
    await res.body?.cancel();
  }
});

Deno.test("requireSession() with signedIn answers 403 login_required until the person signs in", async () => {
  await using bridge = await bridgeWithRoutes();
  const token = await bridge.openSession("/control-panel");
  const res = await bridge.fetch("/app/signed-in", {
    headers: { Authorization: `Bearer ${token}` },
  });
  await expectError(res, 403, "login_required");

  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const login = await bridge.invoke(token, "login", { username: "alice", password: "wonderland" });
  assert.equal(login.status, 200, await login.text());
  const signedIn = await bridge.fetch("/app/signed-in", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(await idAnswer(signedIn), await idOf(bridge, token));
});

Deno.test("a route for the tab refuses the agent's token and answers the tab key while its tab holds the lease", async () => {
  await using bridge = await bridgeWithRoutes();
  const token = await bridge.openSession("/control-panel");
  const id = await idOf(bridge, token);
  const tokenOnly = await bridge.fetch("/app/tab", {
    headers: { Authorization: `Bearer ${token}` },
  });
  await expectError(tokenOnly, 403, "tab_required");
  const cookieOnly = await bridge.fetch("/app/tab", {
    headers: { Cookie: `aim_session=${token}` },
  });
  await expectError(cookieOnly, 403, "tab_required");

  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const { tabKey } = await tab.next("session");
  const asTab = (path: string, headers: Record<string, string> = {}) =>
    bridge.fetch(path, { headers: { [TAB_KEY_HEADER]: tabKey, ...headers } });
  assert.equal(await idAnswer(await asTab("/app/tab")), id);
  assert.equal(await idAnswer(await asTab("/app/read")), id, "readSession() takes the tab key");
  assert.equal(await idAnswer(await asTab("/app/any")), id);

  // The tab key wins over a token of another session: the page's requests name its own.
  const other = await bridge.openSession("/control-panel");
  const mixed = await asTab("/app/any", { Authorization: `Bearer ${other}` });
  assert.equal(await idAnswer(mixed), id);

  await tab.close();
  for (const path of ["/app/tab", "/app/read", "/app/any"]) {
    const stale = await asTab(path, { Authorization: `Bearer ${token}` });
    await expectError(stale, 403, "tab_required");
  }
  const wrong = await bridge.fetch("/app/tab", {
    headers: { [TAB_KEY_HEADER]: "not-a-key", Authorization: `Bearer ${token}` },
  });
  await expectError(wrong, 403, "tab_required");
});
