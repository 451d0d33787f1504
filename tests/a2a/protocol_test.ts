/**
 * A2A against a fake tab: the Agent Card, tasks through the official client in v1 and
 * v0.3, raw JSON-RPC, confirmations, cancel, ownership, and the bounds in front of the SDK.
 *
 * @module
 */
import assert from "node:assert/strict";
import { AgentCard, TaskState } from "@a2a-js/sdk";
import {
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import { AGENT_CARD_PATH } from "../../bridge/mod.ts";
import { startBridge } from "../helpers/bridge.ts";
import { connected } from "../acp/helpers.ts";
import {
  action,
  answerOf,
  asTask,
  CLIENT_KINDS,
  collect,
  connectClient,
  dataOf,
  dataPart,
  expectAimError,
  failureOf,
  rpc,
  send,
  shapes,
  textOf,
  textPart,
  userMessage,
} from "./helpers.ts";

Deno.test("the agent card has one skill per agent-enabled page, its actions as examples, and the token as a bearer scheme", async () => {
  await using bridge = await startBridge();
  const res = await bridge.fetch(AGENT_CARD_PATH, { headers: { "A2A-Version": "1.0" } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("vary"), "A2A-Version");
  const json = await res.json();
  // ProtoJSON, as A2A v1 sends it.
  assert.deepEqual(json.securitySchemes, {
    aim_session: {
      httpAuthSecurityScheme: {
        scheme: "Bearer",
        description: json.securitySchemes.aim_session.httpAuthSecurityScheme.description,
      },
    },
  });
  const card = AgentCard.fromJSON(json);
  assert.deepEqual(card.securityRequirements, [{ schemes: { aim_session: { list: [] } } }]);
  assert.deepEqual(
    card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion]),
    [
      [`${bridge.origin}/__aim/a2a`, "JSONRPC", "1.0"],
      [`${bridge.origin}/__aim/a2a`, "JSONRPC", "0.3"],
    ],
  );
  assert.equal(card.capabilities?.streaming, true);
  assert.equal(card.capabilities?.pushNotifications, false);
  // Pages without declarations (plain.html) are no skills.
  assert.deepEqual(card.skills.map((s) => s.id), ["/", "/control-panel", "/orders"]);
  const panel = card.skills.find((s) => s.id === "/control-panel")!;
  assert.equal(panel.name, "Control panel");
  assert.match(panel.description, /\/control-panel\.json/);
  assert.deepEqual(panel.examples.slice(0, 2), [
    'Approve one pending request: {"actionId":"approve_request","input":"req-3"}',
    'Search requests: {"actionId":"search","input":"pending"}',
  ]);
  const orders = card.skills.find((s) => s.id === "/orders")!;
  assert.match(orders.examples[0]!, /\{"actionId":"place_order","input":\{"item":"pen"/);
});

Deno.test("a client that names no version gets the card in v0.3's shape, with the v1 interfaces beside", async () => {
  await using bridge = await startBridge();
  const res = await bridge.fetch(AGENT_CARD_PATH);
  assert.equal(res.status, 200);
  const card = await res.json();
  assert.equal(card.url, `${bridge.origin}/__aim/a2a`);
  assert.equal(card.preferredTransport, "JSONRPC");
  assert.equal(card.protocolVersion, "0.3");
  assert.equal(card.securitySchemes.aim_session.type, "http");
  assert.equal(card.securitySchemes.aim_session.scheme, "bearer");
  assert.deepEqual(card.security, [{ aim_session: [] }]);
  assert.deepEqual(card.skills.map((s: { id: string }) => s.id), [
    "/",
    "/control-panel",
    "/orders",
  ]);
  assert.equal(card.supportedInterfaces.length, 2);
  const post = await bridge.fetch(AGENT_CARD_PATH, { method: "POST" });
  await expectAimError(post, 405, "method_not_allowed");
});

for (const kind of CLIENT_KINDS) {
  Deno.test(`the official client (${kind}) runs a page action as a completed task with its answer as an artifact`, async () => {
    await using bridge = await startBridge();
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    const client = await connectClient(kind, bridge.origin, token);
    const task = asTask(await client.sendMessage(action("search", "pending")));
    const { state_version, ...answer } = answerOf(task);
    assert.equal(typeof state_version, "number");
    assert.deepEqual(answer, {
      ok: true,
      actionId: "search",
      result: { found: ["pending"] },
      state: { authenticated: false },
      settled: true,
    });
    const read = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
    assert.equal(read.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(answerOf(read), answerOf(task));
    assert.deepEqual(dataOf(read.history[0]?.parts[0]), { actionId: "search", input: "pending" });
  });

  Deno.test(`invalid input, a failing handler and an unknown action fail the task with aim's error body (${kind})`, async () => {
    await using bridge = await startBridge();
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    const client = await connectClient(kind, bridge.origin, token);
    const invalid = failureOf(
      asTask(await client.sendMessage(action("search", { query: "x" }))),
      "invalid_input",
    );
    assert.match(String(invalid.message), /input/);
    const broke = failureOf(
      asTask(await client.sendMessage(action("explode", "now"))),
      "action_failed",
    );
    assert.equal(broke.message, "The page's handler broke.");
    failureOf(asTask(await client.sendMessage(action("nope", "x"))), "unknown_action");
    const malformed = failureOf(
      asTask(await client.sendMessage(send(userMessage(dataPart({ action: "search" }))))),
      "bad_request",
    );
    assert.match(String(malformed.message), /actionId/);
  });

  Deno.test(`a text part gets an answer that explains the data part, and no task (${kind})`, async () => {
    await using bridge = await startBridge();
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    const client = await connectClient(kind, bridge.origin, token);
    const answer = await client.sendMessage(send(userMessage(textPart("search pending"))));
    assert.ok(!("status" in answer), "a message, not a task");
    const text = textOf(answer.parts[0]);
    assert.match(text, /data part/);
    assert.match(text, /\{"actionId": "<id>", "input": <input>\}/);
    assert.match(text, /search/);
    assert.match(text, /\/control-panel\.json/);
    const hint = dataOf(answer.parts[1]) as { example: unknown; actions: string[] };
    assert.deepEqual(hint.example, { actionId: "search", input: "pending" });
    assert.ok(hint.actions.includes("approve"));
    assert.ok(!tab.has("invoke"), "nothing ran");
  });

  Deno.test(`a consequential action is input-required while the person is asked, then completed (${kind})`, async () => {
    await using bridge = await startBridge();
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    tab.answerWith = "never";
    const client = await connectClient(kind, bridge.origin, token);
    const sent = client.sendMessage(action("approve", "req-3"));
    const invoke = await tab.next("invoke");
    tab.send({ type: "awaiting", id: invoke.id, message: "Approve req-3?" });
    // The SDK answers a blocking send at input-required.
    const asked = asTask(await sent);
    assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    const [text, detail] = asked.status!.message!.parts;
    assert.match(
      textOf(text),
      /"approve" waits for the person .*: Approve req-3\. .*cannot approve/,
    );
    assert.deepEqual(dataOf(detail), {
      awaiting: "confirmation",
      actionId: "approve",
      input: "req-3",
      message: "Approve req-3?",
    });
    const following = collect(client.resubscribeTask({ tenant: "", id: asked.id }));
    tab.send({ type: "result", id: invoke.id, ok: true, result: { approved: "req-3" } });
    // The task goes on after the SDK's own listener stopped: its bus and tasks/get follow it.
    assert.deepEqual(shapes(await following), [
      "task:TASK_STATE_INPUT_REQUIRED",
      "status:TASK_STATE_WORKING",
      "artifact",
      "status:TASK_STATE_COMPLETED",
    ]);
    const done = await client.getTask({ tenant: "", id: asked.id, historyLength: undefined });
    assert.deepEqual(answerOf(done).result, { approved: "req-3" });
  });

  Deno.test(`a declined confirmation fails the task with declined (${kind})`, async () => {
    await using bridge = await startBridge();
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    tab.answerWith = "never";
    const client = await connectClient(kind, bridge.origin, token);
    const sent = client.sendMessage(action("approve", "req-4"));
    const invoke = await tab.next("invoke");
    tab.send({ type: "awaiting", id: invoke.id, message: "Approve req-4?" });
    const asked = asTask(await sent);
    assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    const following = collect(client.resubscribeTask({ tenant: "", id: asked.id }));
    tab.send({
      type: "result",
      id: invoke.id,
      ok: false,
      error: { code: "declined", message: "The person declined." },
    });
    assert.deepEqual(shapes(await following).slice(-1), ["status:TASK_STATE_FAILED"]);
    const declined = await client.getTask({ tenant: "", id: asked.id, historyLength: undefined });
    assert.equal(failureOf(declined, "declined").message, "The person declined.");
  });

  Deno.test(`message/stream sends the task, its answer and its end, in order (${kind})`, async () => {
    await using bridge = await startBridge();
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    const client = await connectClient(kind, bridge.origin, token);
    const events = await collect(client.sendMessageStream(action("search", "x")));
    assert.deepEqual(shapes(events), [
      "task:TASK_STATE_WORKING",
      "artifact",
      "status:TASK_STATE_COMPLETED",
    ]);
    const failed = await collect(client.sendMessageStream(action("explode", "now")));
    assert.deepEqual(shapes(failed), ["task:TASK_STATE_WORKING", "status:TASK_STATE_FAILED"]);
    // A consequential action's stream ends at input-required.
    tab.answerWith = "never";
    const asking = collect(client.sendMessageStream(action("approve", "req-5")));
    const invoke = await tab.next("invoke", (m) => m.actionId === "approve");
    tab.send({ type: "awaiting", id: invoke.id, message: "Approve?" });
    assert.deepEqual(shapes(await asking), [
      "task:TASK_STATE_WORKING",
      "status:TASK_STATE_INPUT_REQUIRED",
    ]);
  });

  Deno.test(`cancelling a task withdraws its invocation, and a finished task cannot be cancelled (${kind})`, async () => {
    await using bridge = await startBridge();
    const { token, tab } = await connected(bridge);
    await using _tab = tab;
    const client = await connectClient(kind, bridge.origin, token);
    tab.answerWith = "never";
    const sent = client.sendMessage(action("approve", "req-6"));
    const invoke = await tab.next("invoke");
    tab.send({ type: "awaiting", id: invoke.id, message: "Approve?" });
    const asked = asTask(await sent);
    const cancelled = await client.cancelTask({ tenant: "", id: asked.id, metadata: undefined });
    assert.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED);
    // The tab is told: its panel drops the prompt, and a late answer is ignored.
    assert.equal((await tab.next("cancel")).id, invoke.id);
    tab.send({ type: "result", id: invoke.id, ok: true, result: "late" });
    const read = await client.getTask({ tenant: "", id: asked.id, historyLength: undefined });
    assert.equal(read.status?.state, TaskState.TASK_STATE_CANCELED);
    assert.deepEqual(read.artifacts, []);
    tab.answerWith = "handler";
    const done = asTask(await client.sendMessage(action("search", "x")));
    await assert.rejects(
      client.cancelTask({ tenant: "", id: done.id, metadata: undefined }),
      (error) => error instanceof TaskNotCancelableError,
    );
  });
}

Deno.test("raw JSON-RPC speaks message/send and tasks/get (v0.3) and SendMessage (v1) without the SDK", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const message = {
    kind: "message",
    messageId: crypto.randomUUID(),
    role: "user",
    parts: [{ kind: "data", data: { actionId: "search", input: "pending" } }],
  };
  const res = await rpc(bridge, token, {
    jsonrpc: "2.0",
    id: 1,
    method: "message/send",
    params: { message },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const sent = await res.json();
  assert.equal(sent.id, 1);
  assert.equal(sent.result.kind, "task");
  assert.equal(sent.result.status.state, "completed");
  assert.deepEqual(sent.result.artifacts[0].parts[0].data.result, { found: ["pending"] });
  const got = await (await rpc(bridge, token, {
    jsonrpc: "2.0",
    id: "g",
    method: "tasks/get",
    params: { id: sent.result.id },
  })).json();
  assert.equal(got.result.status.state, "completed");
  const v1 = await (await rpc(bridge, token, {
    jsonrpc: "2.0",
    id: 2,
    method: "SendMessage",
    params: {
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ data: { actionId: "search", input: "v1" } }],
      },
    },
  }, { "A2A-Version": "1.0" })).json();
  assert.equal(v1.result.task.status.state, "TASK_STATE_COMPLETED");
  const unknown = await (await rpc(bridge, token, {
    jsonrpc: "2.0",
    id: 3,
    method: "message/send",
    params: { message },
  }, { "A2A-Version": "2.0" })).json();
  assert.equal(unknown.error.code, -32009, "VersionNotSupportedError");
});

