/**
 * A2A tasks on two bridge instances sharing Redis, each reached directly as a
 * round-robin balancer would send requests: a task sent on one is read (`tasks/get`) and
 * cancelled (`tasks/cancel`) on the other, by the official client, and only by its session.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Client } from "@a2a-js/sdk/client";
import { type Task, TaskState } from "@a2a-js/sdk";
import { TaskNotCancelableError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { startAim } from "../helpers/cli.ts";
import { NO_CLUSTER } from "../helpers/cluster.ts";
import { startPair, until } from "../helpers/pair.ts";
import { connected } from "../acp/helpers.ts";
import {
  action,
  answerOf,
  asTask,
  CLIENT_KINDS,
  connectClient,
  dataPart,
  failureOf,
  send,
  userMessage,
} from "../a2a/helpers.ts";

/** `tasks/get` of `id`. */
function getTask(client: Client, id: string): Promise<Task> {
  return client.getTask({ tenant: "", id, historyLength: undefined });
}

/** A task sent without waiting for its end (`returnImmediately`). */
async function sendAsync(client: Client, actionId: string, input: unknown): Promise<Task> {
  return asTask(await client.sendMessage(send(userMessage(dataPart({ actionId, input })), true)));
}

for (const kind of CLIENT_KINDS) {
  Deno.test(`tasks/get on another instance reads a task sent on the first (${kind})`, {
    ignore: NO_CLUSTER,
  }, async (t) => {
    await using pair = await startPair();
    const { a, b } = pair;
    for (const [where, home] of [["the first", a], ["the second", b]] as const) {
      await t.step(`with the tab connected to ${where} instance`, async () => {
        const { token, tab } = await connected(home);
        await using _tab = tab;
        const onA = await connectClient(kind, a.origin, token);
        const onB = await connectClient(kind, b.origin, token);

        // A task under way: followed on the other instance until the tab answers.
        tab.answerWith = "never";
        const working = await sendAsync(onA, "search", "later");
        assert.equal(working.status?.state, TaskState.TASK_STATE_WORKING);
        const invoke = await tab.next("invoke");
        const seen = await getTask(onB, working.id);
        assert.equal(seen.status?.state, TaskState.TASK_STATE_WORKING);
        assert.equal(seen.contextId, working.contextId);
        tab.send({ type: "result", id: invoke.id, ok: true, result: { found: ["later"] } });
        const completed = await until(
          () => getTask(onB, working.id),
          (task) => task.status?.state === TaskState.TASK_STATE_COMPLETED,
        );
        assert.deepEqual(answerOf(completed).result, { found: ["later"] });
        assert.deepEqual(completed, await getTask(onA, working.id));

        // A task that finished before its answer: read on the other instance at once.
        tab.answerWith = "handler";
        const done = asTask(await onA.sendMessage(action("search", "pending")));
        assert.deepEqual(answerOf(done).result, { found: ["pending"] });
        assert.deepEqual(await getTask(onB, done.id), await getTask(onA, done.id));
      });
    }
  });
}

Deno.test("tasks/cancel on another instance cancels a task waiting on the one that runs it", {
  ignore: NO_CLUSTER,
}, async () => {
  await using pair = await startPair();
  const { a, b } = pair;
  const { token, tab } = await connected(a);
  await using _tab = tab;
  tab.answerWith = "never";
  const onA = await connectClient("v1", a.origin, token);
  const onB = await connectClient("v1", b.origin, token);
  const working = await sendAsync(onA, "search", "slow");
  const invoke = await tab.next("invoke");
  const cancelled = await onB.cancelTask({ tenant: "", id: working.id, metadata: undefined });
  assert.equal(cancelled.id, working.id);
  assert.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED);
  // The instance running it withdrew the invocation from the tab.
  assert.equal((await tab.next("cancel")).id, invoke.id);
  assert.deepEqual(await getTask(onA, working.id), cancelled);
  // Cancelling again answers the cancelled task; a finished task cannot be cancelled.
  assert.deepEqual(
    await onB.cancelTask({ tenant: "", id: working.id, metadata: undefined }),
    cancelled,
  );
  tab.answerWith = "handler";
  const done = asTask(await onA.sendMessage(action("search", "x")));
  await assert.rejects(
    onB.cancelTask({ tenant: "", id: done.id, metadata: undefined }),
    (error) => error instanceof TaskNotCancelableError,
  );
});

