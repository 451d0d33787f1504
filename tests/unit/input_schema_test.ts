/**
 * Unit tests of bridge/wire/input_schema.ts, what an `input_schema` may be: every bound of
 * SCHEMA_LIMITS and of a keyword's value at exactly the limit and one past it, every pair of
 * bounds that may contradict, the required fields of a closed object, the names a field may
 * take, the JSON types, and the walks over a schema's schemas (their order, paths and levels),
 * each refusal word for word.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  allSchemas,
  FieldName,
  FORBIDDEN_KEYS,
  InputSchema,
  InputSchemaNode,
  isObjectSchema,
  JSON_TYPES,
  jsonTypeOf,
  SCHEMA_LIMITS,
  schemaBoundsProblem,
  subschemas,
} from "../../bridge/wire/input_schema.ts";
import { firstIssue } from "../../bridge/wire/issue.ts";

/** The first issue of `schema` as `path: message`, or undefined when it is taken. */
function problem(schema: unknown): string | undefined {
  const parsed = InputSchema.safeParse(schema);
  return parsed.success ? undefined : firstIssue(parsed.error, "");
}

/** `n` string fields `f0`…. */
const fields = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: "string" }]));

/** A schema `levels` deep, the root included, through `properties.a`. */
function nested(levels: number): InputSchema {
  let schema: InputSchema = { type: "string" };
  for (let i = 1; i < levels; i++) schema = { type: "object", properties: { a: schema } };
  return schema;
}

const FIELD_RULE = "A field name starts with a letter or '_' and has at most 64 letters, " +
  "digits, '_', '.' or '-', and is not __proto__, constructor or prototype";

Deno.test("aim's bounds on a schema are the documented ones", () => {
  assert.deepEqual(SCHEMA_LIMITS, {
    depth: 8,
    nodes: 256,
    bytes: 16 * 1024,
    properties: 100,
    enumValues: 500,
    branches: 16,
    examples: 8,
  });
  assert.deepEqual([...FORBIDDEN_KEYS], ["__proto__", "constructor", "prototype"]);
  assert.deepEqual(JSON_TYPES, [
    "string",
    "number",
    "integer",
    "boolean",
    "null",
    "object",
    "array",
  ]);
});

Deno.test("a schema may nest 8 levels, not 9, through every keyword that holds schemas", () => {
  assert.equal(problem(nested(8)), undefined);
  assert.equal(
    problem(nested(9)),
    "The schema is too large: it nests schemas more than 8 levels deep (at " +
      `${Array(8).fill("properties.a").join(".")})`,
  );
  const wrappers: [(inner: InputSchema) => InputSchema, string][] = [
    [(inner) => ({ type: "array", items: inner }), "items"],
    [(inner) => ({ type: "object", additionalProperties: inner }), "additionalProperties"],
    [(inner) => ({ anyOf: [inner, {}] }), "anyOf.0"],
    [(inner) => ({ oneOf: [inner] }), "oneOf.0"],
    [(inner) => ({ type: "object", properties: { b: inner } }), "properties.b"],
  ];
  for (const [wrap, path] of wrappers) {
    let eight: InputSchema = {};
    let nine: InputSchema = {};
    for (let i = 1; i < 8; i++) eight = wrap(eight);
    for (let i = 1; i < 9; i++) nine = wrap(nine);
    assert.equal(problem(eight), undefined, path);
    assert.equal(
      problem(nine),
      "The schema is too large: it nests schemas more than 8 levels deep (at " +
        `${Array(8).fill(path).join(".")})`,
    );
  }
});

Deno.test("a schema may hold 256 schemas in all, not 257, the root counted", () => {
  // A root with 5 objects of 51 fields (1 + 5 + 255 = 261) is too many; 50 fields in the last
  // four and 51 in the first, 1 + 5 + 250 = 256, is the bound.
  const wide = (counts: number[]) => ({
    type: "object",
    properties: Object.fromEntries(
      counts.map((n, i) => [`o${i}`, { type: "object", properties: fields(n) }]),
    ),
  });
  assert.equal(problem(wide([50, 50, 50, 50, 50])), undefined);
  assert.equal(allSchemas(wide([50, 50, 50, 50, 50]) as InputSchema).length, 256);
  assert.equal(
    problem(wide([51, 50, 50, 50, 50])),
    "The schema is too large: it holds more than 256 schemas",
  );
  assert.equal(
    schemaBoundsProblem(wide([51, 50, 50, 50, 50]) as InputSchema),
    "it holds more than 256 schemas",
  );
  assert.equal(schemaBoundsProblem(wide([50, 50, 50, 50, 50]) as InputSchema), undefined);
});

