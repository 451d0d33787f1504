/**
 * The bridge's check of structured inputs (bridge/input/validate.ts, schema_check.ts): one
 * table per keyword the wire takes (each row a schema, inputs it accepts, inputs it refuses),
 * every checked format, aim's bounds on inputs, and properties over generated schemas and
 * inputs: nothing but `invalid_input` ever comes out, and no check takes long.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { z } from "zod";
import { INPUT_LIMITS, inputProblem, validateInput } from "../../bridge/input/validate.ts";
import { parseActionSpec } from "../../bridge/input/action_spec.ts";
import { FORMATS } from "../../bridge/input/formats.ts";
import { MarkupError } from "../../bridge/markup/action.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { type InputSchema, InputSchemaNode } from "../../bridge/wire/input_schema.ts";
import { schemaArbitrary, valueArbitrary } from "../helpers/input_schemas.ts";

/** A schema's accepted and refused inputs. */
type Row = [schema: InputSchema, accepted: unknown[], refused: unknown[]];

/** One table per keyword of the wire's input schema (annotations accept everything). */
const KEYWORDS: Record<string, Row[]> = {
  type: [
    [{ type: "string" }, ["", "a"], [1, null, [], {}, true]],
    [{ type: "number" }, [0, -1.5, 1e21], ["1", null, true]],
    [{ type: "integer" }, [0, -3, 2 ** 60], [1.5, "1", null]],
    [{ type: "boolean" }, [true, false], ["true", 0, null]],
    [{ type: "null" }, [null], [0, "", false, "null"]],
    [{ type: "object" }, [{}, { any: 1 }], [[], null, "x"]],
    [{ type: "array" }, [[], [1, "a"]], [{}, "[]", null]],
    [{ type: ["string", "null"] }, ["a", null], [1, false, []]],
    [{ type: ["integer", "boolean"] }, [1, true], [1.5, "1", null]],
  ],
  description: [[{ type: "string", description: "A name" }, ["a"], [1]]],
  title: [[{ type: "string", title: "Name" }, ["a"], [1]]],
  default: [[{ type: "integer", default: 3 }, [1], ["3"]]],
  examples: [[{ type: "integer", examples: [3] }, [1], ["3"]]],
  enum: [
    [{ enum: ["a", 1, null, { b: [2] }] }, ["a", 1, null, { b: [2] }], ["b", 2, { b: [3] }, [1]]],
    [{ type: "string", enum: ["a", "b"] }, ["a", "b"], ["c", "A"]],
  ],
  const: [
    [{ const: { a: [1, "x"], b: null } }, [{ b: null, a: [1, "x"] }], [{ a: [1, "x"] }, null]],
    [{ const: null }, [null], [0, ""]],
  ],
  minLength: [[{ type: "string", minLength: 2 }, ["ab", "😀😀"], ["a", "😀", ""]]],
  maxLength: [[{ type: "string", maxLength: 2 }, ["", "ab", "😀😀"], ["abc", "😀😀😀"]]],
  pattern: [
    [{ type: "string", pattern: "^[1-9]:[0-5][0-9] (AM|PM)$" }, ["9:30 AM", "1:00 PM"], [
      "09:30 AM",
      "9:30",
      "9:60 AM",
    ]],
    [{ type: "string", pattern: "b" }, ["abc", "b"], ["ac", ""]],
    [{ pattern: "^a" }, ["ab", 5, null], ["ba"]],
  ],
  format: [
    [{ type: "string", format: "email" }, ["a@b.co"], ["a@", "@b.co", "a b@c.d"]],
    [{ type: "string", format: "color" }, ["anything"], [1]],
  ],
  minimum: [[{ type: "number", minimum: 1 }, [1, 2.5], [0.99, -1]]],
  maximum: [[{ type: "number", maximum: 1 }, [1, -2], [1.01]]],
  exclusiveMinimum: [[{ type: "number", exclusiveMinimum: 1 }, [1.01, 2], [1, 0]]],
  exclusiveMaximum: [[{ type: "number", exclusiveMaximum: 1 }, [0.99, -2], [1, 2]]],
  multipleOf: [
    [{ type: "number", multipleOf: 0.5 }, [1.5, 0, -2], [1.25, 0.3]],
    [{ type: "integer", multipleOf: 3 }, [0, 9, -3], [4, 1.5]],
  ],
  properties: [
    [{ type: "object", properties: { a: { type: "string" } } }, [{}, { a: "x" }], [
      { a: 1 },
      { b: 1 },
    ]],
    [
      {
        type: "object",
        properties: { a: { type: "object", properties: { b: { type: "integer" } } } },
      },
      [{ a: { b: 1 } }, { a: {} }],
      [{ a: { b: "1" } }, { a: { c: 1 } }, { a: [] }],
    ],
    // A field named like a property of every object is the input's own or absent.
    [
      {
        type: "object",
        properties: { toString: { type: "string" } } as Record<string, InputSchema>,
      },
      [{}, { toString: "x" }],
      [
        { toString: 1 },
      ],
    ],
  ],
  required: [
    [{ type: "object", properties: { a: {}, b: {} }, required: ["a"] }, [{ a: null }, {
      a: 1,
      b: 2,
    }], [
      {},
      { b: 1 },
    ]],
  ],
  additionalProperties: [
    [{ type: "object", properties: { a: {} }, additionalProperties: false }, [{ a: 1 }], [{
      b: 1,
    }]],
    [{ type: "object", properties: { a: {} }, additionalProperties: true }, [{ a: 1, b: 2 }], [[]]],
    [{ type: "object", additionalProperties: { type: "integer" } }, [{ x: 1, y: 2 }, {}], [{
      x: "1",
    }]],
  ],
  minProperties: [[{ type: "object", minProperties: 1 }, [{ a: 1 }], [{}]]],
  maxProperties: [[{ type: "object", maxProperties: 1 }, [{}, { a: 1 }], [{ a: 1, b: 2 }]]],
  items: [
    [{ type: "array", items: { enum: ["bug", "task"] } }, [[], ["bug", "task", "bug"]], [
      ["epic"],
      [1],
    ]],
    [{ type: "array", items: { type: "array", items: { type: "integer" } } }, [[[1], []]], [[[
      1.5,
    ]]]],
  ],
  minItems: [[{ type: "array", minItems: 1 }, [[1]], [[]]]],
  maxItems: [[{ type: "array", maxItems: 1 }, [[], [1]], [[1, 2]]]],
  uniqueItems: [
    [{ type: "array", uniqueItems: true }, [[1, "1", [1]], [{ a: 1 }, { a: 2 }]], [
      [1, 1],
      [{ a: 1, b: 2 }, { b: 2, a: 1 }],
    ]],
  ],
  anyOf: [
    [{ anyOf: [{ type: "string" }, { type: "integer", minimum: 1 }] }, ["a", 1], [0, null, 1.5]],
    [{ type: "object", anyOf: [{ required: ["a"] }, { required: ["b"] }] }, [{ a: 1 }, { b: 1 }], [
      {},
      [],
    ]],
  ],
  oneOf: [
    [{ oneOf: [{ type: "integer" }, { type: "number", minimum: 1 }] }, [0, 1.5], [2, "x"]],
  ],
};

