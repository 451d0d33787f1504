/**
 * Validating an invocation's input against an action's `input_schema`, with zod,
 * and explaining a mismatch in words an agent can act on. Patterns run with RE2 (re2js), in
 * time linear in the input: see pattern.ts. Server only: the browser bundle never
 * imports this module.
 *
 * @module
 */
import { z } from "zod";
import { AimError } from "../errors/aim_error.ts";
import { SECRET_KEY } from "../markup/secrets.ts";
import type {
  ActionSpec,
  FieldSchema,
  InputSchema,
  NumberSchema,
  ObjectSchema,
  StringSchema,
} from "../wire/schemas.ts";
import { PATTERN_BUDGET } from "./pattern.ts";
import { compilePattern } from "./pattern_cache.ts";

/**
 * Validators by schema text: every tab registers its own copies of the same schemas, and one
 * validator per distinct schema keeps 10,000 sessions from holding 10,000 copies.
 */
const compiled = new Map<string, z.ZodType>();
const MAX_COMPILED = 2000;

function stringValidator(schema: StringSchema): z.ZodType<string> {
  let out = z.string();
  if (schema.minLength !== undefined) out = out.min(schema.minLength);
  if (schema.maxLength !== undefined) out = out.max(schema.maxLength);
  if (schema.pattern !== undefined) {
    const source = schema.pattern;
    compilePattern(source);
    out = out.check((ctx) => {
      // Looked up on each check (a cached map lookup): the pattern cache bounds its memory.
      const pattern = compilePattern(source);
      const value = ctx.value;
      if (value.length > pattern.maxInput) {
        // Refused before any matching: the cost of a check grows with the value's length.
        ctx.issues.push({
          code: "custom",
          input: value,
          message: `must be at most ${pattern.maxInput} characters long to be checked ` +
            `against its pattern (it has ${value.length})`,
        });
      } else if (!pattern.test(value)) {
        ctx.issues.push({
          code: "custom",
          input: value,
          message: `must match the pattern ${schema.pattern}`,
        });
      }
    });
  }
  if (schema.enum) {
    const allowed = new Set(schema.enum);
    return out.refine((v) => allowed.has(v), `must be one of ${JSON.stringify(schema.enum)}`);
  }
  return out;
}

/**
 * A number, exactly as JSON Schema says: `integer` refuses 1.5 (and any string, "1" too);
 * `minimum` and `maximum` are inclusive.
 */
function numberValidator(schema: NumberSchema): z.ZodType<number> {
  let out = schema.type === "integer" ? z.int() : z.number();
  if (schema.minimum !== undefined) out = out.min(schema.minimum);
  if (schema.maximum !== undefined) out = out.max(schema.maximum);
  return out;
}

/** The validator of one field, or of an input that is not an object. */
function fieldValidator(schema: FieldSchema): z.ZodType {
  if (schema.type === "string") return stringValidator(schema);
  if (schema.type === "boolean") return z.boolean();
  return numberValidator(schema);
}

function objectValidator(schema: ObjectSchema): z.ZodType {
  const required = new Set(schema.required ?? []);
  const shape: Record<string, z.ZodType> = {};
  const patterned: [string, string][] = [];
  for (const [name, field] of Object.entries(schema.properties)) {
    shape[name] = required.has(name) ? fieldValidator(field) : fieldValidator(field).optional();
    if (field.type === "string" && field.pattern !== undefined) {
      patterned.push([name, field.pattern]);
    }
  }
  const fields = z.strictObject(shape);
  if (patterned.length < 2) return fields;
  // Each field keeps within the budget alone; together they must too, before any matching.
  const names = patterned.map(([name]) => `"${name}"`).join(", ");
  return z.unknown().check((ctx) => {
    const value = ctx.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return;
    let cost = 0;
    for (const [name, source] of patterned) {
      const field = Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : null;
      if (typeof field === "string") cost += field.length * compilePattern(source).unitCost;
    }
    if (cost > PATTERN_BUDGET) {
      ctx.issues.push({
        code: "custom",
        input: value,
        message: `the fields ${names} are too long to be checked against their patterns ` +
          "together; send shorter values",
      });
    }
  }).pipe(fields);
}

/**
 * The zod validator of an `input_schema`, compiled once per schema object.
 *
 * @throws {PatternError} when a pattern cannot run on the bridge; parseActionSpec refuses
 * such schemas first.
 */
