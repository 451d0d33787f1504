/**
 * Unit tests of application login's parts: scrypt password hashes, the limiter of
 * failed attempts (with an injected clock) and the fair gate of password checks.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { AttemptLimiter, hashPassword, verifyPassword } from "../../bridge/core/login.ts";
import { FairGate, type KeyLimit } from "../../bridge/core/fair_gate.ts";

// A small cost keeps the round trips fast; the format and checks are the same at any N.
const FAST = { N: 1024 };
const HASH_SHAPE = /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*$/;

Deno.test("a password verifies against its own hash and no other password does", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.string({ maxLength: 40 }),
      fc.string({ maxLength: 40 }),
      async (pw, other) => {
        const hash = await hashPassword(pw, FAST);
        assert.match(hash, HASH_SHAPE);
        assert.equal(await verifyPassword(pw, hash), true);
        if (other !== pw) assert.equal(await verifyPassword(other, hash), false);
      },
    ),
    { numRuns: 15 },
  );
});

Deno.test("hashing the same password twice gives two hashes (a fresh salt each time)", async () => {
  const [a, b] = await Promise.all([hashPassword("hunter2", FAST), hashPassword("hunter2", FAST)]);
  assert.notEqual(a, b);
  assert.equal(await verifyPassword("hunter2", a), true);
  assert.equal(await verifyPassword("hunter2", b), true);
});

Deno.test("a password with any Unicode verifies, and a near miss does not", async () => {
  for (const pw of ["pässwörd", "密码🔑", "", " ", "a".repeat(200)]) {
    const hash = await hashPassword(pw, FAST);
    assert.equal(await verifyPassword(pw, hash), true);
    assert.equal(await verifyPassword(pw + " ", hash), false);
  }
});

Deno.test("a malformed hash verifies nothing and never throws", async () => {
  const good = await hashPassword("secret", FAST);
  const parts = good.split("$");
  assert.equal(parts.length, 6);
  const [, N, r, p, salt, key] = parts as [string, string, string, string, string, string];
  const join = (...parts: string[]) => parts.join("$");
  const malformed = [
    "",
    "secret",
    "scrypt",
    join("bcrypt", N, r, p, salt, key),
    join("scrypt", N, r, p, salt),
    join("scrypt", N, r, p, salt, key, "extra"),
    join("scrypt", "abc", r, p, salt, key),
    join("scrypt", "1000", r, p, salt, key), // not a power of two
    join("scrypt", "0", r, p, salt, key),
    join("scrypt", "-1024", r, p, salt, key),
    join("scrypt", "1.5", r, p, salt, key),
    join("scrypt", String(1 << 21), r, p, salt, key), // over the cost cap
    join("scrypt", N, "64", p, salt, key),
    join("scrypt", N, r, "17", salt, key),
    join("scrypt", N, "0", p, salt, key),
    join("scrypt", N, r, "0", salt, key), // node:crypto in Deno would read 0 as the default
    join("scrypt", "16384", r, p, salt, key),
    join("scrypt", "16", "0", p, salt, key),
    join("scrypt", N, r, p, "!!!not base64", key),
    join("scrypt", N, r, p, salt, "!!!"),
    join("scrypt", N, r, p, salt, ""),
    join("scrypt", N, r, p, salt, key.slice(0, 8)),
    join("scrypt", N, r, p, salt, btoa("x".repeat(32))),
    join("scrypt", N, r, p, btoa("other salt"), key),
  ];
  for (const hash of malformed) {
    assert.equal(await verifyPassword("secret", hash), false, hash);
  }
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 60 }), async (hash) => {
      assert.equal(await verifyPassword("secret", hash), false);
    }),
    { numRuns: 50 },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.nat(5),
      fc.string({ maxLength: 12 }),
      async (part, junk) => {
        const parts = good.split("$");
        if (parts[part] === junk) return;
        // A number in a cost field may spell the same cost ("8.0", "+8") or a huge one.
        if (part >= 1 && part <= 3 && Number.isFinite(Number(junk))) return;
        parts[part] = junk;
        assert.equal(await verifyPassword("secret", parts.join("$")), false);
      },
    ),
    { numRuns: 40 },
  );
});

/** A clock the test moves by hand. */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

