/**
 * Unit tests of bridge/core/schema_checks.ts, the budget of the bridge's time a session's tabs
 * may spend on checking actions it has not seen: exactly the burst, then so much a second, the
 * refusal word for word, a check seen before free, and each session's budget its own. The
 * clocks are the test's: each check takes what the test says; one test times real checks by
 * the default clock, with a budget any check spends.
 *
 * @module
 */
import assert from "node:assert/strict";
import { SCHEMA_CHECK_BUDGET, SchemaChecks } from "../../bridge/core/schema_checks.ts";
import { MarkupError } from "../../bridge/markup/action.ts";

/** Checks on clocks the test moves: each check takes `cost` ms of work. */
function checks(cost = 250) {
  const time = { now: 1_000_000, work: 0, checked: 0 };
  let calls = 0;
  const schemas = new SchemaChecks({
    now: () => time.now,
    // Called once as a check starts, and once as it ends, `cost` later.
    clock: () => calls++ % 2 === 0 ? time.work : (time.work += cost),
  });
  const check = (owner: object, n: number | string) => {
    const declaration = {
      id: `a${n}`,
      description: "An action",
      // A string n: a maxLength the wire refuses.
      input_schema: { type: "string", maxLength: n },
      consequential: false,
      protected: false,
    };
    const before = time.work;
    try {
      return schemas.check(owner, declaration);
    } finally {
      if (time.work !== before) time.checked++;
    }
  };
  return { time, check, schemas };
}

/** Why `fn` was refused. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof MarkupError, String(error));
    return error.message;
  }
  assert.fail("taken");
}

const SPENT = (id: string) =>
  `action "${id}" was not checked: the page registers actions the bridge has not seen faster ` +
  "than it checks them (100 ms of checking a second, 2000 ms at once); it is checked when " +
  "registered again";

Deno.test("the budget is 2 seconds of checking at once, then a tenth of a second a second", () => {
  assert.deepEqual(SCHEMA_CHECK_BUDGET, { burst: 2000, perSecond: 100 });
});

Deno.test("a session checks new actions up to exactly its burst, and the one after is refused unchecked", () => {
  const { time, check } = checks(250);
  const session = {};
  for (let n = 0; n < 8; n++) assert.equal(check(session, n).id, `a${n}`);
  assert.equal(time.checked, 8);
  assert.equal(refusal(() => check(session, 8)), SPENT("a8"));
  assert.equal(time.checked, 8, "refused before any work");
  // Refused unchecked, not remembered: the same action is checked once there is time again.
  time.now += 1000;
  assert.equal(check(session, 8).id, "a8");
  assert.equal(time.checked, 9);
});

Deno.test("the budget refills at 100 ms a second, never past its burst, and a check's overrun is paid back first", () => {
  const { time, check } = checks(250);
  const session = {};
  for (let n = 0; n < 8; n++) check(session, n);
  // 1 s: 100 ms back, so one check (of 250) runs, and leaves 150 to pay back.
  time.now += 1000;
  check(session, 100);
  assert.equal(refusal(() => check(session, 101)), SPENT("a101"));
  // 1.5 s pays the 150 back: nothing is left yet.
  time.now += 1500;
  assert.equal(refusal(() => check(session, 101)), SPENT("a101"));
  time.now += 10;
  assert.equal(check(session, 101).id, "a101");
  // An hour refills the burst, not more: 8 checks again, then none.
  time.now += 3_600_000;
  for (let n = 200; n < 209; n++) {
    if (n < 208) check(session, n);
    else assert.equal(refusal(() => check(session, n)), SPENT(`a${n}`));
  }
  // A clock that goes back refills nothing.
  time.now -= 60_000;
  assert.equal(refusal(() => check(session, 300)), SPENT("a300"));
});

Deno.test("an action checked before, by any session, is answered without work or charge, as a copy", () => {
  const { time, check } = checks(1000);
  const first = {};
  const second = {};
  const spec = check(first, 1);
  check(first, 2);
  assert.equal(refusal(() => check(first, 3)), SPENT("a3"));
  // Seen before: the session with nothing left gets it all the same, and so does another.
  const again = check(first, 1);
  assert.deepEqual(again, spec);
  assert.notEqual(again, spec, "a copy, whose flags the caller may raise");
  again.protected = true;
  assert.equal(check(second, 1).protected, false);
  assert.equal(time.checked, 2);
  // Another session has its own budget.
  check(second, 3);
  assert.equal(time.checked, 3);
});

Deno.test("a refused declaration is charged and remembered as refused, with its own reason", () => {
  const { time, check } = checks(1500);
  const session = {};
  const bad = "x";
  const reason = refusal(() => check(session, bad));
  assert.match(reason, /^action "ax" is not valid: input_schema\.maxLength: /);
  assert.equal(time.checked, 1);
  // Remembered: the same reason, no work, no charge.
  assert.equal(refusal(() => check(session, bad)), reason);
  assert.equal(time.checked, 1);
  check(session, 1);
  assert.equal(refusal(() => check(session, 2)), SPENT("a2"));
});

Deno.test("a declaration of more than 24 KiB of JSON is checked, and charged, every time", () => {
  const { time, schemas } = checks(100);
  const session = {};
  const declaration = (length: number) => ({
    id: "big",
    description: "d".repeat(length),
    input_schema: {},
    consequential: false,
    protected: false,
  });
  const base = JSON.stringify(declaration(0)).length;
  for (const [length, kept] of [[24 * 1024, true], [24 * 1024 + 1, false]] as const) {
    const start = time.work;
    const big = declaration(length - base);
    assert.equal(JSON.stringify(big).length, length);
    assert.throws(() => schemas.check(session, big), MarkupError);
    assert.throws(() => schemas.check(session, big), MarkupError);
    assert.equal(time.work - start, kept ? 100 : 200, `${length}`);
  }
});

Deno.test("without a clock of its own, a check is charged the time it took on the bridge's clock", () => {
  // A burst of a microsecond, never refilled: any real check spends it, however fast the machine.
  const schemas = new SchemaChecks({ budget: { burst: 0.001, perSecond: 0 }, now: () => 0 });
  const declaration = (id: string) => ({
    id,
    description: "An action",
    input_schema: { type: "string", pattern: `^${id}$` },
    consequential: false,
    protected: false,
  });
  const session = {};
  assert.equal(schemas.check(session, declaration("first")).id, "first");
  assert.match(refusal(() => schemas.check(session, declaration("second"))), /was not checked/);
  // Another session's budget is whole.
  assert.equal(schemas.check({}, declaration("second")).id, "second");
});