/** The keywords of the wire's input schema, as zod publishes them. */
function wireKeywords(): string[] {
  const json = z.toJSONSchema(InputSchemaNode, { unrepresentable: "any" }) as {
    properties?: Record<string, unknown>;
    $defs?: Record<string, { properties?: Record<string, unknown> }>;
  };
  const own = json.properties ?? Object.values(json.$defs ?? {})[0]?.properties ?? {};
  return Object.keys(own).sort();
}

function action(input_schema: unknown): ReturnType<typeof parseActionSpec> {
  return parseActionSpec({
    id: "act",
    description: "An action",
    input_schema,
    consequential: false,
    protected: false,
  });
}

Deno.test("every keyword the wire takes has a table of what it accepts and refuses", () => {
  assert.deepEqual(Object.keys(KEYWORDS).sort(), wireKeywords());
});

for (const [keyword, rows] of Object.entries(KEYWORDS)) {
  Deno.test(`"${keyword}" accepts and refuses as JSON Schema says, on the bridge`, () => {
    for (const [schema, accepted, refused] of rows) {
      const spec = action(schema);
      for (const input of accepted) {
        assert.equal(
          inputProblem(spec.input_schema, input),
          undefined,
          `${JSON.stringify(schema)} ${JSON.stringify(input)}`,
        );
      }
      for (const input of refused) {
        let caught: unknown;
        try {
          validateInput(spec, input);
        } catch (error) {
          caught = error;
        }
        assert.ok(
          caught instanceof AimError,
          `${JSON.stringify(schema)} took ${JSON.stringify(input)}`,
        );
        assert.equal(caught.code, "invalid_input");
        assert.equal(caught.status, 400);
        assert.ok(String(caught.details.hint).length > 0);
      }
    }
  });
}

