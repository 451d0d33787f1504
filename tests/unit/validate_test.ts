/**
 * Unit tests of bridge/input/validate.ts and hint.ts beyond what a keyword accepts
 * (tests/unit/schema_check_test.ts): aim's bounds on an input (depth, values, items, a
 * prototype's key) and on the matching of its patterns (one string past its pattern's longest
 * input, all of them past the budget), each at exactly the limit and one past it; the
 * `invalid_input` error's message and details; and every hint an agent reads, word for word, for
 * each keyword, each kind of wrong value and each combination of types.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  fitsSchema,
  INPUT_LIMITS,
  inputBoundsProblem,
  inputProblem,
  validateInput,
} from "../../bridge/input/validate.ts";
import { describe, inputHint, kindOf, where } from "../../bridge/input/hint.ts";
import { parseActionSpec } from "../../bridge/input/action_spec.ts";
import { compilePattern } from "../../bridge/input/pattern_cache.ts";
import { PATTERN_BUDGET } from "../../bridge/input/pattern.ts";
import { FORMATS } from "../../bridge/input/formats.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import type { ActionSpec } from "../../bridge/input/action_spec.ts";
import type { InputSchema } from "../../bridge/wire/input_schema.ts";

/** An action of `schema` (checked, its objects closed, as the bridge takes it). */
function action(schema: unknown, example?: unknown): ActionSpec {
  return parseActionSpec({
    id: "act",
    description: "An action",
    input_schema: schema,
    ...(example !== undefined && { input_example: example }),
    consequential: false,
    protected: false,
  });
}

/** The hint validateInput() refuses `input` with, checking the rest of the error on the way. */
function hint(schema: unknown, input: unknown, example?: unknown): string {
  const spec = action(schema, example);
  try {
    validateInput(spec, input);
  } catch (error) {
    assert.ok(error instanceof AimError, String(error));
    assert.equal(error.code, "invalid_input");
    assert.equal(error.status, 400);
    const details = error.details as { hint: string };
    assert.equal(
      error.message,
      `Input for "act" does not match its input_schema: ${details.hint}.`,
    );
    assert.deepEqual(error.details, {
      actionId: "act",
      hint: details.hint,
      input_schema: spec.input_schema,
      ...(spec.input_example !== undefined && { input_example: spec.input_example }),
    });
    return details.hint;
  }
  assert.fail(`accepted ${JSON.stringify(input)}`);
}

/** Whether the bridge takes `input` for `schema`. */
function takes(schema: unknown, input: unknown): boolean {
  return inputProblem(action(schema).input_schema, input) === undefined;
}

const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  ...(required.length && { required }),
});

