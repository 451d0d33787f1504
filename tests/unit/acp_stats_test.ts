/**
 * InvocationStats (bridge/acp/stats.ts): ACP's agent `status` per page, counted from finished
 * invocations: a status under 400 succeeded, the average run time is in seconds.
 *
 * @module
 */
import assert from "node:assert/strict";
import { InvocationStats } from "../../bridge/acp/stats.ts";

Deno.test("a page without invocations has no status", () => {
  const stats = new InvocationStats();
  assert.equal(stats.status("/control-panel"), undefined);
  stats.record({ page: "/other", status: 200, durationMs: 10 });
  assert.equal(stats.status("/control-panel"), undefined, "another page's figures are its own");
});

Deno.test("a status under 400 counts as a success, 400 and over as a failure", () => {
  for (
    const [status, rate] of [[200, 100], [204, 100], [399, 100], [400, 0], [403, 0], [
      500,
      0,
    ]] as const
  ) {
    const stats = new InvocationStats();
    stats.record({ page: "/p", status, durationMs: 0 });
    assert.equal(stats.status("/p")?.success_rate, rate, String(status));
  }
});

Deno.test("status() gives the success rate in percent and the average run time in seconds, rounded", () => {
  const stats = new InvocationStats();
  stats.record({ page: "/p", status: 200, durationMs: 100 });
  stats.record({ page: "/p", status: 422, durationMs: 200 });
  stats.record({ page: "/p", status: 200, durationMs: 401 });
  assert.deepEqual(stats.status("/p"), {
    avg_run_time_seconds: 0.233667, // 701 ms / 3, to the microsecond
    success_rate: 66.67,
  });
});
