/**
 * The hint of an `invalid_input` answer: why an input does not fit its `input_schema`, naming
 * the field at fault (`field "filters.types[1]"`), in words an agent can act on, with the fix
 * for the commonest slips (a string wrapped in an object, "3" for 3).
 *
 * @module
 */
import { SECRET_KEY } from "../markup/secrets.ts";
import { type InputSchema, type JsonTypeName, jsonTypeOf } from "../wire/input_schema.ts";
import { FORMATS } from "./formats.ts";
import type { CheckResult, Failure } from "./schema_check.ts";

/** One step of a path into an input: a key, or an index of an array. */
export type PathPart = string | number;

/** The most values of an `enum` a hint lists. */
const MAX_LISTED = 20;

/** `input`, or `field "a.b[0]"`. */
export function where(path: readonly PathPart[]): string {
  if (!path.length) return "input";
  let out = "";
  for (const part of path) {
    out += typeof part === "number" ? `[${part}]` : out ? `.${part}` : part;
  }
  return `field "${out}"`;
}

/** What a value of each type is, in words. */
const KINDS: Record<JsonTypeName, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  null: "null",
  object: "an object",
  array: "an array",
};

/** What a value is, in words: `a string`, `an array`, `missing`. */
export function describe(value: unknown): string {
  if (value === undefined) return "missing";
  const type = jsonTypeOf(value);
  return type === "integer" ? "a number" : type ? KINDS[type] : `a ${typeof value}`;
}

