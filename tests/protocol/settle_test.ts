/**
 * Settled answers over HTTP, with fake tabs: the answer to an invocation carries the state after
 * the page finished reacting (a page action's declared work, a sign-in's reload), within the
 * settle timeout, and says `"settled": false` when it could not wait that long.
 */
import assert from "node:assert/strict";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }), name: "Alice" },
]);
const ALICE = { username: "alice", password: "wonderland" };

/** A session whose tab holds the lease and registered `reload`, answered by the test itself. */
async function connected(bridge: TestBridge): Promise<{ token: string; tab: FakeTab }> {
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.next("session");
  await tab.register([{ id: "reload", input_example: "all" }]);
  tab.setState({ requests: [] });
  await applied(tab);
  return { token, tab };
}

/** Resolves once the bridge has handled what the tab sent so far: it answers a registration after them. */
async function applied(tab: FakeTab): Promise<void> {
  await tab.register([{ id: "reload", input_example: "all" }]);
}

/** Invokes and reads the answer, timing it. */
async function invoke(bridge: TestBridge, token: string, actionId: string, input?: unknown) {
  const started = performance.now();
  const res = await bridge.invoke(token, actionId, input);
  // deno-lint-ignore no-explicit-any
  const body: any = await res.json();
  return { status: res.status, body, ms: performance.now() - started };
}

const REQUESTS = [{ id: "req-3", status: "pending" }];

Deno.test("an action whose page work ends after its handler returns is answered after that work, with the state it left", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  let answered = false;
  const answer = invoke(bridge, token, "reload", "all").finally(() => answered = true);
  const { id } = await tab.next("invoke");
  // The handler returned: the page pushes what it shows now, then its declared work ends.
  tab.setState({ requests: [], loading: true });
  await applied(tab);
  const work = Promise.withResolvers<void>();
  work.promise.then(() => {
    tab.setState({ requests: REQUESTS, loading: false });
    tab.send({ type: "result", id, ok: true, result: { reloaded: true }, settled: true });
  });
  // The bridge holds the answer while the page works: a manifest read now sees the old state.
  const during = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  assert.equal(during.state.loading, true);
  assert.equal(answered, false);
  work.resolve();
  const { status, body } = await answer;
  assert.equal(status, 200);
  assert.deepEqual(body.result, { reloaded: true });
  assert.deepEqual(body.state.requests, REQUESTS);
  assert.equal(body.state.loading, false);
  assert.equal(body.settled, true);
});

Deno.test("a page action whose declared work outlasted the settle timeout is answered with settled false", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const answer = invoke(bridge, token, "reload", "all");
  const { id } = await tab.next("invoke");
  tab.setState({ requests: [], loading: true });
  tab.send({ type: "result", id, ok: true, result: null, settled: false });
  const { status, body } = await answer;
  assert.equal(status, 200);
  assert.equal(body.settled, false);
  assert.equal(body.state.loading, true);
});

Deno.test("a result that carries the state is answered with that state, redacted and kept as the session's", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const answer = invoke(bridge, token, "reload", "all");
  const { id } = await tab.next("invoke");
  // One message: the result and the state once settled (no `state` message before it).
  tab.send({
    type: "result",
    id,
    ok: true,
    result: { reloaded: true },
    settled: true,
    state: { requests: REQUESTS, api_token: "s3cret" },
  });
  const { status, body } = await answer;
  assert.equal(status, 200);
  assert.deepEqual(body.state.requests, REQUESTS);
  assert.equal(body.state.api_token, undefined, "secret-looking keys are dropped, as from `state`");
  const manifest = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  assert.deepEqual(manifest.state.requests, REQUESTS);
  assert.equal(manifest.state_version, body.state_version);
});

Deno.test("a result without state leaves the state the tab sent before it", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const answer = invoke(bridge, token, "reload", "all");
  const { id } = await tab.next("invoke");
  tab.setState({ requests: REQUESTS });
  tab.send({ type: "result", id, ok: true, result: null });
  const { body } = await answer;
  assert.deepEqual(body.state.requests, REQUESTS);
});

Deno.test("a tab that says nothing of settling answers as before: settled true", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.handlers.set("reload", () => ({ reloaded: true }));
  tab.stateAfter = () => ({ requests: REQUESTS });
  const { status, body } = await invoke(bridge, token, "reload", "all");
  assert.equal(status, 200);
  assert.deepEqual(body.state.requests, REQUESTS);
  assert.equal(body.settled, true);
});

Deno.test("login waits for the tab's settled message and answers with the state the tab reported before it", async () => {
  await using bridge = await startBridge({ users });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.settle = "manual";
  const answer = invoke(bridge, token, "login", ALICE);
  const session = await tab.next("session", (m) => m.authenticated);
  assert.equal(typeof session.settle, "string");
  assert.equal(session.settleMs, 3000);
  // The page loads what the person may now see, pushes it, then says it settled.
  tab.setState({ requests: REQUESTS });
  tab.send({ type: "settled", id: session.settle });
  const { status, body } = await answer;
  assert.equal(status, 200);
  assert.equal(body.state.authenticated, true);
  assert.deepEqual(body.state.requests, REQUESTS);
  assert.equal(body.settled, true);
  // The next manifest says the same.
  const manifest = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  assert.deepEqual(manifest.state.requests, REQUESTS);
});

