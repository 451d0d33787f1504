/**
 * How a tool a page registers with WebMCP (`document.modelContext.registerTool`) becomes an aim
 * action, for remote agents: name → `id`, description, `inputSchema` → a flat `input_schema`
 * the bridge enforces, annotations → `consequential`, and what a run's result becomes. Written
 * once, for the elements (elements/page_tools.ts, which registers a page's tools with the bridge)
 * and for tests and docs (docs/webmcp.md, "Pages that already use WebMCP"). No imports: the
 * lazy WebMCP chunk of the elements carries it, and must not carry zod.
 *
 * @example
 * ```ts
 * const mapped = actionOfTool({
 *   name: "add_todo",
 *   description: "Add a todo",
 *   inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 * });
 * mapped.ok && mapped.action.consequential; // true: no readOnlyHint
 * ```
 * @module
 */

/** The most tools of one page that become actions; the others are left out, with a warning. */
export const MAX_PAGE_TOOLS = 64;

/** The largest action one tool may make, in bytes of its JSON; a larger one is left out. */
export const MAX_TOOL_BYTES = 16 * 1024;

/** The longest description kept (the wire's limit); a longer one is cut. */
const MAX_DESCRIPTION = 2000;

/** An action id, as bridge/wire/schemas.ts `ActionId` takes it. */
const ACTION_ID = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** A field name, as bridge/wire/schemas.ts `FieldName` takes it. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/**
 * The bridge's built-in actions (bridge/input/action_spec.ts `BUILTIN_ACTION_IDS`) and the read
 * tool: a page's tool never takes their names, in any case, whether or not this bridge lists
 * them (a site without users has no `login`, yet an agent knows the name as aim's).
 */
export const RESERVED_TOOL_NAMES: readonly string[] = [
  "login",
  "logout",
  "disconnect",
  "aim_read_page",
];

/** Names that would reach an object's prototype. */
const FORBIDDEN = new Set(["__proto__", "constructor", "prototype"]);

/** A tool as `getTools()` lists it (native, a polyfill, aim's own API), or as it was registered. */
export interface WebMcpToolInfo {
  name?: unknown;
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  annotations?: unknown;
}

/**
 * What the site owner's markup says of a tool (`<aim-tool name="…" consequential>`,
 * `<aim-tool name="…" hidden>`, `<aim-tool name="…" read-only>`).
 */
export interface ToolMarkup {
  /** Ask the person before every run, whatever its annotations say. @default {false} */
  consequential?: boolean;
  /** Keep the tool from remote agents. @default {false} */
  hidden?: boolean;
  /**
   * The site owner's word that the tool only reads, where the tool does not say so itself
   * (`readOnlyHint`): it runs without asking the person, as an `<aim-action read-only>` does.
   * Never over a tool that says `destructiveHint` or `consequentialHint`, nor with
   * `consequential`: it is then ignored (with a warning). @default {false}
   */
  readOnly?: boolean;
}

/**
 * What the `<aim-tool name="…">` elements among `elements` say, by tool name: read alike in the
 * page (elements/page_tools.ts) and from a page's static HTML (the public catalog). A flag is
 * set by its attribute, unless that is `"false"`; several elements of one name add up.
 */
export function readToolMarkup(
  elements: Iterable<{ getAttribute(name: string): string | null }>,
): Map<string, ToolMarkup> {
  const out = new Map<string, ToolMarkup>();
  for (const el of elements) {
    const name = el.getAttribute("name")?.trim();
    if (!name) continue;
    const flag = (attribute: string) => {
      const value = el.getAttribute(attribute);
      return value !== null && value.trim().toLowerCase() !== "false";
    };
    const before = out.get(name) ?? {};
    out.set(name, {
      consequential: before.consequential === true || flag("consequential"),
      hidden: before.hidden === true || el.getAttribute("hidden") !== null,
      readOnly: before.readOnly === true || flag("read-only"),
    });
  }
  return out;
}

/** A flat JSON Schema as aim's `input_schema` takes it. */
export type FlatSchema = Record<string, unknown>;