Deno.test("a schema may have 16,384 bytes of JSON, not 16,385", () => {
  /** A schema of exactly `bytes` bytes as JSON: `{"enum":["vvv…"]}`. */
  const sized = (bytes: number) => ({ enum: ["v".repeat(bytes - '{"enum":[""]}'.length)] });
  assert.equal(JSON.stringify(sized(SCHEMA_LIMITS.bytes)).length, SCHEMA_LIMITS.bytes);
  assert.equal(problem(sized(SCHEMA_LIMITS.bytes)), undefined);
  assert.equal(
    problem(sized(SCHEMA_LIMITS.bytes + 1)),
    "The schema is too large: more than 16384 bytes as JSON",
  );
});

Deno.test("each keyword's own bound, at exactly the limit and one past it", () => {
  const cases: [string, (n: number) => unknown, number, string][] = [
    [
      "properties",
      (n) => ({ type: "object", properties: fields(n) }),
      100,
      "properties: An object input has at most 100 fields",
    ],
    [
      "required",
      (n) => ({ type: "object", additionalProperties: true, required: Object.keys(fields(n)) }),
      100,
      "required: Too big: expected array to have <=100 items",
    ],
    [
      "enum",
      (n) => ({ enum: Array.from({ length: n }, (_, i) => i) }),
      500,
      "enum: Too big: expected array to have <=500 items",
    ],
    [
      "anyOf",
      (n) => ({ anyOf: Array.from({ length: n }, () => ({})) }),
      16,
      "anyOf: Too big: expected array to have <=16 items",
    ],
    [
      "oneOf",
      (n) => ({ oneOf: Array.from({ length: n }, (_, i) => ({ const: i })) }),
      16,
      "oneOf: Too big: expected array to have <=16 items",
    ],
    [
      "examples",
      (n) => ({ examples: Array(n).fill(1) }),
      8,
      "examples: Too big: expected array to have <=8 items",
    ],
    [
      "description",
      (n) => ({ description: "d".repeat(n) }),
      2000,
      "description: Too big: expected string to have <=2000 characters",
    ],
    [
      "title",
      (n) => ({ title: "t".repeat(n) }),
      200,
      "title: Too big: expected string to have <=200 characters",
    ],
    [
      "pattern",
      (n) => ({ pattern: "a".repeat(n) }),
      512,
      "pattern: Too big: expected string to have <=512 characters",
    ],
    [
      "format",
      (n) => ({ format: "f".repeat(n) }),
      64,
      "format: Too big: expected string to have <=64 characters",
    ],
    [
      "maxLength",
      (n) => ({ maxLength: n }),
      1_000_000,
      "maxLength: Too big: expected number to be <=1000000",
    ],
    [
      "type",
      (n) => ({ type: [...JSON_TYPES, ...JSON_TYPES].slice(0, n) }),
      7,
      "type: type must be one of string, number, integer, boolean, null, object, array, or a " +
      "list of them",
    ],
  ];
  for (const [keyword, make, limit, refusal] of cases) {
    assert.equal(problem(make(limit)), undefined, `${keyword} at ${limit}`);
    assert.equal(problem(make(limit + 1)), refusal, `${keyword} past ${limit}`);
  }
  // Counts are whole and not below 0; lists of values and branches not empty.
  for (const keyword of ["minLength", "maxLength", "minItems", "maxItems", "minProperties"]) {
    assert.equal(problem({ [keyword]: 0 }), undefined);
    assert.equal(problem({ [keyword]: -1 }), `${keyword}: Too small: expected number to be >=0`);
    assert.equal(
      problem({ [keyword]: 1.5 }),
      `${keyword}: Invalid input: expected int, received number`,
    );
  }
  assert.equal(
    problem({ maxProperties: 1_000_001 }),
    "maxProperties: Too big: expected number to be <=1000000",
  );
  for (const keyword of ["enum", "anyOf", "oneOf"]) {
    assert.equal(
      problem({ [keyword]: [] }),
      `${keyword}: Too small: expected array to have >=1 items`,
    );
  }
  assert.equal(problem({ type: [] }), "type: Too small: expected array to have >=1 items");
  assert.equal(problem({ multipleOf: 0 }), "multipleOf: Too small: expected number to be >0");
  assert.equal(problem({ multipleOf: 0.001 }), undefined);
  assert.equal(problem({ pattern: "(" }), "pattern: pattern is not a valid regular expression");
  // Read with the u flag: an escape RegExp takes only without it is refused.
  assert.equal(problem({ pattern: "\\-" }), "pattern: pattern is not a valid regular expression");
  assert.equal(problem({ pattern: "\\u{61}" }), undefined);
  assert.equal(problem({ default: () => 1 }), "default: Invalid input");
});