Deno.test("logout waits for the tab's settled message too", async () => {
  await using bridge = await startBridge({ users });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  assert.equal((await invoke(bridge, token, "login", ALICE)).body.settled, true);
  tab.settle = "manual";
  tab.setState({ requests: REQUESTS });
  await applied(tab);
  const answer = invoke(bridge, token, "logout", {});
  const session = await tab.next("session", (m) => !m.authenticated && !!m.settle);
  tab.setState({ requests: [] });
  tab.send({ type: "settled", id: session.settle });
  const { status, body } = await answer;
  assert.equal(status, 200);
  assert.equal(body.state.authenticated, false);
  assert.deepEqual(body.state.requests, []);
  assert.equal(body.settled, true);
});

Deno.test("an app's server action that signs in waits for the tab like login", async () => {
  await using bridge = await startBridge({
    serverActions: [{
      id: "sign_in_as_guest",
      description: "Sign in as the guest",
      input_schema: { type: "object", properties: {}, required: [], additionalProperties: false },
      input_example: {},
      run: (ctx) => {
        ctx.signIn({ username: "guest" });
        return { signedIn: "guest" };
      },
    }],
  });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.settle = "manual";
  const answer = invoke(bridge, token, "sign_in_as_guest", {});
  const session = await tab.next("session", (m) => m.authenticated);
  tab.setState({ requests: REQUESTS });
  tab.send({ type: "settled", id: session.settle });
  const { body } = await answer;
  assert.deepEqual(body.result, { signedIn: "guest" });
  assert.deepEqual(body.state.requests, REQUESTS);
  assert.equal(body.settled, true);
});

Deno.test("a sign-in the tab does not settle within the settle timeout is answered with settled false", async () => {
  await using bridge = await startBridge({ users, settleTimeoutMs: 200 });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.settle = "manual";
  const { status, body, ms } = await invoke(bridge, token, "login", ALICE);
  assert.equal(status, 200);
  assert.equal(body.state.authenticated, true);
  assert.deepEqual(body.state.requests, []);
  assert.equal(body.settled, false);
  assert.ok(ms >= 200, `answered after ${ms} ms`);
  // A settled message that comes after the bridge gave up changes nothing and closes nothing.
  const session = await tab.next("session", (m) => m.authenticated);
  assert.equal(session.settleMs, 200);
  tab.send({ type: "settled", id: session.settle });
  const manifest = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  assert.equal(manifest.browser_connected, true);
});

Deno.test("a settled message from a tab that does not hold the session does not end the wait", async () => {
  await using bridge = await startBridge({ users, settleTimeoutMs: 500 });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.settle = "manual";
  // A second tab of the same session waits in line behind the first.
  await using other = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await other.next("lease", (m) => m.status === "waiting");
  const answer = invoke(bridge, token, "login", ALICE);
  const session = await tab.next("session", (m) => m.authenticated);
  other.send({ type: "settled", id: session.settle });
  const { body } = await answer;
  assert.equal(body.settled, false);
});

Deno.test("a tab that goes away while the bridge waits for it ends the wait at once: settled false", async () => {
  await using bridge = await startBridge({ users, settleTimeoutMs: 10_000 });
  const { token, tab } = await connected(bridge);
  tab.settle = "manual";
  const answer = invoke(bridge, token, "login", ALICE);
  await tab.next("session", (m) => m.authenticated);
  await tab.close();
  const { status, body, ms } = await answer;
  assert.equal(status, 200);
  assert.equal(body.settled, false);
  assert.ok(ms < 5_000, `answered after ${ms} ms`);
});

Deno.test("with no tab holding the session, login answers at once with settled true: nothing reacts", async () => {
  await using bridge = await startBridge({ users, settleTimeoutMs: 10_000 });
  const token = await bridge.openSession("/control-panel");
  const { status, body, ms } = await invoke(bridge, token, "login", ALICE);
  assert.equal(status, 200);
  assert.equal(body.state.authenticated, true);
  assert.equal(body.settled, true);
  assert.ok(ms < 5_000, `answered after ${ms} ms`);
});

Deno.test("the session message carries the settle timeout, and a settle id only when the bridge waits", async () => {
  await using bridge = await startBridge({ users, settleTimeoutMs: 1234 });
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  const granted = await tab.next("session");
  assert.equal(granted.settleMs, 1234);
  assert.equal(granted.settle, undefined);
  // disconnect changes no identity: nothing to settle, answered at once.
  const { body } = await invoke(bridge, token, "disconnect", {});
  assert.equal(body.settled, true);
  assert.ok(!tab.has("session", (m) => m.type === "session" && m.settle !== undefined));
});
