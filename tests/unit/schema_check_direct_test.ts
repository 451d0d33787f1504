/**
 * The compiled check of one input schema (bridge/input/schema_check.ts), imported directly: which
 * keyword each failure names and where (each JSON Pointer escape decoded), a pattern named as
 * one and not as the format aim runs it as, a string too long for its pattern, a budget used up,
 * annotations that never refuse, and the cache of checks by schema text. Every keyword's table
 * through validate.ts is tests/unit/schema_check_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type CheckResult, schemaCheck } from "../../bridge/input/schema_check.ts";
import { compilePattern } from "../../bridge/input/pattern_cache.ts";
import { PATTERN_BUDGET } from "../../bridge/input/pattern.ts";
import type { InputSchema } from "../../bridge/wire/input_schema.ts";

/** The failed keyword and its pointer, or "ok". */
function failed(result: CheckResult): string {
  return result.ok ? "ok" : `${result.failure?.keyword} /${result.failure?.pointer.join("/")}`;
}

Deno.test("schemaCheck() names the keyword that failed and where, not the wrapper around it", () => {
  const object: InputSchema = {
    type: "object",
    properties: {
      "a/b": { type: "integer" },
      "c~d": { type: "string", enum: ["x"] },
      "é f": { type: "array", items: { type: "boolean" }, maxItems: 2 },
      code: { type: "string", pattern: "^[A-Z]{3}$" },
      mail: { type: "string", format: "email" },
    },
    required: ["a/b"],
    additionalProperties: false,
  };
  const check = schemaCheck(object);
  const cases: [unknown, string][] = [
    [{ "a/b": 1 }, "ok"],
    [{}, "required /"],
    [{ "a/b": 1.5 }, "type /a/b"],
    [{ "a/b": 1, "c~d": "y" }, "enum /c~d"],
    [{ "a/b": 1, "é f": [true, 1] }, "type /é f/1"],
    [{ "a/b": 1, "é f": [true, true, true] }, "maxItems /é f"],
    [{ "a/b": 1, code: "abc" }, "pattern /code"],
    [{ "a/b": 1, mail: "not mail" }, "format /mail"],
    [{ "a/b": 1, other: 1 }, "additionalProperties /"],
  ];
  for (const [input, expected] of cases) {
    assert.equal(failed(check(input)), expected, JSON.stringify(input));
  }
  // The pattern's failure names the pattern's own schema, not the format aim runs it as.
  assert.deepEqual(check({ "a/b": 1, code: "abc" }).failure?.schema, {
    type: "string",
    pattern: "^[A-Z]{3}$",
  });
});

Deno.test("schemaCheck() never refuses for an annotation, and refuses in each branch of anyOf and oneOf", () => {
  const annotated = schemaCheck({
    type: "string",
    description: "d",
    title: "t",
    default: 3,
    examples: [1],
  } as InputSchema);
  assert.equal(failed(annotated("x")), "ok");
  const any = schemaCheck({ anyOf: [{ type: "string" }, { type: "integer" }] } as InputSchema);
  assert.deepEqual([failed(any("x")), failed(any(1)), any(true).ok], ["ok", "ok", false]);
  const one = schemaCheck({ oneOf: [{ type: "integer" }, { type: "number" }] } as InputSchema);
  assert.equal(one(1).ok, false, "both branches match");
  assert.equal(failed(one(1.5)), "ok");
});

Deno.test("schemaCheck() refuses a string too long for its pattern before matching, and says which", () => {
  const pattern = "^a+$";
  const max = compilePattern(pattern).maxInput;
  const check = schemaCheck({ type: "string", pattern });
  assert.equal(check("a".repeat(max)).ok, true);
  const result = check("a".repeat(max + 1));
  assert.equal(result.ok, false);
  assert.deepEqual(result.tooLong, {
    value: "a".repeat(max + 1),
    maxInput: max,
    what: `the pattern ${pattern}`,
  });
  // A string that cannot be matched is no match, even where it would make a oneOf pass.
  const either = schemaCheck(
    { oneOf: [{ type: "string", pattern }, { type: "string" }] } as InputSchema,
  );
  assert.equal(either("a".repeat(max + 1)).ok, false);
});

Deno.test("schemaCheck() refuses an input whose patterned strings together cost more than the budget, and starts each check afresh", () => {
  const pattern = "^[a-z]+$";
  const compiled = compilePattern(pattern);
  const length = Math.min(compiled.maxInput, 1000);
  const count = Math.ceil(PATTERN_BUDGET / (length * compiled.unitCost)) + 1;
  const check = schemaCheck({ type: "array", items: { type: "string", pattern } });
  const result = check(Array(count).fill("a".repeat(length)));
  assert.equal(result.ok, false);
  assert.equal(result.exhausted, true);
  assert.deepEqual(check(["abc"]), { ok: true }, "the next check has the whole budget");
});

Deno.test("schemaCheck() compiles a schema text once, keeps at most 2000, and forgets the oldest first", () => {
  const first = schemaCheck({ type: "string", maxLength: 1 });
  assert.equal(
    schemaCheck({ type: "string", maxLength: 1 }),
    first,
    "the same text, the same check",
  );
  assert.notEqual(schemaCheck({ maxLength: 1, type: "string" }), first, "another text");
  for (let i = 0; i < 2000; i++) schemaCheck({ type: "string", maxLength: 10_000 + i });
  const again = schemaCheck({ type: "string", maxLength: 1 });
  assert.notEqual(again, first, "pushed out by 2000 newer schemas");
  assert.equal(again("ab").ok, false);
  assert.equal(
    schemaCheck({ type: "string", maxLength: 10_000 + 1999 }),
    schemaCheck({ type: "string", maxLength: 10_000 + 1999 }),
  );
});
