/** @module The run store without HTTP: its bounds, its time to live, its event snapshots. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import type { Session } from "../../bridge/core/sessions.ts";
import { AcpHttpError } from "../../bridge/acp/errors.ts";
import { type AcpRun, RunStore, type RunStoreOptions } from "../../bridge/acp/runs.ts";
import { BASIC_SITE } from "../helpers/bridge.ts";

/** A core over BASIC_SITE, a store, and self-minted sessions (no tab: runs fail at once). */
function setup(options: RunStoreOptions) {
  const root = Deno.makeTempDirSync({ prefix: "aim-acp-" });
  for (const [path, content] of Object.entries(BASIC_SITE)) {
    Deno.mkdirSync(join(root, path, ".."), { recursive: true });
    Deno.writeTextFileSync(join(root, path), content);
  }
  const core = new BridgeCore({ root });
  const store = new RunStore(core, options);
  const session = async () => (await core.openSession("/control-panel")).session;
  const create = (owner: Session, sessionId?: string) =>
    store.create(owner, {
      agentName: "control-panel",
      sessionAgent: "control-panel",
      sessionId,
      input: [{ role: "user", parts: [{ content_type: "text/plain", content: "search x" }] }],
    });
  /** A run that ran and failed (no tab holds the session). */
  const finished = async (owner: Session, sessionId?: string) => {
    const run = create(owner, sessionId);
    run.start();
    assert.equal((await run.finished).status, "failed");
    return run;
  };
  return {
    core,
    store,
    session,
    create,
    finished,
    [Symbol.dispose]() {
      core.close();
      Deno.removeSync(root, { recursive: true });
    },
  };
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
  const first = t.create(owner);
  t.create(owner);
  assert.throws(() => t.create(owner), (error: unknown) => {
    assert.ok(error instanceof AcpHttpError);
    assert.equal(error.status, 429);
    assert.equal(error.code, "server_error");
    return true;
  });
  first.cancel();
  assert.equal((await first.finished).status, "cancelled");
  t.create(owner);
  assert.equal(t.store.get(owner, first.id), undefined, "the cancelled run made way");
});

Deno.test("the store bounds runs across sessions and forgets runs of sessions it dropped", async () => {
  using t = setup({ maxRuns: 3 });
  const a = await t.session();
  const b = await t.session();
  const sessionA = crypto.randomUUID();
  const old = await t.finished(a, sessionA);
  await t.finished(b);
  await t.finished(b);
  await t.finished(b);
  assert.equal(t.store.size, 3);
  assert.equal(t.store.get(a, old.id), undefined);
  assert.equal(t.store.session(a, sessionA), undefined, "an ACP session with no runs left goes");
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
  events[0].type = "run.failed";
  assert.equal(run.events()[0].type, "run.created");
  assert.equal(run.view().error?.data?.error, "browser_not_connected");
});
