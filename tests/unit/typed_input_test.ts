/**
 * Property tests of typed inputs: number, integer and boolean fields in the wire schema
 * (bridge/wire/schemas.ts) and their exact validation (bridge/input/validate.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { validateInput } from "../../bridge/input/validate.ts";
import { type ActionSpec, parseActionSpec } from "../../bridge/input/action_spec.ts";
import { MarkupError } from "../../bridge/markup/action.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { InputSchema, publishedSchemas } from "../../bridge/wire/schemas.ts";

type FieldSchema = InputSchema;
type NumberSchema = InputSchema;

function action(input_schema: unknown, input_example: unknown): ActionSpec {
  return parseActionSpec({
    id: "act",
    description: "An action",
    input_schema,
    input_example,
    consequential: false,
    protected: false,
  });
}

/** The hint of a refusal, after checking it is a 400 `invalid_input`. */
function refusal(spec: ActionSpec, input: unknown): string {
  try {
    validateInput(spec, input);
  } catch (error) {
    assert.ok(error instanceof AimError);
    assert.equal(error.status, 400);
    assert.equal(error.code, "invalid_input");
    assert.deepEqual(error.details.input_schema, spec.input_schema);
    return error.details.hint as string;
  }
  assert.fail(`accepted ${JSON.stringify(input)}`);
}

function accepts(spec: ActionSpec, input: unknown): boolean {
  try {
    validateInput(spec, input);
    return true;
  } catch (error) {
    if (error instanceof AimError && error.code === "invalid_input") return false;
    throw error;
  }
}

/** Any JSON value, and then some values JSON cannot carry. */
const anything = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.double(),
  fc.integer(),
  fc.constantFrom(1.5, "1", "true", 0, -0, 2 ** 53, 2 ** 60, 1e21, NaN, Infinity, undefined),
);

/** Bounds with minimum ≤ maximum, each maybe absent. */
const numberSchema = fc.record({
  type: fc.constantFrom("number" as const, "integer" as const),
  a: fc.integer({ min: -50, max: 50 }),
  b: fc.integer({ min: -50, max: 50 }),
  half: fc.boolean(),
  hasMin: fc.boolean(),
  hasMax: fc.boolean(),
}).map(({ type, a, b, half, hasMin, hasMax }) => {
  const schema: NumberSchema = { type };
  // Bounds need not be whole, even for an integer field.
  if (hasMin) schema.minimum = Math.min(a, b) + (half ? 0.5 : 0);
  if (hasMax) schema.maximum = Math.max(a, b) + (half ? 0.5 : 0);
  if ((schema.minimum ?? -Infinity) > (schema.maximum ?? Infinity)) delete schema.minimum;
  return schema;
});

function exampleOf(schema: NumberSchema): number {
  const min = schema.minimum ?? -Infinity;
  const max = schema.maximum ?? Infinity;
  const value = Math.min(Math.max(0, min), max);
  return schema.type === "integer"
    ? Math.ceil(value) > max ? Math.floor(value) : Math.ceil(value)
    : value;
}

Deno.test("a number or integer input accepts exactly the numbers within its bounds", () => {
  fc.assert(
    fc.property(numberSchema, anything, (schema, value) => {
      const example = exampleOf(schema);
      // An integer field between 0.5 and 0.5 has no member: nothing to test.
      fc.pre(schema.type === "number" || Number.isInteger(example));
      fc.pre(example >= (schema.minimum ?? -Infinity) && example <= (schema.maximum ?? Infinity));
      const spec = action(schema, example);
      // JSON Schema's integer: any whole number (2 ** 60 too), as the validator says.
      const expected = typeof value === "number" && Number.isFinite(value) &&
        (schema.type === "number" || Number.isInteger(value)) &&
        value >= (schema.minimum ?? -Infinity) && value <= (schema.maximum ?? Infinity);
      assert.equal(
        accepts(spec, value),
        expected,
        `${JSON.stringify(schema)} ${Deno.inspect(value)}`,
      );
    }),
    { numRuns: 500 },
  );
});

Deno.test("a boolean input accepts true and false and nothing else", () => {
  const spec = action({ type: "boolean" }, true);
  fc.assert(
    fc.property(anything, (value) => {
      assert.equal(accepts(spec, value), typeof value === "boolean");
    }),
  );
});

