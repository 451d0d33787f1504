/**
 * The bridge's time a session's tabs may spend on checking actions it has not seen
 * (bridge/core/schema_checks.ts), through a real bridge and a tab: a registration of many new
 * schemas, each costly to check (160 distinct patterns to compile), is checked up to the
 * session's budget and the rest refused, saying why; the actions checked are registered again
 * at no cost; the tab stays open.
 *
 * @module
 */
import assert from "node:assert/strict";
import { SCHEMA_CHECK_BUDGET } from "../../bridge/core/schema_checks.ts";
import { startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

/** An action of 160 string fields, each with a pattern no other action has. */
function costly(n: number): Record<string, unknown> {
  const fields = (from: number, count: number) =>
    Object.fromEntries(
      Array.from({ length: count }, (_, i) => [`f${from + i}`, {
        type: "string",
        pattern: `^c${n}_${from + i}$`,
      }]),
    );
  return {
    id: `costly${n}`,
    description: "An action costly to check",
    input_schema: {
      type: "object",
      properties: {
        a: { type: "object", properties: fields(0, 100) },
        ...fields(100, 60),
      },
    },
    input_example: {},
    consequential: false,
    protected: false,
  };
}

Deno.test("a tab registering many new costly schemas gets those past its session's budget refused, saying why, and the checked ones again for free", async () => {
  // A clock that stands still: the budget does not refill during the test.
  const clock = { now: 1_000_000 };
  await using bridge = await startBridge({ now: () => clock.now });
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const actions = Array.from({ length: 100 }, (_, n) => costly(n));
  assert.ok(JSON.stringify(actions).length < 1 << 20, "one message");
  const registered = tab.next("registered");
  tab.send({ type: "register", actions });
  const { accepted, rejected } = await registered;
  assert.ok(accepted.length >= 1, `the budget checks some: ${rejected[0]?.reason}`);
  assert.ok(rejected.length >= 1, "and refuses the rest");
  assert.equal(accepted.length + rejected.length, actions.length);
  // In order: what was checked first is taken, the rest refused.
  assert.deepEqual(accepted, actions.slice(0, accepted.length).map((a) => a.id));
  const { burst, perSecond } = SCHEMA_CHECK_BUDGET;
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
  tab.send({ type: "register", actions: actions.slice(0, accepted.length) });
  assert.deepEqual((await again).accepted, accepted);
  // A refused one is checked once the budget refills, and the tab was never closed.
  clock.now += 60_000;
  const later = tab.next("registered");
  tab.send({ type: "register", actions: [actions[accepted.length]] });
  assert.deepEqual(await later, {
    type: "registered",
    accepted: [`costly${accepted.length}`],
    rejected: [],
  });
});
