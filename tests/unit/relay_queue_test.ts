/**
 * Unit tests of bridge/core/relay_queue.ts, on a stand-in tab and a clock of its own: invocations
 * reach the tab one at a time in the order asked, each paying for the tab's answer; the queue's
 * bound; a tab timeout counted from the request, queued time included, and the confirmation
 * timeout once the person is asked; a cancel, a move, a change of identity and a tab that goes.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { BridgeMessage } from "../../bridge/wire/channel.ts";
import { INVOKE_CREDIT } from "../../bridge/core/channel_budget.ts";
import { RelayQueue, type RelayQueueOptions } from "../../bridge/core/relay_queue.ts";
import {
  IDENTITY_CHANGED,
  TabConnection,
  type TabOutcome,
} from "../../bridge/core/tab_connection.ts";

/** A tab that keeps what it was sent. */
function tab(): { connection: TabConnection; sent: BridgeMessage[] } {
  const sent: BridgeMessage[] = [];
  const connection = new TabConnection({ send: (m) => sent.push(m), close() {} }, "/page");
  return { connection, sent };
}

/** A queue over `holder`, with the options given and a clock that says `clock.now`. */
function queue(
  holder: TabConnection | null,
  options: Partial<RelayQueueOptions> = {},
): { relays: RelayQueue; clock: { now: number } } {
  const clock = { now: 1_000 };
  const relays = new RelayQueue({
    holder: () => holder,
    maxQueue: 4,
    tabTimeoutMs: 10_000,
    confirmTimeoutMs: 60_000,
    now: () => clock.now,
    ...options,
  });
  return { relays, clock };
}

/** The ids of the invocations `sent` holds, in order. */
const invoked = (sent: BridgeMessage[]) =>
  sent.filter((m) => m.type === "invoke").map((m) => (m as { actionId: string }).actionId);

