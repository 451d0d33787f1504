/**
 * What an action's `input_schema` may be: a JSON Schema (draft 2020-12) made of the keywords MCP
 * and WebMCP tools use (types and type lists, `null`, nested objects, arrays, `enum`, `const`,
 * `anyOf`, `oneOf`, bounds and `format`), within aim's bounds on its depth, its size and its
 * counts. One zod schema, used by the bridge to accept a declaration and published at
 * `/__aim/schema.json`; the bridge checks inputs against an accepted schema with a JSON Schema
 * validator (bridge/input/schema_check.ts).
 *
 * @example
 * ```ts
 * import { InputSchema } from "./input_schema.ts";
 *
 * InputSchema.parse({
 *   type: "object",
 *   properties: { types: { type: "array", items: { enum: ["bug", "task"] }, uniqueItems: true } },
 *   required: ["types"],
 *   additionalProperties: false,
 * });
 * ```
 *
 * @module
 */
import { z } from "zod";

import { FORBIDDEN_KEYS } from "./input_bounds.ts";

export { FORBIDDEN_KEYS };

const FIELD_NAME_RULE = "A field name starts with a letter or '_' and has at most 64 " +
  "letters, digits, '_', '.' or '-', and is not __proto__, constructor or prototype";

/** A field name of an object input. */
export const FieldName: z.ZodType<string> = z.string().regex(
  /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/,
  "A field name starts with a letter or '_' and has at most 64 letters, digits, '_', '.' or '-'",
).refine(
  (name) => !FORBIDDEN_KEYS.has(name),
  "A field name may not be __proto__, constructor or prototype",
);

/** The JSON types a schema may name. */
export const JSON_TYPES = [
  "string",
  "number",
  "integer",
  "boolean",
  "null",
  "object",
  "array",
] as const;
/** One JSON type's name. */
export type JsonTypeName = typeof JSON_TYPES[number];

/** A JSON value: what an input, a `const`, an `enum` value or an example is. */
export type JsonValue = z.core.util.JSONType;

/** aim's bounds on one action's `input_schema` (docs/protocol.md, "Input schemas"). */
export const SCHEMA_LIMITS: {
  /** Nesting of schemas in schemas (`properties`, `items`, `anyOf`…): the root is level 1. */
  readonly depth: number;
  /** Schemas in all, the root included. */
  readonly nodes: number;
  /** Bytes of the schema as JSON. */
  readonly bytes: number;
  /** Fields of one object. */
  readonly properties: number;
  /** Values of one `enum`. */
  readonly enumValues: number;
  /** Branches of one `anyOf` or `oneOf`. */
  readonly branches: number;
  /** Values of one `examples`. */
  readonly examples: number;
} = {
  depth: 8,
  nodes: 256,
  bytes: 16 * 1024,
  properties: 100,
  enumValues: 500,
  branches: 16,
  examples: 8,
};

/** One schema of an `input_schema`, the root or any schema inside it. */
export interface InputSchema {
  /** The JSON type (or types) a value must have. */
  type?: JsonTypeName | JsonTypeName[];
  /** What the value is, for the agent. */
  description?: string;
  /** A short name for the value. */
  title?: string;
  /** The value the action assumes when none is given; only informs (the bridge sets none). */
  default?: JsonValue;
  /** Values that the schema accepts, for the agent. */
  examples?: JsonValue[];
  /** The values allowed, and no other. */
  enum?: JsonValue[];
  /** The one value allowed. */
  const?: JsonValue;
  /** A string's least length, in code points. */
  minLength?: number;
  /** A string's greatest length, in code points. */
  maxLength?: number;
  /** A regular expression a string must match (ECMAScript syntax; run on RE2). */
  pattern?: string;
  /** A string's format: `email`, `uuid`, `date-time`, `uri`… are checked, others inform. */
  format?: string;
  /** The least number allowed. */
  minimum?: number;
  /** The greatest number allowed. */
  maximum?: number;
  /** A number the value must be greater than. */
  exclusiveMinimum?: number;
  /** A number the value must be less than. */
  exclusiveMaximum?: number;
  /** A number the value must be a multiple of. */
  multipleOf?: number;
  /** An object's fields, by name, each with its schema. */
  properties?: Record<string, InputSchema>;
  /** The fields an object must have. */
  required?: string[];
  /** Whether an object may have fields it does not list (none, once it lists `properties`). */
  additionalProperties?: boolean | InputSchema;
  /** The fewest fields an object may have. */
  minProperties?: number;
  /** The most fields an object may have. */
  maxProperties?: number;
  /** The schema of every item of an array. */
  items?: InputSchema;
  /** The fewest items an array may have. */
  minItems?: number;
  /** The most items an array may have. */
  maxItems?: number;
  /** Whether an array's items must all differ. */
  uniqueItems?: boolean;
  /** Schemas of which the value must match at least one. */
  anyOf?: InputSchema[];
  /** Schemas of which the value must match exactly one. */
  oneOf?: InputSchema[];
}

