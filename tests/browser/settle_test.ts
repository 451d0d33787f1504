/**
 * Settled answers in real Chromium: the answer to an invocation waits for the work the
 * page declares (`waitUntil` on a handler, on `aim-invoke`, on `aim-session`), within the
 * bridge's settle timeout; and the demo's `login` answer, and the manifest right after it, hold
 * the requests, every time.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { startDemo } from "../../demo/app.ts";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { bridgeAt, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { Agent, ELEMENTS, launchBrowser, NO_CHROMIUM, openPage, panelToken } from "./harness.ts";

const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }), name: "Alice" },
]);
const ALICE = { username: "alice", password: "wonderland" };

/**
 * A page whose actions start work that ends when the test calls `finish()` (no timers): by a
 * handler's `waitUntil`, by the `aim-invoke` event's, by a listener beside a `click=` binding,
 * by a sign-in's `aim-session` event; and one whose work never ends.
 */
const PAGE = `<!doctype html><title>Settle</title>${ELEMENTS}<aim-panel></aim-panel>
<button id="go" onclick="document.querySelector('aim-state[name=clicks]').value++">Go</button>
<aim-state name="phase" value="idle"></aim-state>
<aim-state name="clicks"></aim-state>
<aim-action name="by_handler" description="Start loading; the page finishes later"></aim-action>
<aim-action name="by_event" description="Start loading through the event"></aim-action>
<aim-action name="by_click" description="Click go, then load" click="#go"></aim-action>
<aim-action name="never" description="Start work that never ends"></aim-action>
<script type="module">
  const phase = document.querySelector("aim-state[name=phase]");
  document.querySelector("aim-state[name=clicks]").value = 0;
  let release = () => {};
  window.started = false;
  window.work = () => {
    window.started = true;
    return new Promise((resolve) => release = resolve).then(() => phase.value = "loaded");
  };
  window.finish = () => {
    window.started = false;
    release();
  };
  document.querySelector("aim-action[name=by_handler]").handler = (_input, { waitUntil }) => {
    phase.value = "loading";
    waitUntil(window.work());
    return { started: "handler" };
  };
  document.querySelector("aim-action[name=never]").handler = (_input, { waitUntil }) => {
    phase.value = "stuck";
    waitUntil(new Promise(() => {}));
    return { started: "never" };
  };
  document.addEventListener("aim-invoke", (event) => {
    const { actionId, waitUntil, respondWith } = event.detail;
    if (actionId === "by_event") {
      phase.value = "loading";
      waitUntil(window.work());
      respondWith({ started: "event" });
    }
    // No respondWith: the click= binding runs, and the answer waits for this work too.
    if (actionId === "by_click") {
      phase.value = "loading";
      waitUntil(window.work());
    }
  });
  document.addEventListener("aim-session", (event) => {
    if (!event.detail.authenticated) return;
    phase.value = "signing in";
    event.waitUntil(window.work());
  });
</script>`;

/** Opens the page in a fresh context; the agent holds its token once the tab holds the session. */
async function open(bridge: TestBridge, context: Parameters<typeof openPage>[0]) {
  const page = await openPage(context, bridge, "/settle");
  const agent = new Agent(bridge, await panelToken(page));
  await agent.manifestWhen(
    "/settle.json",
    (m) => m.actions.some((a: { id: string }) => a.id === "never"),
  );
  return { page, agent };
}

/**
 * Waits until the page's work started and what the page shows meanwhile (`phase`) reached the
 * bridge, a frame later; an answer that did not wait for the work would have come by then. Checks
 * that none came, and ends the work.
 */
async function finishWork(
  page: Page,
  agent: Agent,
  phase: string,
  answered: () => boolean,
): Promise<void> {
  await page.waitForFunction(() => (window as unknown as { started: boolean }).started);
  await agent.manifestWhen("/settle.json", (m) => m.state.phase === phase);
  await agent.manifest("/settle.json");
  assert.equal(answered(), false, "the agent was answered before the page's work ended");
  await page.evaluate(() => (window as unknown as { finish(): void }).finish());
}

