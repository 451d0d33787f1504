/**
 * The characters one client address's tabs may send over the channel, all its sessions together
 * (bridge/core/address_budget.ts): past the bucket, only a session that sent at least its share
 * is refused, so a person behind the same address is never closed for another's flood.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ADDRESS_CHARACTERS, AddressBudgets } from "../../bridge/core/address_budget.ts";

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