/** The keywords whose value is a schema, or a list or a map of schemas. */
export const SUBSCHEMA_KEYWORDS = {
  one: ["items", "additionalProperties"],
  list: ["anyOf", "oneOf"],
  map: ["properties"],
} as const;

/** Every schema inside `schema` (not itself), with its path from it (`properties.a.items`). */
export function subschemas(schema: InputSchema): [string, InputSchema][] {
  const out: [string, InputSchema][] = [];
  for (const key of SUBSCHEMA_KEYWORDS.one) {
    const value = schema[key];
    if (typeof value === "object" && value !== null) out.push([key, value]);
  }
  for (const key of SUBSCHEMA_KEYWORDS.list) {
    (schema[key] ?? []).forEach((value, i) => out.push([`${key}.${i}`, value]));
  }
  for (const [name, value] of Object.entries(schema.properties ?? {})) {
    out.push([`properties.${name}`, value]);
  }
  return out;
}

/**
 * Every schema of `root`, itself first, each with its path from the root (`""` for the root)
 * and its level (1 for the root). Walked without recursion, and stopping past the node bound:
 * a schema is refused long before its walk could be costly.
 */
export function allSchemas(
  root: InputSchema,
  limit: number = Infinity,
): { path: string; schema: InputSchema; level: number }[] {
  const out: { path: string; schema: InputSchema; level: number }[] = [];
  const stack = [{ path: "", schema: root, level: 1 }];
  for (let next = stack.pop(); next && out.length <= limit; next = stack.pop()) {
    out.push(next);
    const inner = subschemas(next.schema);
    for (let i = inner.length - 1; i >= 0; i--) {
      const [path, schema] = inner[i]!;
      stack.push({
        path: next.path ? `${next.path}.${path}` : path,
        schema,
        level: next.level + 1,
      });
    }
  }
  return out;
}

/** Why `schema` is past aim's bounds on depth and count (SCHEMA_LIMITS), or undefined. */
export function schemaBoundsProblem(schema: InputSchema): string | undefined {
  const nodes = allSchemas(schema, SCHEMA_LIMITS.nodes);
  if (nodes.length > SCHEMA_LIMITS.nodes) {
    return `it holds more than ${SCHEMA_LIMITS.nodes} schemas`;
  }
  const deep = nodes.find((n) => n.level > SCHEMA_LIMITS.depth);
  if (deep) {
    return `it nests schemas more than ${SCHEMA_LIMITS.depth} levels deep (at ${deep.path})`;
  }
  return undefined;
}

function isRegExp(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}

const Count = z.int().min(0).max(1_000_000);
const JsonType = z.enum(JSON_TYPES);
const Json = z.json();

/** Whether the fields an object may hold are only its `properties`. */
function closed(schema: InputSchema): boolean {
  return schema.additionalProperties === undefined || schema.additionalProperties === false;
}

/** Bounds that contradict each other, and required fields a closed object cannot hold. */
function consistency(
  schema: InputSchema,
  ctx: { addIssue(issue: { code: "custom"; message: string; path?: PropertyKey[] }): void },
): void {
  const pairs = [
    ["minLength", "maxLength"],
    ["minimum", "maximum"],
    ["minItems", "maxItems"],
    ["minProperties", "maxProperties"],
  ] as const;
  for (const [low, high] of pairs) {
    const a = schema[low];
    const b = schema[high];
    if (a !== undefined && b !== undefined && a > b) {
      ctx.addIssue({ code: "custom", message: `${low} is greater than ${high}`, path: [low] });
    }
  }
  if (schema.properties && closed(schema)) {
    const missing = (schema.required ?? []).find((name) =>
      !Object.hasOwn(schema.properties!, name)
    );
    if (missing !== undefined) {
      ctx.addIssue({
        code: "custom",
        message: `Every required field must be one of the properties ("${missing}" is not)`,
        path: ["required"],
      });
    }
  }
}

