/**
 * Table-driven tests of bridge/wire/webmcp_tools.ts over every list it keeps (the keywords that
 * only annotate, the keywords that hold schemas, the names a field or a keyword may not take, the
 * reserved tool names) and every sentence it says when it refuses a tool,
 * word for word: the page's author reads them in the console, and
 * `deno task mutate bridge/wire/webmcp_tools.ts` holds each. What the page leaves to the bridge
 * (any other keyword, its bounds) is refused by the bridge in its own words, tested here too, so
 * that a tool the page maps is never one the bridge takes otherwise than the tool says. A tool's
 * other fields, its hints and its runs' answers are tests/unit/webmcp_tool_fields_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  actionOfTool,
  FORBIDDEN_NAMES,
  inputSchemaOfTool,
} from "../../bridge/wire/webmcp_tools.ts";
import { parseActionSpec } from "../../bridge/input/action_spec.ts";
import { FieldName, FORBIDDEN_KEYS } from "../../bridge/wire/input_schema.ts";
import { mapped, one } from "../helpers/webmcp_tool.ts";

/** Why the page refuses the tool `t` of `inputSchema`. */
function refused(inputSchema: unknown): string {
  const result = actionOfTool({ name: "t", description: "T", inputSchema });
  assert.ok(!result.ok, JSON.stringify(inputSchema));
  return result.problem;
}

/** What the bridge says of the tool `t` of `inputSchema`, which the page maps. */
function bridgeRefusal(inputSchema: unknown): string {
  const action = mapped(inputSchema);
  try {
    parseActionSpec(action);
  } catch (error) {
    return (error as Error).message;
  }
  assert.fail(`the bridge took ${JSON.stringify(inputSchema)}`);
}

/** Every keyword that only annotates, which the mapping leaves out wherever it is. */
const ANNOTATIONS = [
  "title",
  "$schema",
  "$id",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentMediaType",
  "contentEncoding",
];

Deno.test("every keyword that only annotates is left out, of the whole schema and of a schema at each place one can be", () => {
  for (const keyword of ANNOTATIONS) {
    const a = { type: "string", [keyword]: "x" };
    // A title stands for a missing description.
    const out = keyword === "title" ? { type: "string", description: "x" } : { type: "string" };
    assert.deepEqual(
      inputSchemaOfTool({
        type: "object",
        [keyword]: "x",
        properties: { a, list: { type: "array", items: a } },
        additionalProperties: a,
        anyOf: [a],
        oneOf: [{ ...a }],
      }),
      {
        type: "object",
        ...(keyword === "title" && { description: "x" }),
        properties: { a: out, list: { type: "array", items: out } },
        additionalProperties: out,
        anyOf: [out],
        oneOf: [out],
      },
      keyword,
    );
  }
  // What carries meaning for an agent or for the bridge's example is kept.
  const kept = { type: "string", description: "d", default: "x", examples: ["y"], format: "email" };
  assert.deepEqual(mapped(one(kept)).input_schema.properties, { a: kept });
});

Deno.test("any other keyword is kept as it is, for the bridge to check: taken or refused by name", () => {
  const kept: Record<string, unknown>[] = [
    { type: "string", minLength: 1, maxLength: 5, pattern: "^a", enum: ["a"], const: "a" },
    { type: ["number", "null"], minimum: -1.5, maximum: 2.5, exclusiveMinimum: -2 },
    { type: "integer", exclusiveMaximum: 3, multipleOf: 2 },
    { type: "array", items: { type: "boolean" }, minItems: 1, maxItems: 2, uniqueItems: true },
    { type: "object", properties: {}, minProperties: 0, maxProperties: 1, required: [] },
    { anyOf: [{ type: "string" }, { type: "null" }] },
  ];
  for (const field of kept) {
    const expected = { ...field };
    // An empty required list says nothing, and is left out.
    if (Array.isArray(field.required)) delete expected.required;
    assert.deepEqual(mapped(one(field)).input_schema.properties, { a: expected });
  }
  const refusals: [unknown, string][] = [
    [{ not: {} }, 'input_schema.properties.a: Unrecognized key: "not"'],
    [{ allOf: [] }, 'input_schema.properties.a: Unrecognized key: "allOf"'],
    [{ $ref: "#" }, 'input_schema.properties.a: Unrecognized key: "$ref"'],
    [{ nullable: true }, 'input_schema.properties.a: Unrecognized key: "nullable"'],
    [
      { type: "date" },
      "input_schema.properties.a.type: type must be one of string, number, integer, boolean, " +
      "null, object, array, or a list of them",
    ],
    [
      { type: "string", minLength: "1" },
      "input_schema.properties.a.minLength: Invalid input: expected number, received string",
    ],
    [
      { type: "number", minimum: Infinity },
      "input_schema.properties.a.minimum: Invalid input: expected number, received Infinity",
    ],
    [
      { type: "string", enum: [] },
      "input_schema.properties.a.enum: Too small: expected array to have >=1 items",
    ],
    [
      { type: "string", pattern: "(" },
      "input_schema.properties.a.pattern: pattern is not a valid regular expression",
    ],
  ];
  for (const [field, problem] of refusals) {
    assert.equal(
      bridgeRefusal(one(field)),
      `action "t" is not valid: ${problem}`,
      JSON.stringify(field),
    );
  }
  // A pattern RE2 cannot run is refused by the bridge, which never runs a backtracking one.
  assert.equal(
    bridgeRefusal(one({ type: "string", pattern: "(a)\\1" })),
    'action "t": input_schema.properties.a.pattern "(a)\\\\1" uses a backreference "\\1", and ' +
      "the bridge matches patterns with RE2, in linear time, which has no backreferences",
  );
});

