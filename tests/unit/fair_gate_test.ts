/**
 * The fair gate of costly work (bridge/core/fair_gate.ts): a rate per key (a burst, then so many a
 * second), a line bounded per key and in all, a bounded wait, and turns that go to the waiting
 * first. Each bound is asserted itself: the caller past it, the line's length, the wait.
 *
 * @module
 */
import assert from "node:assert/strict";
import { FairGate, type FairGateOptions } from "../../bridge/core/fair_gate.ts";

/** A gate where only `client:` keys are bounded: `rate`, and `line` of them waiting. */
function rated(options: Partial<FairGateOptions> & { line?: number } = {}): FairGate {
  const { line = 64, ...rest } = options;
  return new FairGate({
    max: Infinity,
    perKey: { max: Infinity, maxWaiting: Infinity },
    waitMs: 5_000,
    maxWaiting: 1024,
    limits: { client: { max: Infinity, maxWaiting: line, rate: { burst: 2, perSecond: 20 } } },
    ...rest,
  });
}

/** What a promise is now, without waiting for it: "pending", or what it resolved to. */
async function now<T>(promise: Promise<T>): Promise<T | "pending"> {
  return await Promise.race([promise, Promise.resolve("pending" as const)]);
}

Deno.test("a key's burst enters at once; the next waits for its turn at the key's rate", async () => {
  const gate = rated();
  const keys = ["client:A"];
  assert.equal(await gate.enter(keys), true);
  assert.equal(await gate.enter(keys), true);
  const started = performance.now();
  const third = gate.enter(keys);
  assert.equal(await now(third), "pending", "past the burst, the third waits");
  assert.equal(gate.waitingOf("client:A"), 1);
  assert.equal(await third, true);
  // 20 a second: its token came 50 ms after the burst was spent, not before.
  assert.ok(performance.now() - started >= 45, `${performance.now() - started} ms`);
  assert.equal(gate.waitingOf("client:A"), 0);
});

Deno.test("another key's burst is its own: it enters while the first key's callers wait", async () => {
  const gate = rated();
  for (let i = 0; i < 2; i++) await gate.enter(["client:A"]);
  const waiting = gate.enter(["client:A"]);
  assert.equal(await gate.enter(["client:B"]), true);
  assert.equal(await now(waiting), "pending");
  assert.equal(await waiting, true);
});

Deno.test("a key's line holds at most its bound; the next caller is refused at once", async () => {
  // The clock stands still unless the test moves it: no turn comes while the line fills.
  const clock = { now: 1_000_000 };
  const gate = rated({ line: 5, waitMs: 5_000, now: () => clock.now });
  const keys = ["client:A"];
  for (let i = 0; i < 2; i++) await gate.enter(keys);
  const line = Array.from({ length: 5 }, () => gate.enter(keys));
  assert.equal(gate.waitingOf("client:A"), 5);
  assert.equal(await now(gate.enter(keys)), false, "the sixth waiter is refused at once");
  assert.equal(gate.waitingOf("client:A"), 5);
  // Those in line go in, each on its turn (20 a second: one each 50 ms), the first first.
  for (const [n, waiting] of line.entries()) {
    clock.now += 50;
    assert.equal(await waiting, true);
    assert.equal(gate.waitingOf("client:A"), 4 - n);
  }
});

Deno.test("the line in all holds at most its bound, whatever the keys", async () => {
  const clock = { now: 1_000_000 };
  const gate = rated({ maxWaiting: 3, now: () => clock.now });
  for (const client of ["A", "B", "C", "D"]) {
    for (let i = 0; i < 2; i++) await gate.enter([`client:${client}`]);
  }
  const line = ["A", "B", "C"].map((client) => gate.enter([`client:${client}`]));
  assert.equal(gate.waiting, 3);
  assert.equal(await now(gate.enter(["client:D"])), false, "the fourth is refused at once");
  clock.now += 50;
  assert.deepEqual(await Promise.all(line), [true, true, true]);
});

Deno.test("a caller waits at most the gate's wait, then is refused and leaves the line", async () => {
  const gate = rated({
    waitMs: 40,
    limits: { client: { max: Infinity, maxWaiting: 64, rate: { burst: 1, perSecond: 0.01 } } },
  });
  assert.equal(await gate.enter(["client:A"]), true);
  const started = performance.now();
  assert.equal(await gate.enter(["client:A"]), false);
  assert.ok(performance.now() - started >= 35, "refused after its wait, not before");
  assert.equal(gate.waitingOf("client:A"), 0);
});

Deno.test("a caller whose signal aborts leaves the line at once, refused", async () => {
  const gate = rated();
  for (let i = 0; i < 2; i++) await gate.enter(["client:A"]);
  const controller = new AbortController();
  const waiting = gate.enter(["client:A"], controller.signal);
  assert.equal(gate.waitingOf("client:A"), 1);
  controller.abort();
  assert.equal(await waiting, false);
  assert.equal(gate.waitingOf("client:A"), 0);
  assert.equal(await gate.enter(["client:A"], AbortSignal.abort()), false);
});

Deno.test("a newcomer never takes the turn of a caller already waiting for it", async () => {
  const clock = { now: 1_000_000 };
  const gate = rated({ now: () => clock.now });
  for (let i = 0; i < 2; i++) await gate.enter(["client:A"]);
  const first = gate.enter(["client:A"]);
  // The token is due, and the waiter's timer has not fired yet: the newcomer waits behind it.
  clock.now += 50;
  const newcomer = gate.enter(["client:A"]);
  assert.equal(await now(first), true);
  assert.equal(await now(newcomer), "pending");
  clock.now += 50;
  assert.equal(await newcomer, true);
});

Deno.test("a freed place goes to the waiter whose client holds the fewest, and places bound each key", async () => {
  const gate = new FairGate({
    max: 3,
    perKey: { max: 2, maxWaiting: 4 },
    waitMs: 2_000,
  });
  assert.equal(await gate.enter(["client:A"]), true);
  assert.equal(await gate.enter(["client:A"]), true);
  assert.equal(await gate.enter(["client:C"]), true);
  const a = gate.enter(["client:A"]);
  const b = gate.enter(["client:B"]);
  gate.leave(["client:C"]);
  assert.equal(await b, true, "B, holding nothing, gets the freed place");
  assert.equal(await now(a), "pending", "A holds two, its own bound");
  gate.leave(["client:A"]);
  assert.equal(await a, true);
  assert.equal(gate.inside, 3);
});

Deno.test("at most maxKeys rates are kept: full buckets are forgotten first, then the oldest", async () => {
  const clock = { now: 1_000_000 };
  const gate = rated({ maxKeys: 10, now: () => clock.now });
  // Nine keys take one turn each, then their buckets fill again; A then spends its burst.
  for (let i = 0; i < 9; i++) assert.equal(await gate.enter([`client:${i}`]), true);
  clock.now += 1000;
  for (let i = 0; i < 2; i++) assert.equal(await gate.enter(["client:A"]), true);
  // An eleventh key: the full buckets go, A's spent one stays, and A still waits for its turn.
  assert.equal(await gate.enter(["client:X"]), true);
  const waiting = gate.enter(["client:A"]);
  assert.equal(await now(waiting), "pending");
  clock.now += 50;
  assert.equal(await waiting, true);
  // Past the bound with no full bucket, the oldest goes: A, spent, is then given a new burst.
  for (let i = 0; i < 10; i++) assert.equal(await gate.enter([`client:new${i}`]), true);
  assert.equal(await gate.enter(["client:A"]), true, "A was forgotten: a new burst");
});