Deno.test("an object of typed fields accepts each field only with its own type", () => {
  const field = fc.oneof(
    fc.constant<FieldSchema>({ type: "string" }),
    fc.constant<FieldSchema>({ type: "boolean" }),
    fc.constant<FieldSchema>({ type: "integer", minimum: 1 }),
    fc.constant<FieldSchema>({ type: "number", maximum: 10 }),
  );
  const fits = (schema: FieldSchema, value: unknown) =>
    schema.type === "string"
      ? typeof value === "string"
      : schema.type === "boolean"
      ? typeof value === "boolean"
      : typeof value === "number" &&
        (schema.type === "number" ? value <= 10 : Number.isInteger(value) && value >= 1);
  const value = fc.oneof(fc.string({ maxLength: 3 }), fc.boolean(), fc.double(), fc.integer());
  fc.assert(
    fc.property(
      fc.dictionary(fc.constantFrom("a", "b", "qty"), field, { minKeys: 1 }),
      fc.dictionary(fc.constantFrom("a", "b", "qty"), value),
      (properties, input) => {
        const schema = { type: "object", properties, required: [], additionalProperties: false };
        const spec = action(schema, {});
        const expected = Object.entries(input).every(([name, v]) =>
          Object.hasOwn(properties, name) && fits(properties[name]!, v) &&
          (typeof v !== "number" || Number.isFinite(v))
        );
        assert.equal(accepts(spec, input), expected, JSON.stringify({ properties, input }));
      },
    ),
  );
});

Deno.test('an integer field refuses 1.5 and "1" with hints that say what to send', () => {
  const spec = action({
    type: "object",
    properties: {
      qty: { type: "integer", minimum: 1 },
      price: { type: "number" },
      gift: { type: "boolean" },
    },
    required: ["qty"],
    additionalProperties: false,
  }, { qty: 1 });
  assert.equal(refusal(spec, { qty: 1.5 }), 'field "qty" must be an integer, not 1.5');
  assert.equal(
    refusal(spec, { qty: "1" }),
    'field "qty" must be an integer, not a string: send 1, not "1"',
  );
  assert.equal(
    refusal(spec, { qty: 1, price: "2.5" }),
    'field "price" must be a number, not a string: send 2.5, not "2.5"',
  );
  assert.equal(
    refusal(spec, { qty: 1, gift: "true" }),
    'field "gift" must be a boolean, not a string: send true, not "true"',
  );
  assert.equal(refusal(spec, { qty: 0 }), 'field "qty": must be at least 1');
  assert.equal(refusal(spec, {}), 'field "qty" is required');
  assert.equal(
    refusal(spec, "3"),
    "input must be an object with the fields qty (an integer), price (a number), gift " +
      "(a boolean), not a string",
  );
  const top = action({ type: "integer" }, 3);
  assert.equal(refusal(top, 3.25), "input must be an integer, not 3.25");
  assert.equal(
    refusal(top, { input: 3 }),
    'input must be the integer itself, not an object: send "input": 3',
  );
});

Deno.test("the wire schema refuses keywords it does not check and bounds that contradict", () => {
  for (
    const [schema, problem] of [
      [{ type: "number", minimum: 3, maximum: 1 }, /minimum is greater than maximum/],
      [{ type: "string", minLength: 3, maxLength: 1 }, /minLength is greater than maxLength/],
      [{ type: "array", minItems: 3, maxItems: 1 }, /minItems is greater than maxItems/],
      [{ type: "integer", minimum: "1" }, /minimum/],
      [{ type: "float" }, /type|Invalid input/],
      [{ type: "string", allOf: [{ minLength: 1 }] }, /allOf/],
      [{ $ref: "#/$defs/a" }, /\$ref/],
      [{ type: "array", items: [{ type: "string" }] }, /items/],
      [{ type: "object", properties: { a: { type: "string", if: {} } } }, /if/],
      [{ type: "number", multipleOf: 0 }, /multipleOf/],
      [{ type: "object", properties: { a: { type: "string" } }, required: ["b"] }, /required/],
    ] as const
  ) {
    assert.equal(InputSchema.safeParse(schema).success, false, JSON.stringify(schema));
    assert.throws(() => action(schema, 1), (e: unknown) => {
      assert.ok(e instanceof MarkupError);
      assert.match(e.message, problem);
      return true;
    });
  }
  // An example must fit its typed schema too.
  assert.throws(() => action({ type: "integer", minimum: 2 }, 1), /input_example does not match/);
  assert.throws(() => action({ type: "boolean" }, "true"), /input_example does not match/);
});

Deno.test("the wire schema takes nested objects, lists, type lists, null, anyOf and oneOf", () => {
  for (
    const schema of [
      { type: "object", properties: { a: { type: "object", properties: {} } } },
      { type: "object", properties: { a: { type: "array", items: { enum: ["x", 1, null] } } } },
      { type: ["string", "null"], format: "email" },
      { type: "null" },
      { anyOf: [{ type: "string" }, { type: "integer", exclusiveMinimum: 0 }] },
      { oneOf: [{ const: "a" }, { type: "boolean" }] },
      { type: "number", minLength: 1 },
      { type: "boolean", enum: [true] },
      { type: "object", additionalProperties: { type: "number" } },
    ]
  ) {
    assert.equal(InputSchema.safeParse(schema).success, true, JSON.stringify(schema));
  }
});

Deno.test("schema.json publishes number, integer and boolean field schemas", () => {
  const text = JSON.stringify(publishedSchemas());
  for (const word of ['"integer"', '"boolean"', '"minimum"', '"maximum"']) {
    assert.ok(text.includes(word), word);
  }
});