Deno.test("a schema that is no schema is refused with a sentence that says where, at each place one can be", () => {
  const cases: [unknown, string][] = [
    [one(true), 'field "a" is not a schema'],
    [one(null), 'field "a" is not a schema'],
    [one([]), 'field "a" is not a schema'],
    [one({ anyOf: [{}, "x"] }), 'field "a".anyOf[1] is not a schema'],
    [one({ oneOf: [null] }), 'field "a".oneOf[0] is not a schema'],
    [
      one({ type: "object", properties: { b: { type: "array", items: { anyOf: [1] } } } }),
      'field "b".items.anyOf[0] is not a schema',
    ],
    [
      { type: "object", additionalProperties: { anyOf: [false] } },
      "its inputSchema.additionalProperties.anyOf[0] is not a schema",
    ],
    [{ type: "object", anyOf: [{}, 1] }, "its inputSchema.anyOf[1] is not a schema"],
    [
      one({ type: "object", properties: { b: { type: "object", properties: { c: 1 } } } }),
      'field "c" is not a schema',
    ],
  ];
  for (const [schema, problem] of cases) {
    assert.equal(inputSchemaOfTool(schema), problem, JSON.stringify(schema));
    assert.equal(refused(schema), `tool "t": ${problem}`, JSON.stringify(schema));
  }
  // What items and additionalProperties hold when they are no schema (false, a list) stays, for
  // the bridge to read or refuse.
  assert.deepEqual(inputSchemaOfTool({ type: "object", additionalProperties: false }), {
    type: "object",
    properties: {},
    additionalProperties: false,
  });
  for (const items of [5, [{}], "x"]) {
    assert.deepEqual(mapped(one({ type: "array", items })).input_schema.properties, {
      a: { type: "array", items },
    });
    assert.match(
      bridgeRefusal(one({ type: "array", items })),
      /^action "t" is not valid: input_schema\.properties\.a\.items: /,
    );
  }
});

Deno.test("the whole schema is refused with a sentence that says why, or maps to an object schema", () => {
  const cases: [unknown, string][] = [
    [{ type: "string" }, "its inputSchema is not an object schema"],
    [{ type: ["object"] }, "its inputSchema is not an object schema"],
    [{ type: "array" }, "its inputSchema is not an object schema"],
    [[], "its inputSchema is not an object schema"],
    [5, "its inputSchema is not an object schema"],
    [true, "its inputSchema is not an object schema"],
    ["[1]", "its inputSchema is not an object schema"],
    ['"x"', "its inputSchema is not an object schema"],
    ["{not json", "its inputSchema is not JSON"],
    ["", "its inputSchema is not JSON"],
  ];
  for (const [schema, problem] of cases) {
    assert.equal(inputSchemaOfTool(schema), problem, JSON.stringify(schema));
    assert.equal(refused(schema), `tool "t": ${problem}`, JSON.stringify(schema));
  }
  const empty = { type: "object", properties: {} };
  for (const none of [undefined, null, {}, "{}", { type: "object" }, '{"type":"object"}']) {
    assert.deepEqual(inputSchemaOfTool(none), empty, JSON.stringify(none));
  }
  // A schema's own properties, type and description win over the defaults.
  assert.deepEqual(inputSchemaOfTool({ description: " Things ", properties: { a: {} } }), {
    type: "object",
    properties: { a: {} },
    description: "Things",
  });
  // JSON text is read as the schema it holds.
  assert.deepEqual(
    inputSchemaOfTool(JSON.stringify(one({ type: "integer" }))),
    one({ type: "integer" }),
  );
  // Required fields are kept once each, in order; an empty list is left out.
  assert.deepEqual(inputSchemaOfTool({ ...one({}), required: ["a", "a"] }), {
    ...one({}),
    required: ["a"],
  });
  assert.deepEqual(inputSchemaOfTool({ ...one({}), required: [] }), one({}));
  // A required that is no list is the bridge's to refuse.
  assert.equal(
    bridgeRefusal({ ...one({}), required: "a" }),
    'action "t" is not valid: input_schema.required: Invalid input: expected array, received string',
  );
  // The bridge closes the objects the tool does not open.
  const spec = parseActionSpec(mapped({
    type: "object",
    properties: {
      f: { type: "object", properties: {} },
      o: { type: "object", additionalProperties: true },
    },
  }));
  assert.deepEqual(spec.input_schema, {
    type: "object",
    properties: {
      f: { type: "object", properties: {}, additionalProperties: false },
      o: { type: "object", additionalProperties: true },
    },
    additionalProperties: false,
  });
});

