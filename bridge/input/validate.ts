/**
 * Validating an invocation's input against an action's `input_schema` (schema_check.ts: Ajv,
 * with patterns on RE2) within aim's bounds on an input's depth and size, and explaining a
 * mismatch in words an agent can act on (hint.ts). Server only: the browser bundle never
 * imports this module.
 *
 * @module
 */
import { AimError } from "../wire/errors.ts";
import { FORBIDDEN_KEYS, type InputSchema } from "../wire/input_schema.ts";
import type { ActionSpec } from "../wire/schemas.ts";
import { inputHint, type PathPart, where } from "./hint.ts";
import { schemaCheck } from "./schema_check.ts";

/** aim's bounds on one input, whatever its schema allows (docs/protocol.md, "Input schemas"). */
export const INPUT_LIMITS: {
  /** Nesting of arrays and objects: a flat object is level 1. */
  readonly depth: number;
  /** Values in all: every array, object, string, number, boolean and null. */
  readonly values: number;
  /** Items of one array. */
  readonly items: number;
} = {
  depth: 16,
  values: 20_000,
  items: 1000,
};

/**
 * Why `input` is past INPUT_LIMITS or is no JSON value (a non-finite number, a key that would
 * reach a prototype), with where; undefined when it is within them. Walked without recursion,
 * stopping at the first problem.
 */
export function inputBoundsProblem(
  input: unknown,
): { path: PathPart[]; problem: string } | undefined {
  const stack: { value: unknown; path: PathPart[] }[] = [{ value: input, path: [] }];
  let values = 0;
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value, path } = next;
    if (++values > INPUT_LIMITS.values) {
      return { path: [], problem: `holds more than ${INPUT_LIMITS.values} values` };
    }
    if (typeof value === "number" && !Number.isFinite(value)) {
      return { path, problem: "is not a finite number" };
    }
    if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") {
      return { path, problem: "is not a JSON value" };
    }
    if (typeof value !== "object" || value === null) continue;
    if (path.length >= INPUT_LIMITS.depth) {
      return {
        path,
        problem: `nests arrays and objects more than ${INPUT_LIMITS.depth} levels deep`,
      };
    }
    if (Array.isArray(value)) {
      if (value.length > INPUT_LIMITS.items) {
        return { path, problem: `has more than ${INPUT_LIMITS.items} items` };
      }
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i], path: [...path, i] });
      }
      continue;
    }
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) {
        return { path, problem: `has a key named "${key}", which is not accepted` };
      }
      stack.push({ value: (value as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
  return undefined;
}

/** Why `input` does not fit `schema` within aim's bounds, in words; undefined when it fits. */
export function inputProblem(
  schema: InputSchema,
  input: unknown,
  example?: unknown,
): string | undefined {
  const bounds = inputBoundsProblem(input);
  if (bounds) return `${where(bounds.path)} ${bounds.problem}`;
  const result = schemaCheck(schema)(input);
  return result.ok ? undefined : inputHint(schema, input, result, example);
}

/** Whether `input` fits `schema` within aim's bounds. */
export function fitsSchema(schema: InputSchema, input: unknown): boolean {
  return inputBoundsProblem(input) === undefined && schemaCheck(schema)(input).ok;
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
