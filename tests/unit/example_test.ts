/**
 * The examples the bridge makes from a schema (bridge/input/example.ts) for a declaration that
 * gives none (issue 33): every one validates, the same schema makes the same one, they stay
 * small, and a table of schemas shows what each shape makes (the time pattern among
 * them).
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { exampleOf, parseActionSpec } from "../../bridge/input/action_spec.ts";
import { makeExample, MAX_EXAMPLE_BYTES } from "../../bridge/input/example.ts";
import { fitsSchema, validateInput } from "../../bridge/input/validate.ts";
import { FORMATS } from "../../bridge/input/formats.ts";
import { MarkupError } from "../../bridge/markup/action.ts";
import type { InputSchema } from "../../bridge/wire/input_schema.ts";
import { schemaArbitrary } from "../helpers/input_schemas.ts";

function action(input_schema: unknown): ReturnType<typeof parseActionSpec> {
  return parseActionSpec({
    id: "act",
    description: "An action",
    input_schema,
    consequential: false,
    protected: false,
  });
}

Deno.test("every example the bridge makes validates, is the same each time, and is small", () => {
  let made = 0;
  let runs = 0;
  fc.assert(
    fc.property(schemaArbitrary(), (schema) => {
      let spec: ReturnType<typeof parseActionSpec>;
      try {
        spec = action(schema);
      } catch (error) {
        assert.ok(error instanceof MarkupError, String(error));
        return;
      }
      runs++;
      const example = spec.input_example;
      if (example === undefined) return;
      made++;
      assert.deepEqual(validateInput(spec, example), example);
      assert.ok(JSON.stringify(example).length <= MAX_EXAMPLE_BYTES);
      assert.deepEqual(exampleOf(spec.input_schema), example);
      assert.deepEqual(
        makeExample(spec.input_schema, (v) => fitsSchema(spec.input_schema, v)),
        example,
      );
    }),
    { numRuns: 1000 },
  );
  // Most schemas get one: only a pattern, an enum or a const at odds with the rest go without.
  assert.ok(made >= runs * 0.75, `${made} examples of ${runs} schemas`);
});

Deno.test("each shape of schema makes the example a person would write first", () => {
  const cases: [InputSchema, unknown][] = [
    // Issue 33: a required time the tool was refused for.
    [{
      type: "object",
      properties: { time: { type: "string", pattern: "^[1-9]:[0-5][0-9] (AM|PM)$" } },
      required: ["time"],
    }, { time: "1:00 AM" }],
    [{ type: "string" }, "example"],
    [{ type: "string", minLength: 10 }, "examplexxx"],
    [{ type: "string", maxLength: 3 }, "exa"],
    [{ type: "string", pattern: "^\\p{Lu}{2}-\\d{3}$" }, "AA-000"],
    [{ type: "string", pattern: "^(?i:abc)$" }, "abc"],
    [{ type: "integer", minimum: 5 }, 5],
    [{ type: "number", exclusiveMinimum: 1, maximum: 2 }, 1.5],
    [{ type: "integer", multipleOf: 4, exclusiveMinimum: 4 }, 8],
    [{ type: "boolean" }, false],
    [{ type: "null" }, null],
    [{ type: ["null", "string"] }, "example"],
    [{ enum: ["b", "a"] }, "b"],
    [{ const: { k: 1 } }, { k: 1 }],
    [{ type: "array", items: { enum: ["bug", "task"] } }, ["bug"]],
    [{ type: "array", items: { enum: ["bug", "task"] }, minItems: 2, uniqueItems: true }, [
      "bug",
      "task",
    ]],
    [{ type: "array", items: { type: "integer" }, minItems: 3, uniqueItems: true }, [1, 2, 3]],
    [{ type: "array", maxItems: 0 }, []],
    [{
      type: "object",
      properties: {
        who: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        note: { type: "string" },
      },
      required: ["who"],
    }, { who: { name: "example" } }],
    [{ type: "object", properties: { a: {}, b: {} }, minProperties: 1 }, { a: "example" }],
    [{ type: "object", additionalProperties: { type: "integer" }, required: ["n"] }, { n: 1 }],
    [{ anyOf: [{ type: "integer", minimum: 2 }, { type: "string" }] }, 2],
    [{ oneOf: [{ const: "x" }, { type: "string", pattern: "^y" }] }, "x"],
    [{
      type: "object",
      properties: { kind: { enum: ["a", "b"] } },
      oneOf: [
        { properties: { kind: { const: "a" } }, required: ["kind"] },
        { properties: { kind: { const: "b" } } },
      ],
    }, { kind: "a" }],
    // The schema's own example or default where it fits, in the schema or in a field.
    [{ type: "integer", examples: ["x", 7] }, 1],
    [{ type: "integer", examples: [7] }, 7],
    [{ type: "string", default: "tea" }, "tea"],
    [{ type: "object", properties: { n: { type: "integer", default: 4 } }, required: ["n"] }, {
      n: 4,
    }],
  ];
  for (const [schema, expected] of cases) {
    const spec = action(schema);
    assert.deepEqual(spec.input_example, expected, JSON.stringify(schema));
  }
});

Deno.test("every checked format's example is the example of a string of that format", () => {
  for (const [name, format] of Object.entries(FORMATS)) {
    assert.equal(action({ type: "string", format: name }).input_example, format.example);
  }
});

Deno.test("no example is made past its bounds: the action is kept and says so by having none", () => {
  for (
    const schema of [
      { type: "array", minItems: 101 },
      { type: "string", minLength: 1001 },
      { type: "string", pattern: "^a{600}$", maxLength: 10 },
      { type: "string", pattern: "^\\u{1F600}+$" },
      { type: "string", minLength: 4, pattern: "^a?$" },
      // Too many values: 10 × 10 × 10 × 10 lists of objects.
      {
        type: "array",
        minItems: 10,
        items: {
          type: "array",
          minItems: 10,
          items: { type: "array", minItems: 10, items: { type: "array", minItems: 10 } },
        },
      },
    ]
  ) {
    const spec = action(schema);
    assert.equal(spec.input_example, undefined, JSON.stringify(schema));
  }
});

Deno.test("a declaration's own example must fit its schema: the bridge never replaces it", () => {
  assert.throws(
    () =>
      parseActionSpec({
        id: "act",
        description: "An action",
        input_schema: { type: "array", items: { type: "integer" } },
        input_example: ["1"],
        consequential: false,
        protected: false,
      }),
    /input_example does not match input_schema \(field "\[0\]" must be an integer/,
  );
});

Deno.test("the tries of one example build at most 4,000 values and 200 strings of patterns in all", () => {
  // Each try builds 1,901 values and fails (no inner list can be unique): two tries, not eight.
  const repeated = {
    type: "array",
    minItems: 100,
    items: { type: "array", minItems: 18, uniqueItems: true, items: { enum: [1] } },
  } as InputSchema;
  let tries = 0;
  assert.equal(makeExample(repeated, () => (tries++, false)), undefined);
  assert.equal(tries, 2);
  // 100 objects of two patterned fields: exactly 200 strings, an example; one field more, none.
  const lines = (fields: number) => ({
    type: "array",
    minItems: 100,
    items: {
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: fields }, (_, i) => [`f${i}`, { type: "string", pattern: "^[a-z]$" }]),
      ),
      required: Array.from({ length: fields }, (_, i) => `f${i}`),
    },
  });
  const two = action(lines(2)).input_example as Record<string, string>[];
  assert.equal(two.length, 100);
  assert.deepEqual(two[0], { f0: "a", f1: "a" });
  assert.equal(action(lines(3)).input_example, undefined);
  // Values that need no pattern do not count.
  const three = lines(3);
  const integers = { f0: { type: "integer" }, f1: { type: "integer" }, f2: { type: "integer" } };
  const plain = action({ ...three, items: { ...three.items, properties: integers } });
  assert.equal((plain.input_example as unknown[]).length, 100);
});
