/**
 * @module Validating an invocation's input against an action's `input_schema`, with zod,
 * and explaining a mismatch in words an agent can act on.
 */
import { z } from "zod";
import { AimError } from "./errors.ts";
import { SECRET_KEY } from "./markup.ts";
import type { ActionSpec, InputSchema, StringSchema } from "./schemas.ts";

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
  if (schema.pattern !== undefined) out = out.regex(new RegExp(schema.pattern, "u"));
  if (schema.enum) {
    const allowed = new Set(schema.enum);
    return out.refine((v) => allowed.has(v), `must be one of ${JSON.stringify(schema.enum)}`);
  }
  return out;
}

/** The zod validator of an `input_schema`, compiled once per schema object. */
export function inputValidator(schema: InputSchema): z.ZodType {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  let validator: z.ZodType;
  if (schema.type === "string") {
    validator = stringValidator(schema);
  } else {
    const required = new Set(schema.required ?? []);
    const shape: Record<string, z.ZodType> = {};
    for (const [name, field] of Object.entries(schema.properties)) {
      shape[name] = required.has(name) ? stringValidator(field) : stringValidator(field).optional();
    }
    validator = z.strictObject(shape);
  }
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

/** A hint for the commonest mistakes, such as wrapping a string input in an object. */
export function inputHint(
  schema: InputSchema,
  input: unknown,
  issues: z.core.$ZodIssue[],
  example?: unknown,
): string {
  if (schema.type === "string") {
    if (typeof input === "object" && input !== null && !Array.isArray(input)) {
      // The agent's own value shows the fix best, unless its key says it is a secret.
      const own = Object.entries(input).find(([k, v]) =>
        typeof v === "string" && !SECRET_KEY.test(k)
      );
      return 'input must be the string itself, not an object: send "input": ' +
        JSON.stringify(own?.[1] ?? example ?? "…");
    }
    if (typeof input !== "string") return `input must be a string, not ${describe(input)}`;
  } else if (typeof input !== "object" || input === null || Array.isArray(input)) {
    const fields = Object.keys(schema.properties).join(", ");
    return `input must be an object with the string fields ${fields || "(none)"}, not ${
      describe(input)
    }`;
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
  if (issue.code === "invalid_type") {
    return value === undefined
      ? `${where} is required`
      : `${where} must be a string, not ${describe(value)}`;
  }
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
    400,
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