Deno.test("another session's token cannot read or cancel a task on another instance", {
  ignore: NO_CLUSTER,
}, async () => {
  await using pair = await startPair();
  const { a, b } = pair;
  const { token, tab } = await connected(a);
  await using _tab = tab;
  tab.answerWith = "never";
  const mine = await connectClient("v1", a.origin, token);
  const theirs = await connectClient("v1", b.origin, await b.openSession("/control-panel"));
  const working = await sendAsync(mine, "search", "held");
  await tab.next("invoke");
  await assert.rejects(
    getTask(theirs, working.id),
    (error) => error instanceof TaskNotFoundError,
  );
  await assert.rejects(
    theirs.cancelTask({ tenant: "", id: working.id, metadata: undefined }),
    (error) => error instanceof TaskNotFoundError,
  );
  // Not cancelled: its owner still reads it working on the other instance.
  const onB = await connectClient("v1", b.origin, token);
  assert.equal((await getTask(onB, working.id)).status?.state, TaskState.TASK_STATE_WORKING);
});

Deno.test("a task whose instance was killed ends as failed on the others and cannot be cancelled", {
  ignore: NO_CLUSTER,
}, async () => {
  await using pair = await startPair();
  const { a, b } = pair;
  const doomed = await startAim([
    "serve",
    pair.site,
    "--port",
    "0",
    "--redis",
    pair.redis.url,
    "--quiet",
  ]);
  await using _doomed = doomed;
  await doomed.line(/sharing sessions through Redis/);
  const { token, tab } = await connected(a);
  await using _tab = tab;
  tab.answerWith = "never";
  const working = await sendAsync(await connectClient("v1", doomed.url, token), "search", "lost");
  await tab.next("invoke");
  const onB = await connectClient("v1", b.origin, token);
  assert.equal((await getTask(onB, working.id)).status?.state, TaskState.TASK_STATE_WORKING);
  await doomed.stop("SIGKILL");

  // Whether the instance is found gone by the cancel or by its expired liveness, the task
  // fails and can no longer be cancelled.
  await assert.rejects(
    onB.cancelTask({ tenant: "", id: working.id, metadata: undefined }),
    (error) => error instanceof TaskNotCancelableError,
  );
  const failed = await until(
    () => getTask(onB, working.id),
    (task) => task.status?.state === TaskState.TASK_STATE_FAILED,
  );
  const body = failureOf(failed, "instance_stopped");
  assert.match(String(body.message), /stopped before it finished.*may or may not have run/);
  assert.deepEqual(await getTask(await connectClient("v1", a.origin, token), working.id), failed);
});

Deno.test("a login sent over A2A is kept in Redis without its password", {
  ignore: NO_CLUSTER,
}, async () => {
  const password = "hunter2-correct-horse";
  const users = createUserStore([
    { username: "bob", passwordHash: await hashPassword(password, { N: 1024 }) },
  ]);
  await using pair = await startPair({ users });
  const token = await pair.a.openSession("/control-panel");
  const onA = await connectClient("v1", pair.a.origin, token);
  const task = asTask(await onA.sendMessage(action("login", { username: "bob", password })));
  assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
  const { createClient } = await import("@redis/client");
  const redis = createClient({ url: pair.redis.url });
  await redis.connect();
  try {
    const keys = await redis.keys("aim:o:a2a-task:*");
    assert.equal(keys.length, 1);
    const kept = await redis.get(keys[0]!) ?? "";
    assert.ok(kept?.includes('"username":"bob"'), kept);
    assert.ok(!kept.includes(password), kept);
  } finally {
    await redis.close();
  }
});
