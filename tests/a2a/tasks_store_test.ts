/**
 * The A2A tasks of one bridge instance (bridge/a2a/tasks.ts), imported directly over a real
 * BridgeCore without a shared store: a task is the session's own (another session's is missing),
 * `tasks/list` newest first filtered by each of context, state and time and paged, a page token
 * it never gave refused, the bounds on tasks under way, and a task refused before it ran
 * forgotten. Over HTTP with the SDK's client: tests/a2a/a2a_test.ts; shared: tests/cluster/.
 *
 * @module
 */
import assert from "node:assert/strict";
import { TaskState } from "@a2a-js/sdk";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { A2ATasks } from "../../bridge/a2a/tasks.ts";
import { agentMessage, SessionUser, textPart } from "../../bridge/a2a/caller.ts";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import type { Session } from "../../bridge/core/session.ts";
import { writeSite } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";

/** A bus that takes what a task publishes, and keeps none of it. */
const bus = () => ({
  publish: () => {},
  finished: () => {},
  on: () => {},
  off: () => {},
  once: () => {},
  removeAllListeners: () => {},
});

const user = (id: string, client = "10.0.0.1") =>
  new SessionUser({ id, tokenHash: `h-${id}` } as unknown as Session, {
    client,
    origin: "http://x",
  });
const contextOf = (u?: SessionUser) => new ServerCallContext(u ? { user: u } : {});

/** A core on a temporary site, tasks over it on a clock the test moves, and a way to add tasks. */
async function setup(options: { maxActiveRunsPerSession?: number } = {}) {
  const dir = await tempDir();
  writeSite(dir.path);
  const core = new BridgeCore({ root: dir.path });
  let clock = Date.parse("2026-12-07T10:00:00Z");
  const tasks = new A2ATasks(core, { now: () => clock, deadlineMs: 60_000, ...options });
  const add = (caller: SessionUser, taskId: string, contextId: string) => {
    clock += 1000;
    const task = tasks.create(caller, { actionId: "search", input: "x" });
    const userMessage = agentMessage([textPart("x")], { taskId, contextId });
    tasks.bind(task, bus() as never, { taskId, contextId, userMessage });
    return task;
  };
  return {
    tasks,
    add,
    at: (ms: number) => new Date(ms).toISOString(),
    now: () => clock,
    async [Symbol.asyncDispose]() {
      core.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("a task is its session's own: another session, or a call from no session, finds it missing", async () => {
  await using t = await setup();
  const alice = user("alice");
  const task = t.add(alice, "t1", "c1");
  assert.equal(t.tasks.byTaskId("t1"), task);
  assert.equal((await t.tasks.load("t1", contextOf(alice)))?.id, "t1");
  assert.equal(await t.tasks.load("t1", contextOf(user("bob"))), undefined);
  assert.equal(await t.tasks.load("t1", contextOf()), undefined);
  assert.equal(await t.tasks.load("none", contextOf(alice)), undefined);
  assert.equal(t.tasks.shared, false);
  assert.equal(t.tasks.heldElsewhere("none"), false, "alone, no task is held elsewhere");
  await t.tasks.save({} as never, contextOf(alice));
});

Deno.test("tasks/list gives the caller's tasks newest first, filtered by context, state and time, a page at a time", async () => {
  await using t = await setup();
  const alice = user("alice");
  t.add(alice, "t1", "c1");
  t.add(alice, "t2", "c2");
  const second = t.now();
  t.add(alice, "t3", "c1");
  t.add(user("bob"), "b1", "c1");
  const ids = async (params: Record<string, unknown>, u = alice) =>
    (await t.tasks.list(params as never, contextOf(u))).tasks.map((task) => task.id);
  assert.deepEqual(await ids({}), ["t3", "t2", "t1"]);
  assert.deepEqual(await ids({ contextId: "c1" }), ["t3", "t1"]);
  assert.deepEqual(await ids({ status: TaskState.TASK_STATE_SUBMITTED }), ["t3", "t2", "t1"]);
  assert.deepEqual(
    await ids({ status: TaskState.TASK_STATE_UNSPECIFIED }),
    ["t3", "t2", "t1"],
    "no filter",
  );
  assert.deepEqual(await ids({ status: TaskState.TASK_STATE_COMPLETED }), []);
  assert.deepEqual(await ids({ statusTimestampAfter: t.at(second) }), ["t3", "t2"]);
  assert.deepEqual(await ids({}, user("carol")), []);
  assert.deepEqual((await t.tasks.list({} as never, contextOf())).tasks, []);
  const first = await t.tasks.list({ pageSize: 2 } as never, contextOf(alice));
  assert.deepEqual([first.tasks.map((x) => x.id), first.nextPageToken, first.totalSize], [
    ["t3", "t2"],
    "2",
    3,
  ]);
  const next = await t.tasks.list({ pageSize: 2, pageToken: "2" } as never, contextOf(alice));
  assert.deepEqual([next.tasks.map((x) => x.id), next.nextPageToken], [["t1"], ""]);
});

Deno.test("tasks/list refuses each page token it never gave", async () => {
  await using t = await setup();
  for (const pageToken of ["-1", "x", "1.5", "1e400"]) {
    await assert.rejects(
      t.tasks.list({ pageToken } as never, contextOf(user("alice"))),
      (e) => e instanceof RequestMalformedError,
      pageToken,
    );
  }
});

Deno.test("a session may have only so many tasks under way: the next is refused 429, and a task refused before it ran is forgotten", async () => {
  await using t = await setup({ maxActiveRunsPerSession: 2 });
  const alice = user("alice");
  t.add(alice, "t1", "c1");
  const unbound = t.tasks.create(alice, {});
  assert.equal(t.tasks.size, 2);
  assert.throws(
    () => t.tasks.create(alice, {}),
    (e) => e instanceof AimError && e.status === 429 && e.code === "too_many_requests",
  );
  t.tasks.discard(unbound);
  assert.equal(t.tasks.size, 1);
  t.tasks.create(alice, {});
  // A bound task is not discarded: the SDK holds it.
  t.tasks.discard(t.tasks.byTaskId("t1")!);
  assert.equal(t.tasks.size, 2);
});
