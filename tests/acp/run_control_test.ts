/**
 * ACP runs over HTTP against a fake tab, under the person's control: cancelling a run (and its
 * stream), a completed run that cannot be, a run awaiting the person's confirmation, declined, and
 * a resume of a run that awaits nothing. Modes, events and errors are tests/acp/runs_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Run, RunEventsListResponse } from "../../bridge/acp/schemas.ts";
import { startBridge } from "../helpers/bridge.ts";
import {
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

Deno.test("cancelling a run answers 202 cancelling, then it is cancelled and stays so", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const created = Run.parse(
    await (await postRun(bridge, token, runBody([jsonPart("search", "slow")], "async"))).json(),
  );
  const invoke = await tab.next("invoke");
  const res = await call(bridge, token, `/runs/${created.run_id}/cancel`, "POST");
  assert.equal(res.status, 202);
  assert.equal(Run.parse(await res.json()).status, "cancelling");
  // The tab is told to withdraw the invocation it runs.
  assert.equal((await tab.next("cancel")).id, invoke.id);
  const cancelled = Run.parse(await (await call(bridge, token, `/runs/${created.run_id}`)).json());
  assert.equal(cancelled.status, "cancelled");
  assert.ok(cancelled.finished_at);
  // A finished run cannot be cancelled: 403, as the reference server answers.
  const again = await call(bridge, token, `/runs/${created.run_id}/cancel`, "POST");
  assert.match(
    (await expectAcpError(again, 403, "server_error")).message,
    /terminal status cancelled/,
  );
  // The tab's late answer changes nothing.
  tab.send({ type: "result", id: invoke.id, ok: true, result: "late" });
  await tab.next("activity");
  const after = Run.parse(await (await call(bridge, token, `/runs/${created.run_id}`)).json());
  assert.deepEqual(after, cancelled);
  const { events } = RunEventsListResponse.parse(
    await (await call(bridge, token, `/runs/${created.run_id}/events`)).json(),
  );
  assert.deepEqual(events.map((e) => e.type), ["run.created", "run.in-progress", "run.cancelled"]);
});

Deno.test("a stream ends with run.cancelled when its run is cancelled", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const res = await postRun(bridge, token, runBody([jsonPart("search", "x")], "stream"));
  const invoke = await tab.next("invoke");
  await call(bridge, token, `/runs/${res.headers.get("run-id")}/cancel`, "POST");
  const { events } = await readStream(res);
  assert.deepEqual(events.map((e) => e.type), ["run.created", "run.in-progress", "run.cancelled"]);
  tab.send({ type: "result", id: invoke.id, ok: true, result: null });
  await tab.next("activity");
});

Deno.test("a completed run cannot be cancelled", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const run = Run.parse(
    await (await postRun(bridge, token, runBody([jsonPart("search", "x")]))).json(),
  );
  const res = await call(bridge, token, `/runs/${run.run_id}/cancel`, "POST");
  await expectAcpError(res, 403, "server_error");
});

Deno.test("a confirmation the tab waits for makes the run awaiting until the person answers", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const stream = postRun(bridge, token, runBody([textPart("approve req-3")], "stream"));
  const invoke = await tab.next("invoke");
  assert.equal(invoke.consequential, true);
  tab.send({ type: "awaiting", id: invoke.id, message: "Approve req-3?" });
  // The stream closes at run.awaiting, as the reference server's does.
  const res = await stream;
  const runId = res.headers.get("run-id")!;
  const { events } = await readStream(res);
  assert.deepEqual(events.map((e) => e.type), ["run.created", "run.in-progress", "run.awaiting"]);
  const awaiting = Run.parse(await (await call(bridge, token, `/runs/${runId}`)).json());
  assert.equal(awaiting.status, "awaiting");
  const request = awaiting.await_request!;
  assert.equal(request.type, "message");
  assert.match(
    request.message.parts[0]?.content ?? "",
    /"approve" waits for the person .*Approve req-3\?/,
  );
  assert.deepEqual(JSON.parse(request.message.parts[1]?.content!), {
    awaiting: "confirmation",
    actionId: "approve",
    input: "req-3",
    message: "Approve req-3?",
  });
  // The agent cannot resume it: the person approves in the panel.
  const resume = await bridge.fetch(`/runs/${runId}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      await_resume: { type: "message", message: message(textPart("yes")) },
      mode: "sync",
    }),
  });
  const refused = await expectAcpError(resume, 403, "server_error");
  assert.match(refused.message, /person at the page .* an agent cannot approve it/);
  tab.send({ type: "result", id: invoke.id, ok: true, result: { approved: "req-3" } });
  await tab.next("activity");
  const done = Run.parse(await (await call(bridge, token, `/runs/${runId}`)).json());
  assert.equal(done.status, "completed");
  assert.equal(done.await_request, null);
  assert.deepEqual((answerOf(done) as { result: unknown }).result, { approved: "req-3" });
  const all = RunEventsListResponse.parse(
    await (await call(bridge, token, `/runs/${runId}/events`)).json(),
  ).events;
  assert.deepEqual(all.map((e) => e.type), [
    "run.created",
    "run.in-progress",
    "run.awaiting",
    "run.in-progress",
    "message.created",
    "message.part",
    "message.completed",
    "run.completed",
  ]);
  assert.deepEqual(all.slice(0, 3), events, "/events starts with what the stream delivered");
});

Deno.test("a sync run stops at awaiting, and fails when the person declines", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const pending = postRun(bridge, token, runBody([jsonPart("approve", "req-4")], "sync"));
  const invoke = await tab.next("invoke");
  tab.send({ type: "awaiting", id: invoke.id, message: "Approve req-4?" });
  const res = await pending;
  assert.equal(res.status, 200);
  const run = Run.parse(await res.json());
  assert.equal(run.status, "awaiting");
  assert.ok(run.await_request);
  tab.send({
    type: "result",
    id: invoke.id,
    ok: false,
    error: { code: "declined", message: "The person declined req-4." },
  });
  await tab.next("activity");
  const done = Run.parse(await (await call(bridge, token, `/runs/${run.run_id}`)).json());
  assert.equal(done.status, "failed");
  assert.equal(done.error!.message, "The person declined req-4.");
  assert.equal(done.error!.data?.error, "declined");
});

Deno.test("resuming a run that awaits nothing is refused with 403, as the reference does", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const run = Run.parse(
    await (await postRun(bridge, token, runBody([jsonPart("search", "x")]))).json(),
  );
  const resume = (body: unknown) =>
    bridge.fetch(`/runs/${run.run_id}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
  const refused = await expectAcpError(
    await resume({ await_resume: { type: "message", message: message(textPart("y")) } }),
    403,
    "server_error",
  );
  assert.equal(refused.message, `Run ${run.run_id} has no await request`);
  await expectAcpError(await resume({ await_resume: { type: "other" } }), 422, "invalid_input");
});