/** `levels` arrays, one in the other, around 1: `[[1]]` for 2. */
function nestedArrays(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

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

// --- hints, word for word -----------------------------------------------------------------------

Deno.test("where() names the input or the field, with indices where lists are", () => {
  const cases: [(string | number)[], string][] = [
    [[], "input"],
    [["a"], 'field "a"'],
    [["a", "b"], 'field "a.b"'],
    [["a", 0, "b"], 'field "a[0].b"'],
    [[0], 'field "[0]"'],
    [[0, 1], 'field "[0][1]"'],
    [[0, "a"], 'field "[0].a"'],
  ];
  for (const [path, expected] of cases) assert.equal(where(path), expected);
});

Deno.test("describe() and kindOf() say what a value is and what a schema wants", () => {
  const values: [unknown, string][] = [
    [undefined, "missing"],
    [null, "null"],
    [[], "an array"],
    [{}, "an object"],
    ["", "a string"],
    [1, "a number"],
    [1.5, "a number"],
    [true, "a boolean"],
    [NaN, "a number"],
    [10n, "a bigint"],
    [() => 1, "a function"],
  ];
  for (const [value, expected] of values) assert.equal(describe(value), expected, String(value));
  const kinds: [InputSchema, string][] = [
    [{}, "a value"],
    [{ type: "string" }, "a string"],
    [{ type: "number" }, "a number"],
    [{ type: "integer" }, "an integer"],
    [{ type: "boolean" }, "a boolean"],
    [{ type: "null" }, "null"],
    [{ type: "object" }, "an object"],
    [{ type: "array" }, "an array"],
    [{ type: ["integer", "null"] }, "an integer or null"],
    [{ type: ["string", "array", "object"] }, "a string or an array or an object"],
  ];
  for (const [schema, expected] of kinds) assert.equal(kindOf(schema), expected);
});

Deno.test("a value of the wrong type is told the type it has, and what to send where that is clear", () => {
  const cases: [unknown, unknown, string][] = [
    ["string", 5, "input must be a string, not a number"],
    ["string", null, "input must be a string, not null"],
    ["string", [], "input must be a string, not an array"],
    ["string", true, "input must be a string, not a boolean"],
    ["number", "3", 'input must be a number, not a string: send 3, not "3"'],
    ["number", " 3 ", 'input must be a number, not a string: send 3, not " 3 "'],
    ["number", "1e3", 'input must be a number, not a string: send 1000, not "1e3"'],
    ["number", "2.5", 'input must be a number, not a string: send 2.5, not "2.5"'],
    ["number", " ", "input must be a number, not a string"],
    ["number", "", "input must be a number, not a string"],
    ["number", "abc", "input must be a number, not a string"],
    ["number", "Infinity", "input must be a number, not a string"],
    ["number", "true", "input must be a number, not a string"],
    ["integer", "false", "input must be an integer, not a string"],
    ["integer", "4", 'input must be an integer, not a string: send 4, not "4"'],
    ["integer", "4.0", 'input must be an integer, not a string: send 4, not "4.0"'],
    ["integer", "4.5", "input must be an integer, not a string"],
    ["integer", 1.5, "input must be an integer, not 1.5"],
    ["integer", [1], "input must be an integer, not an array"],
    ["boolean", "true", 'input must be a boolean, not a string: send true, not "true"'],
    ["boolean", "false", 'input must be a boolean, not a string: send false, not "false"'],
    ["boolean", "yes", "input must be a boolean, not a string"],
    ["boolean", "1", "input must be a boolean, not a string"],
    ["boolean", 1, "input must be a boolean, not a number"],
    ["null", 0, "input must be null, not a number"],
    ["null", "null", "input must be null, not a string"],
    ["array", "[]", "input must be an array, not a string"],
    ["array", 1, "input must be an array, not a number"],
    // Type lists: every type named, what to send where one of them takes it.
    [["integer", "null"], 1.5, "input must be an integer or null, not a number"],
    [["integer"], 1.5, "input must be an integer, not 1.5"],
    [["string", "null"], 1, "input must be a string or null, not a number"],
    [
      ["number", "boolean"],
      "true",
      'input must be a number or a boolean, not a string: send true, not "true"',
    ],
    [
      ["integer", "boolean"],
      "3",
      'input must be an integer or a boolean, not a string: send 3, not "3"',
    ],
    [["integer", "boolean"], "3.5", "input must be an integer or a boolean, not a string"],
    [
      ["number", "null"],
      "3.5",
      'input must be a number or null, not a string: send 3.5, not "3.5"',
    ],
    [["boolean", "null"], "3", "input must be a boolean or null, not a string"],
    [["object", "null"], "x", "input must be an object or null, not a string"],
    [["array", "null"], "x", "input must be an array or null, not a string"],
  ];
  for (const [type, input, expected] of cases) {
    assert.equal(
      hint({ type }, input),
      expected,
      `${JSON.stringify(type)} ${JSON.stringify(input)}`,
    );
  }
});

Deno.test("a field of the wrong type, or missing, is named where it is", () => {
  const schema = object({
    s: { type: "string" },
    n: { type: "number" },
    i: { type: "integer" },
    b: { type: "boolean" },
    o: object({ x: { type: "integer" }, y: {} }, ["y"]),
    l: { type: "array", items: object({ b: { type: "integer" } }) },
  }, ["s"]);
  const cases: [unknown, string][] = [
    [{}, 'field "s" is required'],
    [{ s: 1 }, 'field "s" must be a string, not a number'],
    [{ s: "x", n: "2" }, 'field "n" must be a number, not a string: send 2, not "2"'],
    [{ s: "x", i: 2.5 }, 'field "i" must be an integer, not 2.5'],
    [{ s: "x", b: "true" }, 'field "b" must be a boolean, not a string: send true, not "true"'],
    [{ s: "x", b: {} }, 'field "b" must be a boolean, not an object'],
    [{ s: "x", o: {} }, 'field "o.y" is required'],
    [
      { s: "x", o: { y: 1, x: "7" } },
      'field "o.x" must be an integer, not a string: send 7, not "7"',
    ],
    [
      { s: "x", l: [{ b: 1 }, { b: "2" }] },
      'field "l[1].b" must be an integer, not a string: send 2, not "2"',
    ],
    [{ s: "x", l: [{ b: 1 }, "b"] }, 'field "l[1]" must be an object, not a string'],
  ];
  for (const [input, expected] of cases) assert.equal(hint(schema, input), expected);
  // The first required field missing, in the schema's order.
  const two = object({ a: {}, b: {} }, ["a", "b"]);
  assert.equal(hint(two, { b: 1 }), 'field "a" is required');
  assert.equal(hint(two, { a: 1 }), 'field "b" is required');
  // A field of any key, where an object takes any: named as it is.
  const any = { type: "object", additionalProperties: { type: "integer" } };
  for (const key of ["a/b", "a~b", "a b", "%", "100%", "~1", "é"]) {
    assert.equal(
      hint(any, { [key]: "1" }),
      `field "${key}" must be an integer, not a string: send 1, not "1"`,
      key,
    );
  }
});

Deno.test("each keyword's hint says what the value must be, word for word", () => {
  const cases: [unknown, unknown, string][] = [
    [{ type: "string", minLength: 1 }, "", "input: must be at least 1 character long"],
    [{ type: "string", minLength: 2 }, "a", "input: must be at least 2 characters long"],
    [{ type: "string", maxLength: 1 }, "ab", "input: must be at most 1 character long"],
    [{ type: "string", maxLength: 0 }, "a", "input: must be at most 0 characters long"],
    [{ type: "number", minimum: 1 }, 0, "input: must be at least 1"],
    [{ type: "number", maximum: 1.5 }, 2, "input: must be at most 1.5"],
    [{ type: "number", exclusiveMinimum: 1 }, 1, "input: must be greater than 1"],
    [{ type: "number", exclusiveMaximum: -1 }, -1, "input: must be less than -1"],
    [{ type: "number", multipleOf: 0.5 }, 0.3, "input: must be a multiple of 0.5"],
    [{ type: "array", minItems: 1 }, [], "input: must have at least 1 item"],
    [{ type: "array", minItems: 2 }, [1], "input: must have at least 2 items"],
    [{ type: "array", maxItems: 1 }, [1, 2], "input: must have at most 1 item"],
    [{ type: "array", maxItems: 0 }, [1], "input: must have at most 0 items"],
    [{ type: "object", minProperties: 1 }, {}, "input: must have at least 1 field"],
    [{ type: "object", minProperties: 2 }, { a: 1 }, "input: must have at least 2 fields"],
    [{ type: "object", maxProperties: 1 }, { a: 1, b: 2 }, "input: must have at most 1 field"],
    [{ type: "object", maxProperties: 0 }, { a: 1 }, "input: must have at most 0 fields"],
    [{ type: "string", pattern: "^a$" }, "b", "input: must match the pattern ^a$"],
    [{ const: { a: [1] } }, { a: [2] }, 'input: must be {"a":[1]}'],
    [{ const: null }, 0, "input: must be null"],
    [{ enum: ["on", "off", 1, null] }, "up", 'input: must be one of ["on","off",1,null]'],
    [
      { type: "string", format: "email" },
      "x",
      "input: must be a valid email (for example user@example.com)",
    ],
    [object({ a: { type: "string", enum: ["x"] } }), { a: "y" }, 'field "a": must be one of ["x"]'],
    [{ type: "array", items: { minimum: 0 } }, [1, -1], 'field "[1]": must be at least 0'],
  ];
  for (const [schema, input, expected] of cases) {
    assert.equal(
      hint(schema, input),
      expected,
      `${JSON.stringify(schema)} ${JSON.stringify(input)}`,
    );
  }
  // Every checked format, with its example.
  for (const [name, format] of Object.entries(FORMATS)) {
    assert.equal(
      hint({ type: "string", format: name }, "!"),
      `input: must be a valid ${name} (for example ${format.example})`,
    );
  }
});

Deno.test("a list of allowed values is shown whole up to 20 values and 2,000 characters, then cut", () => {
  const values = (n: number, width = 2) =>
    Array.from({ length: n }, (_, i) => `v${i}`.padEnd(width, "x"));
  assert.equal(
    hint({ enum: values(20) }, "no"),
    `input: must be one of ${JSON.stringify(values(20))}`,
  );
  assert.equal(
    hint({ enum: values(21) }, "no"),
    `input: must be one of ${JSON.stringify(values(20)).slice(0, -1)}, …]`,
  );
  // 20 long values: cut at 2,000 characters.
  const long = JSON.stringify(values(20, 120));
  assert.equal(
    hint({ enum: values(20, 120) }, "no"),
    `input: must be one of ${long.slice(0, 1999)}…`,
  );
  // A const is cut at 200.
  const text = "c".repeat(300);
  assert.equal(hint({ const: text }, "d"), `input: must be ${JSON.stringify(text).slice(0, 199)}…`);
  assert.equal(hint({ const: "c".repeat(197) }, "d"), `input: must be "${"c".repeat(197)}"`);
  assert.equal(hint({ const: "c".repeat(198) }, "d"), `input: must be "${"c".repeat(198)}"`);
  assert.equal(hint({ const: "c".repeat(199) }, "d"), `input: must be "${"c".repeat(198)}…`);
});

Deno.test("a repeated item is named by both its places, objects compared whatever their keys' order", () => {
  const cases: [unknown[], string][] = [
    [[1, 2, 1], "items 0 and 2"],
    [[1, "1", [1], [1]], "items 2 and 3"],
    [[{ a: 1, b: 2 }, { b: 2, a: 1 }], "items 0 and 1"],
    [[{ x: { a: 1, b: [2] } }, 0, { x: { b: [2], a: 1 } }], "items 0 and 2"],
    [[null, false, 0, "", null], "items 0 and 4"],
  ];
  for (const [list, places] of cases) {
    assert.equal(
      hint({ type: "array", uniqueItems: true }, list),
      `input: must not repeat an item (${places} are equal)`,
    );
  }
});

Deno.test("an unknown field is named, with the fields allowed", () => {
  const cases: [unknown, unknown, string][] = [
    [object({ a: {}, b: {} }), { a: 1, c: "x", d: "y" }, 'unknown field "c"; allowed fields: a, b'],
    [object({}), { c: "x" }, 'unknown field "c"; allowed fields: (none)'],
    [
      object({ o: object({ x: {} }) }),
      { o: { x: 1, z: 2 } },
      'unknown field "o.z"; allowed fields: x',
    ],
    [
      { type: "array", items: object({ k: {} }) },
      [{ k: 1 }, { k: 1, q: 2 }],
      'unknown field "[1].q"; allowed fields: k',
    ],
  ];
  for (const [schema, input, expected] of cases) assert.equal(hint(schema, input), expected);
});

Deno.test("anyOf and oneOf name each branch, at most 8, and the value sent", () => {
  const cases: [unknown, unknown, string][] = [
    [
      { anyOf: [{ type: "string" }, { type: "integer" }] },
      true,
      "input: must be a string, or an integer (anyOf), not true",
    ],
    [
      { oneOf: [{ type: "integer" }, { type: "number" }] },
      1,
      "input: must be exactly one of an integer, or a number (oneOf), not 1",
    ],
    [
      {
        anyOf: [
          { enum: ["a", "b"] },
          object({ q: { type: "string" } }),
          object({ n: { type: "integer" }, m: {} }),
          { const: null },
          { type: "array" },
        ],
      },
      5,
      'input: must be one of ["a","b"], or an object with the string fields q, or an object ' +
      "with the fields n (an integer), m (a value), or null, or an array (anyOf), not 5",
    ],
    [
      { anyOf: Array.from({ length: 9 }, (_, i) => ({ const: i })) },
      "x",
      'input: must be 0, or 1, or 2, or 3, or 4, or 5, or 6, or 7, or … (anyOf), not "x"',
    ],
    [
      { anyOf: Array.from({ length: 8 }, (_, i) => ({ const: i })) },
      "x",
      'input: must be 0, or 1, or 2, or 3, or 4, or 5, or 6, or 7 (anyOf), not "x"',
    ],
    [
      { anyOf: [{ const: "k".repeat(100) }, { enum: ["e".repeat(100)] }] },
      "j".repeat(100),
      `input: must be ${JSON.stringify("k".repeat(100)).slice(0, 79)}…, or one of ` +
      `${JSON.stringify(["e".repeat(100)]).slice(0, 79)}… (anyOf), not ` +
      `${JSON.stringify("j".repeat(100)).slice(0, 79)}…`,
    ],
    [
      object({ at: { anyOf: [{ type: "string" }, { type: "integer" }] } }),
      { at: [1] },
      'field "at": must be a string, or an integer (anyOf), not [1]',
    ],
  ];
  for (const [schema, input, expected] of cases) {
    assert.equal(hint(schema, input), expected, JSON.stringify(schema).slice(0, 80));
  }
});

Deno.test("an input that is not an object for an object schema is told the fields it should have", () => {
  const cases: [unknown, unknown, string][] = [
    [
      object({ a: { type: "string" }, b: { type: "string" } }),
      "x",
      "input must be an object with the string fields a, b, not a string",
    ],
    [
      object({ a: { type: "string" }, n: { type: "integer" }, f: { type: ["boolean", "null"] } }),
      [1],
      "input must be an object with the fields a (a string), n (an integer), f (a boolean or null), not an array",
    ],
    [object({}), null, "input must be an object with no fields, not null"],
    [{ type: "object" }, 3, "input must be an object with no fields, not a number"],
    [
      object({ n: { type: "number" } }),
      undefined,
      "input must be an object with the fields n (a number), not missing",
    ],
  ];
  for (const [schema, input, expected] of cases) assert.equal(hint(schema, input), expected);
});

Deno.test("an input wrapped in an object is told to send the value itself, its own where it is one, never a secret's", () => {
  const cases: [unknown, unknown, unknown, string][] = [
    ["string", { value: "x" }, "ex", '"x"'],
    ["integer", { pin: 1234, other: "x" }, 7, "7"],
    ["integer", { n: 1.5 }, 7, "7"],
    ["number", { n: 3 }, 2, "3"],
    ["number", { n: "3" }, 2, "2"],
    ["boolean", { on: "yes", flag: false }, true, "false"],
    ["null", { a: null }, undefined, "null"],
    ["array", { list: [1] }, undefined, "[1]"],
    // No own value: the example, the bridge's where the action gives none.
    ["string", { password: "hunter2" }, undefined, '"example"'],
    ["string", { apiKey: "k", sessionId: "s", token: "1" }, "x", '"x"'],
  ];
  const noun = (type: string) =>
    ({ string: "string", integer: "integer", number: "number", boolean: "boolean" })[type] ??
      type;
  for (const [type, input, example, sent] of cases) {
    assert.equal(
      hint({ type }, input, example),
      `input must be the ${noun(type as string)} itself, not an object: send "input": ${sent}`,
      `${type} ${JSON.stringify(input)}`,
    );
  }
  // No own value and no example: an ellipsis.
  assert.equal(
    inputHint({ type: "string" }, { secret: "s" }, { ok: false }),
    'input must be the string itself, not an object: send "input": "…"',
  );
  // Several types: the value itself, of any of them.
  assert.equal(
    hint({ type: ["string", "null"] }, { a: "x" }),
    'input must be the value itself, not an object: send "input": "x"',
  );
  assert.equal(
    hint({ type: ["integer", "null"] }, { a: "x" }, 3),
    'input must be the value itself, not an object: send "input": 3',
  );
  // A long own value is cut at 200.
  const long = "w".repeat(300);
  assert.equal(
    hint({ type: "string" }, { v: long }),
    `input must be the string itself, not an object: send "input": ${
      JSON.stringify(long).slice(0, 199)
    }…`,
  );
  // A schema that takes objects too is no wrapped value.
  assert.equal(
    hint({ type: ["object", "string"], minProperties: 2 }, { a: 1 }),
    "input: must have at least 2 fields",
  );
});

Deno.test("inputHint() without a keyword to read says only that the input does not match, and a keyword it does not know says where", () => {
  const result = { ok: false };
  assert.equal(inputHint({ type: "string" }, "x", result), "input does not match input_schema");
  assert.equal(
    inputHint(object({ a: {} }) as InputSchema, { a: "x" }, result),
    "input does not match input_schema",
  );
  const unknown = (pointer: string[]) => ({
    ok: false,
    failure: { keyword: "dependentRequired", pointer, schema: {} },
  });
  assert.equal(inputHint({}, { a: [1] }, unknown([])), "input: does not match input_schema");
  assert.equal(
    inputHint({}, { a: [1] }, unknown(["a", "0"])),
    'field "a[0]": does not match input_schema',
  );
  // A type failure at a field the input lacks: required.
  assert.equal(
    inputHint({}, { a: {} }, {
      ok: false,
      failure: { keyword: "type", pointer: ["a", "b"], schema: { type: "string" } },
    }),
    'field "a.b" is required',
  );
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
