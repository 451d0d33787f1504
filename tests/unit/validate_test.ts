/**
 * Unit tests of bridge/input/validate.ts beyond what an input is accepted as
 * (tests/unit/input_test.ts, typed_input_test.ts): the bounds a patterned value is checked within
 * (alone and together with the object's other patterned fields, at exactly the budget and one
 * past it), the cache of validators, and every hint an agent reads, word for word, for each kind
 * of wrong value.
 *
 * @module
 */
import assert from "node:assert/strict";
import { inputHint, inputValidator, validateInput } from "../../bridge/input/validate.ts";
import { compilePattern } from "../../bridge/input/pattern_cache.ts";
import { PATTERN_BUDGET, PatternError } from "../../bridge/input/pattern.ts";
import type { ActionSpec } from "../../bridge/input/action_spec.ts";
import type { InputSchema } from "../../bridge/wire/schemas.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";

/** An action of `schema` with `example`. */
function action(schema: unknown, example: unknown = "x"): ActionSpec {
  return {
    id: "act",
    description: "An action",
    input_schema: schema,
    input_example: example,
    consequential: false,
    protected: false,
  } as ActionSpec;
}

/** The hint validateInput() refuses `input` with, checking the rest of the error on the way. */
function hint(schema: unknown, input: unknown, example: unknown = "x"): string {
  try {
    validateInput(action(schema, example), input);
  } catch (error) {
    assert.ok(error instanceof AimError, String(error));
    assert.equal(error.code, "invalid_input");
    const details = error.details as { hint: string; actionId: string };
    assert.equal(details.actionId, "act");
    assert.equal(
      error.message,
      `Input for "act" does not match its input_schema: ${details.hint}.`,
    );
    return details.hint;
  }
  assert.fail(`accepted ${JSON.stringify(input)}`);
}

const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

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
  assert.equal(validateInput(action(schema), "b".repeat(max)), "b".repeat(max));
  assert.equal(
    hint(schema, "b".repeat(max + 1)),
    `input: must be at most ${max} characters long to be checked against its pattern ` +
      `(it has ${max + 1})`,
  );
  assert.equal(hint({ type: "string", pattern: "^b$" }, "c"), "input: must match the pattern ^b$");
  assert.equal(
    hint({ type: "string", enum: ["on", "off"] }, "up"),
    'input: must be one of ["on","off"]',
  );
});

Deno.test("patterned fields are checked together within the budget: exactly the budget passes, one character more does not", () => {
  const max = compilePattern(CHEAP).maxInput;
  const schema = object({
    a: { type: "string", pattern: CHEAP },
    b: { type: "string", pattern: CHEAP },
    c: { type: "string" },
    n: { type: "integer" },
  });
  const half = max / 2;
  const fits = { a: "a".repeat(half), b: "a".repeat(half), c: "c".repeat(max) };
  assert.deepEqual(validateInput(action(schema, {}), fits), fits);
  assert.equal(
    hint(schema, { ...fits, b: "a".repeat(half + 1) }, {}),
    'input: the fields "a", "b" are too long to be checked against their patterns together; ' +
      "send shorter values",
  );
  // Only the patterned fields count, and only strings.
  assert.deepEqual(validateInput(action(schema, {}), { a: "a".repeat(max), c: "c".repeat(max) }), {
    a: "a".repeat(max),
    c: "c".repeat(max),
  });
  assert.equal(
    hint(schema, { a: "a".repeat(max), b: 5 }, {}),
    'field "b" must be a string, not a number',
  );
  // A value that is not an object is refused as such, with several patterned fields too.
  for (const input of [null, [], "a", 5]) {
    assert.match(hint(schema, input, {}), /^input must be an object with the fields /);
  }
});

Deno.test("an object's one patterned field is bounded by its own pattern alone", () => {
  const max = compilePattern(CHEAP).maxInput;
  const schema = object({ a: { type: "string", pattern: CHEAP }, b: { type: "string" } });
  const value = { a: "a".repeat(max), b: "b".repeat(max * 2) };
  assert.deepEqual(validateInput(action(schema, {}), value), value);
});

Deno.test("a validator is made once per schema, refusing a pattern the bridge cannot run at once", () => {
  const schema = { type: "string", maxLength: 7 } as InputSchema;
  const validator = inputValidator(schema);
  assert.equal(inputValidator(structuredClone(schema)), validator);
  assert.throws(
    () => inputValidator({ type: "string", pattern: "(?=a)" } as InputSchema),
    PatternError,
  );
  assert.throws(
    () => inputValidator(object({ a: { type: "string", pattern: "(a)\\1" } }) as InputSchema),
    PatternError,
  );
});

Deno.test("the validators kept are the last 2,000 schemas made", () => {
  const schema = (tag: string, i: number) =>
    ({ type: "string", maxLength: i, description: tag }) as InputSchema;
  const fill = Array.from({ length: 2000 }, (_, i) => inputValidator(schema("fill", i)));
  // Full of these 2,000 now, oldest first; a lookup changes no order.
  assert.equal(inputValidator(schema("fill", 0)), fill[0]);
  assert.equal(inputValidator(schema("fill", 1999)), fill[1999]);
  inputValidator(schema("next", 0));
  assert.notEqual(inputValidator(schema("fill", 0)), fill[0], "the oldest made way");
  assert.equal(inputValidator(schema("fill", 1999)), fill[1999]);
});

