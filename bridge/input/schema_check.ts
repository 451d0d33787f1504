/**
 * Checking a value against an `input_schema` with a kept JSON Schema validator,
 * `@cfworker/json-schema` (draft 2020-12), within aim's bounds. It reads a schema as it checks
 * (nothing to compile: a tab that registers many new schemas costs the bridge a walk of each, not
 * code generation), and it checks a `format` by calling the function its `format` table holds
 * for it: aim gives every `pattern` and checked `format` to that table, run on the bridge's RE2
 * matcher (pattern_cache.ts), so that no backtracking `RegExp` ever runs on agent input, and
 * charges the matching of one check to one budget (PATTERN_BUDGET). zod's `z.fromJSONSchema` is
 * not used: it runs a schema's `pattern` with a backtracking `RegExp`, without the `u` flag.
 *
 * @module
 */
import { format as formatTable, type OutputUnit, Validator } from "@cfworker/json-schema";
import type { InputSchema } from "../wire/input_schema.ts";
import { FORMATS } from "./formats.ts";
import { PATTERN_BUDGET } from "./pattern.ts";
import { compilePattern } from "./pattern_cache.ts";

/** A value a check could not match against its pattern or format, and why. */
export interface Unchecked {
  /** The string. */
  value: string;
  /** The longest value its pattern (or format) checks. */
  maxInput: number;
  /** The pattern, or the format's name. */
  what: string;
}

/** The keyword of a schema a value failed, where, and the schema that says it. */
export interface Failure {
  /** The keyword (`type`, `enum`, `pattern`, `format`, `anyOf`…). */
  keyword: string;
  /** Where the value is in the input: the JSON Pointer of the validator, decoded. */
  pointer: string[];
  /** The schema whose keyword failed. */
  schema: InputSchema;
}

/** What one check found. */
export interface CheckResult {
  ok: boolean;
  /** The keyword that failed the check, when not ok. */
  failure?: Failure;
  /** A string too long for its pattern: refused before any matching. */
  tooLong?: Unchecked;
  /** The strings checked against patterns were too long together: the rest were refused. */
  exhausted?: boolean;
}

/** A compiled check of one schema. */
export type SchemaCheck = (value: unknown) => CheckResult;

/** How a schema's `pattern` is named in the validator's `format` table (see toValidator). */
const PATTERN_FORMAT = "\u0000pattern:";

/** The matching budget of the check under way (checks are synchronous: one at a time). */
const budget = { left: PATTERN_BUDGET, tooLong: undefined as Unchecked | undefined, out: false };

/**
 * Whether `value` matches the pattern `source`, charged to the check's budget: a value longer
 * than its pattern checks, or past what the check has left, does not match (and the check is
 * refused as a whole).
 */
function matches(source: string, value: string, what = `the pattern ${source}`): boolean {
  // Looked up on each check (a cached map lookup): the pattern cache bounds its memory.
  const pattern = compilePattern(source);
  if (value.length > pattern.maxInput) {
    budget.tooLong ??= { value, maxInput: pattern.maxInput, what };
    return false;
  }
  const cost = value.length * pattern.unitCost;
  if (cost > budget.left) {
    budget.out = true;
    return false;
  }
  budget.left -= cost;
  return pattern.test(value);
}

/** The check of a format name in the validator's table: a pattern's, a checked format's, none. */
function formatCheck(name: string): ((value: string) => boolean) | undefined {
  if (name.startsWith(PATTERN_FORMAT)) {
    const source = name.slice(PATTERN_FORMAT.length);
    return (value) => matches(source, value);
  }
  const format = Object.hasOwn(FORMATS, name) ? FORMATS[name]! : undefined;
  if (!format) return undefined;
  return (value) =>
    value.length <= format.maxLength &&
    (format.test
      ? format.test(value)
      : matches(format.pattern!, (format.prefix ?? "") + value, `the format ${name}`));
}

// The validator's own format table holds backtracking expressions (its `url` is exponential on
// some input): emptied, and read through aim's checks, resolved by name as the validator asks.
for (const name of Object.keys(formatTable)) delete formatTable[name];
Object.setPrototypeOf(
  formatTable,
  new Proxy(Object.create(null), {
    get: (_, name) => typeof name === "string" ? formatCheck(name) : undefined,
  }),
);

