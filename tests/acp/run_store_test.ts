/** @module The run store without HTTP: its bounds, its time to live, its event snapshots. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import type { ServerAction } from "../../bridge/core/server_actions.ts";
import type { Session } from "../../bridge/core/session.ts";
import { AcpHttpError } from "../../bridge/acp/errors.ts";
import type { AcpRun } from "../../bridge/acp/run.ts";
import { RunStore, type RunStoreOptions } from "../../bridge/acp/runs.ts";
import { BASIC_SITE } from "../helpers/bridge.ts";

/** Server actions for runs that wait until released, and answers of a chosen size. */
function testActions(held: (() => void)[]): ServerAction[] {
  const string = { type: "string" as const, maxLength: 20 };
  return [
    {
      id: "hold",
      description: "Answers once the test releases it",
      input_schema: string,
      input_example: "x",
      run: () => new Promise<string>((resolve) => held.push(() => resolve("released"))),
    },
    {
      id: "big",
      description: "Answers a string of as many bytes as its input says",
      input_schema: string,
      input_example: "10",
      run: (_ctx, input) => "x".repeat(Number(input)),
    },
  ];
}

/** A core over BASIC_SITE, a store, and self-minted sessions (no tab: browser runs fail at once). */
function setup(options: RunStoreOptions) {
  const root = Deno.makeTempDirSync({ prefix: "aim-acp-" });
  for (const [path, content] of Object.entries(BASIC_SITE)) {
    Deno.mkdirSync(join(root, path, ".."), { recursive: true });
    Deno.writeTextFileSync(join(root, path), content);
  }
  const held: (() => void)[] = [];
  const core = new BridgeCore({
    root,
    serverActions: testActions(held),
    limits: { maxInFlight: 100 },
  });
  // Refused at once unless a test asks for the line: the bounds here are the registry's.
  const store = new RunStore(core, { lineWaitMs: 0, ...options });
  const session = async () => (await core.openSession("/control-panel")).session;
  const create = (owner: Session, sessionId?: string, text = "search x", client?: string) =>
    store.create(owner, {
      agentName: "control-panel",
      sessionAgent: "control-panel",
      sessionId,
      client,
      input: [{ role: "user", parts: [{ content_type: "text/plain", content: text }] }],
    });
  /** A run that ran and failed (no tab holds the session). */
  const finished = async (owner: Session, sessionId?: string) => {
    const run = await create(owner, sessionId);
    run.start();
    assert.equal((await run.finished).status, "failed");
    return run;
  };
  /** A started run that stays under way until the test releases it. */
  const holding = async (owner: Session, client?: string) => {
    const run = await create(owner, undefined, "hold x", client);
    run.start();
    return run;
  };
  /** A finished run whose answer holds `bytes` bytes of result. */
  const sized = async (owner: Session, bytes: number) => {
    const run = await create(owner, undefined, `big ${bytes}`);
    run.start();
    await run.finished;
    return run;
  };
  return {
    core,
    store,
    session,
    create,
    finished,
    holding,
    sized,
    /** Lets every held action answer. */
    release: () => held.splice(0).forEach((resolve) => resolve()),
    [Symbol.dispose]() {
      held.splice(0).forEach((resolve) => resolve());
      core.close();
      Deno.removeSync(root, { recursive: true });
    },
  };
}

/** Whether `fn` rejects with the store's 429 with a Retry-After. */
async function refused(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return false;
  } catch (error) {
    assert.ok(error instanceof AcpHttpError);
    assert.equal(error.status, 429);
    assert.equal(error.code, "server_error");
    assert.ok(Number(error.headers["Retry-After"]) >= 1);
    return true;
  }
}

