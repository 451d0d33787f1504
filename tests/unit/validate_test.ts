/**
 * Unit tests of bridge/input/validate.ts beyond what a keyword accepts
 * (tests/unit/schema_check_test.ts): aim's bounds on an input (depth, values, items, a
 * prototype's key) and on the matching of its patterns (one string past its pattern's longest
 * input, all of them past the budget), each at exactly the limit and one past it; what
 * fitsSchema() takes; each checked format. The hints an agent reads are
 * tests/unit/input_hint_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  fitsSchema,
  INPUT_LIMITS,
  inputBoundsProblem,
  validateInput,
} from "../../bridge/input/validate.ts";
import { compilePattern } from "../../bridge/input/pattern_cache.ts";
import { PATTERN_BUDGET } from "../../bridge/input/pattern.ts";
import { FORMATS } from "../../bridge/input/formats.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { action, hint, nestedArrays, object, takes } from "../helpers/validation.ts";

// --- aim's bounds on an input -----------------------------------------------------------------

Deno.test("an input may nest arrays and objects 16 levels deep, not 17, and the hint says where", () => {
  assert.equal(INPUT_LIMITS.depth, 16);
  assert.equal(takes({}, nestedArrays(16)), true);
  assert.equal(
    hint({}, nestedArrays(17)),
    `field "${"[0]".repeat(16)}" nests arrays and objects more than 16 levels deep`,
  );
  let objects: unknown = {};
  for (let i = 1; i < 16; i++) objects = { a: objects };
  assert.equal(takes({}, objects), true);
  assert.equal(
    hint({}, { a: objects }),
    `field "${Array(16).fill("a").join(".")}" nests arrays and objects more than 16 levels deep`,
  );
  // Values that are no container nest no further: a string at level 17 is within the bound.
  assert.equal(takes({}, nestedArrays(16)), true);
  assert.deepEqual(inputBoundsProblem([[["x"]]]), undefined);
});

Deno.test("an array may hold 1,000 items, not 1,001, at any level", () => {
  assert.equal(INPUT_LIMITS.items, 1000);
  assert.equal(takes({}, Array(1000).fill(0)), true);
  assert.equal(hint({}, Array(1001).fill(0)), "input has more than 1000 items");
  assert.equal(
    hint({}, { list: [0, Array(1001).fill("x")] }),
    'field "list[1]" has more than 1000 items',
  );
  // An object's fields are no items.
  const wide = Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`k${i}`, i]));
  assert.equal(takes({}, wide), true);
});

Deno.test("an input may hold 20,000 values in all, not 20,001, containers counted", () => {
  assert.equal(INPUT_LIMITS.values, 20_000);
  // 1 list, 20 lists in it, 19,979 or 19,980 numbers.
  const values = (n: number) => {
    const lists = Array.from({ length: 20 }, () => Array(999).fill(0));
    lists[19] = Array(n - 1 - 20 - 19 * 999).fill(0);
    return lists;
  };
  assert.equal(takes({}, values(20_000)), true);
  assert.equal(hint({}, values(20_001)), "input holds more than 20000 values");
  // A bound of the whole input: said of the input, wherever the last value is.
  assert.deepEqual(inputBoundsProblem(values(20_001)), {
    path: [],
    problem: "holds more than 20000 values",
  });
});

Deno.test("a key that would reach a prototype is refused where it is, at any level, before anything reads it", () => {
  for (const key of ["__proto__", "constructor", "prototype"]) {
    const problem = `has a key named "${key}", which is not accepted`;
    assert.equal(hint({}, JSON.parse(`{"${key}":1}`)), `input ${problem}`);
    assert.equal(hint({}, JSON.parse(`{"a":[{"${key}":{}}]}`)), `field "a[0]" ${problem}`);
    // Even where the schema would take any field.
    assert.equal(
      hint({ type: "object", additionalProperties: true }, JSON.parse(`{"${key}":1}`)),
      `input ${problem}`,
    );
  }
  // Named like Object.prototype's other members: ordinary keys.
  assert.equal(takes({}, { toString: 1, valueOf: 2, hasOwnProperty: 3, __proto: 4 }), true);
});

Deno.test("what JSON cannot carry is refused, naming where it is", () => {
  const cases: [unknown, unknown, string][] = [
    [{}, undefined, "input is not a JSON value"],
    [{}, () => 1, "input is not a JSON value"],
    [{}, 10n, "input is not a JSON value"],
    [{}, Symbol("s"), "input is not a JSON value"],
    [{}, NaN, "input is not a JSON value"],
    [{}, -Infinity, "input is not a JSON value"],
    [{ type: "number" }, Infinity, "input is not a JSON value"],
    [{}, { a: undefined }, 'field "a" is not a JSON value'],
    [{}, { a: [1, () => 1] }, 'field "a[1]" is not a JSON value'],
    [{ type: "array" }, [1, NaN], 'field "[1]" is not a JSON value'],
    // A typed schema says what it wanted: what is not a string is no string.
    [{ type: "string" }, NaN, "input must be a string, not a number"],
    [{ type: "string" }, undefined, "input must be a string, not missing"],
    [{ type: ["string", "null"] }, undefined, "input must be a string or null, not missing"],
  ];
  for (const [schema, input, expected] of cases) {
    assert.equal(hint(schema, input), expected, `${JSON.stringify(schema)} ${String(input)}`);
  }
});

// --- the matching budget ------------------------------------------------------------------------

/** A pattern that matches every value and costs 25 units a character: 40,000 fit the budget. */
const CHEAP = "^a*";

Deno.test("the pattern the bounds below use costs 25 units a character", () => {
  const pattern = compilePattern(CHEAP);
  assert.equal(pattern.unitCost, 25);
  assert.equal(pattern.maxInput, PATTERN_BUDGET / 25);
});