/** The types a schema names, in order; empty when it names none. */
function typesOf(schema: InputSchema): JsonTypeName[] {
  return schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** What a schema's types are, in words: `a string or null`. */
export function kindOf(schema: InputSchema): string {
  const types = typesOf(schema);
  return types.length ? types.map((t) => KINDS[t]).join(" or ") : "a value";
}

/** `1 item`, `2 items`. */
function count(n: unknown, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** A JSON text shown in a hint, cut when long. */
function shown(value: unknown, max = 200): string {
  const text = JSON.stringify(value) ?? "null";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Why `value` is not of `types`, when its type is the reason. */
function wrongType(at: string, types: JsonTypeName[], value: unknown, field: boolean): string {
  // A missing field is required; a missing input is not of the type.
  if (value === undefined && field) return `${at} is required`;
  const kind = types.map((t) => KINDS[t]).join(" or ") || "a value";
  if (types.length === 1 && types[0] === "integer" && typeof value === "number") {
    return `${at} must be an integer, not ${value}`;
  }
  // "3" for 3: the commonest slip of an agent that sends every value as text.
  let send: string | undefined;
  if (typeof value === "string" && !types.includes("string")) {
    const number = value.trim() === "" ? NaN : Number(value);
    if (types.includes("boolean") && (value === "true" || value === "false")) send = value;
    else if (
      Number.isFinite(number) &&
      (types.includes("number") || (types.includes("integer") && Number.isInteger(number)))
    ) {
      send = String(number);
    }
  }
  return `${at} must be ${kind}, not ${describe(value)}` +
    (send === undefined ? "" : `: send ${send}, not ${JSON.stringify(value)}`);
}

/** Whether `value` is of one of `types` (an integer is a number too). */
function ofTypes(types: JsonTypeName[], value: unknown): boolean {
  const type = jsonTypeOf(value);
  return type !== undefined &&
    (types.includes(type) || (type === "integer" && types.includes("number")));
}

/**
 * The path of a decoded JSON Pointer, with indices where `input` has arrays, and the value
 * there.
 */
function pathOf(pointer: string[], input: unknown): { path: PathPart[]; value: unknown } {
  const path: PathPart[] = [];
  let value = input;
  for (const key of pointer) {
    const part: PathPart = Array.isArray(value) ? Number(key) : key;
    path.push(part);
    value = typeof value === "object" && value !== null && Object.hasOwn(value, part)
      ? (value as Record<PropertyKey, unknown>)[part]
      : undefined;
  }
  return { path, value };
}

/** The first pair of equal items of a list, as JSON Schema compares them. */
function repeated(list: unknown[]): [number, number] {
  const seen = new Map<string, number>();
  for (const [i, item] of list.entries()) {
    const key = JSON.stringify(
      item,
      (_, v) =>
        typeof v === "object" && v !== null && !Array.isArray(v)
          ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
          : v,
    );
    const first = seen.get(key);
    if (first !== undefined) return [first, i];
    seen.set(key, i);
  }
  return [0, 0];
}

/** Where in `input` the string `text` is first found, depth first. */
function pathOfString(input: unknown, text: string): PathPart[] {
  const stack: { value: unknown; path: PathPart[] }[] = [{ value: input, path: [] }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (next.value === text) return next.path;
    if (typeof next.value !== "object" || next.value === null) continue;
    const entries = Object.entries(next.value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, value] = entries[i]!;
      stack.push({ value, path: [...next.path, Array.isArray(next.value) ? Number(key) : key] });
    }
  }
  return [];
}

/** The fields of an object schema, in words: `the string fields a, b` or `the fields a (…)`. */
function fieldsOf(schema: InputSchema): string {
  const entries = Object.entries(schema.properties ?? {});
  if (!entries.length) return "no fields";
  return entries.every(([, field]) => field.type === "string")
    ? `the string fields ${entries.map(([name]) => name).join(", ")}`
    : `the fields ${entries.map(([name, field]) => `${name} (${kindOf(field)})`).join(", ")}`;
}

/** The branches of an `anyOf` or `oneOf`, in words: `a string, or an object with …`. */
function branchesOf(branches: InputSchema[]): string {
  return branches.slice(0, 8).map((branch) =>
    branch.const !== undefined
      ? shown(branch.const, 80)
      : branch.enum
      ? `one of ${shown(branch.enum, 80)}`
      : branch.properties
      ? `an object with ${fieldsOf(branch)}`
      : kindOf(branch)
  ).join(", or ") + (branches.length > 8 ? ", or …" : "");
}

/** The hint for the keyword that failed, at `at`, about `value`. */
function failureHint(failure: Failure, at: string, path: PathPart[], value: unknown): string {
  const schema = failure.schema;
  const object = (typeof value === "object" && value !== null ? value : {}) as object;
  switch (failure.keyword) {
    case "type":
      return wrongType(at, typesOf(schema), value, path.length > 0);
    case "required": {
      const name = (schema.required ?? []).find((field) => !Object.hasOwn(object, field)) ?? "";
      return `${where([...path, name])} is required`;
    }
    case "additionalProperties": {
      const name = Object.keys(object).find((key) => !Object.hasOwn(schema.properties ?? {}, key));
      const allowed = Object.keys(schema.properties ?? {}).join(", ") || "(none)";
      return `unknown field ${where([...path, name ?? ""]).slice(6)}; allowed fields: ${allowed}`;
    }
    case "enum": {
      const values = schema.enum ?? [];
      const listed = values.length > MAX_LISTED
        ? `${shown(values.slice(0, MAX_LISTED), 2000).slice(0, -1)}, …]`
        : shown(values, 2000);
      return `${at}: must be one of ${listed}`;
    }
    case "const":
      return `${at}: must be ${shown(schema.const)}`;
    case "pattern":
      return `${at}: must match the pattern ${schema.pattern}`;
    case "format": {
      const format = String(schema.format);
      const example = FORMATS[format]?.example;
      return `${at}: must be a valid ${format}` + (example ? ` (for example ${example})` : "");
    }
    case "minLength":
      return `${at}: must be at least ${count(schema.minLength, "character")} long`;
    case "maxLength":
      return `${at}: must be at most ${count(schema.maxLength, "character")} long`;
    case "minimum":
      return `${at}: must be at least ${schema.minimum}`;
    case "maximum":
      return `${at}: must be at most ${schema.maximum}`;
    case "exclusiveMinimum":
      return `${at}: must be greater than ${schema.exclusiveMinimum}`;
    case "exclusiveMaximum":
      return `${at}: must be less than ${schema.exclusiveMaximum}`;
    case "multipleOf":
      return `${at}: must be a multiple of ${schema.multipleOf}`;
    case "minItems":
      return `${at}: must have at least ${count(schema.minItems, "item")}`;
    case "maxItems":
      return `${at}: must have at most ${count(schema.maxItems, "item")}`;
    case "uniqueItems": {
      const [a, b] = repeated(Array.isArray(value) ? value : []);
      return `${at}: must not repeat an item (items ${a} and ${b} are equal)`;
    }
    case "minProperties":
      return `${at}: must have at least ${count(schema.minProperties, "field")}`;
    case "maxProperties":
      return `${at}: must have at most ${count(schema.maxProperties, "field")}`;
    case "anyOf":
      return `${at}: must be ${branchesOf(schema.anyOf ?? [])} (anyOf), not ${shown(value, 80)}`;
    case "oneOf":
      return `${at}: must be exactly one of ${branchesOf(schema.oneOf ?? [])} (oneOf), not ${
        shown(value, 80)
      }`;
    default:
      return `${at}: does not match input_schema`;
  }
}

/** A hint for a failed check of `input` against `schema`; `example` shows the fix when useful. */
export function inputHint(
  schema: InputSchema,
  input: unknown,
  result: CheckResult,
  example?: unknown,
): string {
  if (result.tooLong) {
    const { value, maxInput, what } = result.tooLong;
    return `${where(pathOfString(input, value))} must be at most ${maxInput} characters long ` +
      `to be checked against ${what} (it has ${value.length})`;
  }
  if (result.exhausted) {
    return "its strings are too long to be checked against their patterns together; send " +
      "shorter values";
  }
  const types = typesOf(schema);
  const isObject = typeof input === "object" && input !== null && !Array.isArray(input);
  if (types.length && !types.includes("object") && isObject) {
    // A one-value input sent as an object: the agent's own value shows the fix best, unless
    // its key says it is a secret.
    const own = Object.entries(input).find(([key, value]) =>
      !SECRET_KEY.test(key) && ofTypes(types, value)
    );
    const noun = types.length === 1 ? KINDS[types[0]!].replace(/^an? /, "") : "value";
    // The agent's own value even where it is null: only a missing one gives way.
    return `input must be the ${noun} itself, not an object: send "input": ` +
      shown(own ? own[1] : example ?? "…");
  }
  if (types.length === 1 && types[0] === "object" && !isObject) {
    return `input must be an object with ${fieldsOf(schema)}, not ${describe(input)}`;
  }
  const failure = result.failure;
  if (!failure) return "input does not match input_schema";
  const { path, value } = pathOf(failure.pointer, input);
  return failureHint(failure, where(path), path, value);
}
