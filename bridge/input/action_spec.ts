/**
 * Checking a declared action (from HTML, a tab or an app) against the wire schema: its
 * `input_schema` within aim's bounds, its patterns runnable on the bridge's linear-time matcher,
 * its `input_example` valid input (or one made from the schema when it gives none), and its id
 * not reserved.
 *
 * @module
 */
import { OBJECT_NAMES } from "../wire/object_names.ts";
import { READ_TOOL } from "../wire/tools.ts";
import { firstIssue } from "../wire/issue.ts";
import type { z } from "zod";
import {
  ActionSpec as ActionSpecSchema,
  type InputSchema,
  type JsonValue,
  type ManifestAction,
} from "../wire/schemas.ts";
import { allSchemas, SCHEMA_LIMITS } from "../wire/input_schema.ts";
import { compilePattern } from "./pattern_cache.ts";
import { fitsSchema, inputProblem } from "./validate.ts";
import { MAX_ACTION_PATTERN_SIZE, PatternError } from "./pattern.ts";
import { makeExample } from "./example.ts";
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

/**
 * The schemas of an input schema that take strings (or say how: a `pattern`), each with where
 * it is (`input_schema.properties.code`).
 */
export function stringFields(schema: InputSchema): [string, InputSchema][] {
  return allSchemas(schema).flatMap(({ path, schema: node }) => {
    const types = node.type === undefined ? [] : [node.type].flat();
    return types.includes("string") || node.pattern !== undefined
      ? [[path ? `input_schema.${path}` : "input_schema", node] as [string, InputSchema]]
      : [];
  });
}

/**
 * The schema as the bridge publishes and checks it: an object that lists its `properties` and
 * does not say whether it takes others takes no others (`additionalProperties: false`), so that
 * what an agent reads is what the bridge enforces. A copy; `schema` is left as it is.
 */
export function closeObjects(schema: InputSchema): InputSchema {
  const copy = structuredClone(schema);
  for (const { schema: node } of allSchemas(copy)) {
    if (node.properties && node.additionalProperties === undefined) {
      node.additionalProperties = false;
    }
  }
  return copy;
}

/** Examples made from schemas, by schema text (tabs register the same few again and again). */
const made = new Map<string, { example: JsonValue | undefined }>();
const MAX_MADE = 2000;

/** An example `schema` accepts, made once per schema text; undefined when none could be. */
export function exampleOf(schema: InputSchema): JsonValue | undefined {
  const key = JSON.stringify(schema);
  let entry = made.get(key);
  if (!entry) {
    entry = { example: makeExample(schema, (value) => fitsSchema(schema, value)) };
    if (made.size >= MAX_MADE) made.delete(made.keys().next().value!);
    made.set(key, entry);
  }
  return entry.example === undefined ? undefined : structuredClone(entry.example);
}

/** Refuses patterns RE2 cannot run, and patterns too large together for one action. */
function checkPatterns(spec: ActionSpec): void {
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
}

/**
 * A declaration's `input_schema` or `input_example` as JSON, read before anything walks it;
 * undefined when it cannot be JSON (a cycle, a bigint), which counts as too large.
 */
function jsonOf(declaration: unknown, key: "input_schema" | "input_example"): string | undefined {
  const value = typeof declaration === "object" && declaration !== null
    ? (declaration as Record<string, unknown>)[key]
    : undefined;
  try {
    return JSON.stringify(value ?? null);
  } catch {
    return undefined;
  }
}

/**
 * A key named `__proto__` in JSON text: in JSON, an unescaped `"` always delimits a string, and
 * only a key's string is followed by `:`. zod leaves such a key out of what it parses (it would
 * become the prototype of the copy), so a schema's field or an example's key would vanish unsaid:
 * the declaration is refused instead.
 */
const PROTO_KEY = /"__proto__":/;

/**
 * The validated action of a declaration, its `input_schema` with its objects closed
 * ({@linkcode closeObjects}), and an `input_example`: its own (which must be valid input), else
 * one made from the schema, else none.
 *
 * @throws {MarkupError} naming what is wrong.
 */
export function parseActionSpec(declaration: unknown): ActionSpec {
  const id = typeof declaration === "object" && declaration !== null
    ? String((declaration as { id?: unknown }).id ?? "")
    : "";
  const schemaText = jsonOf(declaration, "input_schema");
  if (schemaText === undefined || schemaText.length > SCHEMA_LIMITS.bytes) {
    throw new MarkupError(
      `action "${id}" is not valid: input_schema: The schema is too large: more than ` +
        `${SCHEMA_LIMITS.bytes} bytes as JSON`,
    );
  }
  const exampleText = jsonOf(declaration, "input_example");
  const proto = PROTO_KEY.test(schemaText)
    ? "input_schema"
    : exampleText !== undefined && PROTO_KEY.test(exampleText)
    ? "input_example"
    : undefined;
  if (proto) {
    throw new MarkupError(
      `action "${id}" is not valid: ${proto} has a key named "__proto__", which is not accepted`,
    );
  }
  const parsed = ActionSpecSchema.safeParse(declaration);
  if (!parsed.success) {
    throw new MarkupError(`action "${id}" is not valid: ${firstIssue(parsed.error, "")}`);
  }
  const spec = parsed.data;
  const reserved = reservedIdProblem(spec.id);
  if (reserved) throw new MarkupError(reserved);
  spec.input_schema = closeObjects(spec.input_schema);
  // Patterns run with RE2 on the bridge: refuse those it cannot run, and bound what one
  // action's patterns cost to compile.
  checkPatterns(spec);
  if (spec.input_example === undefined) {
    const example = exampleOf(spec.input_schema);
    if (example !== undefined) spec.input_example = example;
  } else {
    const problem = inputProblem(spec.input_schema, spec.input_example);
    if (problem !== undefined) {
      // "(must match …)" of the whole example, "(field "a" is required)" of a field.
      throw new MarkupError(
        `action "${spec.id}": input_example does not match input_schema (${
          problem.replace(/^input: /, "")
        })`,
      );
    }
  }
  return spec;
}

/** The manifest form of an action: the seed's five fields (no example when none was made). */
export function toManifestAction(spec: ActionSpec): ManifestAction {
  return {
    id: spec.id,
    description: spec.description,
    input_schema: spec.input_schema,
    ...(spec.input_example !== undefined && { input_example: spec.input_example }),
    consequential: spec.consequential,
  };
}
