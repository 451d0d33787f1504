/**
 * Checking a declared action (from HTML, a tab or an app) against the wire schema,
 * including that its `input_example` is valid input, that its patterns can run on the
 * bridge's linear-time matcher, and that its id is not reserved.
 *
 * @module
 */
import { OBJECT_NAMES } from "../wire/names.ts";
import { READ_TOOL } from "../wire/tools.ts";
import { firstIssue } from "../wire/issue.ts";
import type { z } from "zod";
import {
  ActionSpec as ActionSpecSchema,
  type InputSchema,
  type ManifestAction,
  type StringSchema,
} from "../wire/schemas.ts";
import { compilePattern } from "./pattern_cache.ts";
import { inputValidator } from "./validate.ts";
import { MAX_ACTION_PATTERN_SIZE, PatternError } from "./pattern.ts";
import { MarkupError } from "../markup/action.ts";

export type { ActionSpec } from "../wire/schemas.ts";
type ActionSpec = z.infer<typeof ActionSpecSchema>;

/** The ids of the bridge's built-in server actions, which no page action may take. */
export const BUILTIN_ACTION_IDS: readonly string[] = ["login", "logout", "disconnect"];

/**
 * Whether `id` is one of `ids` regardless of case: action ids that differ only in case would
 * let a page pass one action off as another (`LOGIN` for `login`).
 */
export function isActionIdAmong(id: string, ids: Iterable<string>): boolean {
  const lower = id.toLowerCase();
  for (const other of ids) if (other.toLowerCase() === lower) return true;
  return false;
}

/**
 * Names the protocols reserve for tools of their own: `aim_read_page`, the MCP (and WebMCP)
 * tool that reads the page's manifest.
 */
export const RESERVED_TOOL_IDS: readonly string[] = [READ_TOOL];

/** Why `id` may not name an action, or undefined when it may. */
function reservedIdProblem(id: string): string | undefined {
  if (OBJECT_NAMES.has(id.toLowerCase())) {
    return `action "${id}" is not valid: "${id}" is a reserved name (of Object.prototype)`;
  }
  if (RESERVED_TOOL_IDS.includes(id.toLowerCase())) {
    return `action "${id}" is not valid: "${id}" is reserved for the tool that reads the page`;
  }
  const builtin = BUILTIN_ACTION_IDS.find((name) => name === id.toLowerCase());
  if (builtin !== undefined && builtin !== id) {
    return `action "${id}" is not valid: action ids are compared regardless of case, and ` +
      `"${builtin}" is a server action of the bridge`;
  }
  return undefined;
}

/** The string schemas of an input schema, each with where it is. */
export function stringFields(schema: InputSchema): [string, StringSchema][] {
  if (schema.type !== "object") return schema.type === "string" ? [["input_schema", schema]] : [];
  return Object.entries(schema.properties).flatMap(([name, field]) =>
    field.type === "string" ? [[`input_schema.properties.${name}`, field]] : []
  );
}

/**
 * The validated action of a declaration.
 *
 * @throws {MarkupError} naming what is wrong.
 */
export function parseActionSpec(declaration: unknown): ActionSpec {
  const id = typeof declaration === "object" && declaration !== null
    ? String((declaration as { id?: unknown }).id ?? "")
    : "";
  const parsed = ActionSpecSchema.safeParse(declaration);
  if (!parsed.success) {
    throw new MarkupError(`action "${id}" is not valid: ${firstIssue(parsed.error, "")}`);
  }
  const spec = parsed.data;
  const reserved = reservedIdProblem(spec.id);
  if (reserved) throw new MarkupError(reserved);
  // Patterns run with RE2 on the bridge: refuse those it cannot run, and bound what one
  // action's patterns cost to compile.
  let size = 0;
  for (const [where, field] of stringFields(spec.input_schema)) {
    if (field.pattern === undefined) continue;
    try {
      size += compilePattern(field.pattern).program;
    } catch (error) {
      if (!(error instanceof PatternError)) throw error;
      throw new MarkupError(
        `action "${spec.id}": ${where}.pattern ${JSON.stringify(field.pattern)} ${error.message}`,
      );
    }
    if (size > MAX_ACTION_PATTERN_SIZE) {
      throw new MarkupError(
        `action "${spec.id}": its patterns are too large together for the bridge's matcher ` +
          `(more than ${MAX_ACTION_PATTERN_SIZE} instructions); simplify them`,
      );
    }
  }
  const example = inputValidator(spec.input_schema).safeParse(spec.input_example);
  if (!example.success) {
    throw new MarkupError(
      `action "${spec.id}": input_example does not match input_schema (${
        firstIssue(example.error, "")
      })`,
    );
  }
  return spec;
}

/** The manifest form of an action: the seed's five fields. */
export function toManifestAction(spec: ActionSpec): ManifestAction {
  return {
    id: spec.id,
    description: spec.description,
    input_schema: spec.input_schema,
    input_example: spec.input_example,
    consequential: spec.consequential,
  };
}