Deno.test("a task is visible only to the session that created it", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const other = await bridge.openSession("/control-panel");
  const mine = await connectClient("v1", bridge.origin, token);
  const theirs = await connectClient("v1", bridge.origin, other);
  const task = asTask(await mine.sendMessage(action("search", "x")));
  await assert.rejects(
    theirs.getTask({ tenant: "", id: task.id, historyLength: undefined }),
    (error) => error instanceof TaskNotFoundError,
  );
  await assert.rejects(
    theirs.cancelTask({ tenant: "", id: task.id, metadata: undefined }),
    (error) => error instanceof TaskNotFoundError,
  );
  const listed = await theirs.listTasks({
    tenant: "",
    contextId: "",
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: undefined,
    pageToken: "",
    historyLength: undefined,
    statusTimestampAfter: undefined,
    includeArtifacts: undefined,
  });
  assert.deepEqual(listed.tasks, []);
  const own = await mine.listTasks({
    tenant: "",
    contextId: "",
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: undefined,
    pageToken: "",
    historyLength: undefined,
    statusTimestampAfter: undefined,
    includeArtifacts: undefined,
  });
  assert.deepEqual(own.tasks.map((t) => t.id), [task.id]);
});

Deno.test("a message may not continue a task: the person answers confirmations, not the agent", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const client = await connectClient("v1", bridge.origin, token);
  const sent = client.sendMessage(action("approve", "req-7"));
  const invoke = await tab.next("invoke");
  tab.send({ type: "awaiting", id: invoke.id, message: "Approve?" });
  const asked = asTask(await sent);
  const reply = { ...userMessage(textPart("yes")), taskId: asked.id, contextId: asked.contextId };
  await assert.rejects(client.sendMessage(send(reply)), (error: unknown) => {
    assert.ok(error instanceof UnsupportedOperationError);
    assert.match((error as Error).message, /person at the page/);
    return true;
  });
  const still = await client.getTask({ tenant: "", id: asked.id, historyLength: undefined });
  assert.equal(still.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
});

