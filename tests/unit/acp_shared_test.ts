/**
 * What other bridge instances read of ACP runs and sessions (bridge/acp/shared.ts): a run's view
 * always, its events only while they fit the run's byte budget; a run that can no longer finish
 * reads as failed with its problem; a value read from the store is a session only in its shape.
 *
 * @module
 */
import assert from "node:assert/strict";
import { AcpRun } from "../../bridge/acp/run.ts";
import { isSharedSession, sharedRun, stoppedRun } from "../../bridge/acp/shared.ts";
import { jsonBytes, RunProblem } from "../../bridge/runs/run.ts";

function newRun(): AcpRun {
  return new AcpRun({
    ownerId: "session-1",
    agentName: "control-panel",
    sessionId: "acp-session-1",
    now: () => Date.UTC(2026, 0, 1),
    deadlineMs: 60_000,
    maxBytes: 1 << 20,
    start: () => {},
  });
}

Deno.test("sharedRun() keeps the events at exactly the byte budget, and drops them one byte under", () => {
  const run = newRun();
  const size = jsonBytes(run.view()) + jsonBytes(run.events());
  const fits = sharedRun(run, "instance-a", size);
  assert.equal(fits.owner, "session-1");
  assert.equal(fits.instance, "instance-a");
  assert.deepEqual(fits.view, run.view());
  assert.deepEqual(fits.events, run.events());
  assert.ok(fits.events!.length > 0, "run.created is an event");
  const over = sharedRun(run, "instance-a", size - 1);
  assert.equal(over.events, null, "only the view is mirrored");
  assert.deepEqual(over.view, run.view());
});

Deno.test("stoppedRun() reads as failed with the run's problem, its events closed by run.failed", () => {
  const mirrored = sharedRun(newRun(), "instance-a", 1 << 20);
  // A run stopped while it awaited the person: the await request goes with it.
  const awaiting = {
    type: "message" as const,
    message: { role: "agent/control-panel", parts: [] },
  };
  const doc = {
    ...mirrored,
    view: { ...mirrored.view, status: "awaiting" as const, await_request: awaiting },
  };
  const problem = new RunProblem("instance_stopped", "The instance running it stopped.");
  const now = Date.UTC(2026, 0, 2);
  const stopped = stoppedRun(doc, problem, now);
  assert.equal(stopped.view.status, "failed");
  assert.equal(stopped.view.await_request, null);
  assert.equal(stopped.view.finished_at, new Date(now).toISOString());
  assert.deepEqual(stopped.view.error, {
    code: "server_error",
    message: "The instance running it stopped.",
    data: { error: "instance_stopped", status: 502 },
  });
  assert.equal(stopped.owner, doc.owner);
  assert.equal(stopped.instance, doc.instance);
  assert.equal(stopped.events!.length, doc.events!.length + 1);
  assert.deepEqual(stopped.events!.at(-1), { type: "run.failed", run: stopped.view });
  assert.equal(doc.view.status, "awaiting", "the document read is not changed");
});

Deno.test("stoppedRun() of a run mirrored without its events keeps none", () => {
  const doc = { ...sharedRun(newRun(), "instance-a", 1 << 20), events: null };
  const problem = new RunProblem("run_deadline", "Too late.");
  assert.equal(stoppedRun(doc, problem, 0).events, null);
});

Deno.test("isSharedSession() accepts only an owner string and a list of run ids", () => {
  assert.equal(isSharedSession({ owner: "s", runs: [] }), true);
  assert.equal(isSharedSession({ owner: "s", runs: ["r1", "r2"] }), true);
  for (
    const value of [
      null,
      undefined,
      "s",
      [],
      {},
      { owner: "s" },
      { runs: [] },
      { owner: 1, runs: [] },
      { owner: "s", runs: "r1" },
      { owner: "s", runs: ["r1", 2] },
      { owner: "s", runs: [null] },
    ]
  ) {
    assert.equal(isSharedSession(value), false, JSON.stringify(value));
  }
});
