/**
 * Finding 2, as properties over generated patterns: compilePattern() matches as `RegExp` with the
 * `u` flag does, parsing and checking throw only aim's own errors, catastrophic patterns cost
 * bounded work on long input, and backtrackingRisk() tells exponential patterns from linear and
 * polynomial ones, answering for any pattern. The attack itself is tests/security/pattern_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { action } from "../helpers/validation.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { MarkupError } from "../../bridge/markup/action.ts";
import type { ActionSpec } from "../../bridge/input/action_spec.ts";
import { compilePattern } from "../../bridge/input/pattern_cache.ts";
import { MAX_PATTERN_INPUT, PatternError } from "../../bridge/input/pattern.ts";
import { validateInput } from "../../bridge/input/validate.ts";
import { backtrackingRisk } from "../../bridge/site/backtracking.ts";

/** Patterns built from parts that backtracking engines choke on, and ordinary ones. */
const { pattern: patternArb } = fc.letrec<{ pattern: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(
      "a",
      "b",
      "\\d",
      "\\w",
      "\\s",
      "\\S",
      "\\W",
      ".",
      "[ab]",
      "[^a]",
      "[a-c\\s]",
      "[^\\S\\n]",
      "[]",
      "[^]",
      "\\p{L}",
      "\\P{Ll}",
      "(?i:A)",
      "(?s:.)",
      "é",
      "😀",
      "\\u{1F600}",
      "\\n",
    ),
    tie("pattern").map((p) => `(${p})`),
    tie("pattern").map((p) => `(?:${p})`),
  ),
  pattern: fc.oneof(
    { depthSize: "small" },
    tie("atom"),
    fc.tuple(tie("atom"), fc.constantFrom("*", "+", "?", "{2}", "{1,3}", "{2,}", "*?")).map(
      ([a, q]) => a + q,
    ),
    fc.tuple(tie("pattern"), tie("pattern")).map(([a, b]) => a + b),
    fc.tuple(tie("pattern"), tie("pattern")).map(([a, b]) => `${a}|${b}`),
  ),
}));

const anchored = fc.tuple(fc.boolean(), patternArb, fc.boolean()).map(([start, p, end]) =>
  `${start ? "^" : ""}${p}${end ? "$" : ""}`
);

const shortInput = fc.string({
  unit: fc.constantFrom("a", "b", "1", " ", "\n", "é", "😀", "!"),
  maxLength: 8,
});

Deno.test("compilePattern() matches as RegExp with the u flag does, on generated patterns", () => {
  fc.assert(
    fc.property(anchored, fc.array(shortInput, { maxLength: 6 }), (pattern, inputs) => {
      let compiled;
      try {
        compiled = compilePattern(pattern);
      } catch (error) {
        // Only the documented refusals, such as repetitions expanding past the size limit.
        assert.ok(error instanceof PatternError, String(error));
        return;
      }
      const js = new RegExp(pattern, "u");
      // Short inputs: even a catastrophic pattern answers quickly in RegExp.
      for (const input of inputs) {
        assert.equal(
          compiled.test(input),
          js.test(input),
          `${pattern} on ${JSON.stringify(input)}`,
        );
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("parseActionSpec() and validateInput() throw only MarkupError and AimError, for any pattern and input", () => {
  const anyPattern = fc.oneof(anchored, fc.string({ maxLength: 20 }));
  const catastrophicInput = fc.tuple(fc.constantFrom("a", "ab", "1", " a"), fc.nat(3000)).map((
    [unit, n],
  ) => unit.repeat(n) + "!");
  fc.assert(
    fc.property(
      anyPattern,
      fc.oneof(shortInput, catastrophicInput, fc.jsonValue({ maxDepth: 2 })),
      (pattern, input) => {
        let spec: ActionSpec;
        try {
          spec = action({ type: "string", pattern }, "a");
        } catch (error) {
          assert.ok(error instanceof MarkupError, String(error));
          return;
        }
        try {
          validateInput(spec, input);
        } catch (error) {
          assert.ok(error instanceof AimError, String(error));
          assert.equal(error.code, "invalid_input");
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("validateInput() checks catastrophic patterns against long input in bounded work", () => {
  const catastrophic = ["^(a+)+$", "^(a|a)*$", "^(a*)*$", "^(\\w|\\d)+$", "^(x+x+)+y$"];
  fc.assert(
    fc.property(
      fc.constantFrom(...catastrophic),
      fc.integer({ min: 1, max: MAX_PATTERN_INPUT }),
      fc.constantFrom("!", "", "a"),
      (pattern, n, tail) => {
        const spec = action({ type: "string", pattern }, pattern.includes("y") ? "xxy" : "aa");
        const input = (pattern.includes("x") ? "x" : "a").repeat(n) + tail;
        // Correct answers: RegExp would take exponential time here, RE2 does not.
        const expected = pattern.includes("y") ? false : tail !== "!";
        let accepted = true;
        try {
          validateInput(spec, input);
        } catch (error) {
          assert.ok(error instanceof AimError);
          accepted = false;
        }
        assert.equal(accepted, expected && input.length <= compilePattern(pattern).maxInput);
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("backtrackingRisk() reports exponential patterns and passes linear and polynomial ones", () => {
  const catastrophic = [
    "^(?:(a+)+)$",
    "^(?:(a|a)*)$",
    "^(?:(a*)*)$",
    "^(\\w|\\d)+$",
    "^(a|b|ab)*$",
    "(x+x+)+y",
    "^(\\w+\\s?)*$",
    "^([a-z]+\\.?)*$",
    "^(\\p{L}|[a-z])+$",
    "^((?i:a)|A)+$",
    "^(a{1,3}){2,}$",
  ];
  for (const pattern of catastrophic) {
    assert.equal(backtrackingRisk(pattern)?.kind, "catastrophic", pattern);
  }
  const fine = [
    "^(?:req-[0-9]+)$",
    "^(?:[0-9]{1,7}(\\.[0-9]{1,2})?)$",
    "^[a-z0-9]+(?:-[a-z0-9]+)*$",
    "^(\\d{1,3}\\.){3}\\d{1,3}$",
    "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$",
    "^(a|ab)*c$",
    "^\\d+\\d+$",
    "^(\\p{L}|\\d)+$",
    // Nothing can fail after the repetition: the engine stops at the first match.
    "(a+)+",
    "",
    "(?=a)",
  ];
  for (const pattern of fine) assert.equal(backtrackingRisk(pattern), undefined, pattern);
  // Too large to tell within the budget: said so, not guessed.
  assert.deepEqual(backtrackingRisk(`^(?:${"[a-z]?".repeat(80)})+$`), { kind: "unknown" });
});

Deno.test("backtrackingRisk() answers for any pattern, valid or not, without throwing", () => {
  fc.assert(
    fc.property(fc.oneof(anchored, fc.string({ maxLength: 24 })), (pattern) => {
      const risk = backtrackingRisk(pattern);
      assert.ok(risk === undefined || risk.kind === "catastrophic" || risk.kind === "unknown");
    }),
    { numRuns: 300 },
  );
});
