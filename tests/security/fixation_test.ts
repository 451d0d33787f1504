/**
 * Finding 5 in real Chromium: a page on another port of the same host plants `aim_session`
 * (cookies are not port-scoped); the victim's page must not adopt that session, and the
 * victim's sign-in must not reach the attacker's token. Finding 4 on the demo: whatever the
 * comments, what the control panel publishes stays bounded and its tab keeps the lease.
 */
import assert from "node:assert/strict";
import { startDemo } from "../../demo/app.ts";
import { bridgeAt } from "../helpers/bridge.ts";
import { Agent, launchBrowser, NO_CHROMIUM, panelStatus, panelToken } from "../browser/harness.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test({
  name: "a cookie planted from another port never hands the victim's session to the attacker",
  ignore: NO_CHROMIUM,
  async fn() {
    await using data = await tempDir("aim-fixation-");
    await using demo = await startDemo({ data: data.path, port: 0, hostname: "127.0.0.1" });
    const bridge = bridgeAt(demo.served.url);
    // The attacker mints a session of its own, as any client can, and keeps the token.
    const minted = await (await bridge.fetch("/__aim/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ page: "/control-panel" }),
    })).json();
    const attacker = new Agent(bridge, minted.sessionToken);
    // A page of the attacker's on another port of 127.0.0.1 plants it, twice over.
    await using evil = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      () =>
        new Response("<!doctype html><title>Evil</title><p>hello", {
          headers: [
            ["Content-Type", "text/html"],
            ["Set-Cookie", `aim_session=${minted.sessionToken}; Path=/`],
            ["Set-Cookie", `aim_session=${minted.sessionToken}; Path=/control-panel`],
          ],
        }),
    );
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${evil.addr.port}/`);
    const planted = await page.cookies(`http://127.0.0.1:${demo.served.port}/control-panel`);
    assert.ok(planted.some((c) => c.value === minted.sessionToken), "the cookie was planted");

    await page.goto(`${bridge.origin}/control-panel`);
    const token = await panelToken(page);
    assert.notEqual(token, minted.sessionToken);
    await panelStatus(page, "connected");
    // The victim signs in with the page's own form.
    await page.type("#username", "alice");
    await page.type("#password", "wonderland");
    await page.click("#login button");
    await page.waitForFunction(() => document.body.dataset.signedIn === "yes");
    const victim = new Agent(bridge, token);
    const mine = await victim.manifestWhen(
      "/control-panel.json",
      (m) => m.state.authenticated && m.state.requests?.length > 0,
    );
    assert.equal(mine.body.state.user.username, "alice");
    // The attacker's token sees nobody signed in and none of alice's requests.
    const theirs = await attacker.manifest("/control-panel.json");
    assert.equal(theirs.status, 200);
    assert.equal(theirs.body.state.authenticated, false);
    assert.equal(theirs.body.state.requests, undefined);
    assert.equal(theirs.body.browser_connected, false);
    const approve = await attacker.invoke("approve_request", "req-3");
    assert.equal(approve.status, 403);
    assert.equal(approve.body.error, "login_required");
  },
});

Deno.test({
  name: "the demo publishes bounded rows whatever the comments, and its tab keeps the lease",
  ignore: NO_CHROMIUM,
  async fn() {
    await using data = await tempDir("aim-comments-");
    await using demo = await startDemo({ data: data.path, port: 0, hostname: "127.0.0.1" });
    const bridge = bridgeAt(demo.served.url);
    for (let i = 0; i < 400; i++) demo.store.comment("req-3", "x".repeat(900), "Mallory");
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`${bridge.origin}/control-panel`);
    const agent = new Agent(bridge, await panelToken(page));
    const login = await agent.invoke("login", { username: "alice", password: "wonderland" });
    assert.equal(login.status, 200);
    const { body } = await agent.manifestWhen(
      "/control-panel.json",
      (m) => m.state.requests?.length > 0,
    );
    const row = body.state.requests.find((r: { id: string }) => r.id === "req-3");
    assert.equal(row.comments, 400);
    assert.ok(row.last_comment.length <= 200);
    assert.equal(body.browser_connected, true);
    assert.ok(JSON.stringify(body.state).length < 20_000);
  },
});
