/**
 * The page's own check of an agent's input to one of its actions, for an agent in the browser
 * (WebMCP, elements/webmcp.ts): the keywords the bridge checks (bridge/input/validate.ts, with
 * `@cfworker/json-schema` and RE2), in a few hundred bytes, with the bridge's words for what is
 * wrong. The bridge's validator is too large for the page; a property test holds the two equal
 * on generated schemas and inputs (tests/unit/input_check_test.ts). `format` is the bridge's
 * alone, for remote agents.
 * aim's bounds on an input and the keys no input may hold are the bridge's own
 * (bridge/wire/input_bounds.ts, import-free): it travels in the lazy WebMCP chunk.
 *
 * @module
 */
import { inputBoundsProblem } from "../bridge/wire/input_bounds.ts";

/** A JSON Schema as `input_schema` is on the wire (bridge/wire/input_schema.ts). */
export interface Schema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minProperties?: number;
  maxProperties?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value === undefined) return "missing";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

const KINDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  null: "null",
  object: "an object",
  array: "an array",
};

/** What a one-value schema takes, as a noun: `string`, `integer`, `value` (several types). */
export function noun(schema: Schema): string {
  return typeof schema.type === "string" && Object.hasOwn(KINDS, schema.type)
    ? schema.type
    : "value";
}

/** A number as a whole coefficient and a power of ten, exactly as written in decimals. */
function decimal(value: number): [bigint, number] {
  const [coefficient, exponent = "0"] = Math.abs(value).toString().split("e") as [string, string?];
  const point = coefficient.indexOf(".");
  const fraction = point < 0 ? 0 : coefficient.length - point - 1;
  return [BigInt(coefficient.replace(".", "")), Number(exponent) - fraction];
}

/** Whether `value` is a multiple of `divisor` in decimals, as the bridge counts: 0.3 of 0.1. */
function isMultipleOf(value: number, divisor: number): boolean {
  if (!Number.isFinite(value)) return false;
  const [a, aExponent] = decimal(value);
  const [b, bExponent] = decimal(divisor);
  const shift = aExponent - bExponent;
  return shift >= 0
    ? (a * 10n ** BigInt(shift)) % b === 0n
    : a % (b * 10n ** BigInt(-shift)) === 0n;
}

/** `1 item`, `2 items`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** `input`, or `field "a.b[0]"`, as the bridge names a place in an input. */
function whereOf(path: (string | number)[]): string {
  if (!path.length) return "input";
  let out = "";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : out ? `.${part}` : part;
  return `field "${out}"`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `value` is of the JSON type `type`, as the bridge checks it. */
function isType(type: string, value: unknown): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isPlainObject(value);
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    default:
      return false;
  }
}

/** A JSON value as text with its objects' keys sorted: two equal values read the same. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_, v) => isPlainObject(v) ? Object.fromEntries(Object.entries(v).sort()) : v,
  );
}

/**
 * Why `value` is not a valid value of `schema` at `where`, or undefined when it is: the
 * bridge's check (bridge/input/schema_check.ts) in the keywords `input_schema` takes,
 * but for `format`, which only the bridge checks.
 */
