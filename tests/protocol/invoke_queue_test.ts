/**
 * Invocations on their way to the tab (bridge/core/relay_queue.ts), over HTTP: one at a time in
 * the order asked, each within its tab timeout counted from its request, queued time included;
 * withdrawn when its agent hangs up; failed when the tab goes; and 429 past the in-flight bound,
 * server actions counted.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ONE_PROCESS, startBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { connected } from "../helpers/connected_tab.ts";

Deno.test("invoke() answers 504 tab_timeout when the tab never answers, and keeps serving", async () => {
  await using bridge = await startBridge({ tabTimeoutMs: 100 });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  await expectError(await bridge.invoke(token, "search", "x"), 504, "tab_timeout");
  tab.answerWith = "handler";
  assert.equal((await bridge.invoke(token, "search", "x")).status, 200);
});

Deno.test("invoke() answers 409 when the tab disconnects mid-invocation", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  tab.answerWith = "never";
  const pending = bridge.invoke(token, "search", "x");
  await tab.next("invoke");
  await tab.close();
  const body = await expectError(await pending, 409, "browser_not_connected");
  assert.match(body.message, /may or may not have run/);
});

Deno.test("invoke() answers 429 too_many_requests with Retry-After when too many are in flight", async () => {
  await using bridge = await startBridge({ limits: { maxInFlight: 2 }, tabTimeoutMs: 5_000 });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const release: (() => void)[] = [];
  tab.handlers.set("search", () => new Promise<string>((r) => release.push(() => r("done"))));
  const first = bridge.invoke(token, "search", "a");
  const second = bridge.invoke(token, "search", "b");
  await tab.next("invoke");
  const third = await bridge.invoke(token, "search", "c");
  await expectError(third, 429, "too_many_requests", { "Retry-After": "1" });
  release.shift()!();
  await tab.next("invoke");
  release.shift()!();
  assert.equal((await first).status, 200);
  assert.equal((await second).status, 200);
});

Deno.test(
  "invoke() counts server actions against the invocations in flight of a session",
  ONE_PROCESS,
  async () => {
    const held: (() => void)[] = [];
    let running!: () => void;
    const twoRunning = new Promise<void>((resolve) => running = resolve);
    await using bridge = await startBridge({
      limits: { maxInFlight: 2 },
      serverActions: [{
        id: "slow",
        description: "Hold the first two calls until the test lets them go",
        input_schema: { type: "string" },
        input_example: "x",
        run: () => {
          if (held.length >= 2) return "ran";
          const done = new Promise((resolve) => held.push(() => resolve("held")));
          if (held.length === 2) running();
          return done;
        },
      }],
    });
    const token = await bridge.openSession("/control-panel");
    const first = bridge.invoke(token, "slow", "a");
    const second = bridge.invoke(token, "slow", "b");
    await twoRunning;
    try {
      await expectError(await bridge.invoke(token, "slow", "c"), 429, "too_many_requests", {
        "Retry-After": "1",
      });
    } finally {
      // Pass or fail, the held calls end: the bridge shuts down only once they are answered.
      held.forEach((release) => release());
    }
    assert.equal((await first).status, 200);
    assert.equal((await second).status, 200);
  },
);

Deno.test("invoke() relays invocations to the tab one at a time", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  let running = 0;
  let most = 0;
  tab.handlers.set("search", async (q) => {
    running++;
    most = Math.max(most, running);
    await Promise.resolve();
    running--;
    return q;
  });
  const answers = await Promise.all(
    ["a", "b", "c", "d"].map((q) => bridge.invoke(token, "search", q)),
  );
  assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200]);
  assert.deepEqual(await Promise.all(answers.map(async (r) => (await r.json()).result)), [
    "a",
    "b",
    "c",
    "d",
  ]);
  assert.equal(most, 1);
});

Deno.test(
  "invoke() counts the tab timeout from the request, queue included",
  ONE_PROCESS,
  async () => {
    // The first call waits for the person (a longer timeout): the two behind it stay queued
    // however late their requests come, and must run out of time there, 150 ms after each one's
    // own request.
    await using bridge = await startBridge({ tabTimeoutMs: 150, confirmTimeoutMs: 1_000 });
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    tab.answerWith = "never";
    const first = bridge.invoke(token, "search", "a");
    const running = await tab.next("invoke");
    tab.send({ type: "awaiting", id: running.id, message: "Asking the person." });
    const queued = await Promise.all(["b", "c"].map((q) => bridge.invoke(token, "search", q)));
    for (const res of [...queued, await first]) await expectError(res, 504, "tab_timeout");
    // The two queued behind the first ran out of time in the queue: the tab never saw them.
    assert.equal(tab.messages.filter((m) => m.type === "invoke").length, 1);
    // The bridge told the tab to forget the one it was running.
    assert.ok(tab.has("cancel"));
  },
);

Deno.test(
  "invoke() withdraws an invocation whose agent hung up before it ran",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge({ tabTimeoutMs: 5_000 });
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    const release: (() => void)[] = [];
    const ran: unknown[] = [];
    tab.handlers.set("search", (q) => {
      ran.push(q);
      return new Promise((resolve) => release.push(() => resolve(q)));
    });
    const first = bridge.invoke(token, "search", "first");
    await tab.next("invoke");
    const abort = new AbortController();
    const second = bridge.fetch("/__aim/invoke", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ actionId: "search", input: "abandoned" }),
      signal: abort.signal,
    }).catch((error) => error);
    // Wait until the bridge queued it: the session's in-flight count says so.
    const session = (await bridge.served.bridge.core.sessions.find(token))!;
    while (session.inFlight < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    abort.abort();
    assert.ok((await second) instanceof Error);
    while (session.inFlight > 1) await new Promise((resolve) => setTimeout(resolve, 5));
    release.shift()!();
    assert.equal((await first).status, 200);
    assert.deepEqual(ran, ["first"]);
    assert.equal(tab.messages.filter((m) => m.type === "invoke").length, 1);
  },
);
