/**
 * Unit tests of bridge/input/pattern_cache.ts: each refusal's sentence word for word (too large
 * by the estimate, too large by the program, refused by RE2), the bound on one program at exactly
 * its size, the DFA memory a pattern keeps between checks, and the cache, bounded by instructions
 * and by count, most recently used last, refusals included. tests/security/pattern_test.ts holds
 * the same through the bridge; these are the ones `deno task mutate` runs per mutant.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  compilePattern,
  PATTERN_CACHE_INSTRUCTIONS,
  patternCacheSize,
  patternDfa,
} from "../../bridge/input/pattern_cache.ts";
import { MAX_PATTERN_SIZE, PatternError } from "../../bridge/input/pattern.ts";

/** The message compilePattern() refuses `source` with. */
function refusal(source: string): string {
  try {
    compilePattern(source);
  } catch (error) {
    assert.ok(error instanceof PatternError, String(error));
    return error.message;
  }
  assert.fail(`compiled ${source}`);
}

Deno.test("a pattern of exactly the largest program compiles; one instruction more is refused, saying how large", () => {
  assert.equal(compilePattern("^a{996}$").program, MAX_PATTERN_SIZE);
  assert.equal(
    refusal("^a{997}$"),
    `is too large for the bridge's matcher: its repetitions expand to about 1001 steps, more ` +
      `than ${MAX_PATTERN_SIZE}`,
  );
});

Deno.test("a pattern estimated at twice the bound is compiled to be measured; above that it is refused unmeasured", () => {
  // Estimated at exactly 2,000 steps: compiled, and refused for its program's 2,001.
  assert.equal(
    refusal("(?:ab){999}c"),
    "is too large for the bridge's matcher: its repetitions expand to about 2001 steps, more than 1000",
  );
  // Estimated at 2,000 once more: refused by the estimate.
  assert.equal(
    refusal("(?:ab){999}cd"),
    "is too large for the bridge's matcher: its repetitions expand to about 2001 steps, more than 1000",
  );
});

Deno.test("a pattern RE2 refuses is refused with RE2's reason", () => {
  assert.equal(
    refusal("(?:a{30}){40}"),
    "is refused by the bridge's matcher (RE2): error parsing regexp: invalid repeat count: `{40}`",
  );
});

Deno.test("a pattern's cost per character and longest input follow from its program", () => {
  const pattern = compilePattern("^a*");
  assert.equal(pattern.source, "^a*");
  assert.equal(pattern.unitCost, pattern.program + 20);
  assert.equal(pattern.maxInput, Math.floor(1_000_000 / pattern.unitCost));
  assert.equal(compilePattern("a").maxInput, Math.floor(1_000_000 / 23));
  assert.equal(pattern.test("b"), true);
  assert.equal(compilePattern("^b$").test("a"), false);
});

Deno.test("a pattern's DFA keeps at most 32 KiB between checks, and its few states after a short one", () => {
  const pattern = compilePattern("(?:[ab]*a[ab]{12})$");
  const dfa = patternDfa(pattern);
  assert.ok(dfa, "re2js's internals changed: bound its DFA memory again (boundDfa)");
  assert.equal(dfa.stateBudget, 256 * 1024);
  let seed = 1;
  let input = "";
  for (let i = 0; i < 500; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    input += seed & 0x10000 ? "a" : "b";
  }
  assert.equal(pattern.test(input), /(?:[ab]*a[ab]{12})$/u.test(input));
  assert.ok(dfa.stateBudget - dfa.memBudget <= 32 * 1024);
  assert.equal(pattern.test(`a${"b".repeat(12)}`), true);
  assert.ok(dfa.stateBudget - dfa.memBudget > 0, "a short check keeps its states");
  assert.equal(patternDfa({ ...pattern, dfa: undefined } as never), null);
});

Deno.test("a pattern and a refusal are each compiled once while cached", () => {
  const pattern = compilePattern("^cached-once$");
  assert.equal(compilePattern("^cached-once$"), pattern);
  let first: unknown;
  try {
    compilePattern("(?=x)");
  } catch (error) {
    first = error;
  }
  assert.ok(first instanceof PatternError);
  assert.throws(() => compilePattern("(?=x)"), (error) => error === first);
});

Deno.test("the cache keeps a bounded number of instructions, the most recently used last", () => {
  // Long literals: nearly 1,000 instructions each, and quick to compile.
  const large = (suffix: string) => `^${"abcdefghij".repeat(95)}${suffix}$`;
  // Tags of one length: every one of these patterns has the same program.
  const tag = (i: number) => `y${String(i).padStart(3, "0")}`;
  const kept = compilePattern(large("kept"));
  const count = Math.ceil(PATTERN_CACHE_INSTRUCTIONS / kept.program) + 5;
  for (let i = 0; i < count; i++) {
    compilePattern(large(tag(i)));
    // Used again all along: never the oldest.
    assert.equal(compilePattern(large("kept")), kept);
  }
  const size = patternCacheSize();
  assert.ok(size.instructions <= PATTERN_CACHE_INSTRUCTIONS, JSON.stringify(size));
  assert.ok(size.instructions > PATTERN_CACHE_INSTRUCTIONS - kept.program, JSON.stringify(size));
  // The first of them made way: compiled anew when used again.
  const last = compilePattern(large(tag(count - 1)));
  assert.equal(compilePattern(large(tag(count - 1))), last);
  const before = patternCacheSize().instructions;
  const first = compilePattern(large(tag(0)));
  assert.equal(patternCacheSize().instructions, before, "one in, one of the same size out");
  assert.equal(compilePattern(large(tag(0))), first);
});

Deno.test("the cache keeps at most 2,000 patterns, refusals among them, counting only patterns' instructions", () => {
  for (let i = 0; i < 2100; i++) {
    if (i % 2) compilePattern(`^small${i}$`);
    else assert.throws(() => compilePattern(`(?=small${i})`), PatternError);
  }
  const size = patternCacheSize();
  assert.equal(size.patterns, 2000);
  // Instructions of 1,000 small patterns; the 1,000 refusals count none.
  const one = compilePattern("^small2099$").program;
  assert.ok(size.instructions <= 1000 * (one + 1), JSON.stringify(size));
  assert.ok(size.instructions >= 1000 * (one - 1), JSON.stringify(size));
});
