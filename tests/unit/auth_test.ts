/**
 * @module Unit tests of application login's parts: scrypt password hashes and the limiter of
 * failed attempts, with an injected clock.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { AttemptLimiter, hashPassword, verifyPassword } from "../../bridge/core/auth.ts";

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
  const [, N, r, p, salt, key] = good.split("$");
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

Deno.test("the limiter lets max - 1 failures through and blocks the max-th until the window ends", () => {
  const t = clock();
  const limiter = new AttemptLimiter({ max: 3, windowMs: 60_000, now: t.now });
  assert.equal(limiter.retryAfter("alice"), 0);
  limiter.fail("alice");
  limiter.fail("alice");
  assert.equal(limiter.retryAfter("alice"), 0);
  limiter.fail("alice");
  assert.equal(limiter.retryAfter("alice"), 60);
  t.advance(30_500);
  assert.equal(limiter.retryAfter("alice"), 30);
  assert.equal(limiter.retryAfter("bob"), 0);
  t.advance(29_500);
  assert.equal(limiter.retryAfter("alice"), 0);
  limiter.fail("alice");
  assert.equal(limiter.retryAfter("alice"), 0, "a new window starts at the next failure");
});

Deno.test("the limiter forgets a key on reset", () => {
  const t = clock();
  const limiter = new AttemptLimiter({ max: 1, windowMs: 10_000, now: t.now });
  limiter.fail("k");
  assert.equal(limiter.retryAfter("k"), 10);
  limiter.reset("k");
  assert.equal(limiter.retryAfter("k"), 0);
});

Deno.test("the limiter matches a fixed-window model for any sequence of failures and waits", () => {
  type Op = { kind: "fail"; key: string } | { kind: "wait"; ms: number } | {
    kind: "reset";
    key: string;
  };
  const key = fc.constantFrom("session:a", "session:b", "user:alice");
  const op: fc.Arbitrary<Op> = fc.oneof(
    { arbitrary: key.map((k) => ({ kind: "fail" as const, key: k })), weight: 4 },
    { arbitrary: fc.nat(90_000).map((ms) => ({ kind: "wait" as const, ms })), weight: 2 },
    { arbitrary: key.map((k) => ({ kind: "reset" as const, key: k })), weight: 1 },
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1_000, max: 120_000 }),
      fc.array(op, { maxLength: 40 }),
      (max, windowMs, ops) => {
        const t = clock();
        const limiter = new AttemptLimiter({ max, windowMs, now: t.now });
        // The model: per key, failures counted since the window opened at its first failure.
        const model = new Map<string, { count: number; start: number }>();
        const expected = (k: string) => {
          const w = model.get(k);
          if (!w || w.start + windowMs <= t.now() || w.count < max) return 0;
          return Math.ceil((w.start + windowMs - t.now()) / 1000);
        };
        for (const o of ops) {
          if (o.kind === "wait") t.advance(o.ms);
          else if (o.kind === "reset") {
            limiter.reset(o.key);
            model.delete(o.key);
          } else {
            limiter.fail(o.key);
            const w = model.get(o.key);
            if (!w || w.start + windowMs <= t.now()) model.set(o.key, { count: 1, start: t.now() });
            else w.count++;
          }
          for (const k of ["session:a", "session:b", "user:alice"]) {
            const retry = limiter.retryAfter(k);
            assert.equal(retry, expected(k));
            assert.ok(retry >= 0 && retry <= Math.ceil(windowMs / 1000));
          }
        }
      },
    ),
  );
});
