/**
 * ACP runs on several bridge instances sharing Redis, each reached directly as a
 * round-robin balancer would send requests: a run created on one is read, followed and
 * cancelled on another, only by the session that created it, and a run whose instance died
 * ends as failed rather than in progress for ever.
 *
 * @module
 */
import assert from "node:assert/strict";
import { AcpSession, Run, RunEventsListResponse } from "../../bridge/acp/schemas.ts";
import { bridgeAt, type TestBridge } from "../helpers/bridge.ts";
import { startAim } from "../helpers/cli.ts";
import { NO_CLUSTER } from "../helpers/cluster.ts";
import { startPair, until } from "../helpers/pair.ts";
import { call, connected, expectAcpError, jsonPart, message, postRun } from "../acp/helpers.ts";

const AGENT = "control-panel";

/** The body of a run of `actionId` with `input` in `mode`. */
function runBody(actionId: string, input: unknown, mode: "sync" | "async") {
  return { agent_name: AGENT, input: [message(jsonPart(actionId, input))], mode };
}

/** `GET /runs/{id}` on `bridge`, checked to answer 200. */
async function readRun(bridge: TestBridge, token: string, id: string): Promise<Run> {
  const res = await call(bridge, token, `/runs/${id}`);
  assert.equal(res.status, 200, `GET /runs/${id} on ${bridge.origin}`);
  return Run.parse(await res.json());
}

/** `GET /runs/{id}/events` on `bridge`, checked to answer 200. */
async function readEvents(bridge: TestBridge, token: string, id: string) {
  const res = await call(bridge, token, `/runs/${id}/events`);
  assert.equal(res.status, 200, `GET /runs/${id}/events on ${bridge.origin}`);
  return RunEventsListResponse.parse(await res.json()).events;
}

Deno.test(
  "an async run created on one instance is read with its events on another, and completes there once the tab answers",
  { ignore: NO_CLUSTER },
  async (t) => {
    await using pair = await startPair();
    const { a, b } = pair;
    for (const [where, home] of [["the first", a], ["the second", b]] as const) {
      await t.step(`with the tab connected to ${where} instance`, async () => {
        const { token, tab } = await connected(home);
        await using _tab = tab;
        tab.answerWith = "never";
        const res = await postRun(a, token, runBody("search", "pending", "async"));
        assert.equal(res.status, 202);
        const created = Run.parse(await res.json());
        const id = created.run_id;

        // Answered at once on the other instance: the 202 waited until it could be.
        const seen = await readRun(b, token, id);
        assert.equal(seen.agent_name, AGENT);
        assert.equal(seen.session_id, created.session_id);
        assert.equal(seen.status, "in-progress");
        const early = await readEvents(b, token, id);
        assert.deepEqual(early.map((e) => e.type), ["run.created", "run.in-progress"]);
        const invoke = await tab.next("invoke");

        tab.send({ type: "result", id: invoke.id, ok: true, result: { found: ["pending"] } });
        const done = await until(() => readRun(b, token, id), (run) => run.status === "completed");
        const answer = JSON.parse(done.output[0]!.parts[0]!.content!);
        assert.deepEqual(answer.result, { found: ["pending"] });
        // Both instances tell the same run and the same events.
        assert.deepEqual(done, await readRun(a, token, id));
        const events = await readEvents(b, token, id);
        assert.deepEqual(events, await readEvents(a, token, id));
        assert.deepEqual(events.map((e) => e.type), [
          "run.created",
          "run.in-progress",
          "message.created",
          "message.part",
          "message.completed",
          "run.completed",
        ]);
      });
    }

    await t.step("a sync run's answer is readable on the other instance at once", async () => {
      const { token, tab } = await connected(a);
      await using _tab = tab;
      const res = await postRun(b, token, runBody("search", "now", "sync"));
      assert.equal(res.status, 200);
      const run = Run.parse(await res.json());
      assert.equal(run.status, "completed");
      assert.deepEqual(await readRun(a, token, run.run_id), run);
      // The ACP session lists it on either instance.
      for (const bridge of [a, b]) {
        const listed = await call(bridge, token, `/sessions/${run.session_id}`);
        assert.equal(listed.status, 200);
        assert.deepEqual(AcpSession.parse(await listed.json()).runs, [run.run_id]);
      }
    });
  },
);

Deno.test("another session's token cannot read, follow or cancel a run on another instance", {
  ignore: NO_CLUSTER,
}, async () => {
  await using pair = await startPair();
  const { a, b } = pair;
  const { token, tab } = await connected(a);
  await using _tab = tab;
  tab.answerWith = "never";
  const created = Run.parse(
    await (await postRun(a, token, runBody("search", "held", "async"))).json(),
  );
  await tab.next("invoke");
  const other = await b.openSession("/control-panel");
  const missing = crypto.randomUUID();
  for (const [path, method] of [["", "GET"], ["/events", "GET"], ["/cancel", "POST"]]) {
    const theirs = await expectAcpError(
      await call(b, other, `/runs/${created.run_id}${path}`, method),
      404,
      "not_found",
    );
    const none = await expectAcpError(
      await call(b, other, `/runs/${missing}${path}`, method),
      404,
      "not_found",
    );
    // Answered as a run that does not exist: nothing tells that it does.
    assert.equal(theirs.message.replace(created.run_id, missing), none.message);
  }
  await expectAcpError(
    await call(b, other, `/sessions/${created.session_id}`),
    404,
    "not_found",
  );
  // The owner still reads it there, and the run was not cancelled.
  assert.equal((await readRun(b, token, created.run_id)).status, "in-progress");
  const session = await call(b, token, `/sessions/${created.session_id}`);
  assert.deepEqual(AcpSession.parse(await session.json()).runs, [created.run_id]);
});

