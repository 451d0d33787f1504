/**
 * The characters one client address's tabs may send over the channel, all its sessions together
 * (bridge/core/address_budget.ts): past the bucket, only a session that sent at least its share
 * is refused, so a person behind the same address is never closed for another's flood.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  ADDRESS_BUDGET_DEFAULTS,
  ADDRESS_CHARACTERS,
  AddressBudgets,
} from "../../bridge/core/address_budget.ts";

const MB = 1_000_000;
const { burst, perSecond } = ADDRESS_CHARACTERS;
const REASON = `more than ${perSecond} characters of messages a second from this address`;

Deno.test("the sessions of one address share one burst: past it, a session that sent its share is refused", () => {
  const budgets = new AddressBudgets();
  const t = 1_000_000;
  // Four sessions of the address send 1 MB each in turn: the burst (4 MiB) holds four.
  let sent = 0;
  for (let n = 0; sent + MB <= burst; n++, sent += MB) {
    assert.equal(budgets.charge("203.0.113.7", `s${n % 4}`, MB, t), null);
  }
  assert.equal(budgets.charge("203.0.113.7", "s0", MB, t), REASON);
  // Another address has its own.
  assert.equal(budgets.charge("198.51.100.2", "b", MB, t), null);
});

Deno.test("a session that sent less than its share is not refused when the address's bucket is short", () => {
  const budgets = new AddressBudgets();
  const t = 1_000_000;
  for (let n = 0; n < 4; n++) assert.equal(budgets.charge("A", "flood", MB, t), null);
  assert.equal(budgets.charge("A", "flood", MB, t), REASON);
  // A person behind the same address, whose page sends a small state now and then.
  for (let n = 0; n < 20; n++) assert.equal(budgets.charge("A", "person", 10_000, t + n), null);
  assert.equal(budgets.charge("A", "flood", MB, t + 20), REASON);
});

Deno.test("what sessions under their share may send past the bucket is bounded by one burst of debt", () => {
  const budgets = new AddressBudgets();
  const t = 1_000_000;
  assert.equal(budgets.charge("A", "flood", burst, t), null);
  // Many small sessions, each under the flood's share, until the debt is a burst.
  let passed = 0;
  for (let n = 0; n < 10_000; n++) {
    if (budgets.charge("A", `light${n}`, 100_000, t) !== null) break;
    passed += 100_000;
  }
  assert.ok(passed <= burst && passed > burst - 200_000, `${passed} characters passed`);
});

Deno.test("the bucket fills again at its rate", () => {
  const budgets = new AddressBudgets();
  const t = 1_000_000;
  assert.equal(budgets.charge("A", "s", burst, t), null);
  assert.equal(budgets.charge("A", "s", 1, t), REASON);
  assert.equal(budgets.charge("A", "s", perSecond / 2, t + 500), null);
  assert.equal(budgets.charge("A", "s", 1, t + 500), REASON);
});

Deno.test("a session that took its address's budget waits at the upgrade until half a burst refills; one that did not never does", () => {
  const budgets = new AddressBudgets();
  const t = 1_000_000;
  budgets.charge("A", "person", 10_000, t);
  budgets.charge("A", "flood", burst - 10_000, t);
  // Half a burst (2 MiB) refills in a second at 2 MiB a second.
  assert.equal(budgets.reconnectWait("A", "flood", t), Math.ceil((burst / 2) / perSecond));
  assert.equal(budgets.reconnectWait("A", "person", t), 0);
  assert.equal(budgets.reconnectWait("A", "flood", t + 1000), 0);
  assert.equal(budgets.reconnectWait("B", "other", t), 0);
});

Deno.test("at most maxAddresses addresses are remembered, the longest quiet forgotten", () => {
  const budgets = new AddressBudgets({ maxAddresses: 3 });
  const t = 1_000_000;
  budgets.charge("A", "s", burst, t);
  for (const address of ["B", "C", "D"]) budgets.charge(address, "s", 1, t);
  assert.equal(budgets.size, 3);
  // A, heard first and not since, was forgotten: a full bucket again.
  assert.equal(budgets.charge("A", "s", burst, t), null);
});

Deno.test("an address's bucket follows the rate it is given, and 10000 addresses are remembered by default", () => {
  const budgets = new AddressBudgets({ rate: { burst: 10_000, perSecond: 1000 } });
  const t = 1_000_000;
  assert.equal(budgets.charge("A", "s", 10_000, t), null);
  assert.equal(
    budgets.charge("A", "s", 1, t),
    "more than 1000 characters of messages a second from this address",
  );
  assert.equal(budgets.charge("A", "s", 1000, t + 1000), null);
  assert.equal(budgets.reconnectWait("A", "s", t + 1000), Math.ceil(5000 / 1000));
  assert.equal(ADDRESS_BUDGET_DEFAULTS.maxAddresses, 10_000);
  const many = new AddressBudgets();
  many.charge("first", "s", burst, t);
  for (let n = 0; n < 9_999; n++) many.charge(`a${n}`, "s", 1, t);
  assert.equal(many.size, 10_000);
  assert.equal(many.charge("first", "s", 1, t), REASON);
  many.charge("one-more", "s", 1, t);
  assert.equal(many.size, 10_000);
  // "a0", heard longest ago now, was forgotten; "first", heard since, was not.
  assert.equal(many.charge("first", "s", 1, t), REASON);
});

Deno.test("a clock that steps back neither drains an address's bucket nor swells its sessions' shares", () => {
  const budgets = new AddressBudgets();
  const t = 1_000_000;
  assert.equal(budgets.charge("A", "s", burst / 2, t), null);
  assert.equal(budgets.charge("A", "s", burst / 2, t - 1000), null);
  assert.equal(budgets.charge("A", "s", 1, t - 1000), REASON);
});

Deno.test("what a session sent long ago no longer lowers the share of one that floods now", () => {
  const budgets = new AddressBudgets();
  const t = 1_000_000;
  assert.equal(budgets.charge("A", "old", burst / 2, t), null);
  // Twenty seconds later the bucket is full, and the old session's characters decayed away.
  assert.equal(budgets.charge("A", "new", burst, t + 20_000), null);
  assert.equal(budgets.charge("A", "new", 1, t + 20_000), REASON);
  assert.ok(budgets.reconnectWait("A", "new", t + 20_000) > 0);
});

Deno.test("sessions that sent under 1024 characters lately do not count in the share, so they cannot lower it", () => {
  // [characters each of three light sessions sent, whether the middle session is then refused]
  const table: [light: number, refused: boolean][] = [[500, false], [1023, false], [1024, true]];
  for (const [light, refused] of table) {
    const budgets = new AddressBudgets();
    const t = 1_000_000;
    assert.equal(budgets.charge("A", "heavy", 3 << 20, t), null);
    assert.equal(budgets.charge("A", "middle", 1 << 20, t), null);
    for (const name of ["q1", "q2", "q3"]) assert.equal(budgets.charge("A", name, light, t), null);
    // Without the light ones, the share is the mean of 3 MiB and 1 MiB: the middle one is under
    // it; with them, over it.
    assert.equal(budgets.charge("A", "middle", 1, t), refused ? REASON : null, `${light}`);
    assert.equal(budgets.charge("A", "heavy", 1, t), REASON);
  }
});

Deno.test("the wait, the debt bound and the decayed shares hold at their edges", () => {
  const t = 1_000_000;
  // A session that took its share, once the bucket is full again, waits for nothing.
  const full = new AddressBudgets();
  full.charge("A", "flood", burst, t);
  assert.equal(full.reconnectWait("A", "flood", t + 10_000), 0);
  // Half a MiB left: the wait is for 1.5 MiB at 2 MiB a second, a second rounded up.
  const partial = new AddressBudgets();
  partial.charge("A", "flood", burst - (1 << 19), t);
  assert.equal(partial.reconnectWait("A", "flood", t), 1);
  partial.charge("A", "flood", 1 << 19, t);
  assert.equal(partial.reconnectWait("A", "flood", t), Math.ceil((burst / 2) / perSecond));
  // A debt of exactly one burst is still allowed to a light session.
  const debt = new AddressBudgets();
  debt.charge("A", "flood", burst, t);
  assert.equal(debt.charge("A", "light", burst, t), null);
  assert.equal(debt.charge("A", "light2", 1, t), REASON);
  // An old session's characters decay: two seconds on, it no longer lifts the share above new ones.
  const decayed = new AddressBudgets();
  decayed.charge("A", "old", burst, t);
  assert.equal(decayed.charge("A", "new", 2 << 20, t + 2000), null);
  assert.equal(decayed.charge("A", "third", 2 << 20, t + 2000), null);
  assert.equal(decayed.charge("A", "new", 1, t + 2000), REASON);
});
