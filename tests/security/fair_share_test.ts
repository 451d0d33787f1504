/**
 * No client address takes more than a bounded share of the bridge's costly work (issue 31,
 * deliverable 4): session mints, password checks and ACP runs each go at an address's rate or
 * within its places, what it sends beyond waits in a bounded line for its turn (so that a flood
 * waits instead of spinning on refusals), and past the line or the wait it is refused with 429 and
 * `Retry-After`; another address is served at once. Over real HTTP, clients told apart by
 * `X-Forwarded-For` behind `--trust-proxy`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { DEFAULTS } from "../../bridge/core/limits.ts";
import { createUserStore, hashPassword, type UserStore } from "../../bridge/mod.ts";
import { ONE_PROCESS, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { FakeTab, openPageSession } from "../helpers/fake_tab.ts";
import { postRun, textPart } from "../acp/helpers.ts";

const A = { "X-Forwarded-For": "203.0.113.7" };
const B = { "X-Forwarded-For": "198.51.100.2" };

/** Resolves once `condition` holds, looked at every millisecond; fails after 10 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`${what} did not happen within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** A session mint from `from`: its status, `Retry-After`, error code and time, ms. */
async function mint(bridge: TestBridge, from: Record<string, string>) {
  const started = performance.now();
  const res = await bridge.fetch("/__aim/session", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...from },
    body: JSON.stringify({ page: "/control-panel" }),
  });
  const body = await res.json();
  return {
    status: res.status,
    retryAfter: res.headers.get("Retry-After"),
    error: body.error as string | undefined,
    ms: performance.now() - started,
  };
}

Deno.test("an address's mints past its burst wait for their turns at its rate; another address's is answered at once", async () => {
  await using bridge = await startBridge({
    trustProxy: true,
    mintRate: { burst: 4, perSecond: 10 },
  });
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: 6 }, () => mint(bridge, A)));
  const other = await mint(bridge, B);
  assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200, 200]);
  assert.equal(other.status, 200);
  // The fifth and sixth waited for their turns (10 a second: 100 ms, 200 ms after the burst).
  const waited = answers.map((a) => a.ms).sort((x, y) => x - y);
  assert.ok(waited[5]! >= 190, `the sixth mint took ${waited[5]} ms`);
  assert.ok(other.ms < waited[5]!, "the other address did not wait behind A's line");
  assert.ok(performance.now() - started < 5_000);
});

Deno.test(
  "past the line of waiting mints an address is refused at once; those in line are refused after their wait",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge({
      trustProxy: true,
      mintRate: { burst: 1, perSecond: 0.01 },
    });
    const gate = bridge.served.bridge.core.mints;
    assert.equal((await mint(bridge, A)).status, 200);
    // The line of one address: DEFAULTS.maxWaitingPerClient mints wait, the next is refused.
    const line = Array.from({ length: DEFAULTS.maxWaitingPerClient }, () => mint(bridge, A));
    await until(
      () => gate.waitingOf(`client:${A["X-Forwarded-For"]}`) === DEFAULTS.maxWaitingPerClient,
      "a full line",
    );
    const refused = await mint(bridge, A);
    assert.equal(refused.status, 429);
    assert.equal(refused.error, "too_many_requests");
    assert.equal(refused.retryAfter, "1");
    assert.ok(refused.ms < DEFAULTS.lineWaitMs / 2, `refused after ${refused.ms} ms, not at once`);
    assert.equal(gate.waitingOf(`client:${A["X-Forwarded-For"]}`), DEFAULTS.maxWaitingPerClient);
    const waited = await Promise.all(line);
    for (const answer of waited) {
      assert.equal(answer.status, 429);
      assert.equal(answer.retryAfter, "1");
      assert.ok(answer.ms >= DEFAULTS.lineWaitMs - 50, `answered after ${answer.ms} ms`);
    }
    assert.equal((await mint(bridge, B)).status, 200);
  },
);

