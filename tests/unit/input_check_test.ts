/**
 * The in-page input check (elements/input_check.ts) against the bridge's: inputProblem() accepts
 * exactly the inputs validateInput() accepts, for generated flat, nested, listed and mixed
 * schemas; and the read tool's name, which WebMCP and MCP share, is reserved.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { READ_TOOL } from "../../bridge/wire/tools.ts";
import { parseActionSpec, RESERVED_TOOL_IDS } from "../../bridge/input/action_spec.ts";
import { validateInput } from "../../bridge/input/validate.ts";
import type { ActionSpec, InputSchema } from "../../bridge/wire/schemas.ts";
import { inputProblem, type Schema } from "../../elements/input_check.ts";
import { schemaArbitrary, valueArbitrary } from "../helpers/input_schemas.ts";

Deno.test("the read tool's name, which WebMCP and MCP share from bridge/wire/names.ts, is reserved", () => {
  assert.ok(RESERVED_TOOL_IDS.includes(READ_TOOL));
});

const PATTERNS = ["^[a-z]+$", "^req-[0-9]+$", "\\d", "^(?:a|bc)+$", "^\\p{Lu}", "x.y"];

const stringSchema = fc.record({
  type: fc.constant("string" as const),
  minLength: fc.option(fc.nat(4), { nil: undefined }),
  maxLength: fc.option(fc.integer({ min: 4, max: 8 }), { nil: undefined }),
  pattern: fc.option(fc.constantFrom(...PATTERNS), { nil: undefined }),
  enum: fc.option(fc.array(fc.constantFrom("a", "abc", "req-1", "X1"), { minLength: 1 }), {
    nil: undefined,
  }),
}, { requiredKeys: ["type"] });

const numberSchema = fc.record({
  type: fc.constantFrom("number" as const, "integer" as const),
  minimum: fc.option(fc.integer({ min: -5, max: 0 }), { nil: undefined }),
  maximum: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
}, { requiredKeys: ["type"] });

const fieldSchema = fc.oneof(stringSchema, numberSchema, fc.constant({ type: "boolean" as const }));

const NAMES = ["a", "b", "c"];

const objectSchema = fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), fieldSchema), {
  selector: ([name]) => name,
  maxLength: 3,
}).chain((fields) =>
  fc.subarray(fields.map(([name]) => name)).map((required) => ({
    type: "object" as const,
    properties: Object.fromEntries(fields),
    required,
    additionalProperties: false as const,
  }))
);

/** Values near what the schemas above accept and refuse, and some of any kind. */
const fieldValue = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      ...["", "a", "abc", "bcbc", "req-1", "req-", "X1", "Éa", "xzy", "x\ny", "p{Lu}", "12"],
      ...["abcdefghij", "1.5", "true"],
    ),
    weight: 6,
  },
  { arbitrary: fc.integer({ min: -7, max: 7 }), weight: 2 },
  fc.double({ min: -7, max: 7, noNaN: true }),
  fc.boolean(),
  fc.string({ maxLength: 6 }),
);

const inputValue = fc.oneof(
  { arbitrary: fieldValue, weight: 4 },
  fc.constantFrom(null, [], ["a"]),
  {
    arbitrary: fc.dictionary(
      fc.constantFrom(...NAMES, "d"),
      fc.oneof({ arbitrary: fieldValue, weight: 5 }, fc.constant(null)),
      { maxKeys: 4 },
    ),
    weight: 3,
  },
);

Deno.test("inputProblem() accepts exactly the inputs the bridge's validateInput() accepts", () => {
  fc.assert(
    fc.property(fc.oneof(fieldSchema, objectSchema), inputValue, (schema, input) => {
      // Only schemas the bridge would take (a minLength above maxLength it refuses).
      if ("minLength" in schema && (schema.minLength ?? 0) > (schema.maxLength ?? Infinity)) return;
      const spec = specOf(schema as Schema);
      let bridge = true;
      try {
        validateInput(spec, input);
      } catch {
        bridge = false;
      }
      const problem = inputProblem(schema as Schema, input);
      assert.equal(problem === undefined, bridge, `${JSON.stringify(input)}: ${problem}`);
    }),
    { numRuns: 10_000 },
  );
});

Deno.test("inputProblem() accepts exactly what the bridge accepts, for nested, listed and mixed schemas", () => {
  fc.assert(
    fc.property(
      schemaArbitrary({ formats: false }),
      // As JSON carries them: plain objects (fast-check makes some without a prototype).
      fc.oneof(valueArbitrary(), fc.jsonValue({ maxDepth: 3 })).map((v) =>
        JSON.parse(JSON.stringify(v))
      ),
      (schema, input) => {
        let spec: ActionSpec;
        try {
          spec = parseActionSpec({
            id: "act",
            description: "An action",
            input_schema: schema,
            consequential: false,
            protected: false,
          });
        } catch {
          return; // a schema the bridge refuses, which no page registers
        }
        let bridge = true;
        try {
          validateInput(spec, input);
        } catch {
          bridge = false;
        }
        const problem = inputProblem(schema as Schema, input);
        assert.equal(
          problem === undefined,
          bridge,
          `${JSON.stringify(schema)} ${JSON.stringify(input)}: ${problem}`,
        );
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("inputProblem() refuses what the bridge's bounds refuse, whatever the schema allows", () => {
  const cases: [unknown, string][] = [
    [[{ prototype: [] }], 'field "[0]" has a key named "prototype", which is not accepted'],
    [{ a: { constructor: 1 } }, 'field "a" has a key named "constructor", which is not accepted'],
    [JSON.parse('{"__proto__": 1}'), 'input has a key named "__proto__", which is not accepted'],
    [Array(1001).fill(0), "input has more than 1000 items"],
    [
      JSON.parse("[".repeat(17) + "]".repeat(17)),
      `field "${"[0]".repeat(16)}" nests arrays and objects more than 16 levels deep`,
    ],
  ];
  for (const [input, problem] of cases) {
    assert.equal(inputProblem({}, input), problem, JSON.stringify(input).slice(0, 40));
    assert.throws(() => validateInput(specOf({}), input), JSON.stringify(input).slice(0, 40));
  }
  // At the bounds, both take it.
  const deepest = JSON.parse("[".repeat(16) + "]".repeat(16));
  assert.equal(inputProblem({}, deepest), undefined);
  validateInput(specOf({}), deepest);
});

/** An action of `schema`, as the bridge holds it. */
function specOf(schema: Schema): ActionSpec {
  return {
    id: "act",
    description: "An action",
    input_schema: schema as InputSchema,
    input_example: "",
    consequential: false,
    protected: false,
    read_only: false,
  } as ActionSpec;
}