Deno.test("cancelling on another instance cancels a run waiting on the one that runs it", {
  ignore: NO_CLUSTER,
}, async () => {
  await using pair = await startPair();
  const { a, b } = pair;
  const { token, tab } = await connected(a);
  await using _tab = tab;
  tab.answerWith = "never";
  const created = Run.parse(
    await (await postRun(a, token, runBody("search", "slow", "async"))).json(),
  );
  const invoke = await tab.next("invoke");
  const res = await call(b, token, `/runs/${created.run_id}/cancel`, "POST");
  assert.equal(res.status, 202);
  const answered = Run.parse(await res.json());
  assert.equal(answered.status, "cancelling");
  assert.equal(answered.run_id, created.run_id);
  // The instance running it withdrew the invocation from the tab.
  assert.equal((await tab.next("cancel")).id, invoke.id);
  const cancelled = await until(
    () => readRun(b, token, created.run_id),
    (run) => run.status === "cancelled",
  );
  assert.deepEqual(await readRun(a, token, created.run_id), cancelled);
  assert.deepEqual(
    (await readEvents(b, token, created.run_id)).map((e) => e.type),
    ["run.created", "run.in-progress", "run.cancelled"],
  );
  const again = await call(b, token, `/runs/${created.run_id}/cancel`, "POST");
  assert.match(
    (await expectAcpError(again, 403, "server_error")).message,
    /terminal status cancelled/,
  );
});

Deno.test(
  "a run whose instance was killed ends as failed on the others, saying the action may have run",
  { ignore: NO_CLUSTER },
  async () => {
    await using pair = await startPair();
    const { a, b } = pair;
    // A third instance, a process that can die at once.
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
    const start = async (input: string) => {
      const res = await postRun(bridgeAt(doomed.url), token, runBody("search", input, "async"));
      const run = Run.parse(await res.json());
      assert.equal((await readRun(b, token, run.run_id)).status, "in-progress");
      return run;
    };
    const created = await start("lost");
    await tab.next("invoke");
    // Queued behind the first: the tab runs one invocation at a time.
    const unread = await start("unread");
    await doomed.stop("SIGKILL");

    // Redis saw its connections close, so the cancel finds nobody to tell: the run can no longer
    // be cancelled, nor finish. (Had Redis not noticed yet, the cancel goes unheard; the
    // instance's liveness then expires within seconds, with the same outcome.)
    const cancel = await call(b, token, `/runs/${created.run_id}/cancel`, "POST");
    if (cancel.status === 403) {
      assert.match(
        (await expectAcpError(cancel, 403, "server_error")).message,
        /can't be cancelled: The bridge instance running this run stopped before it finished/,
      );
    } else {
      assert.equal(cancel.status, 202);
      await cancel.body?.cancel();
    }
    const failed = await until(
      () => readRun(b, token, created.run_id),
      (run) => run.status === "failed",
    );
    assert.equal(failed.error?.data?.error, "instance_stopped");
    assert.match(failed.error!.message, /stopped before it finished.*may or may not have run/);
    assert.ok(failed.finished_at);
    assert.deepEqual(await readRun(a, token, created.run_id), failed);
    assert.deepEqual(
      (await readEvents(a, token, created.run_id)).map((e) => e.type),
      ["run.created", "run.in-progress", "run.failed"],
    );
    const again = await call(b, token, `/runs/${created.run_id}/cancel`, "POST");
    assert.match(
      (await expectAcpError(again, 403, "server_error")).message,
      /terminal status failed/,
    );

    // A run nobody tried to cancel: read once the dead instance's liveness has expired.
    const alsoFailed = await until(
      () => readRun(b, token, unread.run_id),
      (run) => run.status === "failed",
    );
    assert.equal(alsoFailed.error?.data?.error, "instance_stopped");
  },
);

Deno.test(
  "a run whose events are too large to share is read on another instance by its view alone",
  { ignore: NO_CLUSTER },
  async () => {
    // Its answer fits in what a run keeps, but not four times over, as its events repeat it.
    await using pair = await startPair({ acpRuns: { maxSessionBytes: 8 * 1024 } });
    const { a, b } = pair;
    const { token, tab } = await connected(a, "/control-panel", [
      { id: "report", input_example: "x", handler: () => "x".repeat(3000) },
    ]);
    await using _tab = tab;
    const res = await postRun(a, token, runBody("report", "x", "sync"));
    const run = Run.parse(await res.json());
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    assert.deepEqual(await readRun(b, token, run.run_id), run);
    assert.equal((await readEvents(a, token, run.run_id)).at(-1)?.type, "run.completed");
    const events = await call(b, token, `/runs/${run.run_id}/events`);
    assert.equal(events.headers.get("retry-after"), "1");
    assert.match(
      (await expectAcpError(events, 503, "server_error")).message,
      /too large to be shared .* read GET \/runs\//,
    );
  },
);