/** Whether `promise` has settled: after a turn, it has or it never will by itself. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true, () => done = true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

const OK: TabOutcome = { ok: true, result: "done" };

Deno.test("invocations reach the tab one at a time, in the order asked, each paying for its answer", async () => {
  const { connection, sent } = tab();
  const { relays } = queue(connection);
  const first = relays.relay({ actionId: "a", input: 1, consequential: false });
  const second = relays.relay({ actionId: "b", input: 2, consequential: true });
  assert.deepEqual(invoked(sent), ["a"]);
  assert.deepEqual(connection.credit, INVOKE_CREDIT);
  assert.equal(relays.size, 2);
  const [invoke] = sent as [Extract<BridgeMessage, { type: "invoke" }>];
  assert.deepEqual({ ...invoke, id: "" }, {
    type: "invoke",
    id: "",
    actionId: "a",
    input: 1,
    consequential: false,
  });
  // Only the invocation at the tab may be answered, by its id.
  assert.equal(relays.answer("another", OK), false);
  connection.credit = { messages: 0, characters: 0 };
  assert.equal(relays.answer(invoke.id, OK), true);
  assert.deepEqual(await first, OK);
  assert.deepEqual(invoked(sent), ["a", "b"]);
  assert.deepEqual(connection.credit, INVOKE_CREDIT);
  assert.equal(relays.answer(invoke.id, OK), false, "answered once");
  const next = sent[1] as { id: string };
  relays.answer(next.id, { ok: false, code: "declined", message: "No." });
  assert.deepEqual(await second, { ok: false, code: "declined", message: "No." });
  assert.equal(relays.size, 0);
});

Deno.test("past maxQueue invocations queued or running, one more is refused too_many_requests", async () => {
  const { connection } = tab();
  const { relays } = queue(connection, { maxQueue: 2 });
  relays.relay({ actionId: "a", input: 1, consequential: false });
  relays.relay({ actionId: "b", input: 1, consequential: false });
  const refused = await relays.relay({ actionId: "c", input: 1, consequential: false });
  assert.equal(refused.ok, false);
  assert.equal((refused as { code: string }).code, "too_many_requests");
  assert.match((refused as { message: string }).message, /^At most 2 invocations may wait/);
  relays.failAll("gone");
});

Deno.test("the tab timeout counts from the request, queued time included; the person's from when they are asked", async () => {
  const { connection, sent } = tab();
  const { relays, clock } = queue(connection, { tabTimeoutMs: 50, confirmTimeoutMs: 5_000 });
  const first = relays.relay({ actionId: "a", input: 1, consequential: true });
  const queued = relays.relay({ actionId: "b", input: 1, consequential: false });
  const asked: string[] = [];
  const id = (sent[0] as { id: string }).id;
  // The tab asks the person: the first waits the confirmation timeout now.
  assert.equal(relays.awaiting("another", "Asking."), false);
  const confirming = relays.relay({
    actionId: "c",
    input: 1,
    consequential: false,
  }, { onAwaiting: (m) => asked.push(m) });
  assert.equal(relays.awaiting(id, "Asking the person."), true);
  clock.now += 60;
  const outcome = await queued;
  assert.equal((outcome as { code: string }).code, "tab_timeout");
  assert.match((outcome as { message: string }).message, /within 50 ms/);
  assert.equal(await settled(first), false, "the one at the tab waits for the person");
  assert.equal((await confirming as { code: string }).code, "tab_timeout");
  assert.deepEqual(asked, [], "only the invocation at the tab hears it is awaiting");
  assert.deepEqual(invoked(sent), ["a"], "the queued ones never reached the tab");
  relays.answer(id, OK);
  assert.deepEqual(await first, OK);
});

Deno.test("a timeout given with the call, shorter than the tab's, is the one that counts", async () => {
  const { connection, sent } = tab();
  const { relays } = queue(connection, { tabTimeoutMs: 60_000 });
  const started = Date.now();
  const outcome = await relays.relay({ actionId: "a", input: 1, consequential: false }, {
    timeoutMs: 20,
  });
  assert.equal((outcome as { code: string }).code, "tab_timeout");
  assert.ok(Date.now() - started < 10_000);
  // The tab is told to forget the one it was running.
  assert.equal(sent.filter((m) => m.type === "cancel").length, 1);
});

Deno.test("a cancelled invocation is dropped from the queue, or withdrawn from the tab", async () => {
  const { connection, sent } = tab();
  const { relays } = queue(connection);
  const running = new AbortController();
  const waiting = new AbortController();
  const first = relays.relay({ actionId: "a", input: 1, consequential: false }, {
    signal: running.signal,
  });
  const second = relays.relay({ actionId: "b", input: 1, consequential: false }, {
    signal: waiting.signal,
  });
  waiting.abort();
  assert.equal((await second as { code: string }).code, "cancelled");
  assert.deepEqual(sent.map((m) => m.type), ["invoke"], "a queued one is dropped unseen");
  running.abort();
  assert.equal((await first as { code: string }).code, "cancelled");
  assert.deepEqual(sent.map((m) => m.type), ["invoke", "cancel"]);
  assert.equal((sent[1] as { id: string }).id, (sent[0] as { id: string }).id);
  assert.equal(relays.size, 0);
});

Deno.test("cancelQueued() answers the queued invocations, never the one at the tab", async () => {
  const { connection, sent } = tab();
  const { relays } = queue(connection);
  const first = relays.relay({ actionId: "a", input: 1, consequential: false });
  const queued = [1, 2].map(() => relays.relay({ actionId: "b", input: 1, consequential: false }));
  relays.cancelQueued("The page moved.");
  for (const outcome of await Promise.all(queued)) {
    assert.deepEqual(outcome, { ok: false, code: "cancelled", message: "The page moved." });
  }
  assert.equal(await settled(first), false);
  assert.equal(relays.size, 1);
  relays.answer((sent[0] as { id: string }).id, OK);
  assert.deepEqual(await first, OK);
});

Deno.test("withdrawProtected() answers every protected invocation, queued or at the tab, and the rest go on", async () => {
  const { connection, sent } = tab();
  const { relays } = queue(connection);
  const at = relays.relay({ actionId: "a", input: 1, consequential: true }, { protected: true });
  const queuedProtected = relays.relay({ actionId: "b", input: 1, consequential: false }, {
    protected: true,
  });
  const plain = relays.relay({ actionId: "c", input: 1, consequential: false });
  relays.withdrawProtected();
  const withdrawn = { ok: false, code: "cancelled", message: IDENTITY_CHANGED };
  assert.deepEqual(await at, withdrawn);
  assert.deepEqual(await queuedProtected, withdrawn);
  // The tab forgets the one it ran; the plain one is next, never the protected one behind it.
  assert.deepEqual(sent.map((m) => m.type), ["invoke", "cancel", "invoke"]);
  assert.deepEqual(invoked(sent), ["a", "c"]);
  relays.answer((sent[2] as { id: string }).id, OK);
  assert.deepEqual(await plain, OK);
});

Deno.test("failAll() answers every invocation browser_not_connected, and a queue without a holder sends nothing", async () => {
  const { relays } = queue(null);
  const waiting = [1, 2].map(() => relays.relay({ actionId: "a", input: 1, consequential: false }));
  assert.equal(relays.size, 2);
  relays.failAll("The tab closed.");
  for (const outcome of await Promise.all(waiting)) {
    assert.deepEqual(outcome, {
      ok: false,
      code: "browser_not_connected",
      message: "The tab closed.",
    });
  }
  assert.equal(relays.size, 0);
});