Deno.test("the endpoint answers 401 without a valid token, 403 from another origin, 405 to GET, 413 and 400 to bodies over its bounds", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const body = { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } };
  const missing = await rpc(bridge, null, body);
  assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer/);
  await expectAimError(missing, 401, "missing_token");
  const bad = await rpc(bridge, "y".repeat(43), body);
  assert.match(bad.headers.get("www-authenticate") ?? "", /invalid_token/);
  await expectAimError(bad, 401, "invalid_token");
  // A cookie is not a token here: only Authorization is read.
  await expectAimError(
    await rpc(bridge, null, body, { Cookie: `aim_session=${token}` }),
    401,
    "missing_token",
  );
  await expectAimError(
    await rpc(bridge, token, body, { Origin: "http://127.0.0.1:1" }),
    403,
    "forbidden_origin",
  );
  const get = await bridge.fetch("/__aim/a2a", { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(get.headers.get("allow"), "POST");
  await expectAimError(get, 405, "method_not_allowed");
  const large = { ...body, params: { id: "x".repeat(70_000) } };
  await expectAimError(await rpc(bridge, token, large), 413, "payload_too_large");
  const deep = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":${"[".repeat(200)}${
    "]".repeat(200)
  }}`;
  const nested = await expectAimError(await rpc(bridge, token, deep), 400, "bad_request");
  assert.match(String(nested.message), /nest/);
  // The official client says so too.
  const client = await connectClient("v1", bridge.origin, "z".repeat(43));
  await assert.rejects(client.sendMessage(action("search", "x")), /401/);
});

Deno.test("a session with all its tasks under way is refused with 429 and Retry-After; another session still runs", async () => {
  await using bridge = await startBridge({ a2aTasks: { maxActiveRunsPerSession: 1 } });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const client = await connectClient("v0.3", bridge.origin, token);
  const first = asTask(
    await client.sendMessage(send(userMessage(dataPart({ actionId: "search", input: "a" })), true)),
  );
  assert.equal(first.status?.state, TaskState.TASK_STATE_WORKING);
  const message = {
    kind: "message",
    messageId: crypto.randomUUID(),
    role: "user",
    parts: [{ kind: "data", data: { actionId: "search", input: "b" } }],
  };
  for (const method of ["message/send", "message/stream"]) {
    const res = await rpc(bridge, token, { jsonrpc: "2.0", id: 1, method, params: { message } });
    assert.ok(Number(res.headers.get("retry-after")) >= 1);
    const body = await expectAimError(res, 429, "too_many_requests");
    assert.match(String(body.message), /1 tasks under way/);
  }
  // A message without a data part needs no task: it is answered.
  const text = await client.sendMessage(send(userMessage(textPart("help"))));
  assert.ok(!("status" in text));
  const other = await connected(bridge);
  await using _other = other.tab;
  const elsewhere = await connectClient("v1", bridge.origin, other.token);
  answerOf(asTask(await elsewhere.sendMessage(action("search", "c"))));
  // Cancelling frees the place.
  await client.cancelTask({ tenant: "", id: first.id, metadata: undefined });
  tab.answerWith = "handler";
  answerOf(asTask(await client.sendMessage(action("search", "d"))));
});

Deno.test("a task not finished by its deadline fails with run_deadline and its invocation is withdrawn", async () => {
  await using bridge = await startBridge({ a2aTasks: { deadlineMs: 300 } });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const client = await connectClient("v1", bridge.origin, token);
  const sent = client.sendMessage(action("search", "slow"));
  const invoke = await tab.next("invoke");
  const failed = failureOf(asTask(await sent), "run_deadline");
  assert.match(String(failed.message), /did not finish within/);
  assert.equal((await tab.next("cancel")).id, invoke.id);
});