Deno.test({
  name: "an answer waits for the work the page declares, and says when it could not",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using bridge = await startBridge({ site: { "settle.html": PAGE }, users });
    await using short = await startBridge({ site: { "settle.html": PAGE }, settleTimeoutMs: 300 });
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const { page, agent } = await open(bridge, context);

    for (const actionId of ["by_handler", "by_event", "by_click"]) {
      await t.step(`${actionId}: the answer holds the state after the declared work`, async () => {
        let answered = false;
        const answer = agent.invoke(actionId, {}).finally(() => answered = true);
        await finishWork(page, agent, "loading", () => answered);
        const { status, body } = await answer;
        assert.equal(status, 200, JSON.stringify(body));
        assert.equal(body.state.phase, "loaded");
        assert.equal(body.settled, true);
        const after = await agent.manifest("/settle.json");
        assert.equal(after.body.state.phase, "loaded");
        if (actionId === "by_click") {
          assert.deepEqual(body.result, { clicked: "#go" });
          assert.equal(body.state.clicks, 1);
        }
      });
    }

    await t.step("login waits for the page's reaction to aim-session", async () => {
      let answered = false;
      const answer = agent.invoke("login", ALICE).finally(() => answered = true);
      await finishWork(page, agent, "signing in", () => answered);
      const { status, body } = await answer;
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.state.authenticated, true);
      assert.equal(body.state.phase, "loaded");
      assert.equal(body.settled, true);
    });

    await t.step(
      "work that outlasts the settle timeout: answered then, settled false",
      async () => {
        await using other = await browser.context();
        const { agent: hurried } = await open(short, other);
        const started = performance.now();
        const { status, body } = await hurried.invoke("never", {});
        assert.equal(status, 200, JSON.stringify(body));
        assert.equal(body.settled, false);
        assert.deepEqual(body.result, { started: "never" });
        assert.equal(body.state.phase, "stuck");
        assert.ok(performance.now() - started >= 300);
      },
    );
  },
});

Deno.test({
  name: "the demo's login answer and the manifest right after it hold the requests, every time",
  ignore: NO_CHROMIUM,
  async fn() {
    const data = Deno.makeTempDirSync({ prefix: "aim-demo-" });
    await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
    const origin = demo.served.url;
    const bridge = bridgeAt(origin);
    await using browser = await launchBrowser();
    for (let run = 1; run <= 5; run++) {
      // A fresh context each time: a new person, a new session.
      await using context = await browser.context();
      const page = await openPage(context, bridge, "/control-panel");
      const agent = new Agent(bridge, await panelToken(page));
      // The demo fills its requests once the session says who is signed in, after the tab
      // connected: wait for them.
      const before = await agent.manifestWhen(
        "/control-panel.json",
        (m) => m.browser_connected && m.state.requests !== undefined,
      );
      assert.deepEqual(before.body.state.requests, [], `run ${run}`);

      const login = await agent.invoke("login", { username: "alice", password: "wonderland" });
      assert.equal(login.status, 200, `run ${run}: ${JSON.stringify(login.body)}`);
      assert.equal(login.body.settled, true, `run ${run}`);
      assert.equal(
        login.body.state.requests.length,
        5,
        `run ${run}: ${JSON.stringify(login.body)}`,
      );
      const next = await agent.manifest("/control-panel.json");
      assert.equal(next.body.state.requests.length, 5, `run ${run}: ${JSON.stringify(next.body)}`);
      assert.ok(next.body.actions.some((a: { id: string }) => a.id === "approve_request"));

      const logout = await agent.invoke("logout", {});
      assert.equal(logout.body.settled, true, `run ${run}`);
      assert.deepEqual(logout.body.state.requests, [], `run ${run}`);
      await page.close();
    }
    Deno.removeSync(data, { recursive: true });
  },
});
