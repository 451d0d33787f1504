/**
 * ChannelBudget (bridge/core/channel_budget.ts) read directly: each message type is charged to
 * its kind's bucket, a burst and then its rate, never past its burst; an invocation's credit pays
 * for its 4 answering messages and 2 MiB of characters once, never for what the tab sends after.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type BudgetKind,
  CHANNEL_BUDGETS,
  ChannelBudget,
  type Credit,
  INVOKE_CREDIT,
} from "../../bridge/core/channel_budget.ts";
import type { TabMessage } from "../../bridge/wire/channel.ts";

/** Every message type, with the kind it is charged to and whether an invocation pays for it. */
const TYPES: [type: TabMessage["type"], kind: BudgetKind, credited: boolean][] = [
  ["hello", "hello", false],
  ["navigate", "navigate", false],
  ["heartbeat", "heartbeat", false],
  ["register", "register", true],
  ["state", "state", true],
  ["result", "answer", true],
  ["awaiting", "answer", true],
  ["settled", "answer", false],
  ["run", "run", false],
];

/** A credit as an `invoke` sets it. */
function invoked(): Credit {
  return { ...INVOKE_CREDIT };
}

/** No credit: what a tab no invocation was sent to has. */
function none(): Credit {
  return { messages: 0, characters: 0 };
}

Deno.test("each message type is charged to its kind: its burst passes, the one after is refused", () => {
  for (const [type, kind] of TYPES) {
    const budget = new ChannelBudget();
    const { burst, perSecond } = CHANNEL_BUDGETS[kind];
    for (let n = 0; n < burst; n++) assert.equal(budget.overCount(type, none(), 0), null, type);
    assert.equal(
      budget.overCount(type, none(), 0),
      `more than ${perSecond} ${type} messages a second`,
    );
  }
});

Deno.test("the types of one kind share its bucket: results, awaitings and settleds together", () => {
  const budget = new ChannelBudget();
  const { burst } = CHANNEL_BUDGETS.answer;
  const answers: TabMessage["type"][] = ["result", "awaiting", "settled"];
  for (let n = 0; n < burst; n++) assert.equal(budget.overCount(answers[n % 3]!, none(), 0), null);
  for (const type of answers) assert.notEqual(budget.overCount(type, none(), 0), null, type);
  // Another kind's bucket is untouched.
  assert.equal(budget.overCount("state", none(), 0), null);
});

Deno.test("a bucket fills at its rate, never past its burst, however long the tab was quiet", () => {
  const budget = new ChannelBudget();
  const { burst, perSecond } = CHANNEL_BUDGETS.navigate;
  for (let n = 0; n < burst; n++) budget.overCount("navigate", none(), 0);
  assert.notEqual(budget.overCount("navigate", none(), 0), null);
  // Half a second: half the rate.
  for (let n = 0; n < perSecond / 2; n++) {
    assert.equal(budget.overCount("navigate", none(), 500), null, `${n}`);
  }
  assert.notEqual(budget.overCount("navigate", none(), 500), null);
  // An hour later: the burst again, not an hour's worth.
  const later = 3_600_000;
  for (let n = 0; n < burst; n++) assert.equal(budget.overCount("navigate", none(), later), null);
  assert.notEqual(budget.overCount("navigate", none(), later), null);
});

Deno.test("an invocation's credit pays for its 4 answering messages once, then the bucket pays", () => {
  for (const [type, kind, credited] of TYPES) {
    const budget = new ChannelBudget();
    const credit = invoked();
    const { burst } = CHANNEL_BUDGETS[kind];
    const free = credited ? INVOKE_CREDIT.messages : 0;
    for (let n = 0; n < burst + free; n++) {
      assert.equal(budget.overCount(type, credit, 0), null, `${type} ${n}`);
    }
    assert.equal(credit.messages, credited ? 0 : INVOKE_CREDIT.messages, `${type}'s credit`);
    assert.notEqual(budget.overCount(type, credit, 0), null, `${type} past its burst and credit`);
  }
});

Deno.test("an invocation's credit pays for 2 MiB of characters once, then the bucket pays", () => {
  const budget = new ChannelBudget();
  const credit = invoked();
  const { burst, perSecond } = CHANNEL_BUDGETS.characters;
  const size = 1 << 20;
  const within = (INVOKE_CREDIT.characters + burst) / size;
  for (let n = 0; n < within; n++) assert.equal(budget.overLength(size, credit, 0), null, `${n}`);
  assert.equal(credit.characters, 0);
  assert.equal(
    budget.overLength(1, credit, 0),
    `more than ${perSecond} characters of messages a second`,
  );
});

Deno.test("a message larger than what the credit has left is charged to the bucket whole", () => {
  const budget = new ChannelBudget({
    ...CHANNEL_BUDGETS,
    characters: { burst: 100, perSecond: 10 },
  });
  const credit = { messages: 0, characters: 50 };
  assert.equal(budget.overLength(80, credit, 0), null);
  // The credit was not spent on it: it pays for a smaller message next.
  assert.equal(credit.characters, 50);
  assert.equal(budget.overLength(50, credit, 0), null);
  assert.equal(credit.characters, 0);
  assert.equal(budget.overLength(20, credit, 0), null);
  assert.notEqual(budget.overLength(1, credit, 0), null);
});

Deno.test("give() returns to a bucket what an invocation paid for, never past its burst", () => {
  const budget = new ChannelBudget();
  const { burst } = CHANNEL_BUDGETS.hello;
  for (let n = 0; n < burst; n++) budget.overCount("hello", none(), 0);
  assert.notEqual(budget.overCount("hello", none(), 0), null);
  budget.give("hello", 1, 0);
  assert.equal(budget.overCount("hello", none(), 0), null);
  assert.notEqual(budget.overCount("hello", none(), 0), null);
  // Given to a full bucket: nothing past its burst.
  const full = new ChannelBudget();
  full.give("hello", 5, 0);
  for (let n = 0; n < burst; n++) assert.equal(full.overCount("hello", none(), 0), null);
  assert.notEqual(full.overCount("hello", none(), 0), null);
});