Deno.test(
  "an address has at most eight mints under way; its ninth waits for one of them to end, another address's is answered at once",
  ONE_PROCESS,
  async () => {
    // The rate lets every mint through: only the places under way hold the ninth back.
    await using bridge = await startBridge({
      trustProxy: true,
      mintRate: { burst: 100, perSecond: 100 },
    });
    const gate = bridge.served.bridge.core.mints;
    const key = `client:${A["X-Forwarded-For"]}`;
    // A mint is under way until its body has arrived: these bodies are sent later.
    const bodies: WritableStreamDefaultWriter<Uint8Array>[] = [];
    const slow: Promise<Response>[] = [];
    for (let i = 0; i < DEFAULTS.maxMintsPerClient; i++) {
      const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
      bodies.push(writable.getWriter());
      // A stream body needs duplex "half", as the Fetch standard says; Deno's types omit it.
      const init: RequestInit & { duplex: "half" } = {
        method: "POST",
        headers: { "Content-Type": "application/json", ...A },
        body: readable,
        duplex: "half",
      };
      slow.push(bridge.fetch("/__aim/session", init));
    }
    await until(() => gate.inside === DEFAULTS.maxMintsPerClient, "eight mints under way");
    const ninth = mint(bridge, A);
    await until(() => gate.waitingOf(key) === 1, "the ninth mint waiting");
    const other = await mint(bridge, B);
    assert.equal(other.status, 200, "another address waited behind A's places");
    assert.equal(gate.waitingOf(key), 1, "the ninth started with eight under way");
    // One body arrives: its mint ends, and the ninth takes its place.
    const body = new TextEncoder().encode(JSON.stringify({ page: "/control-panel" }));
    await bodies[0]!.write(body);
    await bodies[0]!.close();
    assert.equal((await slow[0]!).status, 200);
    assert.equal((await ninth).status, 200);
    for (const writer of bodies.slice(1)) {
      await writer.write(body);
      await writer.close();
    }
    for (const res of await Promise.all(slow.slice(1))) {
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
  },
);

// A small scrypt cost keeps the checks fast; the turns do not depend on it.
const hash = await hashPassword("correct horse", { N: 1024 });

Deno.test("an address's password checks go four at once, then one a second; the rest wait in line, another address signs in at once", async () => {
  const store = createUserStore([{ username: "bob", passwordHash: hash }]);
  const checks: number[] = [];
  const users: UserStore = {
    verify(username, password) {
      // An unknown user's check costs nothing here: only the address's turns bound them.
      if (!username.startsWith("ghost")) return store.verify(username, password);
      checks.push(performance.now());
      return Promise.resolve(null);
    },
  };
  await using bridge = await startBridge({ users, trustProxy: true });
  const tokens = await Promise.all(
    Array.from({ length: 21 }, () => bridge.openSession("/control-panel")),
  );
  const login = async (token: string, from: Record<string, string>, username: string) => {
    const started = performance.now();
    const res = await bridge.invoke(token, "login", { username, password: "whatever" }, from);
    await res.body?.cancel();
    return {
      status: res.status,
      ms: performance.now() - started,
      retryAfter: res.headers.get("Retry-After"),
    };
  };
  const started = performance.now();
  const flood = tokens.slice(0, 20).map((token, i) => login(token, A, `ghost-${i}`));
  const real = await bridge.invoke(tokens[20]!, "login", {
    username: "bob",
    password: "correct horse",
  }, B);
  assert.equal(real.status, 200, await real.text());
  const answers = await Promise.all(flood);
  const elapsed = (performance.now() - started) / 1000;
  // Four, then one a second: never more checks than the rate allows in the time it took.
  assert.ok(checks.length >= 4, `${checks.length} checks`);
  assert.ok(checks.length <= 4 + Math.ceil(elapsed) + 1, `${checks.length} checks in ${elapsed} s`);
  // None of the flood was refused before its turn: each refusal came after the line's wait.
  for (const answer of answers.filter((a) => a.status === 429)) {
    assert.equal(answer.retryAfter, "1");
    assert.ok(answer.ms >= DEFAULTS.lineWaitMs - 50, `refused after ${answer.ms} ms`);
  }
  assert.equal(answers.filter((a) => a.status === 422).length, checks.length);
});

Deno.test("a login of a session that must wait is refused on its address's turn, not at once", async () => {
  await using bridge = await startBridge({
    users: createUserStore([{ username: "bob", passwordHash: hash }]),
    trustProxy: true,
    loginAttempts: { baseDelayMs: 10_000 },
  });
  const token = await bridge.openSession("/control-panel");
  // Three free failures and one refused spend the address's burst of four.
  for (let i = 0; i < 4; i++) {
    const res = await bridge.invoke(token, "login", { username: "bob", password: `g${i}` }, A);
    await res.body?.cancel();
    assert.equal(res.status, i < 3 ? 422 : 429);
  }
  const started = performance.now();
  const res = await bridge.invoke(token, "login", { username: "bob", password: "g5" }, A);
  const body = await res.json();
  assert.equal(res.status, 429);
  assert.match(body.message, /failed logins/);
  // Its turn came a second after the burst, not before: a refused flood waits as checks do.
  assert.ok(performance.now() - started >= 500, `refused after ${performance.now() - started} ms`);
});

/** A run request of `token` from `from` asking the tab's `stall` action (which never answers). */
function stallRun(bridge: TestBridge, token: string, from: Record<string, string>) {
  return postRun(bridge, token, {
    agent_name: "control-panel",
    mode: "async",
    input: [{ role: "user", parts: [textPart("stall x")] }],
  }, from);
}

Deno.test("ACP runs past an address's runs under way wait for one of theirs to end, then start; another address is not in their line", async () => {
  await using bridge = await startBridge({
    trustProxy: true,
    acpRuns: { maxActiveRunsPerClient: 2, lineWaitMs: 3_000 },
  });
  const token = await openPageSession(bridge.origin, "/control-panel", A);
  await using tab = await FakeTab.open(bridge.origin, {
    token,
    page: "/control-panel",
    headers: A,
  });
  await tab.next("lease");
  await tab.register([{ id: "stall", input_example: "x" }]);
  tab.answerWith = "never";
  const first = await stallRun(bridge, token, A);
  assert.equal(first.status, 202);
  const firstId = (await first.json()).run_id;
  assert.equal((await stallRun(bridge, token, A)).status, 202);
  // The third waits in line: it starts once the first is cancelled.
  const third = stallRun(bridge, token, A);
  const cancelled = await bridge.fetch(`/runs/${firstId}/cancel`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, ...A },
  });
  await cancelled.body?.cancel();
  assert.equal((await third).status, 202);
  // Another address's runs are not in A's line.
  const other = await openPageSession(bridge.origin, "/control-panel", B);
  const otherRun = await stallRun(bridge, other, B);
  await otherRun.body?.cancel();
  assert.notEqual(otherRun.status, 429);
});

Deno.test("an ACP run that waited its line's whole wait is refused with 429 and Retry-After", async () => {
  await using bridge = await startBridge({
    trustProxy: true,
    acpRuns: { maxActiveRunsPerClient: 1, lineWaitMs: 300 },
  });
  const token = await openPageSession(bridge.origin, "/control-panel", A);
  await using tab = await FakeTab.open(bridge.origin, {
    token,
    page: "/control-panel",
    headers: A,
  });
  await tab.next("lease");
  await tab.register([{ id: "stall", input_example: "x" }]);
  tab.answerWith = "never";
  assert.equal((await stallRun(bridge, token, A)).status, 202);
  const started = performance.now();
  const res = await stallRun(bridge, token, A);
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("Retry-After"), "1");
  const body = await res.json();
  assert.equal(body.data?.error, "too_many_requests");
  assert.ok(performance.now() - started >= 290, "refused after its wait in line, not before");
});
