/**
 * Unit tests of bridge/wire/webmcp_tools.ts, how a page's WebMCP tool becomes an aim action:
 * what it maps, what the bridge then accepts, what it refuses and says why, the consent rule,
 * and what a run's answer becomes. How the owner's markup shapes the tools is
 * tests/unit/webmcp_tool_markup_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseActionSpec } from "../../bridge/input/action_spec.ts";
import { validateInput } from "../../bridge/input/validate.ts";
import {
  actionOfTool,
  inputSchemaOfTool,
  isConsequentialTool,
  MAX_TOOL_BYTES,
  resultOfTool,
} from "../../bridge/wire/webmcp_tools.ts";

/** Whether the bridge's validator takes `input` for the action. */
function accepts(spec: ReturnType<typeof parseActionSpec>, input: unknown): boolean {
  try {
    validateInput(spec, input);
    return true;
  } catch {
    return false;
  }
}

Deno.test("a tool is consequential unless it says it only reads and nothing says otherwise", () => {
  assert.equal(isConsequentialTool(undefined), true);
  assert.equal(isConsequentialTool({}), true);
  assert.equal(isConsequentialTool({ readOnlyHint: false }), true);
  assert.equal(isConsequentialTool({ readOnlyHint: "true" }), true);
  assert.equal(isConsequentialTool({ readOnlyHint: true }), false);
  assert.equal(isConsequentialTool({ readOnlyHint: true, destructiveHint: true }), true);
  assert.equal(isConsequentialTool({ readOnlyHint: true, consequentialHint: true }), true);
  assert.equal(isConsequentialTool({ readOnlyHint: true }, { consequential: true }), true);
  // Markup only makes a tool safer.
  assert.equal(isConsequentialTool({}, { consequential: false }), true);
});

Deno.test("a tool maps keyword by keyword, with annotations aim does not carry left out", () => {
  const mapped = actionOfTool({
    name: "add_todo",
    description: "  Add a todo  ",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        text: { type: "string", title: "Text", minLength: 1, format: "email", default: "a@b.co" },
        when: { type: ["integer"], minimum: 0, maximum: 9, examples: [4], deprecated: true },
        kind: { type: "string", const: "todo", $comment: "fixed" },
        done: { type: "boolean", description: "Done?", readOnly: true },
      },
      required: ["text", "when", "kind", "done", "text"],
    },
    annotations: { readOnlyHint: true },
  });
  assert.ok(mapped.ok);
  assert.deepEqual(mapped.action, {
    id: "add_todo",
    description: "Add a todo",
    input_schema: {
      type: "object",
      properties: {
        text: {
          type: "string",
          description: "Text",
          minLength: 1,
          format: "email",
          default: "a@b.co",
        },
        when: { type: ["integer"], minimum: 0, maximum: 9, examples: [4] },
        kind: { type: "string", const: "todo" },
        done: { type: "boolean", description: "Done?" },
      },
      required: ["text", "when", "kind", "done"],
    },
    consequential: false,
    read_only: true,
    protected: false,
  });
  // The bridge accepts it, closes its object and makes the example from the tool's own values.
  const spec = parseActionSpec(mapped.action);
  assert.equal(spec.input_schema.additionalProperties, false);
  assert.deepEqual(spec.input_example, { text: "a@b.co", when: 4, kind: "todo", done: false });
});

Deno.test("a tool without a schema takes an empty object, and nothing else", () => {
  const mapped = actionOfTool({ name: "ping", description: "Ping" });
  assert.ok(mapped.ok);
  const spec = parseActionSpec(mapped.action);
  assert.deepEqual(spec.input_schema, {
    type: "object",
    properties: {},
    additionalProperties: false,
  });
  assert.equal(accepts(spec, {}), true);
  assert.equal(accepts(spec, { extra: 1 }), false);
});

Deno.test("Chromium's schema of a declarative form maps: a select's anyOf, a number's step", () => {
  // As Chromium 156 lists <form toolname> with a <select> and an <input type="number">.
  const schema = inputSchemaOfTool({
    type: "object",
    properties: {
      from: { type: "string", description: "Origin" },
      cls: {
        type: "string",
        anyOf: [
          { type: "string", const: "eco", title: "eco" },
          { type: "string", const: "biz", title: "biz" },
        ],
        enum: ["eco", "biz"],
      },
      n: { type: "number", multipleOf: 1 },
    },
    required: ["from"],
  });
  assert.deepEqual(schema, {
    type: "object",
    properties: {
      from: { type: "string", description: "Origin" },
      cls: { type: "string", enum: ["eco", "biz"] },
      n: { type: "integer" },
    },
    required: ["from"],
  });
  // A step that is not 1 stays a multipleOf, which the bridge checks.
  const odd = inputSchemaOfTool({
    type: "object",
    properties: { n: { type: "number", multipleOf: 0.5 } },
  });
  assert.deepEqual(odd, { type: "object", properties: { n: { type: "number", multipleOf: 0.5 } } });
  const differ = inputSchemaOfTool({
    type: "object",
    properties: { c: { type: "string", anyOf: [{ const: "a" }], enum: ["b"] } },
  });
  assert.match(differ as string, /anyOf and its enum differ/);
});