/** `promise`, or a failure after `ms`: a guard against a hang, never a wait for something. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("the store keeps a bounded number of runs per session, dropping the oldest finished", async () => {
  using t = setup({ maxRunsPerSession: 3 });
  const owner = await t.session();
  const sessionId = crypto.randomUUID();
  const runs: AcpRun[] = [];
  for (let i = 0; i < 5; i++) runs.push(await t.finished(owner, sessionId));
  assert.equal(t.store.size, 3);
  assert.deepEqual(runs.map((r) => t.store.get(owner, r.id) !== undefined), [
    false,
    false,
    true,
    true,
    true,
  ]);
  assert.deepEqual(t.store.session(owner, sessionId)!.runs, runs.slice(2).map((r) => r.id));
});

Deno.test("the store refuses a run with 429 when all the session's runs are under way", async () => {
  using t = setup({ maxRunsPerSession: 2 });
  const owner = await t.session();
  const first = await t.create(owner);
  await t.create(owner);
  await assert.rejects(() => t.create(owner), (error: unknown) => {
    assert.ok(error instanceof AcpHttpError);
    assert.equal(error.status, 429);
    assert.equal(error.code, "server_error");
    return true;
  });
  first.cancel();
  assert.equal((await first.finished).status, "cancelled");
  await t.create(owner);
  assert.equal(t.store.get(owner, first.id), undefined, "the cancelled run made way");
});

Deno.test("a full store drops the finished runs of the session holding the most, and forgets emptied ACP sessions", async () => {
  using t = setup({ maxRuns: 3 });
  const a = await t.session();
  const b = await t.session();
  const sessionB = crypto.randomUUID();
  const kept = await t.finished(a);
  const old = await t.finished(b, sessionB);
  await t.finished(b);
  await t.finished(a);
  assert.equal(t.store.size, 3);
  assert.equal(t.store.get(b, old.id), undefined, "b held the most: its oldest made way");
  assert.ok(t.store.get(a, kept.id), "a's older run stays");
  assert.equal(t.store.session(b, sessionB), undefined, "an ACP session with no runs left goes");
});

Deno.test("the store drops finished runs after their time to live", async () => {
  let now = 1_000_000;
  using t = setup({ ttlMs: 60_000, now: () => now });
  const owner = await t.session();
  const old = await t.finished(owner);
  now += 30_000;
  const recent = await t.finished(owner);
  now += 40_000;
  await t.finished(owner);
  assert.equal(t.store.get(owner, old.id), undefined);
  assert.ok(t.store.get(owner, recent.id));
});

Deno.test("a run's events are snapshots that later changes do not alter", async () => {
  using t = setup({});
  const owner = await t.session();
  const run = await t.finished(owner);
  const events = run.events();
  assert.deepEqual(events.map((e) => e.type), ["run.created", "run.in-progress", "run.failed"]);
  assert.deepEqual(
    events.map((e) => "run" in e ? e.run.status : null),
    ["created", "in-progress", "failed"],
  );
  events[0]!.type = "run.failed";
  assert.equal(run.events()[0]?.type, "run.created");
  assert.equal(run.view().error?.data?.error, "browser_not_connected");
});

Deno.test("a session at its cap of runs under way is refused with 429 while another session's run goes ahead", async () => {
  using t = setup({ maxActiveRunsPerSession: 4, maxRuns: 10 });
  const a = await t.session();
  const b = await t.session();
  // Each session tries to start more runs than the bridge holds; only its own cap stops it.
  let started = 0;
  for (let i = 0; i < 10; i++) if (!await refused(() => t.holding(a))) started++;
  assert.equal(started, 4);
  for (let i = 0; i < 10; i++) await refused(() => t.holding(b));
  const c = await t.session();
  const run = await t.create(c, undefined, "big 5");
  run.start();
  assert.equal((await run.finished).status, "completed", "a third session still runs");
});

Deno.test("finished runs do not count against a session's cap of runs under way", async () => {
  using t = setup({ maxActiveRunsPerSession: 2 });
  const a = await t.session();
  const first = await t.holding(a);
  await t.holding(a);
  assert.ok(await refused(() => t.holding(a)));
  t.release();
  assert.equal((await first.finished).status, "completed");
  assert.ok(!await refused(() => t.holding(a)), "a finished run frees its place");
});

Deno.test("a client address at its cap of runs under way is refused while another client's run goes ahead", async () => {
  using t = setup({ maxActiveRunsPerSession: 4, maxActiveRunsPerClient: 6 });
  const sessions = await Promise.all([t.session(), t.session(), t.session()]);
  let started = 0;
  for (const owner of sessions) {
    for (let i = 0; i < 4; i++) {
      if (!await refused(() => t.holding(owner, "203.0.113.7"))) started++;
    }
  }
  assert.equal(started, 6, "one address holds at most 6 runs under way, over all its sessions");
  const other = await t.session();
  assert.ok(!await refused(() => t.holding(other, "198.51.100.2")));
});

Deno.test("a run not finished by its deadline fails with run_deadline and its invocation is withdrawn", async () => {
  using t = setup({ deadlineMs: 50 });
  const owner = await t.session();
  const run = await t.holding(owner);
  // The run's own timer ends it: nothing else touches the store meanwhile.
  const ended = await within(run.finished, 5000, "the deadline");
  assert.equal(ended.status, "failed");
  assert.equal(ended.error?.code, "server_error");
  assert.equal(ended.error?.data?.error, "run_deadline");
  assert.match(ended.error!.message, /did not finish within/);
  assert.ok(run.signal.aborted, "the invocation is withdrawn");
  assert.deepEqual(run.events().map((e) => e.type), [
    "run.created",
    "run.in-progress",
    "run.failed",
  ]);
  // The action's late answer changes nothing.
  t.release();
  await Promise.resolve();
  assert.equal(run.view().status, "failed");
});

Deno.test("a run past its deadline on the store's clock ends when the store is next used, and frees its place", async () => {
  let now = 1_000_000;
  using t = setup({ deadlineMs: 60_000, maxActiveRunsPerSession: 1, now: () => now });
  const owner = await t.session();
  const run = await t.holding(owner);
  assert.ok(await refused(() => t.holding(owner)));
  now += 59_999;
  assert.equal(t.store.get(owner, run.id)!.status, "in-progress");
  now += 1;
  assert.equal(t.store.get(owner, run.id)!.status, "failed");
  assert.equal(run.view().error?.data?.error, "run_deadline");
  assert.ok(!await refused(() => t.holding(owner)), "the expired run made way");
});

Deno.test("an awaiting run also ends at its deadline, saying the person did not answer", async () => {
  let now = 1_000_000;
  using t = setup({ deadlineMs: 60_000, now: () => now });
  const owner = await t.session();
  const other = await t.session();
  const run = await t.holding(owner);
  run.awaiting({ type: "message", message: { role: "agent/control-panel", parts: [] } });
  assert.equal(run.status, "awaiting");
  now += 60_000;
  // Any use of the store stops runs past their deadline, another session's included.
  await t.holding(other);
  assert.equal(run.status, "failed", "stopped at once, on the store's clock");
  const ended = await run.finished;
  assert.equal(ended.status, "failed");
  assert.equal(ended.await_request, null);
  assert.match(ended.error!.message, /did not answer the confirmation/);
});

Deno.test("a session keeps at most its byte budget of runs, its oldest finished runs making way", async () => {
  const budget = 64 * 1024;
  using t = setup({ maxSessionBytes: budget });
  const a = await t.session();
  const b = await t.session();
  const bRun = await t.sized(b, 10_000);
  const runs = [];
  for (let i = 0; i < 20; i++) {
    runs.push(await t.sized(a, 10_000));
    assert.ok(t.store.bytesOf(a) <= budget, `${t.store.bytesOf(a)} bytes kept`);
  }
  assert.ok(runs.every((r) => r.view().status === "completed"));
  const kept = runs.filter((r) => t.store.get(a, r.id));
  assert.ok(kept.length >= 4 && kept.length < 7, `${kept.length} runs kept`);
  assert.deepEqual(kept, runs.slice(-kept.length), "the newest are kept");
  assert.ok(t.store.get(b, bRun.id), "another session's runs are not touched");
  assert.equal(t.store.bytes, t.store.bytesOf(a) + t.store.bytesOf(b));
});

Deno.test("an answer larger than the byte budget is replaced by an error saying it was too large to keep", async () => {
  const budget = 64 * 1024;
  using t = setup({ maxSessionBytes: budget });
  const owner = await t.session();
  const small = await t.sized(owner, 1000);
  const run = await t.sized(owner, budget);
  const view = run.view();
  assert.equal(view.status, "failed");
  assert.deepEqual(view.output, []);
  assert.equal(view.error?.data?.error, "output_too_large");
  assert.match(view.error!.message, /ran, but its answer of \d+ bytes is more than/);
  assert.ok(run.bytes < 4096, `${run.bytes} bytes kept`);
  assert.ok(JSON.stringify(run.events()).length < 8192);
  assert.ok(t.store.get(owner, small.id), "an older run stays: the large answer took no room");
});

Deno.test("the bridge's byte budget sheds the finished runs of the heaviest session first", async () => {
  using t = setup({ maxSessionBytes: 64 * 1024, maxBytes: 60 * 1024 });
  const light = await t.session();
  const heavy = await t.session();
  const lightRun = await t.sized(light, 20_000);
  for (let i = 0; i < 10; i++) {
    await t.sized(heavy, 20_000);
    assert.ok(t.store.bytes <= 60 * 1024, `${t.store.bytes} bytes kept`);
  }
  assert.ok(t.store.get(light, lightRun.id), "the lighter session keeps its run");
});

Deno.test("a run past its address's runs under way waits in line, and starts when one of theirs ends", async () => {
  using t = setup({ maxActiveRunsPerClient: 2, lineWaitMs: 5_000 });
  const owner = await t.session();
  await t.holding(owner, "A");
  await t.holding(owner, "A");
  const waiting = t.create(owner, undefined, "hold x", "A");
  let settled = false;
  waiting.then(() => settled = true, () => settled = true);
  assert.equal(t.store.waiting("A"), 1);
  // Another address is not in A's line.
  const other = await t.create(await t.session(), undefined, "hold x", "B");
  other.start();
  assert.equal(settled, false);
  t.release();
  const run = await within(waiting, 5_000, "the waiting run's start");
  assert.equal(run.phase, "created");
  assert.equal(t.store.waiting("A"), 0);
});

Deno.test("the line of one address holds at most maxWaitingPerClient runs; the next is refused at once", async () => {
  using t = setup({ maxActiveRunsPerClient: 1, lineWaitMs: 5_000, maxWaitingPerClient: 3 });
  const owner = await t.session();
  await t.holding(owner, "A");
  const line = [1, 2, 3].map(() => t.create(owner, undefined, "hold x", "A"));
  assert.equal(t.store.waiting("A"), 3);
  assert.ok(await refused(() => t.create(owner, undefined, "hold x", "A")));
  assert.equal(t.store.waiting("A"), 3);
  // Each run that ends lets the longest waiting one in, one each.
  const order: number[] = [];
  line.forEach((p, i) => p.then((run) => (order.push(i), run.start())));
  for (let ended = 0; ended < 3; ended++) {
    t.release();
    await within(line[ended]!, 5_000, `run ${ended} of the line`);
  }
  assert.deepEqual(order, [0, 1, 2]);
  t.release();
});

Deno.test("the line in all holds at most maxWaiting runs, whatever their addresses", async () => {
  using t = setup({ maxActiveRunsPerClient: 1, lineWaitMs: 5_000, maxWaiting: 2 });
  const owner = await t.session();
  for (const client of ["A", "B", "C"]) await t.holding(owner, client);
  const line = [
    t.create(owner, undefined, "hold x", "A"),
    t.create(owner, undefined, "hold x", "B"),
  ];
  assert.equal(t.store.waiting(), 2);
  assert.ok(await refused(() => t.create(owner, undefined, "hold x", "C")));
  t.release();
  for (const run of await Promise.all(line)) run.cancel();
});

Deno.test("a run waits in line at most lineWaitMs, then is refused; one whose request is withdrawn leaves the line", async () => {
  using t = setup({ maxActiveRunsPerClient: 1, lineWaitMs: 60 });
  const owner = await t.session();
  await t.holding(owner, "A");
  const started = performance.now();
  assert.ok(await refused(() => t.create(owner, undefined, "hold x", "A")));
  assert.ok(performance.now() - started >= 55, "refused after its wait");
  assert.equal(t.store.waiting("A"), 0);
  const controller = new AbortController();
  const withdrawn = t.store.create(owner, {
    agentName: "control-panel",
    sessionAgent: "control-panel",
    client: "A",
    input: [{ role: "user", parts: [{ content_type: "text/plain", content: "hold x" }] }],
  }, controller.signal);
  assert.equal(t.store.waiting("A"), 1);
  controller.abort();
  await assert.rejects(withdrawn);
  assert.equal(t.store.waiting("A"), 0);
});