Deno.test("the limiter lets max failures through, then makes the key wait 1 s, 2 s, 4 s, at most 30 s", async () => {
  const t = clock();
  const limiter = new AttemptLimiter({ max: 3, now: t.now });
  for (let i = 0; i < 3; i++) {
    assert.equal(await limiter.retryAfter("alice"), 0);
    await limiter.fail("alice");
  }
  const waits: number[] = [];
  for (let i = 0; i < 8; i++) {
    const wait = await limiter.retryAfter("alice");
    waits.push(wait);
    t.advance(wait * 1000 - 1);
    assert.ok(await limiter.retryAfter("alice") > 0, "still waiting 1 ms before the end");
    t.advance(1);
    assert.equal(await limiter.retryAfter("alice"), 0);
    await limiter.fail("alice");
  }
  assert.deepEqual(waits, [1, 2, 4, 8, 16, 30, 30, 30]);
  assert.equal(await limiter.retryAfter("bob"), 0, "another key never waits for alice's failures");
});

Deno.test("the limiter forgets a key on reset and after a quiet window", async () => {
  const t = clock();
  const limiter = new AttemptLimiter({ max: 1, windowMs: 60_000, now: t.now });
  await limiter.fail("k");
  assert.equal(await limiter.retryAfter("k"), 1);
  await limiter.reset("k");
  assert.equal(await limiter.retryAfter("k"), 0);
  for (let i = 0; i < 6; i++) await limiter.fail("k");
  assert.equal(await limiter.retryAfter("k"), 30);
  t.advance(60_000);
  await limiter.fail("k");
  assert.equal(await limiter.retryAfter("k"), 1, "after a quiet window, counting starts again");
  // A quiet window forgets a key even when its wait would have lasted longer.
  const long = new AttemptLimiter({
    max: 1,
    windowMs: 5_000,
    baseDelayMs: 60_000,
    maxDelayMs: 60_000,
    now: t.now,
  });
  await long.fail("k");
  assert.equal(await long.retryAfter("k"), 60);
  t.advance(5_000);
  assert.equal(await long.retryAfter("k"), 0);
});

Deno.test("the limiter takes back a failure counted ahead of a check that succeeded", async () => {
  const t = clock();
  const limiter = new AttemptLimiter({ max: 1, now: t.now });
  await limiter.fail("k");
  await limiter.forgive("k");
  assert.equal(await limiter.retryAfter("k"), 0);
  assert.equal(limiter.size, 0);
});

Deno.test("the limiter remembers a bounded number of keys, forgetting the longest quiet first", async () => {
  const t = clock();
  const limiter = new AttemptLimiter({ max: 1, maxKeys: 100, now: t.now });
  await limiter.fail("first");
  t.advance(10);
  await limiter.fail("second");
  for (let i = 0; i < 1000; i++) await limiter.fail(`flood-${i}`);
  assert.ok(limiter.size <= 100);
  assert.equal(await limiter.retryAfter("first"), 0);
  assert.equal(await limiter.retryAfter("flood-999"), 1);
});

Deno.test("the limiter matches a model of growing, bounded waits for any failures and pauses", async () => {
  type Op = { kind: "fail"; key: string } | { kind: "wait"; ms: number } | {
    kind: "reset";
    key: string;
  };
  const keys = ["session:a", "session:b", "account:alice"];
  const key = fc.constantFrom(...keys);
  const op: fc.Arbitrary<Op> = fc.oneof(
    { arbitrary: key.map((k) => ({ kind: "fail" as const, key: k })), weight: 4 },
    { arbitrary: fc.nat(90_000).map((ms) => ({ kind: "wait" as const, ms })), weight: 2 },
    { arbitrary: key.map((k) => ({ kind: "reset" as const, key: k })), weight: 1 },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1_000, max: 120_000 }),
      fc.integer({ min: 100, max: 5_000 }),
      fc.integer({ min: 1_000, max: 60_000 }),
      fc.array(op, { maxLength: 40 }),
      async (max, windowMs, baseDelayMs, maxDelayMs, ops) => {
        const t = clock();
        const limiter = new AttemptLimiter({ max, windowMs, baseDelayMs, maxDelayMs, now: t.now });
        // The model: per key, failures since the last quiet window, and when the last one was.
        const model = new Map<string, { count: number; last: number }>();
        const expected = (k: string) => {
          const w = model.get(k);
          if (!w || t.now() - w.last >= windowMs || w.count < max) return 0;
          const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** (w.count - max));
          return Math.max(0, Math.ceil((w.last + delay - t.now()) / 1000));
        };
        for (const o of ops) {
          if (o.kind === "wait") t.advance(o.ms);
          else if (o.kind === "reset") {
            await limiter.reset(o.key);
            model.delete(o.key);
          } else {
            await limiter.fail(o.key);
            const w = model.get(o.key);
            if (!w || t.now() - w.last >= windowMs) model.set(o.key, { count: 1, last: t.now() });
            else model.set(o.key, { count: w.count + 1, last: t.now() });
          }
          for (const k of keys) {
            const retry = await limiter.retryAfter(k);
            assert.equal(retry, expected(k));
            assert.ok(retry >= 0 && retry <= Math.ceil(maxDelayMs / 1000), "the wait is bounded");
          }
        }
      },
    ),
  );
});

