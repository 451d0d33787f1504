/**
 * The bridge's time a session's tabs may spend on checking actions it has not seen
 * (bridge/core/schema_checks.ts), through a real bridge and a tab: a registration of many new
 * actions is checked up to the session's budget and the rest refused, saying why; the actions
 * checked are registered again at no cost; the tab stays open. The bridge's clocks are the
 * test's: each check takes 100 ms of the work clock, whatever the machine's speed, so the burst
 * of 2,000 ms checks exactly 20 (the unit tests, tests/unit/schema_checks_test.ts, time real
 * checks by the default clock).
 *
 * @module
 */
import assert from "node:assert/strict";
import { SCHEMA_CHECK_BUDGET } from "../../bridge/core/schema_checks.ts";
import { startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

/** What one check takes on the test's work clock, ms. */
const COST = 100;

/** An action of a pattern no other action has. */
function action(n: number): Record<string, unknown> {
  return {
    id: `new${n}`,
    description: "An action the bridge has not seen",
    input_schema: { type: "string", pattern: `^n${n}$` },
    consequential: false,
    protected: false,
  };
}

Deno.test("a tab registering many new actions gets those past its session's budget refused, saying why, and the checked ones again for free", async () => {
  // A clock that stands still, so the budget does not refill during the test; and a work clock
  // each read of which is COST later, so a check (read as it starts and as it ends) takes COST.
  const clock = { now: 1_000_000, reads: 0 };
  await using bridge = await startBridge({
    now: () => clock.now,
    workClock: () => ++clock.reads * COST,
  });
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const actions = Array.from({ length: 100 }, (_, n) => action(n));
  const registered = tab.next("registered");
  tab.send({ type: "register", actions });
  const { accepted, rejected } = await registered;
  const { burst, perSecond } = SCHEMA_CHECK_BUDGET;
  // In order: what was checked first is taken, the rest refused, each unchecked.
  const checked = burst / COST;
  assert.deepEqual(accepted, actions.slice(0, checked).map((a) => a.id), rejected[0]?.reason);
  assert.deepEqual(rejected.map((r) => r.id), actions.slice(checked).map((a) => a.id));
  assert.equal(clock.reads, 2 * checked, "refused before any work");
  for (const { id, reason } of rejected) {
    assert.equal(
      reason,
      `action "${id}" was not checked: the page registers actions the bridge has not seen ` +
        `faster than it checks them (${perSecond} ms of checking a second, ${burst} ms at ` +
        "once); it is checked when registered again",
    );
  }
  // The actions checked are taken again at no cost, though nothing is left of the budget.
  const again = tab.next("registered");
  tab.send({ type: "register", actions: actions.slice(0, checked) });
  assert.deepEqual(await again, { type: "registered", accepted, rejected: [] });
  assert.equal(clock.reads, 2 * checked, "not checked again");
  // A refused one is checked once the budget refills, and the tab was never closed.
  clock.now += 60_000;
  const later = tab.next("registered");
  tab.send({ type: "register", actions: [actions[checked]] });
  assert.deepEqual(await later, {
    type: "registered",
    accepted: [`new${checked}`],
    rejected: [],
  });
  assert.equal(clock.reads, 2 * checked + 2);
});