Deno.test("a schema may nest 16 levels in the page, not 17; the bridge takes 8", () => {
  /** An object schema nested `levels` deep, the root included, through `properties.a`. */
  const nested = (levels: number): Record<string, unknown> => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 1; i < levels; i++) schema = { type: "object", properties: { a: schema } };
    return schema;
  };
  assert.equal(typeof inputSchemaOfTool(nested(16)), "object");
  assert.equal(inputSchemaOfTool(nested(17)), 'field "a" nests schemas too deep');
  assert.equal(refused(nested(17)), 'tool "t": field "a" nests schemas too deep');
  // Through items and anyOf, each a level.
  let list: unknown = { type: "string" };
  for (let i = 1; i < 17; i++) list = i % 2 ? { type: "array", items: list } : { anyOf: [list] };
  assert.equal(
    inputSchemaOfTool(one(list)),
    `field "a"${".anyOf[0].items".repeat(7)}.anyOf[0] nests schemas too deep`,
  );
  assert.equal(parseActionSpec(mapped(nested(8))).id, "t");
  assert.equal(
    bridgeRefusal(nested(9)),
    'action "t" is not valid: input_schema: The schema is too large: it nests schemas more than ' +
      "8 levels deep (at properties.a.properties.a.properties.a.properties.a.properties.a." +
      "properties.a.properties.a.properties.a)",
  );
});

Deno.test("a field may not take a name that reaches an object's prototype, nor one no action takes, at any level", () => {
  // The page's list is the bridge's.
  assert.deepEqual([...FORBIDDEN_NAMES].sort(), [...FORBIDDEN_KEYS].sort());
  const long = `-${"x".repeat(100)}`;
  const names = [...FORBIDDEN_NAMES, "a b", "1a", "", "é", "a".repeat(65), long];
  for (const name of names) {
    const problem = `its field name "${name.slice(0, 80)}" is not one aim takes`;
    // JSON.parse makes "__proto__" an own key, as a page's JSON schema would.
    const field = JSON.stringify({ [name]: { type: "string" } });
    const top = JSON.parse(`{"type":"object","properties":${field}}`);
    const inner = JSON.parse(
      `{"type":"object","properties":{"f":{"type":"array","items":{"properties":${field}}}}}`,
    );
    for (const schema of [top, inner]) {
      assert.equal(inputSchemaOfTool(schema), problem, name);
      assert.equal(refused(schema), `tool "t": ${problem}`, name);
    }
  }
  // The longest name and the odd characters a field name may have are taken.
  for (const name of ["_", "a".repeat(64), "A.b-c_9", "Constructor", "__proto"]) {
    assert.deepEqual(mapped(JSON.parse(`{"properties":{"${name}":{}}}`)).input_schema, {
      type: "object",
      properties: { [name]: {} },
    });
  }
});

Deno.test("the page takes exactly the field names the bridge takes", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ maxLength: 70 }),
        fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,66}$/),
        fc.constantFrom(...FORBIDDEN_NAMES),
      ),
      (name) => {
        const schema = JSON.parse(
          `{"type":"object","properties":${JSON.stringify({ [name]: {} })}}`,
        );
        const page = typeof inputSchemaOfTool(schema) === "object";
        assert.equal(page, FieldName.safeParse(name).success, JSON.stringify(name));
      },
    ),
  );
});

Deno.test('a keyword named like a prototype\'s property is refused, never copied as "__proto__" would be', () => {
  for (const key of FORBIDDEN_NAMES) {
    const problem = `its inputSchema uses "${key}", which is no keyword`;
    const schema = JSON.parse(`{"type":"object","${key}":{"additionalProperties":true}}`);
    assert.equal(inputSchemaOfTool(schema), problem, key);
    const field = JSON.parse(`{"type":"object","properties":{"a":{"${key}":{}}}}`);
    assert.equal(inputSchemaOfTool(field), `field "a" uses "${key}", which is no keyword`, key);
  }
});