/** A gate of `max` places, `maxPerKey` per key (4 waiting each), callers waiting `waitMs`. */
function gateOf(
  max: number,
  maxPerKey: number,
  waitMs: number,
  limits: Record<string, KeyLimit> = {},
): FairGate {
  return new FairGate({ max, perKey: { max: maxPerKey, maxWaiting: 4 }, waitMs, limits });
}

Deno.test("the gate gives one client at most its share of places, and a place to another client", async () => {
  const gate = gateOf(8, 2, 0);
  assert.equal(await gate.enter(["client:A", "session:1"]), true);
  assert.equal(await gate.enter(["client:A", "session:2"]), true);
  for (let i = 3; i < 50; i++) {
    assert.equal(await gate.enter(["client:A", `session:${i}`]), false);
  }
  assert.equal(await gate.enter(["client:B", "session:b"]), true);
  assert.equal(gate.inside, 3);
});

Deno.test("the gate gives one session at most its share of places, whatever the client", async () => {
  const gate = gateOf(8, 2, 0);
  assert.equal(await gate.enter(["client:A", "session:1"]), true);
  assert.equal(await gate.enter(["client:B", "session:1"]), true);
  assert.equal(await gate.enter(["client:C", "session:1"]), false);
});

Deno.test("a freed place goes to the waiting client that holds the fewest, before a flooding one", async () => {
  const gate = gateOf(4, 2, 2_000);
  const hold = (client: string, i: number) =>
    gate.enter([`client:${client}`, `session:${client}${i}`]);
  for (const client of ["A", "C"]) {
    assert.equal(await hold(client, 1), true);
    assert.equal(await hold(client, 2), true);
  }
  // The gate is full: A waits first, then B, who holds nothing.
  const aWaits = hold("A", 3);
  const bWaits = hold("B", 1);
  gate.leave(["client:A", "session:A1"]);
  assert.equal(await bWaits, true, "B, holding nothing, gets the freed place");
  gate.leave(["client:C", "session:C1"]);
  assert.equal(await aWaits, true);
});

Deno.test("a login waits in line at most the queue time, and only a few per client wait", async () => {
  const gate = gateOf(1, 1, 30);
  assert.equal(await gate.enter(["client:A", "session:1"]), true);
  const waiting = [2, 3, 4, 5].map((i) => gate.enter(["client:B", `session:${i}`]));
  assert.equal(await gate.enter(["client:B", "session:6"]), false, "a fifth waiter is refused");
  assert.deepEqual(await Promise.all(waiting), [false, false, false, false]);
});

Deno.test("the gate bounds an (address, account) by its own share and the address by a wider one", async () => {
  const gate = gateOf(8, 2, 0, { client: { max: 4, maxWaiting: 16 } });
  const enter = (account: string, i: number, address = "A") =>
    gate.enter([
      `account:${address}/${account}`,
      `session:${address}${account}${i}`,
      `client:${address}`,
    ]);
  assert.equal(await enter("bob", 1), true);
  assert.equal(await enter("bob", 2), true);
  assert.equal(await enter("bob", 3), false, "bob's share from A is full");
  assert.equal(await enter("alice", 1), true, "alice behind the same address has her own");
  assert.equal(await enter("carol", 1), true);
  assert.equal(await enter("dave", 1), false, "the address holds half the places");
  assert.equal(await enter("dave", 1, "B"), true);
  assert.equal(gate.inside, 5);
});
