/**
 * ACP runs that never finish cannot fill the bridge. A session
 * has a bounded number of runs under way (429 past it) so it cannot block another's; every run
 * ends by its deadline, even one a tab keeps "awaiting"; what a session's runs keep is bounded
 * in bytes. Over real HTTP, with a fake tab over a real WebSocket.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Run } from "../../bridge/acp/schemas.ts";
import type { ServerAction } from "../../bridge/core/server_actions.ts";
import { call, connected, expectAcpError, message, postRun, textPart } from "../acp/helpers.ts";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";

/** Server actions: `hold` answers when the test releases it, `big N` answers N bytes. */
function actions(held: (() => void)[]): ServerAction[] {
  const string = { type: "string" as const, maxLength: 20 };
  return [
    {
      id: "hold",
      description: "Answers once the test releases it",
      input_schema: string,
      input_example: "x",
      run: () => new Promise<string>((resolve) => held.push(() => resolve("released"))),
    },
    {
      id: "big",
      description: "Answers a string of as many bytes as its input says",
      input_schema: string,
      input_example: "10",
      run: (_ctx, input) => "x".repeat(Number(input)),
    },
  ];
}

function run(bridge: TestBridge, token: string, text: string, mode = "sync") {
  return postRun(bridge, token, {
    agent_name: "control-panel",
    input: [message(textPart(text))],
    mode,
  });
}

/** `promise`, or a failure after `ms`: a guard against a hang, never a wait for something. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("a session at its cap of runs under way gets 429 with Retry-After, and another session's run still completes", async () => {
  const held: (() => void)[] = [];
  await using bridge = await startBridge({
    serverActions: actions(held),
    limits: { maxInFlight: 100 },
  });
  try {
    const hog = await bridge.openSession("/control-panel");
    for (let i = 0; i < 16; i++) {
      const res = await run(bridge, hog, "hold x", "async");
      assert.equal(res.status, 202);
      await res.body?.cancel();
    }
    const refused = await run(bridge, hog, "hold x", "async");
    const error = await expectAcpError(refused, 429, "server_error");
    assert.match(error.message, /16 runs under way, the most one session may have/);
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    const other = await bridge.openSession("/control-panel");
    const res = await run(bridge, other, "big 10");
    assert.equal(res.status, 200);
    assert.equal(Run.parse(await res.json()).status, "completed");
  } finally {
    held.splice(0).forEach((release) => release());
  }
});

Deno.test("a run that a tab keeps awaiting past its deadline fails with run_deadline and the tab is told to withdraw it", async () => {
  // The deadline follows the core's timeouts: 200 + 200 ms and a tenth more.
  await using bridge = await startBridge({ tabTimeoutMs: 200, confirmTimeoutMs: 200 });
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  tab.answerWith = "never";
  const posting = run(bridge, token, "approve req-3");
  const invoke = await tab.next("invoke");
  tab.send({ type: "awaiting", id: invoke.id, message: "Approve req-3?" });
  const awaiting = Run.parse(await (await posting).json());
  assert.equal(awaiting.status, "awaiting");
  // A hostile tab says "awaiting" again and again, restarting the core's confirmation timer.
  const again = setInterval(
    () => tab.send({ type: "awaiting", id: invoke.id, message: "Approve req-3?" }),
    50,
  );
  try {
    const withdrawn = await within(tab.next("cancel"), 10_000, "the run's deadline");
    assert.equal(withdrawn.id, invoke.id);
  } finally {
    clearInterval(again);
  }
  const ended = Run.parse(await (await call(bridge, token, `/runs/${awaiting.run_id}`)).json());
  assert.equal(ended.status, "failed");
  assert.equal(ended.await_request, null);
  assert.equal(ended.error?.data?.error, "run_deadline");
  assert.match(ended.error!.message, /did not answer the confirmation/);
});

Deno.test("a session's runs keep at most 4 MiB, the oldest making way, and a larger answer is not kept", async () => {
  await using bridge = await startBridge({ serverActions: actions([]) });
  const token = await bridge.openSession("/control-panel");
  const other = await bridge.openSession("/control-panel");
  const otherRun = Run.parse(await (await run(bridge, other, "big 500000")).json());
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    const done = Run.parse(await (await run(bridge, token, "big 500000")).json());
    assert.equal(done.status, "completed");
    ids.push(done.run_id);
  }
  const kept = [];
  for (const id of ids) {
    const res = await call(bridge, token, `/runs/${id}`);
    await res.body?.cancel();
    if (res.status === 200) kept.push(id);
    else assert.equal(res.status, 404);
  }
  // 8 answers of 500,000 bytes fit in 4 MiB with what runs keep besides; 7 leave room.
  assert.ok(kept.length >= 7 && kept.length <= 8, `${kept.length} runs kept`);
  assert.deepEqual(kept, ids.slice(-kept.length), "the newest runs are the ones kept");
  const res = await call(bridge, other, `/runs/${otherRun.run_id}`);
  assert.equal(res.status, 200, "another session's run is not touched");
  await res.body?.cancel();
  const huge = Run.parse(await (await run(bridge, token, "big 5000000")).json());
  assert.equal(huge.status, "failed");
  assert.deepEqual(huge.output, []);
  assert.equal(huge.error?.data?.error, "output_too_large");
  assert.match(huge.error!.message, /was not kept/);
});