Deno.test("every checked format takes its example, refuses a near miss, and checks long strings in bounded time", () => {
  const misses: Record<string, string[]> = {
    email: ["a@", "a@-b", "a b@c.d"],
    uuid: ["00000000-0000-4000-8000-00000000000", "zzzzzzzz-0000-4000-8000-000000000000"],
    date: ["2026-02-30", "2026-1-01", "26-01-01"],
    "date-time": ["2026-01-01T00:00:00", "2026-01-01 00:00:00Z", "2026-13-01T00:00:00Z"],
    time: ["12:00", "25:00:00Z", "12:00:00+24:00"],
    ipv4: ["256.0.0.1", "1.2.3", "1.2.3.4.5"],
    ipv6: ["2001:db8:::1", "12345::1", "g::1"],
    hostname: ["-example.com", "exa mple.com", "a".repeat(254)],
    uri: ["example.com", "/relative", "http://"],
  };
  assert.deepEqual(Object.keys(misses).sort(), Object.keys(FORMATS).sort());
  for (const [name, format] of Object.entries(FORMATS)) {
    const spec = action({ type: "string", format: name });
    assert.equal(inputProblem(spec.input_schema, format.example), undefined, name);
    for (const miss of misses[name]!) {
      assert.match(
        String(inputProblem(spec.input_schema, miss)),
        /must be a valid/,
        `${name} ${miss}`,
      );
    }
    // What a backtracking matcher would take exponential time on: RE2 runs in linear time.
    for (const unit of ["a", "a.", "1:", "0.", "-a", "aa@"]) {
      const started = performance.now();
      inputProblem(spec.input_schema, unit.repeat(30_000) + "!");
      assert.ok(performance.now() - started < 1000, `${name} on ${unit}…`);
    }
  }
});

Deno.test("aim's bounds refuse inputs too deep, too long, too large, or with a prototype key", () => {
  const spec = action({});
  let deep: unknown = 1;
  for (let i = 0; i < INPUT_LIMITS.depth; i++) deep = [deep];
  assert.equal(inputProblem(spec.input_schema, deep), undefined);
  assert.match(String(inputProblem(spec.input_schema, [deep])), /more than 16 levels deep/);
  assert.equal(inputProblem(spec.input_schema, Array(INPUT_LIMITS.items).fill(0)), undefined);
  assert.match(
    String(inputProblem(spec.input_schema, { a: Array(INPUT_LIMITS.items + 1).fill(0) })),
    /^field "a" has more than 1000 items$/,
  );
  const many = Array.from({ length: 25 }, () => Array(1000).fill(0));
  assert.match(String(inputProblem(spec.input_schema, many)), /holds more than 20000 values/);
  for (const key of ["__proto__", "constructor", "prototype"]) {
    const input = JSON.parse(`{"a":[{"${key}":1}]}`);
    assert.match(String(inputProblem(spec.input_schema, input)), new RegExp(`"${key}"`));
  }
  for (const odd of [NaN, Infinity, [1, -Infinity], { a: () => 1 }, 10n, undefined]) {
    assert.match(String(inputProblem(spec.input_schema, odd)), /is not a JSON value/);
  }
});

Deno.test("any JSON against any schema is invalid_input or taken, never an exception, and fast", () => {
  let slowest = 0;
  fc.assert(
    fc.property(schemaArbitrary(), fc.oneof(valueArbitrary(), fc.jsonValue()), (schema, input) => {
      let spec: ReturnType<typeof parseActionSpec>;
      try {
        spec = action(schema);
      } catch (error) {
        // Only a schema that contradicts itself (a required field a closed object lacks…).
        assert.ok(error instanceof MarkupError, String(error));
        return;
      }
      const started = performance.now();
      try {
        assert.deepEqual(validateInput(spec, input), input);
      } catch (error) {
        assert.ok(error instanceof AimError, String(error));
        assert.equal(error.code, "invalid_input");
        assert.equal(typeof error.details.hint, "string");
      }
      slowest = Math.max(slowest, performance.now() - started);
    }),
    { numRuns: 1000 },
  );
  // A check is a walk of a small input, some milliseconds; a second would be a check that blocks
  // the bridge, whatever else the machine is running.
  assert.ok(slowest < 1000, `a check took ${slowest} ms`);
});

Deno.test("a long input against patterns and formats stays within the matching budget", () => {
  const spec = action({
    type: "array",
    items: { anyOf: [{ type: "string", pattern: "^(a+)+$" }, { type: "string", format: "email" }] },
  });
  const started = performance.now();
  const hint = inputProblem(spec.input_schema, Array(1000).fill("a".repeat(60) + "!"));
  assert.ok(performance.now() - started < 2000);
  assert.match(String(hint), /too long to be checked against their patterns together|must be/);
});

Deno.test("a string too long for its pattern is never taken, not even where a oneOf passes without it", () => {
  const big = "^(?:[ab]{900}[cd])$";
  const spec = action({ oneOf: [{ type: "string", pattern: big }, { type: "string" }] });
  // Short enough to be checked: it fails the pattern, so exactly one branch takes it.
  assert.equal(inputProblem(spec.input_schema, "a"), undefined);
  // Too long to be checked against the pattern: refused, not taken by the other branch alone.
  const long = "a".repeat(5000);
  assert.match(
    String(inputProblem(spec.input_schema, long)),
    /must be at most \d+ characters long to be checked/,
  );
});