/** Keywords that only inform: the validator never reads them. */
const ANNOTATIONS = new Set(["description", "title", "default", "examples"]);

/**
 * `schema` as the validator reads it: annotations left out, and each `pattern` and `format` a
 * format of its table (in an `allOf`, where a schema has both), so that aim's checks run them.
 */
function toValidator(schema: InputSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const formats: { format: string }[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || value === undefined) continue;
    if (key === "pattern") {
      // Compiled now: a pattern RE2 cannot run throws here, not in an agent's check.
      compilePattern(value as string);
      formats.push({ format: PATTERN_FORMAT + value });
    } else if (key === "format") formats.push({ format: value as string });
    else if (key === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, InputSchema>).map(([k, v]) => [k, toValidator(v)]),
      );
    } else if (key === "anyOf" || key === "oneOf") {
      out[key] = (value as InputSchema[]).map(toValidator);
    } else if ((key === "items" || key === "additionalProperties") && typeof value === "object") {
      out[key] = toValidator(value as InputSchema);
    } else out[key] = value;
  }
  if (formats.length) out.allOf = formats;
  return out;
}

/** Keywords whose error only says that one inside failed: the one inside says what. */
const WRAPPERS = new Set(["properties", "items", "allOf", "additionalProperties"]);

/** The schema at a JSON Pointer of `root` (the validator's `keywordLocation`, less its keyword). */
function schemaAt(root: Record<string, unknown>, location: string): Record<string, unknown> {
  let node: unknown = root;
  for (const part of location.split("/").slice(1, -1)) {
    node = (node as Record<string, unknown>)?.[decode(part)];
  }
  return (node ?? {}) as Record<string, unknown>;
}

/** A JSON Pointer segment as the validator writes it (URI-encoded, then `~1`, `~0`). */
function decode(part: string): string {
  return decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * The keyword that failed, from the validator's errors (outermost first, each wrapper before
 * what failed inside it): the first that is no wrapper, but an object's unknown field, and the
 * pattern or format that a wrapper of aim's stands for.
 */
function failureOf(root: Record<string, unknown>, errors: OutputUnit[]): Failure | undefined {
  for (const error of errors) {
    const schema = schemaAt(root, error.keywordLocation);
    const unknownField = error.keyword === "additionalProperties" &&
      schema.additionalProperties === false;
    if (WRAPPERS.has(error.keyword) && !unknownField) continue;
    const pointer = error.instanceLocation.split("/").slice(1).map(decode);
    if (error.keyword === "format" && String(schema.format).startsWith(PATTERN_FORMAT)) {
      const pattern = String(schema.format).slice(PATTERN_FORMAT.length);
      return { keyword: "pattern", pointer, schema: { type: "string", pattern } };
    }
    return { keyword: error.keyword, pointer, schema: schema as InputSchema };
  }
  return undefined;
}

/** Checks by schema text: tabs register their own copies of the same few schemas. */
const compiled = new Map<string, SchemaCheck>();
const MAX_COMPILED = 2000;

/**
 * The check of `schema`, made once per schema text while it is cached. `value` must be JSON
 * (validate.ts checks that first): the validator throws on `undefined` or a function.
 *
 * @throws {PatternError} when a pattern cannot run on RE2 (parseActionSpec refuses it first).
 */
export function schemaCheck(schema: InputSchema): SchemaCheck {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  const root = toValidator(schema);
  const validator = new Validator(root as never, "2020-12", true);
  const check: SchemaCheck = (value) => {
    budget.left = PATTERN_BUDGET;
    budget.tooLong = undefined;
    budget.out = false;
    const result = validator.validate(value);
    const { tooLong, out } = budget;
    // A string that could not be matched is no match: never valid, even where a branch it
    // failed made a `oneOf` pass.
    if (result.valid && !tooLong && !out) return { ok: true };
    const failure = failureOf(root, result.errors);
    return {
      ok: false,
      ...(failure ? { failure } : {}),
      ...(tooLong ? { tooLong } : {}),
      ...(out ? { exhausted: true } : {}),
    };
  };
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, check);
  return check;
}