function valueProblem(
  schema: Schema,
  value: unknown,
  path: (string | number)[] = [],
): string | undefined {
  const where = whereOf(path);
  if (path.length > 32) return `${where} nests too deep`;
  if (value === undefined) return `${where} is required`;
  const types = schema.type === undefined ? [] : [schema.type].flat();
  if (types.length && !types.some((type) => isType(type, value))) {
    const kind = types.map((t) => KINDS[t] ?? t).join(" or ");
    return typeof value === "number" && types.length === 1 && types[0] === "integer"
      ? `${where} must be an integer, not ${value}`
      : `${where} must be ${kind}, not ${describe(value)}`;
  }
  if (schema.const !== undefined && canonical(schema.const) !== canonical(value)) {
    return `${where} must be ${JSON.stringify(schema.const)}`;
  }
  if (schema.enum && !schema.enum.some((v) => canonical(v) === canonical(value))) {
    return `${where} must be one of ${JSON.stringify(schema.enum)}`;
  }
  if (typeof value === "string") {
    // In code points, as JSON Schema counts.
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) {
      return `${where} must be at least ${count(schema.minLength, "character")} long`;
    }
    if (schema.maxLength !== undefined && length > schema.maxLength) {
      return `${where} must be at most ${count(schema.maxLength, "character")} long`;
    }
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) {
      return `${where} must match the pattern ${schema.pattern}`;
    }
  }
  if (typeof value === "number") {
    const { minimum, maximum, exclusiveMinimum: above, exclusiveMaximum: below } = schema;
    if (minimum !== undefined && value < minimum) return `${where} must be at least ${minimum}`;
    if (maximum !== undefined && value > maximum) return `${where} must be at most ${maximum}`;
    if (above !== undefined && value <= above) return `${where} must be greater than ${above}`;
    if (below !== undefined && value >= below) return `${where} must be less than ${below}`;
    if (schema.multipleOf !== undefined && !isMultipleOf(value, schema.multipleOf)) {
      return `${where} must be a multiple of ${schema.multipleOf}`;
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      return `${where} must have at least ${count(schema.minItems, "item")}`;
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      return `${where} must have at most ${count(schema.maxItems, "item")}`;
    }
    if (schema.uniqueItems && new Set(value.map(canonical)).size < value.length) {
      return `${where} must not repeat an item`;
    }
    for (const [i, item] of value.entries()) {
      const problem = schema.items && valueProblem(schema.items, item, [...path, i]);
      if (problem) return problem;
    }
  }
  if (isPlainObject(value)) {
    const properties = schema.properties ?? {};
    for (const name of schema.required ?? []) {
      if (value[name] === undefined) return `${whereOf([...path, name])} is required`;
    }
    const keys = Object.keys(value);
    if (schema.minProperties !== undefined && keys.length < schema.minProperties) {
      return `${where} must have at least ${count(schema.minProperties, "field")}`;
    }
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
      return `${where} must have at most ${count(schema.maxProperties, "field")}`;
    }
    // An object that lists its fields and says nothing of others takes no others (the bridge
    // closes it so).
    const others = schema.additionalProperties ??
      (schema.properties ? false : true);
    for (const name of keys) {
      const own = Object.hasOwn(properties, name) ? properties[name] : undefined;
      if (!own && others === false) {
        return `unknown field ${whereOf([...path, name]).slice(6)}; allowed fields: ${
          Object.keys(properties).join(", ") || "(none)"
        }`;
      }
      const field = own ?? (others === true ? undefined : others);
      if (field && value[name] !== undefined) {
        const problem = valueProblem(field, value[name], [...path, name]);
        if (problem) return problem;
      }
    }
  }
  const fits = (branch: Schema) => !valueProblem(branch, value, path);
  if (schema.anyOf && !schema.anyOf.some(fits)) {
    return `${where} must match one of its schemas (anyOf)`;
  }
  if (schema.oneOf && schema.oneOf.filter(fits).length !== 1) {
    return `${where} must match exactly one of its schemas (oneOf)`;
  }
  return undefined;
}

/**
 * Why `input` does not match an action's `input_schema`, in the words of the bridge's hints
 * (bridge/input/hint.ts), or undefined when it matches.
 */
export function inputProblem(schema: Schema, input: unknown): string | undefined {
  const bounds = inputBoundsProblem(input);
  if (bounds) return `${whereOf(bounds.path)} ${bounds.problem}`;
  const types = schema.type === undefined ? [] : [schema.type].flat();
  if (types.length && !types.includes("object") && isPlainObject(input)) {
    return `input must be the ${noun(schema)} itself, not an object`;
  }
  if (schema.type === "object" && !isPlainObject(input)) {
    return `input must be an object with the fields ${
      Object.keys(schema.properties ?? {}).join(", ") || "(none)"
    }, not ${describe(input)}`;
  }
  return valueProblem(schema, input);
}