Deno.test("a value of the wrong type gets a hint that names the type it has, and what to send where that is clear", () => {
  const cases: [string, unknown, string][] = [
    ["string", 5, "input must be a string, not a number"],
    ["string", null, "input must be a string, not null"],
    ["string", [], "input must be a string, not an array"],
    ["string", undefined, "input must be a string, not missing"],
    ["string", true, "input must be a string, not a boolean"],
    ["number", "3", 'input must be a number, not a string: send 3, not "3"'],
    ["number", "1e3", 'input must be a number, not a string: send 1000, not "1e3"'],
    ["number", " ", "input must be a number, not a string"],
    ["number", "", "input must be a number, not a string"],
    ["number", "abc", "input must be a number, not a string"],
    ["number", "Infinity", "input must be a number, not a string"],
    ["number", "true", "input must be a number, not a string"],
    ["integer", "false", "input must be an integer, not a string"],
    ["integer", "4", 'input must be an integer, not a string: send 4, not "4"'],
    ["integer", 1.5, "input must be an integer, not 1.5"],
    ["integer", [1], "input must be an integer, not an array"],
    ["boolean", "true", 'input must be a boolean, not a string: send true, not "true"'],
    ["boolean", "false", 'input must be a boolean, not a string: send false, not "false"'],
    ["boolean", "yes", "input must be a boolean, not a string"],
    ["boolean", "1", "input must be a boolean, not a string"],
    ["boolean", 1, "input must be a boolean, not a number"],
  ];
  for (const [type, input, expected] of cases) {
    assert.equal(
      hint({ type }, input, type === "string" ? "x" : 0),
      expected,
      `${type} ${JSON.stringify(input)}`,
    );
  }
});

Deno.test("a field of the wrong type, or missing, is named in the hint", () => {
  const schema = object(
    {
      s: { type: "string" },
      n: { type: "number" },
      i: { type: "integer" },
      b: { type: "boolean" },
    },
    ["s"],
  );
  assert.equal(hint(schema, {}, {}), 'field "s" is required');
  assert.equal(hint(schema, { s: 1 }, {}), 'field "s" must be a string, not a number');
  assert.equal(
    hint(schema, { s: "x", n: "2" }, {}),
    'field "n" must be a number, not a string: send 2, not "2"',
  );
  assert.equal(hint(schema, { s: "x", i: 2.5 }, {}), 'field "i" must be an integer, not 2.5');
  assert.equal(
    hint(schema, { s: "x", b: "true" }, {}),
    'field "b" must be a boolean, not a string: send true, not "true"',
  );
  assert.equal(hint(schema, { s: "x", b: {} }, {}), 'field "b" must be a boolean, not an object');
  assert.equal(
    hint(object({ s: { type: "string", minLength: 2 } }), { s: "x" }, {}),
    'field "s": Too small: expected string to have >=2 characters',
  );
});

Deno.test("an input that is not an object for an object schema is told the fields it should have", () => {
  assert.equal(
    hint(object({ a: { type: "string" }, b: { type: "string" } }), "x", {}),
    "input must be an object with the string fields a, b, not a string",
  );
  assert.equal(
    hint(
      object({ a: { type: "string" }, n: { type: "integer" }, f: { type: "boolean" } }),
      [1],
      {},
    ),
    "input must be an object with the fields a (a string), n (an integer), f (a boolean), not an array",
  );
  assert.equal(
    hint(object({}), null, {}),
    "input must be an object with the string fields (none), not null",
  );
  assert.equal(
    hint(object({ n: { type: "number" } }), 3, {}),
    "input must be an object with the fields n (a number), not a number",
  );
});

Deno.test("an unknown field is named with the fields allowed", () => {
  assert.equal(
    hint(object({ a: { type: "string" }, b: { type: "string" } }), { c: "x", d: "y" }, {}),
    'unknown field "c", "d"; allowed fields: a, b',
  );
  assert.equal(hint(object({}), { c: "x" }, {}), 'unknown field "c"; allowed fields: (none)');
});

Deno.test("an input wrapped in an object is told to send the value itself, never a secret's", () => {
  assert.equal(
    hint({ type: "string" }, { value: "x" }, "ex"),
    'input must be the string itself, not an object: send "input": "x"',
  );
  assert.equal(
    hint({ type: "integer" }, { pin: 1234, other: "x" }, 7),
    'input must be the integer itself, not an object: send "input": 7',
  );
  assert.equal(
    hint({ type: "boolean" }, { on: "yes", flag: false }, true),
    'input must be the boolean itself, not an object: send "input": false',
  );
  assert.equal(
    hint({ type: "number" }, { n: "3" }, 2),
    'input must be the number itself, not an object: send "input": 2',
  );
  // Without an example, an ellipsis.
  assert.equal(
    inputHint({ type: "string" } as InputSchema, { password: "hunter2" }, []),
    'input must be the string itself, not an object: send "input": "…"',
  );
});

Deno.test("a hint without an issue to read says only that the input does not match", () => {
  assert.equal(
    inputHint({ type: "string" } as InputSchema, "x", []),
    "input does not match input_schema",
  );
  assert.equal(
    inputHint(object({ a: { type: "string" } }) as InputSchema, { a: "x" }, []),
    "input does not match input_schema",
  );
  // A value of the wrong type is told so, issue or not.
  assert.equal(
    inputHint({ type: "string" } as InputSchema, 5, []),
    "input must be a string, not a number",
  );
});