/** What the bridge makes of a tool of `inputSchema`: its action, or why it refuses it. */
function bridgeAction(inputSchema: unknown): ReturnType<typeof parseActionSpec> | string {
  const mapped = actionOfTool({ name: "tool", description: "A tool", inputSchema });
  if (!mapped.ok) return mapped.problem;
  try {
    return parseActionSpec(mapped.action);
  } catch (error) {
    return String((error as Error).message);
  }
}

Deno.test("what aim cannot check refuses the tool, saying why", () => {
  const refusals: [unknown, RegExp][] = [
    [{ type: "object", properties: { a: { allOf: [{ type: "string" }] } } }, /allOf/],
    [{ type: "object", properties: { a: { $ref: "#/$defs/b" } }, $defs: {} }, /\$ref|\$defs/],
    [{ type: "object", properties: { a: { not: { type: "string" } } } }, /not/],
    [{ type: "object", properties: { a: { type: "string", if: {}, then: {} } } }, /if/],
    [{ type: "object", patternProperties: { "^x": { type: "string" } } }, /patternProperties/],
    [{ type: "object", properties: { a: { type: "array", prefixItems: [] } } }, /prefixItems/],
    [{ type: "object", properties: { a: { type: "array", items: [{}] } } }, /items/],
    [{ type: "object", properties: { a: { type: "string", nullable: true } } }, /nullable/],
    [{ type: "object", properties: { a: { type: "date" } } }, /type/],
    [{ type: "object", properties: { a: { type: "number", multipleOf: -2 } } }, /multipleOf/],
    [{ type: "object", properties: {}, required: ["b"] }, /required/],
    [{ type: "array" }, /not an object schema/],
    [{ type: "object", properties: { "a b": { type: "string" } } }, /field name/],
    [{ type: "object", properties: { constructor: { type: "string" } } }, /field name|constructor/],
    [{ type: "object", properties: { a: 5 } }, /field "a" is not a schema/],
    ["{not json", /not JSON/],
  ];
  for (const [schema, problem] of refusals) {
    const result = bridgeAction(schema);
    assert.equal(typeof result, "string", JSON.stringify(schema));
    assert.match(result as string, problem, JSON.stringify(schema));
  }
});

Deno.test("a tool of any shape MCP and WebMCP tools use is taken, and its inputs checked", () => {
  const cases: [unknown, unknown, unknown][] = [
    [
      {
        type: "object",
        properties: { types: { type: "array", items: { enum: ["bug", "task"] } } },
      },
      { types: ["bug"] },
      { types: ["epic"] },
    ],
    [
      {
        type: "object",
        properties: { filter: { type: "object", properties: { q: { type: "string" } } } },
        required: ["filter"],
      },
      { filter: { q: "x" } },
      { filter: { q: "x", z: 1 } },
    ],
    [
      { type: "object", properties: { note: { type: ["string", "null"] } }, required: ["note"] },
      { note: null },
      { note: 3 },
    ],
    [
      { type: "object", properties: { at: { anyOf: [{ type: "string" }, { type: "integer" }] } } },
      { at: 3 },
      { at: true },
    ],
    [
      { type: "object", properties: { n: { type: "number", exclusiveMinimum: 0, multipleOf: 2 } } },
      { n: 4 },
      { n: 3 },
    ],
    [
      { type: "object", properties: { k: { oneOf: [{ const: "a" }, { const: "b" }] } } },
      { k: "b" },
      { k: "c" },
    ],
    [
      { type: "object", additionalProperties: { type: "integer" } },
      { any: 1, other: 2 },
      { any: "1" },
    ],
    [
      {
        type: "object",
        properties: { tags: { type: "array", items: { type: "string" }, uniqueItems: true } },
      },
      { tags: ["a", "b"] },
      { tags: ["a", "a"] },
    ],
  ];
  for (const [schema, good, bad] of cases) {
    const spec = bridgeAction(schema);
    assert.ok(typeof spec !== "string", `${JSON.stringify(schema)}: ${spec}`);
    assert.equal(accepts(spec, spec.input_example), true, JSON.stringify(spec.input_example));
    assert.equal(accepts(spec, good), true, JSON.stringify(good));
    assert.equal(accepts(spec, bad), false, JSON.stringify(bad));
  }
});

