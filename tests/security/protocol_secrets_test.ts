/**
 * A `login` sent through A2A, ACP or MCP leaves its password in no answer
 * and nothing the bridge keeps (the task's history, a run), as the audit log already keeps no
 * secret-looking key. A2A's copy in Redis: tests/cluster/a2a_cluster_test.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import { TaskState } from "@a2a-js/sdk";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { startBridge } from "../helpers/bridge.ts";
import { action, asTask, CLIENT_KINDS, connectClient as a2aClient } from "../a2a/helpers.ts";
import { call, jsonPart, message, postRun } from "../acp/helpers.ts";
import { connectClient as mcpClient } from "../mcp/helpers.ts";

const PASSWORD = "hunter2-correct-horse";
const users = createUserStore([
  // A small scrypt cost keeps the check fast.
  { username: "bob", passwordHash: await hashPassword(PASSWORD, { N: 1024 }) },
]);
const LOGIN = { username: "bob", password: PASSWORD };

/** Fails if `value`, as JSON, holds the password. */
function assertNoPassword(value: unknown, where: string): void {
  const text = JSON.stringify(value);
  assert.ok(!text.includes(PASSWORD), `${where} holds the password: ${text}`);
}

for (const kind of CLIENT_KINDS) {
  Deno.test(`a login sent over A2A (${kind}) leaves its password in no answer: send, get, list`, async () => {
    await using bridge = await startBridge({ users });
    const token = await bridge.openSession("/control-panel");
    const client = await a2aClient(kind, bridge.origin, token);
    const task = asTask(await client.sendMessage(action("login", LOGIN)));
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(task));
    assertNoPassword(task, "message/send");
    // The history still shows what was asked, without the secret.
    const got = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
    assert.ok(JSON.stringify(got.history).includes('"username":"bob"'));
    assertNoPassword(got, "tasks/get");
    if (kind === "v1") {
      const listed = await client.listTasks({
        tenant: "",
        contextId: "",
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: undefined,
        pageToken: "",
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: true,
      });
      assert.equal(listed.tasks.length, 1);
      assertNoPassword(listed, "ListTasks");
    }
    const streamed = [];
    const token2 = await bridge.openSession("/control-panel");
    const other = await a2aClient(kind, bridge.origin, token2);
    for await (const event of other.sendMessageStream(action("login", LOGIN))) {
      streamed.push(event);
    }
    assert.ok(streamed.length > 0);
    assertNoPassword(streamed, "message/stream");
  });
}

Deno.test("a login sent as an ACP run leaves its password in the run nowhere", async () => {
  await using bridge = await startBridge({ users });
  const token = await bridge.openSession("/control-panel");
  const res = await postRun(bridge, token, {
    agent_name: "control-panel",
    input: [message(jsonPart("login", LOGIN))],
    mode: "sync",
  });
  const run = await res.json();
  assert.equal(run.status, "completed", JSON.stringify(run));
  assertNoPassword(run, "the run");
  assertNoPassword(await (await call(bridge, token, `/runs/${run.run_id}`)).json(), "GET /runs");
  const events = await (await call(bridge, token, `/runs/${run.run_id}/events`)).text();
  assertNoPassword(events, "the run's events");
});

Deno.test("a login called as an MCP tool leaves its password in no answer", async () => {
  await using bridge = await startBridge({ users });
  const token = await bridge.openSession("/control-panel");
  await using client = await mcpClient("v2", bridge.origin, token);
  const result = await client.callTool("login", LOGIN);
  assert.ok(!result.isError, JSON.stringify(result));
  assertNoPassword(result, "tools/call");
});
