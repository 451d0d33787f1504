/**
 * The tab channel's budgets (bridge/core/channel_budget.ts) on their own, time given by the
 * test: each kind of message and the characters are a token bucket (a burst, then so many a
 * second, never more than the burst, never refilled by a clock going back), the invocation's
 * credit pays first for the messages it made necessary and only for those, and each refusal says
 * which budget it went past. tests/protocol/channel_budget_test.ts holds the same through a
 * bridge and a tab.
 * @module
 */
import assert from "node:assert/strict";
import {
  type BudgetKind,
  CHANNEL_BUDGETS,
  ChannelBudget,
  type Credit,
  INVOKE_CREDIT,
  type Rate,
} from "../../bridge/core/channel_budget.ts";
import type { TabMessage } from "../../bridge/wire/channel.ts";

/** Each message type and the budget it is counted in. */
const KINDS: [TabMessage["type"], BudgetKind][] = [
  ["hello", "hello"],
  ["navigate", "navigate"],
  ["heartbeat", "heartbeat"],
  ["register", "register"],
  ["state", "state"],
  ["result", "answer"],
  ["awaiting", "answer"],
  ["settled", "answer"],
  ["run", "run"],
];

/** The messages an invocation's credit pays for. */
const CREDITED = new Set(["result", "awaiting", "state", "register"]);

const NO_CREDIT = (): Credit => ({ messages: 0, characters: 0 });

/** Rates of `burst` and `perSecond` for every kind. */
function rates(burst: number, perSecond: number): Record<BudgetKind, Rate> {
  const out = {} as Record<BudgetKind, Rate>;
  for (const kind of Object.keys(CHANNEL_BUDGETS) as BudgetKind[]) {
    out[kind] = { burst, perSecond };
  }
  return out;
}

Deno.test("every budget gives its burst at once and not one message more", () => {
  for (const [kind, rate] of Object.entries(CHANNEL_BUDGETS) as [BudgetKind, Rate][]) {
    const budget = new ChannelBudget();
    assert.ok(rate.burst > 0 && rate.perSecond > 0, kind);
    if (kind === "characters") {
      assert.ok(budget.take(kind, rate.burst, 1000), kind);
    } else {
      for (let i = 0; i < rate.burst; i++) assert.ok(budget.take(kind, 1, 1000), `${kind} ${i}`);
    }
    assert.equal(budget.take(kind, 1, 1000), false, kind);
  }
});

Deno.test("a bucket fills at its rate per second, never past its burst, and not when the clock goes back", () => {
  const budget = new ChannelBudget(rates(10, 4));
  assert.ok(budget.take("navigate", 10, 0));
  assert.equal(budget.take("navigate", 1, 0), false);
  // 250 ms at 4 a second: one.
  assert.ok(budget.take("navigate", 1, 250));
  assert.equal(budget.take("navigate", 1, 250), false);
  // 249 ms more: not yet a whole one.
  assert.equal(budget.take("navigate", 1, 499), false);
  assert.ok(budget.take("navigate", 1, 500));
  // A long pause fills it to the burst only.
  assert.ok(budget.take("navigate", 10, 60_000));
  assert.equal(budget.take("navigate", 1, 60_000), false);
  // A clock that goes back gives nothing, and the next refill counts from there.
  assert.equal(budget.take("navigate", 1, 59_000), false);
  assert.ok(budget.take("navigate", 1, 59_250));
  // A refusal takes nothing: what is there is still there.
  const other = new ChannelBudget(rates(3, 1));
  assert.equal(other.take("state", 4, 0), false);
  assert.ok(other.take("state", 3, 0));
  // Each kind has its own bucket.
  assert.ok(budget.take("state", 10, 60_000));
});

Deno.test("each message type is counted in its own budget, and says which it went past", () => {
  for (const [type, kind] of KINDS) {
    const custom = rates(1000, 1000);
    custom[kind] = { burst: 2, perSecond: 7 };
    const budget = new ChannelBudget(custom);
    const credit = NO_CREDIT();
    assert.equal(budget.overCount(type, credit, 0), null, type);
    assert.equal(budget.overCount(type, credit, 0), null, type);
    assert.equal(budget.overCount(type, credit, 0), `more than 7 ${type} messages a second`, type);
    // The other kinds' budgets are untouched.
    for (const [other, otherKind] of KINDS) {
      if (otherKind !== kind) assert.equal(budget.overCount(other, credit, 0), null, other);
    }
  }
});

Deno.test("an invocation's credit pays first for the messages it made necessary, and only those", () => {
  for (const [type] of KINDS) {
    const budget = new ChannelBudget(rates(0, 1));
    const credit: Credit = { messages: 2, characters: 0 };
    if (CREDITED.has(type)) {
      assert.equal(budget.overCount(type, credit, 0), null, type);
      assert.equal(credit.messages, 1, type);
      assert.equal(budget.overCount(type, credit, 0), null, type);
      assert.equal(credit.messages, 0, type);
      assert.notEqual(budget.overCount(type, credit, 0), null, `${type}: the credit is spent`);
      assert.equal(credit.messages, 0, type);
    } else {
      assert.notEqual(budget.overCount(type, credit, 0), null, type);
      assert.equal(credit.messages, 2, `${type}: the credit does not pay for it`);
    }
  }
  assert.deepEqual(INVOKE_CREDIT, { messages: 4, characters: 2 << 20 });
});

Deno.test("characters are paid by the credit first, to the character, then by their bucket, and a refusal says so", () => {
  const budget = new ChannelBudget({
    ...rates(1000, 1000),
    characters: { burst: 100, perSecond: 50 },
  });
  const credit: Credit = { messages: 0, characters: 30 };
  assert.equal(budget.overLength(30, credit, 0), null);
  assert.equal(credit.characters, 0, "spent exactly");
  // The credit spent, the bucket pays: 100 at once.
  assert.equal(budget.overLength(100, credit, 0), null);
  assert.equal(budget.overLength(1, credit, 0), "more than 50 characters of messages a second");
  // A credit smaller than the message pays nothing of it: the bucket pays it all.
  const partial = new ChannelBudget({
    ...rates(1000, 1000),
    characters: { burst: 10, perSecond: 1 },
  });
  const small: Credit = { messages: 0, characters: 5 };
  assert.equal(partial.overLength(10, small, 0), null);
  assert.equal(small.characters, 5);
  assert.notEqual(partial.overLength(1, { messages: 0, characters: 0 }, 0), null);
});
