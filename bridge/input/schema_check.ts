/**
 * Checking a value against an `input_schema` with a kept JSON Schema validator, Ajv (draft
 * 2020-12), within aim's bounds: every `pattern` and checked `format` runs on the bridge's RE2
 * matcher (pattern_cache.ts) through Ajv's own hook for a regular expression engine, and the
 * matching one check costs is bounded in all (PATTERN_BUDGET), so that no input, however long
 * or however many strings it holds, makes a check slow. zod's `z.fromJSONSchema` is not used:
 * it runs a schema's pattern with a backtracking `RegExp`, without the `u` flag.
 *
 * @module
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import type { InputSchema } from "../wire/input_schema.ts";
import { FORMATS } from "./formats.ts";
import { PATTERN_BUDGET, PatternError } from "./pattern.ts";
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

/** What one check found. */
export interface CheckResult {
  ok: boolean;
  /** The error of Ajv that failed the check (with the schema and the value), when not ok. */
  error?: ErrorObject;
  /** A string too long for its pattern: refused before any matching. */
  tooLong?: Unchecked;
  /** The strings checked against patterns were too long together: the rest were refused. */
  exhausted?: boolean;
}

/** A compiled check of one schema. */
export type SchemaCheck = (value: unknown) => CheckResult;

/** A schema Ajv cannot compile; the message says why. */
export class SchemaCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SchemaCheckError";
  }
}

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

/**
 * Ajv's regular expression engine: a pattern compiled once for RE2 when the schema is (a
 * pattern RE2 cannot run throws), then looked up in the pattern cache at each test.
 */
const re2Engine = Object.assign(
  (source: string) => {
    compilePattern(source);
    return { test: (value: string) => matches(source, value), toString: () => source };
  },
  { code: "aimRe2" },
);

/** Each checked format as Ajv takes it: a function of the string, within the budget. */
function formatTests(): Record<string, { type: "string"; validate: (value: string) => boolean }> {
  const out: Record<string, { type: "string"; validate: (value: string) => boolean }> = {};
  for (const [name, format] of Object.entries(FORMATS)) {
    const what = `the format ${name}`;
    out[name] = {
      type: "string",
      validate: (value) => {
        if (value.length > format.maxLength) return false;
        if (format.test) return format.test(value);
        return matches(format.pattern!, (format.prefix ?? "") + value, what);
      },
    };
  }
  return out;
}

/**
 * Ajv keeps what compiled schemas use (their patterns among them) for as long as it lives:
 * a new instance after so many compilations keeps that bounded.
 */
const COMPILES_PER_INSTANCE = 500;
let ajv: Ajv2020 | undefined;
let compiles = 0;

function instance(): Ajv2020 {
  if (!ajv || compiles >= COMPILES_PER_INSTANCE) {
    ajv = new Ajv2020({
      // The wire schema (zod) decides which keywords a schema may use; Ajv checks values.
      strict: false,
      meta: false,
      validateSchema: false,
      addUsedSchema: false,
      allErrors: false,
      // A field named like a property of every object (toString) is the input's own or absent.
      ownProperties: true,
      verbose: true,
      logger: false,
      unicodeRegExp: true,
      // Compiled code left as generated: optimizing it costs more, at registration, than it
      // saves on checks of inputs this small.
      code: { regExp: re2Engine, optimize: false },
      formats: formatTests(),
    });
    compiles = 0;
  }
  compiles++;
  return ajv;
}

/** Checks by schema text: tabs register their own copies of the same few schemas. */
const compiled = new Map<string, SchemaCheck>();
const MAX_COMPILED = 2000;

/**
 * The check of `schema`, compiled once per schema text while it is cached.
 *
 * @throws {PatternError} when a pattern cannot run on RE2 (parseActionSpec refuses it first).
 * @throws {SchemaCheckError} when Ajv cannot compile the schema.
 */
export function schemaCheck(schema: InputSchema): SchemaCheck {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  const ajv = instance();
  // A copy: Ajv keys its own cache by the object, which is dropped at once.
  const own = JSON.parse(key);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(own);
  } catch (error) {
    if (error instanceof PatternError) throw error;
    throw new SchemaCheckError(error instanceof Error ? error.message : String(error));
  } finally {
    ajv.removeSchema(own);
  }
  const check: SchemaCheck = (value) => {
    budget.left = PATTERN_BUDGET;
    budget.tooLong = undefined;
    budget.out = false;
    const valid = validate(value) as boolean;
    const { tooLong, out } = budget;
    // A string that could not be matched is no match: never valid, even where a branch it
    // failed made a `oneOf` pass.
    if (valid && !tooLong && !out) return { ok: true };
    // The last: Ajv stops at the first keyword that fails, after the errors of the branches of
    // an anyOf or oneOf that failed, which come first.
    const error = validate.errors?.at(-1);
    return {
      ok: false,
      ...(error ? { error } : {}),
      ...(tooLong ? { tooLong } : {}),
      ...(out ? { exhausted: true } : {}),
    };
  };
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, check);
  return check;
}