Deno.test("bounds that contradict each other are refused, naming the lower; equal bounds are taken", () => {
  const pairs = [
    ["minLength", "maxLength"],
    ["minimum", "maximum"],
    ["minItems", "maxItems"],
    ["minProperties", "maxProperties"],
  ];
  for (const [low, high] of pairs) {
    assert.equal(problem({ [low!]: 2, [high!]: 2 }), undefined);
    assert.equal(problem({ [low!]: 1, [high!]: 2 }), undefined);
    assert.equal(problem({ [low!]: 3, [high!]: 2 }), `${low}: ${low} is greater than ${high}`);
    assert.equal(problem({ [low!]: 3 }), undefined);
    assert.equal(problem({ [high!]: 0 }), undefined);
    // In a schema inside another too.
    assert.equal(
      problem({ type: "array", items: { [low!]: 3, [high!]: 2 } }),
      `items.${low}: ${low} is greater than ${high}`,
    );
  }
  assert.equal(problem({ minimum: -1.5, maximum: -2 }), "minimum: minimum is greater than maximum");
});

Deno.test("a closed object's required fields must be among its properties; an open one's need not", () => {
  const refusal = 'required: Every required field must be one of the properties ("b" is not)';
  const closed = [undefined, false];
  for (const additionalProperties of closed) {
    const schema = {
      type: "object",
      properties: { a: {} },
      required: ["a", "b", "c"],
      ...(additionalProperties !== undefined && { additionalProperties }),
    };
    assert.equal(problem(schema), refusal, String(additionalProperties));
  }
  for (const additionalProperties of [true, { type: "string" }]) {
    assert.equal(
      problem({ type: "object", properties: { a: {} }, required: ["b"], additionalProperties }),
      undefined,
    );
  }
  // Without properties nothing is closed.
  assert.equal(problem({ type: "object", required: ["b"] }), undefined);
  assert.equal(problem({ type: "object", properties: { a: {} }, required: ["a"] }), undefined);
  // A field of Object.prototype's name is no property the schema has.
  assert.equal(
    problem({ type: "object", properties: { a: {} }, required: ["toString"] }),
    'required: Every required field must be one of the properties ("toString" is not)',
  );
  assert.equal(
    problem({ properties: { o: { type: "object", properties: {}, required: ["x"] } } }),
    'properties.o.required: Every required field must be one of the properties ("x" is not)',
  );
});

Deno.test("a field name takes a letter or '_', then up to 63 letters, digits, '_', '.' or '-', never a prototype's", () => {
  const taken = [
    "a",
    "_",
    "A",
    "a".repeat(64),
    "a.b-c_9",
    "_0",
    "Constructor",
    "__proto",
    "toString",
  ];
  const refused = ["", "1a", "-a", ".a", "a b", "é", "a/b", "a".repeat(65), "a\n"];
  for (const name of taken) assert.equal(FieldName.safeParse(name).success, true, name);
  for (const name of refused) {
    const parsed = FieldName.safeParse(name);
    assert.ok(!parsed.success, name);
    assert.equal(
      parsed.error.issues[0]!.message,
      "A field name starts with a letter or '_' and has at most 64 letters, digits, '_', '.' or '-'",
    );
  }
  for (const name of FORBIDDEN_KEYS) {
    const parsed = FieldName.safeParse(name);
    assert.ok(!parsed.success, name);
    assert.equal(
      parsed.error.issues[0]!.message,
      "A field name may not be __proto__, constructor or prototype",
    );
    // As a required name; as a property's name, but for "__proto__", which zod leaves out of
    // what it reads (parseActionSpec refuses it first: tests/unit/action_spec_test.ts).
    assert.equal(
      problem({ type: "object", additionalProperties: true, required: [name] }),
      "required.0: A field name may not be __proto__, constructor or prototype",
    );
    if (name === "__proto__") continue;
    const field = JSON.parse(`{"type":"object","properties":{"${name}":{}}}`);
    assert.equal(problem(field), `properties.${name}: ${FIELD_RULE}`);
  }
  assert.equal(problem({ properties: { "a b": {} } }), `properties.a b: ${FIELD_RULE}`);
});

