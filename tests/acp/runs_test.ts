/**
 * ACP runs over HTTP against a fake tab: modes, events, errors, sessions and origins. Cancelling
 * and awaiting the person are tests/acp/run_control_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { AcpSession, Run, RunEventsListResponse } from "../../bridge/acp/schemas.ts";
import { startBridge } from "../helpers/bridge.ts";
import {
  AGENT,
  answerOf,
  call,
  connected,
  expectAcpError,
  jsonPart,
  message,
  postRun,
  readStream,
  runBody,
  textPart,
} from "./helpers.ts";

Deno.test("a sync run invokes the action and answers 200 with the finished run", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const res = await postRun(bridge, token, runBody([jsonPart("search", "pending")], "sync"));
  assert.equal(res.status, 200);
  const run = Run.parse(await res.json());
  assert.equal(res.headers.get("run-id"), run.run_id);
  assert.equal(run.status, "completed");
  assert.equal(run.agent_name, AGENT);
  assert.equal(run.error, null);
  assert.ok(run.finished_at! >= run.created_at);
  const { state_version, ...answer } = answerOf(run) as Record<string, unknown>;
  assert.equal(typeof state_version, "number");
  assert.deepEqual(answer, {
    ok: true,
    actionId: "search",
    result: { found: ["pending"] },
    state: { authenticated: false },
    settled: true,
  });
  // The same run, read back.
  const read = await call(bridge, token, `/runs/${run.run_id}`);
  assert.equal(read.status, 200);
  assert.deepEqual(Run.parse(await read.json()), run);
});

Deno.test("a run without a mode is a sync run", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const res = await postRun(bridge, token, runBody([jsonPart("search", "x")]));
  assert.equal(res.status, 200);
  assert.equal(Run.parse(await res.json()).status, "completed");
});

Deno.test("a text/plain part names the action and gives its input after a space", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge, "/control-panel", [{
    id: "comment",
    input_schema: {
      type: "object",
      properties: { id: { type: "string" }, text: { type: "string" } },
      required: ["id", "text"],
      additionalProperties: false,
    },
    input_example: { id: "req-3", text: "ok" },
    handler: (input) => input,
  }]);
  await using _tab = tab;
  const text = async (content: string, encoding?: "base64") => {
    const part = { ...textPart(content), ...(encoding ? { content_encoding: encoding } : {}) };
    const run = Run.parse(await (await postRun(bridge, token, runBody([part]))).json());
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    return (answerOf(run) as { result: unknown }).result;
  };
  assert.deepEqual(await text("search  pending requests "), { found: ["pending requests"] });
  assert.deepEqual(await text(btoa("search b64"), "base64"), { found: ["b64"] });
  assert.deepEqual(await text('comment {"id": "req-3", "text": "fine"}'), {
    id: "req-3",
    text: "fine",
  });
  // The last message counts; an application/json part wins over a text part.
  const res = await postRun(bridge, token, {
    agent_name: AGENT,
    input: [
      message(jsonPart("explode", "x")),
      message(textPart("search t"), jsonPart("search", "j")),
    ],
  });
  assert.deepEqual((answerOf(Run.parse(await res.json())) as { result: unknown }).result, {
    found: ["j"],
  });
});

Deno.test("an async run answers 202 in created and finishes in the background", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const res = await postRun(bridge, token, runBody([jsonPart("search", "later")], "async"));
  assert.equal(res.status, 202);
  const created = Run.parse(await res.json());
  assert.equal(res.headers.get("run-id"), created.run_id);
  assert.equal(created.status, "created");
  assert.deepEqual(created.output, []);
  const invoke = await tab.next("invoke");
  const during = Run.parse(await (await call(bridge, token, `/runs/${created.run_id}`)).json());
  assert.equal(during.status, "in-progress");
  tab.send({ type: "result", id: invoke.id, ok: true, result: { found: ["later"] } });
  await tab.next("activity");
  const done = Run.parse(await (await call(bridge, token, `/runs/${created.run_id}`)).json());
  assert.equal(done.status, "completed");
  assert.deepEqual((answerOf(done) as { result: unknown }).result, { found: ["later"] });
});

Deno.test("a stream run sends the reference's events in order, and /events gives the same", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const res = await postRun(bridge, token, runBody([jsonPart("search", "s")], "stream"));
  const runId = res.headers.get("run-id")!;
  const { events } = await readStream(res);
  assert.deepEqual(events.map((e) => e.type), [
    "run.created",
    "run.in-progress",
    "message.created",
    "message.part",
    "message.completed",
    "run.completed",
  ]);
  const runs = events.flatMap((e) => "run" in e ? [e.run] : []);
  assert.deepEqual(runs.map((r) => r.status), ["created", "in-progress", "completed"]);
  assert.ok(runs.every((r) => r.run_id === runId));
  const [created, part, completed] = events.slice(2);
  assert.ok(created?.type === "message.created" && part?.type === "message.part");
  assert.ok(completed?.type === "message.completed");
  assert.deepEqual(created.message.parts, []);
  assert.equal(created.message.role, `agent/${AGENT}`);
  assert.deepEqual(completed.message.parts, [part.part]);
  assert.deepEqual(JSON.parse(part.part.content!).result, { found: ["s"] });
  const listed = await call(bridge, token, `/runs/${runId}/events`);
  assert.equal(listed.status, 200);
  assert.deepEqual(RunEventsListResponse.parse(await listed.json()).events, events);
});

Deno.test("a failing action is a failed run with ACP's error and the page's message", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const run = Run.parse(
    await (await postRun(bridge, token, runBody([jsonPart("explode", "x")]))).json(),
  );
  assert.equal(run.status, "failed");
  assert.deepEqual(run.output, []);
  assert.ok(run.finished_at);
  assert.deepEqual(run.error, {
    code: "server_error",
    message: "The page's handler broke.",
    data: { actionId: "explode", error: "action_failed", status: 422 },
  });
  const streamed = await readStream(
    await postRun(bridge, token, runBody([jsonPart("explode", "x")], "stream")),
  );
  assert.deepEqual(streamed.events.map((e) => e.type), [
    "run.created",
    "run.in-progress",
    "run.failed",
  ]);
});

Deno.test("every AIM error of an invocation becomes a failed run, never a hang", async () => {
  await using bridge = await startBridge();
  // approve_request is protected in the page's HTML: the tab registers it, the flag stays.
  const { token, tab } = await connected(bridge, "/control-panel", [
    { id: "approve_request", input_example: "req-3", handler: (id) => id },
  ]);
  await using _tab = tab;
  const failed = async (parts: Parameters<typeof message>, code: string, aim: string) => {
    const res = await postRun(bridge, token, runBody(parts));
    assert.equal(res.status, 200);
    const run = Run.parse(await res.json());
    assert.equal(run.status, "failed");
    assert.equal(run.error!.code, code, run.error!.message);
    assert.equal(run.error!.data?.error, aim);
    return run.error!;
  };
  const unknown = await failed([jsonPart("fly", "x")], "not_found", "unknown_action");
  assert.equal(unknown.message, 'No action "fly" is registered for this session now.');
  assert.ok((unknown.data!.available_actions as string[]).includes("search"));
  await failed([jsonPart("search", { q: "x" })], "invalid_input", "invalid_input");
  await failed([jsonPart("approve_request", "req-3")], "server_error", "login_required");
  tab.answerWith = "decline";
  await failed([jsonPart("approve", "req-3")], "server_error", "declined");
});

Deno.test("malformed messages fail the run with invalid_input and say what to send", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const cases: unknown[] = [
    [],
    [message()],
    [message({ content_type: "image/png", content: "AAAA", content_encoding: "base64" })],
    [message({ content_type: "application/json", content: "{not json" })],
    [message({ content_type: "application/json", content: '{"action": "search"}' })],
    [message({
      content_type: "application/json",
      content: '{"actionId": "search", "__proto__": {}}',
    })],
    [message({ content_type: "application/json", content_url: "https://example.com/x.json" })],
    [message({ content_type: "text/plain", content: "   " })],
    [message({ content_type: "text/plain", content: "!!!", content_encoding: "base64" })],
  ];
  for (const input of cases) {
    const res = await postRun(bridge, token, { agent_name: AGENT, input });
    const run = Run.parse(await res.json());
    assert.equal(run.status, "failed", JSON.stringify(input));
    assert.equal(run.error!.code, "invalid_input", JSON.stringify(input));
    assert.ok(run.error!.message.length > 10);
  }
});

Deno.test("a body that is not a run request is invalid_input: 422 as the reference answers, 413 over the size limit", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  for (
    const body of [
      "{oops",
      "[]",
      { input: [] },
      { agent_name: AGENT, input: "search x" },
      { agent_name: AGENT, input: [{ parts: "x" }] },
      { agent_name: AGENT, input: [], mode: "batch" },
      { agent_name: AGENT, input: [], session_id: "not-a-uuid" },
      { agent_name: AGENT, input: [{ role: "robot", parts: [] }] },
    ]
  ) {
    await expectAcpError(await postRun(bridge, token, body), 422, "invalid_input");
  }
  const res = await postRun(bridge, token, "{}", { "Content-Type": "text/plain" });
  await expectAcpError(res, 422, "invalid_input");
  // A body over the limit is invalid input too, with AIM's word for it.
  const big = await postRun(bridge, token, runBody([textPart(`search ${"x".repeat(70_000)}`)]));
  assert.equal((await expectAcpError(big, 413, "invalid_input")).data?.error, "payload_too_large");
});

Deno.test("an unknown agent is a 404 not_found, and another page's agent a clear failure", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const missing = await postRun(bridge, token, {
    ...runBody([jsonPart("search", "x")]),
    agent_name: "nope",
  });
  assert.equal((await expectAcpError(missing, 404, "not_found")).message, "Agent nope not found");
  const other = await postRun(bridge, token, {
    ...runBody([jsonPart("search", "x")]),
    agent_name: "orders",
  });
  const run = Run.parse(await other.json());
  assert.equal(run.status, "failed");
  assert.equal(run.error!.code, "invalid_input");
  assert.match(
    run.error!.message,
    /belongs to the page \/control-panel, whose agent is "control-panel"/,
  );
  assert.equal(tab.has("invoke"), false, "nothing reached the tab");
});

Deno.test("runs answer 401 in ACP's shape without a valid token", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const run = Run.parse(
    await (await postRun(bridge, token, runBody([jsonPart("search", "x")]))).json(),
  );
  const missing = await postRun(bridge, null, runBody([jsonPart("search", "x")]));
  const body = await expectAcpError(missing, 401, "server_error");
  assert.equal(body.data?.error, "missing_token");
  assert.ok(missing.headers.get("www-authenticate"));
  const bad = "A".repeat(43);
  for (
    const [path, method] of [
      [`/runs/${run.run_id}`, "GET"],
      [`/runs/${run.run_id}/events`, "GET"],
      [`/runs/${run.run_id}/cancel`, "POST"],
      [`/sessions/${run.session_id}`, "GET"],
    ] as const
  ) {
    await expectAcpError(await call(bridge, null, path, method), 401, "server_error");
    const res = await call(bridge, bad, path, method);
    assert.equal((await expectAcpError(res, 401, "server_error")).data?.error, "invalid_token");
  }
});

Deno.test("a run is visible only to the session that created it", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const mine = Run.parse(
    await (await postRun(bridge, token, runBody([jsonPart("search", "x")]))).json(),
  );
  const other = await bridge.openSession("/control-panel");
  for (
    const [path, method] of [
      [`/runs/${mine.run_id}`, "GET"],
      [`/runs/${mine.run_id}/events`, "GET"],
      [`/runs/${mine.run_id}/cancel`, "POST"],
      [`/sessions/${mine.session_id}`, "GET"],
    ] as const
  ) {
    await expectAcpError(await call(bridge, other, path, method), 404, "not_found");
  }
  assert.equal((await call(bridge, token, `/runs/${mine.run_id}`)).status, 200);
});

Deno.test("runs of one ACP session are listed under GET /sessions/{id}", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const sessionId = crypto.randomUUID();
  const ids: string[] = [];
  for (const q of ["a", "b"]) {
    const res = await postRun(
      bridge,
      token,
      runBody([jsonPart("search", q)], "sync", { session_id: sessionId }),
    );
    const run = Run.parse(await res.json());
    assert.equal(run.session_id, sessionId);
    ids.push(run.run_id);
  }
  const res = await call(bridge, token, `/sessions/${sessionId}`);
  assert.equal(res.status, 200);
  assert.deepEqual(AcpSession.parse(await res.json()), {
    id: sessionId,
    history: [],
    state: null,
    runs: ids,
  });
  // A run without a session gets a new one of its own.
  const alone = Run.parse(
    await (await postRun(bridge, token, runBody([jsonPart("search", "c")]))).json(),
  );
  assert.notEqual(alone.session_id, sessionId);
  await expectAcpError(
    await call(bridge, token, `/sessions/${crypto.randomUUID()}`),
    404,
    "not_found",
  );
  await expectAcpError(await call(bridge, token, "/sessions/nope"), 422, "invalid_input");
  await expectAcpError(await call(bridge, token, "/runs/nope"), 422, "invalid_input");
});

Deno.test("cross-origin requests may not create or cancel runs", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const res = await postRun(bridge, token, runBody([jsonPart("search", "x")]), {
    Origin: "https://evil.example",
  });
  assert.equal((await expectAcpError(res, 403, "server_error")).data?.error, "forbidden_origin");
  assert.equal(tab.has("invoke"), false);
});

Deno.test("an application/json part nested too deep fails the run saying how deep a part may nest", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const deep = "[".repeat(100) + "]".repeat(100);
  const res = await postRun(
    bridge,
    token,
    runBody([{ content_type: "application/json", content: deep }]),
  );
  const run = Run.parse(await res.json());
  assert.equal(run.status, "failed");
  assert.equal(run.error?.code, "invalid_input");
  assert.match(run.error!.message, /The application\/json part nests .* more than 64 levels deep/);
});
