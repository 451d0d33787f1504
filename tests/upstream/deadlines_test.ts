/**
 * Unit tests of bridge/upstream/deadlines.ts, the one timer behind the proxy's timeouts and
 * hang-up watches (here the objects that wait are callbacks, which the deadlines call): a wait is
 * called once and never before its length, a deleted one never, a
 * wait added later is called at its own deadline (not the older one's the timer was set for),
 * adding again restarts a wait, and closing forgets them all. Deadlines are about time, so
 * these tests let time pass; each wait is bounded, so that a broken timer fails, not hangs.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Deadlines } from "../../bridge/upstream/deadlines.ts";

const MS = 40;

/** A callback to hand a `Deadlines`, and the milliseconds from now until it is called. */
function waited(): { expire: () => void; after: Promise<number> } {
  const started = performance.now();
  const { promise, resolve, reject } = Promise.withResolvers<number>();
  // A bound, not a wait: a timer that never fires fails the test instead of hanging it.
  const bound = setTimeout(() => reject(new Error("not called within 50 deadlines")), 50 * MS);
  return {
    expire: () => {
      clearTimeout(bound);
      resolve(performance.now() - started);
    },
    after: promise,
  };
}

/** Resolves after `ms`, on a timer of its own. */
function elapse(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

Deno.test("a wait is called once, no sooner than the deadline's length", async () => {
  using deadlines = new Deadlines<() => void>(MS, (expire) => expire());
  let calls = 0;
  const wait = waited();
  deadlines.add(() => {
    calls++;
    wait.expire();
  });
  assert.equal(deadlines.size, 1);
  assert.ok(await wait.after >= MS - 1);
  await elapse(2 * MS);
  assert.equal(calls, 1);
  assert.equal(deadlines.size, 0);
});

Deno.test("a deleted wait is never called, and the timer it was set for calls a later one at its own deadline", async () => {
  using deadlines = new Deadlines<() => void>(MS, (expire) => expire());
  let gone = 0;
  const first = () => gone++;
  deadlines.add(first);
  await elapse(MS / 2);
  const later = waited();
  deadlines.add(later.expire);
  deadlines.delete(first);
  // The timer fires for the first wait's deadline, finds it gone, and waits for the later one.
  assert.ok(await later.after >= MS - 1, "the later wait was called at the first one's deadline");
  assert.equal(gone, 0);
});

Deno.test("waits added at different times are each called at their own deadline, in order", async () => {
  using deadlines = new Deadlines<() => void>(MS, (expire) => expire());
  const order: string[] = [];
  const first = waited();
  deadlines.add(() => {
    order.push("first");
    first.expire();
  });
  await elapse(MS / 2);
  const second = waited();
  deadlines.add(() => {
    order.push("second");
    second.expire();
  });
  const [a, b] = await Promise.all([first.after, second.after]);
  assert.ok(a >= MS - 1 && b >= MS - 1, `called after ${a} and ${b} ms`);
  assert.deepEqual(order, ["first", "second"]);
});

Deno.test("adding a waiting callback again restarts its deadline", async () => {
  using deadlines = new Deadlines<() => void>(MS, (expire) => expire());
  const wait = waited();
  deadlines.add(wait.expire);
  await elapse(MS / 2);
  const restarted = performance.now();
  deadlines.add(wait.expire);
  assert.equal(deadlines.size, 1);
  await wait.after;
  assert.ok(performance.now() - restarted >= MS - 1);
});

Deno.test("closing forgets every wait: none is called", async () => {
  const deadlines = new Deadlines<() => void>(MS, (expire) => expire());
  let calls = 0;
  deadlines.add(() => calls++);
  deadlines.add(() => calls++);
  deadlines.close();
  assert.equal(deadlines.size, 0);
  await elapse(2 * MS);
  assert.equal(calls, 0);
});