Deno.test("only an anyOf of string consts becomes an enum, and only a list of examples is cut to eight", () => {
  const consts = [{ const: "a" }, { const: "b" }];
  const nine = Array.from({ length: 9 }, (_, i) => `v${i}`);
  const kept = [
    { oneOf: consts },
    { allOf: consts },
    { type: "string", enum: nine },
    { type: "string", pattern: "^[a-z]{1,12}$" },
    { type: "array", items: { type: "string" }, minItems: 1 },
  ];
  for (const schema of kept) {
    assert.deepEqual(mapped(one(schema)).input_schema.properties, { a: schema });
  }
  assert.deepEqual(mapped(one({ type: "string", examples: nine })).input_schema.properties, {
    a: { type: "string", examples: nine.slice(0, 8) },
  });
});

Deno.test("a select's anyOf becomes an enum only when it is of string consts, not said to be numbers", () => {
  const consts = [{ const: "a", title: "A" }, { type: "string", const: "b" }];
  const enumOf = { type: "string", enum: ["a", "b"] };
  assert.deepEqual(mapped(one({ type: "string", anyOf: consts })).input_schema.properties, {
    a: enumOf,
  });
  assert.deepEqual(
    mapped(one({ type: "string", enum: ["a", "b"], anyOf: consts })).input_schema.properties,
    { a: enumOf },
  );
  // An enum that is no list is left for the bridge, which refuses it.
  assert.deepEqual(mapped(one({ enum: "x", anyOf: consts })).input_schema.properties, {
    a: { enum: ["a", "b"] },
  });
  for (const other of [["a"], ["b", "a"], ["a", "b", "c"]]) {
    assert.equal(
      inputSchemaOfTool(one({ type: "string", enum: other, anyOf: consts })),
      'field "a": its anyOf and its enum differ',
    );
  }
  assert.equal(
    inputSchemaOfTool({ type: "object", enum: [{}], anyOf: consts }),
    "its inputSchema: its anyOf and its enum differ",
  );
  // Any other anyOf stays one, mapped branch by branch (a title a branch's description).
  const kept: [unknown[], unknown[]][] = [
    [[{ const: 1 }], [{ const: 1 }]],
    [[{ const: "1", type: "number" }], [{ const: "1", type: "number" }]],
    [[...consts, { type: "string" }], [
      { const: "a", description: "A" },
      { type: "string", const: "b" },
      { type: "string" },
    ]],
    [[{ const: "a", $comment: "x" }, { type: "integer" }], [{ const: "a" }, { type: "integer" }]],
  ];
  for (const [anyOf, out] of kept) {
    assert.deepEqual(mapped(one({ anyOf })).input_schema.properties, { a: { anyOf: out } });
  }
  // An empty anyOf is the bridge's to refuse.
  assert.equal(
    bridgeRefusal(one({ anyOf: [] })),
    'action "t" is not valid: input_schema.properties.a.anyOf: Too small: expected array to ' +
      "have >=1 items",
  );
  // The bridge takes the enum's values and nothing else.
  const spec = parseActionSpec(
    mapped({ ...one({ type: "string", anyOf: consts }), required: ["a"] }),
  );
  assert.deepEqual(spec.input_example, { a: "a" });
});

Deno.test("a number's step of 1 makes it an integer, in a number or integer only; any other step stays", () => {
  for (const type of ["number", "integer"]) {
    assert.deepEqual(mapped(one({ type, multipleOf: 1 })).input_schema.properties, {
      a: { type: "integer" },
    });
    assert.deepEqual(mapped(one({ type, multipleOf: 2 })).input_schema.properties, {
      a: { type, multipleOf: 2 },
    });
    assert.deepEqual(mapped(one({ type, minimum: 1 })).input_schema.properties, {
      a: { type, minimum: 1 },
    });
  }
  for (const type of ["string", ["number"], undefined]) {
    assert.deepEqual(mapped(one({ type, multipleOf: 1 })).input_schema.properties, {
      a: { type, multipleOf: 1 },
    });
  }
});

Deno.test("at most 8 examples of a schema are kept, in order", () => {
  const examples = Array.from({ length: 12 }, (_, i) => `e${i}`);
  for (const n of [0, 1, 8, 9, 12]) {
    assert.deepEqual(
      mapped(one({ type: "string", examples: examples.slice(0, n) })).input_schema.properties,
      { a: { type: "string", examples: examples.slice(0, Math.min(n, 8)) } },
      String(n),
    );
  }
  // Not a list: the bridge's to refuse.
  assert.deepEqual(mapped(one({ examples: "e" })).input_schema.properties, {
    a: { examples: "e" },
  });
});