Deno.test("only the keywords listed are taken: any other is refused by name", () => {
  for (
    const keyword of [
      "allOf",
      "not",
      "if",
      "$ref",
      "$defs",
      "patternProperties",
      "nullable",
      "prefixItems",
      "__proto__x",
    ]
  ) {
    assert.equal(problem({ [keyword]: {} }), `Unrecognized key: "${keyword}"`, keyword);
  }
  assert.equal(
    problem({ items: { type: "string", foo: 1 } }),
    'items: Unrecognized key: "foo"',
  );
  // A keyword whose value is undefined is no keyword.
  assert.equal(InputSchemaNode.safeParse({ type: "string", maxLength: undefined }).success, true);
});

Deno.test("subschemas() and allSchemas() list every schema inside one, in order, with its path and level", () => {
  const schema: InputSchema = {
    type: "object",
    properties: { a: { type: "array", items: { anyOf: [{ type: "string" }, { type: "null" }] } } },
    additionalProperties: { oneOf: [{ const: 1 }] },
    anyOf: [{ required: ["a"] }],
  };
  assert.deepEqual(subschemas(schema).map(([path]) => path), [
    "additionalProperties",
    "anyOf.0",
    "properties.a",
  ]);
  assert.deepEqual(
    subschemas({ items: {}, additionalProperties: false, oneOf: [{}, {}] }).map(
      ([path]) => path,
    ),
    ["items", "oneOf.0", "oneOf.1"],
  );
  assert.deepEqual(
    allSchemas(schema).map(({ path, level }) => [path, level]),
    [
      ["", 1],
      ["additionalProperties", 2],
      ["additionalProperties.oneOf.0", 3],
      ["anyOf.0", 2],
      ["properties.a", 2],
      ["properties.a.items", 3],
      ["properties.a.items.anyOf.0", 4],
      ["properties.a.items.anyOf.1", 4],
    ],
  );
  assert.equal(allSchemas(schema)[0]!.schema, schema);
  // The walk stops one past its limit.
  assert.equal(allSchemas(schema, 3).length, 4);
  assert.equal(allSchemas(schema, 0).length, 1);
});

Deno.test("jsonTypeOf() names a value's JSON type; isObjectSchema() only a schema of type object", () => {
  const cases: [unknown, string | undefined][] = [
    [null, "null"],
    [[], "array"],
    [{}, "object"],
    ["", "string"],
    [true, "boolean"],
    [0, "integer"],
    [-3, "integer"],
    [1.5, "number"],
    [2 ** 60, "integer"],
    [NaN, undefined],
    [Infinity, undefined],
    [undefined, undefined],
    [10n, undefined],
    [() => 1, undefined],
  ];
  for (const [value, type] of cases) assert.equal(jsonTypeOf(value), type, String(value));
  assert.equal(isObjectSchema({ type: "object" }), true);
  for (
    const schema of [{}, { type: ["object"] }, { type: ["object", "null"] }, { properties: {} }]
  ) {
    assert.equal(isObjectSchema(schema as InputSchema), false, JSON.stringify(schema));
  }
});

Deno.test("any schema of the keywords listed is taken or refused in words, never with an exception", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
      const parsed = InputSchema.safeParse(value);
      if (!parsed.success) assert.equal(typeof firstIssue(parsed.error, ""), "string");
    }),
    { numRuns: 300 },
  );
});
