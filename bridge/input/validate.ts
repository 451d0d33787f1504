/**
 * Validating an invocation's input against an action's `input_schema` (schema_check.ts: a JSON
 * Schema validator, with patterns and formats on RE2) within aim's bounds on an input's depth
 * and size, and explaining a mismatch in words an agent can act on (hint.ts). Server only: the
 * browser bundle never imports this module.
 *
 * @module
 */
import { AimError } from "../errors/aim_error.ts";
import type { InputSchema } from "../wire/input_schema.ts";
import { inputBoundsProblem } from "../wire/input_bounds.ts";
import type { ActionSpec } from "../wire/schemas.ts";
import { inputHint, type PathPart, where } from "./hint.ts";
import { schemaCheck } from "./schema_check.ts";

/** The bounds, shared with the page's own check (bridge/wire/input_bounds.ts). */
export { INPUT_LIMITS, inputBoundsProblem } from "../wire/input_bounds.ts";

/** Why `input` does not fit `schema` within aim's bounds, in words; undefined when it fits. */
export function inputProblem(
  schema: InputSchema,
  input: unknown,
  example?: unknown,
): string | undefined {
  const bounds = inputBoundsProblem(input);
  if (bounds) return `${where(bounds.path)} ${bounds.problem}`;
  // No input at all: what the schema wanted, in its words ("must be a string, not missing").
  if (input === undefined && schema.type !== undefined) {
    return inputHint(schema, input, {
      ok: false,
      failure: { keyword: "type", pointer: [], schema },
    }, example);
  }
  // What the validator cannot read (a function, undefined in an object) refuses the input;
  // NaN and Infinity it reads as numbers, so that a string field says it wants a string.
  const unread = notJson(input, false);
  if (unread) return `${where(unread)} is not a JSON value`;
  const result = schemaCheck(schema)(input);
  if (!result.ok) return inputHint(schema, input, result, example);
  // What JSON cannot carry (NaN, Infinity) from a caller that is not JSON text.
  const odd = notJson(input, true);
  return odd && `${where(odd)} is not a JSON value`;
}

/**
 * Where `input` holds a value JSON cannot carry (NaN and Infinity only where `numbers` says so),
 * or undefined; within INPUT_LIMITS.
 */
function notJson(input: unknown, numbers: boolean): PathPart[] | undefined {
  const stack: { value: unknown; path: PathPart[] }[] = [{ value: input, path: [] }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value, path } = next;
    const type = typeof value;
    if (
      (numbers && type === "number" && !Number.isFinite(value)) || type === "bigint" ||
      type === "function" || type === "symbol" || type === "undefined"
    ) return path;
    if (typeof value !== "object" || value === null) continue;
    for (const [key, inner] of Object.entries(value)) {
      stack.push({ value: inner, path: [...path, Array.isArray(value) ? Number(key) : key] });
    }
  }
  return undefined;
}

/** Whether `input` fits `schema` within aim's bounds. */
export function fitsSchema(schema: InputSchema, input: unknown): boolean {
  return inputProblem(schema, input) === undefined;
}

/**
 * Validates `input` for `action`; returns it when valid.
 *
 * @throws {AimError} 400 `invalid_input` with the schema, the example and a hint.
 */
export function validateInput(action: ActionSpec, input: unknown): unknown {
  const hint = inputProblem(action.input_schema, input, action.input_example);
  if (hint === undefined) return input;
  throw new AimError(
    "invalid_input",
    `Input for "${action.id}" does not match its input_schema: ${hint}.`,
    {
      details: {
        actionId: action.id,
        hint,
        input_schema: action.input_schema,
        ...(action.input_example !== undefined && { input_example: action.input_example }),
      },
    },
  );
}
