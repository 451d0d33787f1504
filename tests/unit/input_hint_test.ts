/**
 * Unit tests of the hints of bridge/input/hint.ts, word for word, as an agent reads them in an
 * `invalid_input` error: for each keyword, each kind of wrong value, each combination of types,
 * an input wrapped in an object, and the lists of allowed values and branches, each cut where it
 * says. aim's bounds on an input are tests/unit/validate_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, inputHint, kindOf, where } from "../../bridge/input/hint.ts";
import { FORMATS } from "../../bridge/input/formats.ts";
import type { InputSchema } from "../../bridge/wire/input_schema.ts";
import { hint, object } from "../helpers/validation.ts";

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