/** One schema of an `input_schema`: the keywords aim checks, and a few that only annotate. */
export const InputSchemaNode: z.ZodType<InputSchema> = z.strictObject({
  type: z.union([JsonType, z.array(JsonType).min(1).max(JSON_TYPES.length)], {
    error: `type must be one of ${JSON_TYPES.join(", ")}, or a list of them`,
  }).optional(),
  description: z.string().max(2000).optional(),
  title: z.string().max(200).optional(),
  default: Json.optional(),
  examples: z.array(Json).max(SCHEMA_LIMITS.examples).optional(),
  enum: z.array(Json).min(1).max(SCHEMA_LIMITS.enumValues).optional(),
  const: Json.optional(),
  minLength: Count.optional(),
  maxLength: Count.optional(),
  pattern: z.string().max(512).refine(isRegExp, "pattern is not a valid regular expression")
    .optional(),
  format: z.string().max(64).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  exclusiveMinimum: z.number().optional(),
  exclusiveMaximum: z.number().optional(),
  multipleOf: z.number().positive().optional(),
  get properties() {
    return z.record(FieldName, InputSchemaNode, {
      error: (issue) => issue.code === "invalid_key" ? FIELD_NAME_RULE : undefined,
    }).refine(
      (p) => Object.keys(p).length <= SCHEMA_LIMITS.properties,
      `An object input has at most ${SCHEMA_LIMITS.properties} fields`,
    ).optional();
  },
  required: z.array(FieldName).max(SCHEMA_LIMITS.properties).optional(),
  get additionalProperties() {
    return z.union([z.boolean(), InputSchemaNode]).optional();
  },
  minProperties: Count.optional(),
  maxProperties: Count.optional(),
  get items() {
    return InputSchemaNode.optional();
  },
  minItems: Count.optional(),
  maxItems: Count.optional(),
  uniqueItems: z.boolean().optional(),
  get anyOf() {
    return z.array(InputSchemaNode).min(1).max(SCHEMA_LIMITS.branches).optional();
  },
  get oneOf() {
    return z.array(InputSchemaNode).min(1).max(SCHEMA_LIMITS.branches).optional();
  },
}).superRefine((schema, ctx) => consistency(schema as InputSchema, ctx)) as unknown as z.ZodType<
  InputSchema
>;

/**
 * An action's `input_schema`: one schema of {@linkcode InputSchemaNode}'s keywords, within
 * SCHEMA_LIMITS as a whole (depth, schemas in all, bytes).
 */
export const InputSchema: z.ZodType<InputSchema> = InputSchemaNode.superRefine((schema, ctx) => {
  const problem = schemaBoundsProblem(schema);
  if (problem) ctx.addIssue({ code: "custom", message: `The schema is too large: ${problem}` });
  else if (JSON.stringify(schema).length > SCHEMA_LIMITS.bytes) {
    ctx.addIssue({
      code: "custom",
      message: `The schema is too large: more than ${SCHEMA_LIMITS.bytes} bytes as JSON`,
    });
  }
}).meta({
  description:
    `A JSON Schema (draft 2020-12) of the keywords listed, at most ${SCHEMA_LIMITS.depth} ` +
    `levels deep, with at most ${SCHEMA_LIMITS.nodes} schemas and ${SCHEMA_LIMITS.bytes} bytes ` +
    "of JSON in all. An object's fields are only its properties unless additionalProperties " +
    "says otherwise.",
});

/** Whether an input is an object given as it is (MCP's arguments), not one value to wrap. */
export function isObjectSchema(schema: InputSchema): boolean {
  return schema.type === "object";
}

/** The JSON type of a value, as a schema names it (`integer` for a whole number). */
export function jsonTypeOf(value: unknown): JsonTypeName | undefined {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "number":
      return Number.isInteger(value) ? "integer" : Number.isFinite(value) ? "number" : undefined;
    case "object":
      return "object";
    default:
      return undefined;
  }
}