Deno.test("a patterned value is checked up to its pattern's longest input, and refused past it, before matching", () => {
  const max = compilePattern(CHEAP).maxInput;
  const schema = { type: "string", pattern: CHEAP };
  assert.equal(takes(schema, "b".repeat(max)), true);
  assert.equal(
    hint(schema, "b".repeat(max + 1)),
    `input must be at most ${max} characters long to be checked against the pattern ${CHEAP} ` +
      `(it has ${max + 1})`,
  );
  assert.equal(
    hint({ type: "object", properties: { list: { type: "array", items: schema } } }, {
      list: ["a", "b".repeat(max + 1)],
    }),
    `field "list[1]" must be at most ${max} characters long to be checked against the pattern ` +
      `${CHEAP} (it has ${max + 1})`,
  );
});

Deno.test("patterned values are checked together within the budget: exactly the budget passes, one character more does not", () => {
  const max = compilePattern(CHEAP).maxInput;
  const half = max / 2;
  const schema = object({
    a: { type: "string", pattern: CHEAP },
    b: { type: "string", pattern: CHEAP },
    c: { type: "string" },
    n: { type: "integer" },
  });
  const fits = { a: "a".repeat(half), b: "a".repeat(half), c: "c".repeat(max * 2), n: 1 };
  assert.deepEqual(validateInput(action(schema), fits), fits);
  assert.equal(
    hint(schema, { ...fits, b: "a".repeat(half + 1) }),
    "its strings are too long to be checked against their patterns together; send shorter " +
      "values",
  );
  // Items of a list share the budget too; each check starts with all of it.
  const list = { type: "array", items: { type: "string", pattern: CHEAP } };
  assert.equal(takes(list, Array(4).fill("a".repeat(max / 4))), true);
  assert.equal(takes(list, Array(4).fill("a".repeat(max / 4 + 1))), false);
  assert.equal(takes(list, Array(4).fill("a".repeat(max / 4))), true);
  // Only the strings that meet a pattern count.
  assert.equal(takes(schema, { a: "a".repeat(max), c: "c".repeat(max), n: 1 }), true);
});

Deno.test("a format's value is refused past its length, and never past its pattern's longest input", () => {
  for (const [name, format] of Object.entries(FORMATS)) {
    if (format.pattern) {
      // The format's own bound comes first: its pattern is never cut short.
      const pattern = compilePattern(format.pattern);
      assert.ok(format.maxLength + (format.prefix ?? "").length <= pattern.maxInput, name);
    }
    const schema = { type: "string", format: name };
    const long = format.example + "0".repeat(format.maxLength);
    assert.equal(
      hint(schema, long),
      `input: must be a valid ${name} (for example ${format.example})`,
      name,
    );
  }
  // The longest URI checked, and one character more.
  const uri = "https://example.com/";
  assert.equal(takes({ format: "uri" }, uri + "a".repeat(8192 - uri.length)), true);
  assert.equal(takes({ format: "uri" }, uri + "a".repeat(8193 - uri.length)), false);
});

Deno.test("fitsSchema() says whether validateInput() takes the input, and validateInput() hands it back as it is", () => {
  const spec = action(object({ a: { type: "integer" } }, ["a"]));
  const input = { a: 1 };
  assert.equal(validateInput(spec, input), input);
  assert.equal(fitsSchema(spec.input_schema, input), true);
  for (const bad of [{}, { a: "1" }, { a: 1, b: 2 }, null, JSON.parse('{"a":1,"__proto__":{}}')]) {
    assert.equal(fitsSchema(spec.input_schema, bad), false, JSON.stringify(bad));
  }
  // Without an example, the details carry none.
  const bare = { ...spec };
  delete bare.input_example;
  try {
    validateInput(bare, 5);
    assert.fail("taken");
  } catch (error) {
    assert.ok(error instanceof AimError);
    assert.equal("input_example" in error.details, false);
  }
});

Deno.test("each checked format takes what its name says: offsets and fractions of a time, leap days, every kind of address", () => {
  const taken: Record<string, string[]> = {
    "date-time": [
      "2026-01-01T00:00:00Z",
      "2026-01-01T00:00:00+01:00",
      "2026-01-01T23:59:59.123-05:30",
      "2026-01-01T00:00:00.1Z",
    ],
    time: ["12:00:00Z", "12:00:00+01:00", "23:59:59.999-08:00"],
    date: ["2024-02-29", "2026-12-31"],
    email: ["a.b+c@example.co.uk", "x@y.io"],
    uuid: ["00000000-0000-4000-8000-000000000000", "6F9619FF-8B86-1011-B42D-00C04FC964FF"],
    ipv4: ["0.0.0.0", "255.255.255.255"],
    ipv6: ["::1", "fe80::1", "2001:db8:0:0:0:0:2:1"],
    hostname: ["a-b.example", "localhost", "xn--bcher-kva.example"],
    uri: ["mailto:x@example.com", "urn:isbn:0451450523", "https://example.com/a?b#c"],
  };
  const refused: Record<string, string[]> = {
    "date-time": ["2026-01-01T00:00:00", "2026-01-01T00:00:00+1:00"],
    time: ["12:00:00", "12:00"],
    date: ["2023-02-29", "2026-04-31"],
  };
  assert.deepEqual(Object.keys(taken).sort(), Object.keys(FORMATS).sort());
  for (const [name, values] of Object.entries(taken)) {
    for (const value of values) {
      assert.equal(takes({ format: name }, value), true, `${name} ${value}`);
    }
  }
  for (const [name, values] of Object.entries(refused)) {
    for (const value of values) {
      assert.equal(takes({ format: name }, value), false, `${name} ${value}`);
    }
  }
});