export function inputValidator(schema: InputSchema): z.ZodType {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  const validator = schema.type === "object" ? objectValidator(schema) : fieldValidator(schema);
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, validator);
  return validator;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value === undefined) return "missing";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** What a field of each type must be, in words. */
const KINDS: Record<FieldSchema["type"], string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
};

/** Whether `value` has the JSON type of `schema` (an integer is a number here). */
function ofType(schema: FieldSchema, value: unknown): boolean {
  const type: string = typeof value;
  return type === (schema.type === "integer" ? "number" : schema.type);
}

/** Why `value` is not a valid `schema` value, when its type is the reason. */
function wrongType(where: string, schema: FieldSchema, value: unknown): string {
  // A missing field is required; a missing input is not of the type.
  if (value === undefined && where !== "input") return `${where} is required`;
  const kind = KINDS[schema.type];
  if (schema.type === "integer" && typeof value === "number") {
    return `${where} must be an integer, not ${value}`;
  }
  // "3" for 3: the commonest slip of an agent that sends every value as text.
  const number = typeof value === "string" && schema.type !== "string" && value.trim() !== ""
    ? Number(value)
    : NaN;
  const send = schema.type === "boolean" && (value === "true" || value === "false")
    ? value
    : Number.isFinite(number) && ofType(schema, number)
    ? String(number)
    : undefined;
  return `${where} must be ${kind}, not ${describe(value)}` +
    (send === undefined ? "" : `: send ${send}, not ${JSON.stringify(value)}`);
}

/** A hint for the commonest mistakes, such as wrapping a string input in an object. */
export function inputHint(
  schema: InputSchema,
  input: unknown,
  issues: z.core.$ZodIssue[],
  example?: unknown,
): string {
  if (schema.type !== "object") {
    if (typeof input === "object" && input !== null && !Array.isArray(input)) {
      // The agent's own value shows the fix best, unless its key says it is a secret.
      const own = Object.entries(input).find(([k, v]) => ofType(schema, v) && !SECRET_KEY.test(k));
      const noun = KINDS[schema.type].replace(/^an? /, "");
      return `input must be the ${noun} itself, not an object: send "input": ` +
        JSON.stringify(own?.[1] ?? example ?? "…");
    }
    if (!ofType(schema, input)) return wrongType("input", schema, input);
  } else if (typeof input !== "object" || input === null || Array.isArray(input)) {
    const entries = Object.entries(schema.properties);
    const fields = entries.every(([, field]) => field.type === "string")
      ? `the string fields ${entries.map(([name]) => name).join(", ") || "(none)"}`
      : `the fields ${entries.map(([name, field]) => `${name} (${KINDS[field.type]})`).join(", ")}`;
    return `input must be an object with ${fields}, not ${describe(input)}`;
  }
  const issue = issues[0];
  if (!issue) return "input does not match input_schema";
  const where = issue.path.length ? `field "${issue.path.join(".")}"` : "input";
  if (issue.code === "unrecognized_keys") {
    const allowed = schema.type === "object" ? Object.keys(schema.properties).join(", ") : "";
    return `unknown field ${issue.keys.map((k) => `"${k}"`).join(", ")}; allowed fields: ${
      allowed || "(none)"
    }`;
  }
  const value = issue.path.reduce<unknown>(
    (
      v,
      key,
    ) => (typeof v === "object" && v !== null
      ? (v as Record<PropertyKey, unknown>)[key]
      : undefined),
    input,
  );
  const field = schema.type === "object"
    ? Object.hasOwn(schema.properties, String(issue.path[0]))
      ? schema.properties[String(issue.path[0])]
      : undefined
    : schema;
  if (issue.code === "invalid_type" && field) return wrongType(where, field, value);
  return `${where}: ${issue.message}`;
}

/**
 * Validates `input` for `action`; returns it when valid.
 *
 * @throws {AimError} 400 `invalid_input` with the schema, the example and a hint.
 */
export function validateInput(action: ActionSpec, input: unknown): unknown {
  const result = inputValidator(action.input_schema).safeParse(input);
  if (result.success) return result.data;
  const hint = inputHint(action.input_schema, input, result.error.issues, action.input_example);
  throw new AimError(
    "invalid_input",
    `Input for "${action.id}" does not match its input_schema: ${hint}.`,
    {
      details: {
        actionId: action.id,
        hint,
        input_schema: action.input_schema,
        input_example: action.input_example,
      },
    },
  );
}