Deno.test("a tool is refused for its name, its description, its size or its markup", () => {
  const problem = (tool: Parameters<typeof actionOfTool>[0], markup = {}) => {
    const mapped = actionOfTool(tool, markup);
    assert.ok(!mapped.ok);
    return mapped.problem;
  };
  assert.match(problem({ name: "Search Products", description: "x" }), /not an action id/);
  assert.match(problem({ name: "x".repeat(65), description: "x" }), /not an action id/);
  assert.match(problem({ name: "nothing", description: " " }), /no description/);
  const properties = Object.fromEntries(
    Array.from(
      { length: 20 },
      (_, i) => [`f${i}`, { type: "string", description: "d".repeat(1000) }],
    ),
  );
  assert.match(
    problem({ name: "big", description: "x", inputSchema: { type: "object", properties } }),
    new RegExp(`larger than ${MAX_TOOL_BYTES} bytes`),
  );
  assert.match(problem({ name: "x", description: "x" }, { hidden: true }), /hidden/);
  // A long description is cut, not refused.
  const long = actionOfTool({ name: "long", description: "y".repeat(5000) });
  assert.ok(long.ok);
  assert.equal(long.action.description.length, 2000);
});

Deno.test("a required field with a pattern gets an example that matches it, never a refusal", () => {
  const cases: [string, string | undefined][] = [
    ["^[0-9]+$", "0"],
    ["^req-[0-9]{4}$", "req-0000"],
    // The pattern of issue 33: a time the tool refused for want of an example.
    ["^[1-9]:[0-5][0-9] (AM|PM)$", "1:00 AM"],
    ["^\\p{Lu}\\p{Ll}+$", "Aa"],
    // randexp cannot make one: the tool is offered without an example.
    ["^\\u{1F600}+$", undefined],
  ];
  for (const [pattern, value] of cases) {
    const spec = bridgeAction({
      type: "object",
      properties: { id: { type: "string", pattern } },
      required: ["id"],
    });
    assert.ok(typeof spec !== "string", `${pattern}: ${spec}`);
    assert.deepEqual(spec.input_example, value === undefined ? undefined : { id: value }, pattern);
  }
});

Deno.test("<aim-tool input-example> gives the tool's example, checked by the bridge", () => {
  const tool = {
    name: "book",
    description: "Book a time",
    inputSchema: {
      type: "object",
      properties: { time: { type: "string", pattern: "^[1-9]:[0-5][0-9] (AM|PM)$" } },
      required: ["time"],
    },
  };
  const mapped = actionOfTool(tool, { inputExample: '{"time": "9:30 AM"}' });
  assert.ok(mapped.ok);
  assert.deepEqual(parseActionSpec(mapped.action).input_example, { time: "9:30 AM" });
  const text = actionOfTool(tool, { inputExample: "9:30 AM" });
  assert.ok(!text.ok);
  assert.match(text.problem, /input-example> is not JSON/);
  const wrong = actionOfTool(tool, { inputExample: '{"time": "9:30"}' });
  assert.ok(wrong.ok);
  assert.throws(() => parseActionSpec(wrong.action), /input_example does not match/);
});

/** A flat field schema of any kind aim takes. */
const field = fc.oneof(
  fc.record({
    type: fc.constant("string"),
    minLength: fc.integer({ min: 0, max: 3 }),
    maxLength: fc.integer({ min: 3, max: 20 }),
    description: fc.string({ maxLength: 30 }),
  }, { requiredKeys: ["type"] }),
  fc.record({
    type: fc.constant("string"),
    enum: fc.array(fc.string(), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    type: fc.constantFrom("number", "integer"),
    minimum: fc.integer({ min: -5, max: 0 }),
    maximum: fc.integer({ min: 0, max: 5 }),
  }, { requiredKeys: ["type"] }),
  fc.record({ type: fc.constant("boolean"), title: fc.string() }, { requiredKeys: ["type"] }),
);

Deno.test("every tool the mapping takes is an action the bridge accepts, its example valid", () => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), field, { maxKeys: 8 }),
      fc.boolean(),
      fc.option(fc.record({ readOnlyHint: fc.boolean(), destructiveHint: fc.boolean() })),
      (properties, requireAll, annotations) => {
        const mapped = actionOfTool({
          name: "tool",
          description: "A tool",
          inputSchema: {
            type: "object",
            properties,
            ...(requireAll ? { required: Object.keys(properties) } : {}),
          },
          annotations,
        });
        assert.ok(mapped.ok, mapped.ok ? "" : mapped.problem);
        const spec = parseActionSpec(mapped.action);
        assert.equal(accepts(spec, spec.input_example), true);
        // No field the tool did not declare gets through.
        assert.equal(
          accepts(spec, { ...spec.input_example as object, zz_extra: 1 }),
          false,
        );
        assert.equal(spec.consequential, isConsequentialTool(annotations ?? undefined));
      },
    ),
  );
});

Deno.test("a run's answer is the JSON it holds, its text, or a failure with the tool's words", () => {
  assert.deepEqual(resultOfTool('{"a":1}'), { a: 1 });
  assert.equal(resultOfTool("done"), "done");
  assert.equal(resultOfTool(undefined), null);
  assert.deepEqual(resultOfTool({ content: [{ type: "text", text: "hi" }] }), {
    content: [{ type: "text", text: "hi" }],
  });
  assert.throws(
    () =>
      resultOfTool(
        JSON.stringify({ content: [{ type: "text", text: "Error: no" }], isError: true }),
      ),
    /Error: no/,
  );
});