/** The action a tool becomes: the fields a tab registers (bridge/wire/schemas.ts). */
export interface ToolAction {
  id: string;
  description: string;
  input_schema: FlatSchema;
  input_example: Record<string, string | number | boolean>;
  consequential: boolean;
  read_only: boolean;
  /**
   * `"site_owner"` when the tool runs without asking only on the site owner's word
   * (`<aim-tool read-only>`): the bridge's activity log records each run so.
   */
  read_only_by?: "site_owner";
  protected: false;
}

/**
 * The action of a tool, or why it cannot be one (a sentence for the page's console); `warning`
 * says what of the site owner's markup was ignored.
 */
export type ToolMapping =
  | { ok: true; action: ToolAction; warning?: string }
  | { ok: false; problem: string };

/** Keywords that only annotate: left out of the schema (they restrict nothing). */
const ANNOTATIONS = new Set([
  "title",
  "default",
  "examples",
  "$schema",
  "$id",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "format",
  "contentMediaType",
  "contentEncoding",
]);

/** The keywords aim enforces, by type (besides `type` and `description`). */
const ENFORCED: Record<string, readonly string[]> = {
  string: ["minLength", "maxLength", "pattern", "enum", "const"],
  number: ["minimum", "maximum"],
  integer: ["minimum", "maximum"],
  boolean: [],
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

function cut(value: string): string {
  return value.length > MAX_DESCRIPTION ? `${value.slice(0, MAX_DESCRIPTION - 1)}…` : value;
}

/** Whether a tool's own annotations say it may destroy or commit something. */
function saysConsequences(annotations: unknown): boolean {
  const hints = isObject(annotations) ? annotations : {};
  return hints.destructiveHint === true || hints.consequentialHint === true;
}

/**
 * Whether a tool may change something, so that the person confirms each run: unless it says it
 * only reads (`readOnlyHint: true`), or the site owner does (`<aim-tool read-only>`), and
 * nothing says otherwise (`destructiveHint`, `consequentialHint`, `<aim-tool consequential>`). A
 * tool without annotations is consequential: fail closed.
 */
export function isConsequentialTool(annotations: unknown, markup: ToolMarkup = {}): boolean {
  const hints = isObject(annotations) ? annotations : {};
  const reads = hints.readOnlyHint === true || markup.readOnly === true;
  return !reads || saysConsequences(hints) || markup.consequential === true;
}

/** One field of the tool's schema as aim's, or why it cannot be. */
function fieldOf(name: string, schema: unknown): FlatSchema | string {
  const where = `field "${name}"`;
  if (!isObject(schema)) return `${where} has no schema`;
  let type = schema.type;
  if (Array.isArray(type) && type.length === 1) type = type[0];
  if (type === "object" || type === "array") {
    return `${where} is ${type === "object" ? "an object" : "an array"}: remote agents get ` +
      "flat inputs only (strings, numbers, integers, booleans)";
  }
  if (typeof type !== "string" || !Object.hasOwn(ENFORCED, type)) {
    return `${where} has a type aim cannot check (${JSON.stringify(type ?? null)})`;
  }
  const out: FlatSchema = { type };
  const description = text(schema.description) || text(schema.title);
  if (description) out.description = cut(description);
  for (let [key, value] of Object.entries(schema)) {
    if (key === "type" || key === "description" || ANNOTATIONS.has(key)) continue;
    // Chromium's schema of a declarative form: a <select> is `anyOf` string consts (beside
    // their `enum`), a number input `multipleOf: 1` (its step), which aim enforces exactly.
    if (
      key === "anyOf" && type === "string" && Array.isArray(value) && value.length &&
      value.every((v) => isObject(v) && typeof v.const === "string" && v.type !== "number")
    ) {
      const consts = value.map((v) => (v as Record<string, unknown>).const);
      if (Array.isArray(schema.enum) && JSON.stringify(schema.enum) !== JSON.stringify(consts)) {
        return `${where}: its anyOf and its enum differ`;
      }
      [key, value] = ["enum", consts];
    }
    if (key === "multipleOf" && value === 1 && (type === "number" || type === "integer")) {
      out.type = "integer";
      continue;
    }
    if (!ENFORCED[type]!.includes(key)) {
      return `${where} uses "${key}", which aim cannot enforce`;
    }
    if (key === "enum" || key === "const") {
      const values = key === "const" ? [value] : value;
      if (!Array.isArray(values) || !values.length || values.some((v) => typeof v !== "string")) {
        return `${where}: aim takes an enum of strings only`;
      }
      out.enum = values;
    } else if (key === "pattern") {
      if (typeof value !== "string") return `${where}: its pattern is not a string`;
      out.pattern = value;
    } else {
      if (typeof value !== "number" || !Number.isFinite(value)) {
        return `${where}: its ${key} is not a number`;
      }
      out[key] = value;
    }
  }
  return out;
}

/**
 * The tool's `inputSchema` as aim's `input_schema`: always a flat object with
 * `additionalProperties: false` (a tool that allows more fields gets only the declared ones),
 * or why it cannot be one. Keywords that only annotate (`title`, `default`, `format`…) are left
 * out; any other keyword aim cannot enforce refuses the tool, so that the bridge never forwards
 * an input the tool's schema does not allow.
 */
export function inputSchemaOfTool(inputSchema: unknown): FlatSchema | string {
  let schema = inputSchema ?? { type: "object", properties: {} };
  if (typeof schema === "string") {
    try {
      schema = JSON.parse(schema);
    } catch {
      return "its inputSchema is not JSON";
    }
  }
  if (!isObject(schema) || (schema.type !== undefined && schema.type !== "object")) {
    return "its inputSchema is not an object schema";
  }
  const properties: Record<string, FlatSchema> = {};
  const given = schema.properties ?? {};
  if (!isObject(given)) return "its inputSchema's properties are not an object";
  const names = Object.keys(given);
  if (names.length > 100) return "its inputSchema has more than 100 fields";
  for (const name of names) {
    if (!FIELD_NAME.test(name) || FORBIDDEN.has(name)) {
      return `its field name "${name.slice(0, 80)}" is not one aim takes`;
    }
    const field = fieldOf(name, given[name]);
    if (typeof field === "string") return field;
    properties[name] = field;
  }
  const required = schema.required ?? [];
  if (!Array.isArray(required) || required.some((r) => !Object.hasOwn(properties, r))) {
    return "its required fields are not all among its properties";
  }
  for (const key of Object.keys(schema)) {
    if (["type", "properties", "required", "additionalProperties", "description"].includes(key)) {
      continue;
    }
    if (!ANNOTATIONS.has(key)) return `its inputSchema uses "${key}", which aim cannot enforce`;
  }
  if (
    schema.additionalProperties !== undefined && typeof schema.additionalProperties !== "boolean"
  ) {
    return "its inputSchema's additionalProperties is a schema, which aim cannot enforce";
  }
  const out: FlatSchema = { type: "object", properties, additionalProperties: false };
  if (required.length) out.required = [...new Set(required as string[])];
  return out;
}

/** Candidates for a string field that has a pattern and no example of its own. */
const STRING_GUESSES = ["example", "a", "A", "0", "1", "a@example.com", "2026-01-01", "x1", ""];

function fits(field: FlatSchema, value: unknown): boolean {
  if (field.type === "boolean") return typeof value === "boolean";
  if (field.type === "number" || field.type === "integer") {
    return typeof value === "number" && Number.isFinite(value) &&
      (field.type === "number" || Number.isInteger(value)) &&
      (field.minimum === undefined || value >= (field.minimum as number)) &&
      (field.maximum === undefined || value <= (field.maximum as number));
  }
  if (typeof value !== "string") return false;
  if (field.minLength !== undefined && value.length < (field.minLength as number)) return false;
  if (field.maxLength !== undefined && value.length > (field.maxLength as number)) return false;
  if (Array.isArray(field.enum) && !field.enum.includes(value)) return false;
  try {
    return field.pattern === undefined || new RegExp(field.pattern as string, "u").test(value);
  } catch {
    return false;
  }
}

/** A value of `field`: the tool's own example or default when it fits, else a made-up one. */
function exampleOf(field: FlatSchema, own: unknown[]): string | number | boolean | undefined {
  const guesses: unknown[] = [...own];
  if (field.type === "boolean") guesses.push(false);
  else if (field.type === "number" || field.type === "integer") {
    const min = field.minimum as number | undefined;
    const max = field.maximum as number | undefined;
    guesses.push(
      0,
      min === undefined ? undefined : Math.ceil(min),
      max === undefined ? undefined : Math.floor(max),
    );
  } else {
    if (Array.isArray(field.enum)) guesses.push(field.enum[0]);
    const min = (field.minLength as number | undefined) ?? 0;
    guesses.push(...STRING_GUESSES, "x".repeat(Math.min(Math.max(min, 1), 1000)));
  }
  return guesses.find((value) => fits(field, value)) as string | number | boolean | undefined;
}

/**
 * The action of one WebMCP tool, or why it cannot be one. The id is the tool's name (one that
 * is no action id is refused, not renamed: two tools must not end up with one id); a tool is
 * consequential by {@linkcode isConsequentialTool}; the example fills the required fields.
 */
export function actionOfTool(tool: WebMcpToolInfo, markup: ToolMarkup = {}): ToolMapping {
  const name = typeof tool.name === "string" ? tool.name : "";
  if (!ACTION_ID.test(name)) {
    return {
      ok: false,
      problem: `tool "${name.slice(0, 80)}": its name is not an action id (a letter, then at ` +
        "most 63 letters, digits, '_', '.' or '-')",
    };
  }
  const fail = (problem: string): ToolMapping => ({
    ok: false,
    problem: `tool "${name}": ${problem}`,
  });
  if (RESERVED_TOOL_NAMES.includes(name.toLowerCase())) {
    return fail("its name is aim's own (a built-in action of the bridge, or the read tool)");
  }
  if (markup.hidden) return fail("hidden from remote agents by <aim-tool hidden>");
  const description = text(tool.description) || text(tool.title);
  if (!description) return fail("it has no description");
  const schema = inputSchemaOfTool(tool.inputSchema);
  if (typeof schema === "string") return fail(schema);
  const original = isObject(tool.inputSchema) && isObject(tool.inputSchema.properties)
    ? tool.inputSchema.properties
    : {};
  const example: Record<string, string | number | boolean> = {};
  const properties = schema.properties as Record<string, FlatSchema>;
  for (const field of (schema.required as string[] | undefined) ?? []) {
    const given = isObject(original[field]) ? original[field] as Record<string, unknown> : {};
    const own = [...(Array.isArray(given.examples) ? given.examples : []), given.default];
    const value = exampleOf(properties[field]!, own);
    if (value === undefined) {
      return fail(`no example fits its field "${field}": give it "examples" in its inputSchema`);
    }
    example[field] = value;
  }
  const consequential = isConsequentialTool(tool.annotations, markup);
  // Read-only only on the owner's word: the tool itself does not say so.
  const ownersWord = !consequential &&
    (!isObject(tool.annotations) || tool.annotations.readOnlyHint !== true);
  const action: ToolAction = {
    id: name,
    description: cut(description),
    input_schema: schema,
    input_example: example,
    consequential,
    read_only: !consequential,
    ...(ownersWord ? { read_only_by: "site_owner" as const } : {}),
    protected: false,
  };
  if (JSON.stringify(action).length > MAX_TOOL_BYTES) {
    return fail(`it is larger than ${MAX_TOOL_BYTES} bytes as an action`);
  }
  const overruled = markup.readOnly === true &&
    (saysConsequences(tool.annotations) || markup.consequential === true);
  if (!overruled) return { ok: true, action };
  const why = markup.consequential === true
    ? "it is also marked consequential"
    : "the tool says it is destructive or consequential (destructiveHint, consequentialHint)";
  return {
    ok: true,
    action,
    warning: `tool "${name}": <aim-tool read-only> is ignored: ${why}; the person is asked`,
  };
}

/**
 * What a run's answer becomes, from what WebMCP hands back (`executeTool` answers JSON text, or
 * the plain text of a string result): the JSON value it holds, else the text itself. An
 * MCP-style result that says `isError` is a failure.
 *
 * @throws {Error} with the result's text, when it is an MCP-style error.
 */
export function resultOfTool(answer: unknown): unknown {
  let value = answer;
  if (typeof answer === "string") {
    try {
      value = JSON.parse(answer);
    } catch {
      value = answer;
    }
  }
  if (isObject(value) && value.isError === true && Array.isArray(value.content)) {
    const words = value.content
      .map((part) => isObject(part) && typeof part.text === "string" ? part.text : "")
      .filter(Boolean)
      .join(" ");
    throw new Error(words.slice(0, 2000) || "The tool reported an error.");
  }
  return value === undefined ? null : value;
}
