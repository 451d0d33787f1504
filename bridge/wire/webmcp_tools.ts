/**
 * How a tool a page registers with WebMCP (`document.modelContext.registerTool`) becomes an aim
 * action, for remote agents: name → `id`, description, `inputSchema` → the `input_schema` the
 * bridge enforces (any shape MCP and WebMCP tools use), annotations → `consequential`, and what
 * a run's result becomes. Written once, for the elements (elements/page_tools.ts, which
 * registers a page's tools with the bridge) and for tests and docs (docs/webmcp.md, "Pages that
 * already use WebMCP"). No imports: the lazy WebMCP chunk of the elements carries it, and must
 * not carry zod.
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

/** A field name, as bridge/wire/input_schema.ts `FieldName` takes it (a test holds them equal). */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/**
 * Names that would reach an object's prototype, as bridge/wire/input_schema.ts `FORBIDDEN_KEYS`
 * lists them: refused here already, since a `__proto__` field or keyword copied into a plain
 * object would not be copied but become its prototype, and the tool would lose it unsaid.
 */
export const FORBIDDEN_NAMES: readonly string[] = ["__proto__", "constructor", "prototype"];

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
  /**
   * Ask the person before every run, whatever its annotations say.
   *
   * @default {false}
   */
  consequential?: boolean;
  /**
   * Keep the tool from remote agents.
   *
   * @default {false}
   */
  hidden?: boolean;
  /**
   * An input for the tool's example (`input-example='{"time": "9:30 AM"}'`), JSON text: the
   * bridge refuses the tool if it does not fit the schema. Without one, the bridge makes one.
   */
  inputExample?: string;
  /**
   * The site owner's word that the tool only reads, where the tool does not say so itself
   * (`readOnlyHint`): it runs without asking the person, as an `<aim-action read-only>` does.
   * Never over a tool that says `destructiveHint` or `consequentialHint`, nor with
   * `consequential`: it is then ignored (with a warning).
   *
   * @default {false}
   */
  readOnly?: boolean;
}

/**
 * What the `<aim-tool name="…">` elements among `elements` say, by tool name: read alike in the
 * page (elements/page_tools.ts) and from a page's static HTML (the public catalog). A flag is
 * set by its attribute, unless that is `"false"`; several elements of one name add up, and the
 * last `input-example` is kept.
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
    const example = el.getAttribute("input-example") ?? before.inputExample ?? null;
    out.set(name, {
      consequential: before.consequential === true || flag("consequential"),
      hidden: before.hidden === true || el.getAttribute("hidden") !== null,
      readOnly: before.readOnly === true || flag("read-only"),
      ...(example !== null && { inputExample: example }),
    });
  }
  return out;
}

/** A JSON Schema as aim's `input_schema` takes it (bridge/wire/input_schema.ts). */
export type ToolSchema = Record<string, unknown>;

/** The action a tool becomes: the fields a tab registers (bridge/wire/schemas.ts). */
export interface ToolAction {
  id: string;
  description: string;
  input_schema: ToolSchema;
  /** The site owner's example; without one, the bridge makes one from the schema. */
  input_example?: unknown;
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

/**
 * Keywords that only annotate and that aim's `input_schema` does not carry: left out (they
 * restrict nothing). `title` becomes the description where there is none; a `description` is
 * kept when it is text that says something; `default` and `examples` are kept (the bridge makes
 * the example from them).
 */
const ANNOTATIONS = new Set([
  "title",
  "$schema",
  "$id",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentMediaType",
  "contentEncoding",
]);

/** The keywords whose value is a schema, a list of schemas, or a map of them. */
const ONE = ["items", "additionalProperties"];
const LIST = ["anyOf", "oneOf"];

/** The most `examples` kept (the bridge's bound: bridge/wire/input_schema.ts). */
const MAX_EXAMPLES = 8;

/** Deeper than the bridge takes (bridge/wire/input_schema.ts), far: refused here already. */
const MAX_DEPTH = 16;

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

/**
 * One schema of the tool's `inputSchema` as aim's: annotations left out (ANNOTATIONS), and
 * Chromium's way of saying what aim says shorter: a `<select>` is `anyOf` string consts beside
 * their `enum`, a number input `multipleOf: 1` (its step), an integer. Any other keyword is
 * kept as it is: the bridge checks every keyword it takes and refuses the tool, naming the
 * keyword, for one it does not (bridge/wire/input_schema.ts).
 */
function schemaOf(schema: unknown, where: string, depth: number): ToolSchema | string {
  if (!isObject(schema)) return `${where} is not a schema`;
  if (depth > MAX_DEPTH) return `${where} nests schemas too deep`;
  const out: ToolSchema = {};
  for (let [key, value] of Object.entries(schema)) {
    // The description is set below, from its text or the title's.
    if (ANNOTATIONS.has(key) || key === "description") continue;
    if (FORBIDDEN_NAMES.includes(key)) return `${where} uses "${key}", which is no keyword`;
    if (
      key === "anyOf" && Array.isArray(value) && value.length &&
      value.every((v) => isObject(v) && typeof v.const === "string" && v.type !== "number")
    ) {
      const consts = value.map((v) => (v as Record<string, unknown>).const);
      if (Array.isArray(schema.enum) && JSON.stringify(schema.enum) !== JSON.stringify(consts)) {
        return `${where}: its anyOf and its enum differ`;
      }
      [key, value] = ["enum", consts];
    }
    if (
      key === "multipleOf" && value === 1 && (schema.type === "number" || schema.type === "integer")
    ) {
      out.type = "integer";
      continue;
    }
    if (key === "examples" && Array.isArray(value)) value = value.slice(0, MAX_EXAMPLES);
    if (key === "required" && Array.isArray(value)) {
      // An empty list says nothing (Chromium lists one, a form's static reading none).
      if (!value.length) continue;
      value = [...new Set(value)];
    }
    if (ONE.includes(key) && isObject(value)) {
      const inner = schemaOf(value, `${where}.${key}`, depth + 1);
      if (typeof inner === "string") return inner;
      value = inner;
    } else if (LIST.includes(key) && Array.isArray(value)) {
      const inner = value.map((v, i) => schemaOf(v, `${where}.${key}[${i}]`, depth + 1));
      const problem = inner.find((v) => typeof v === "string");
      if (problem !== undefined) return problem as string;
      value = inner;
    } else if (key === "properties" && isObject(value)) {
      const inner: Record<string, ToolSchema> = {};
      for (const [name, field] of Object.entries(value)) {
        if (!FIELD_NAME.test(name) || FORBIDDEN_NAMES.includes(name)) {
          return `its field name "${name.slice(0, 80)}" is not one aim takes`;
        }
        const mapped = schemaOf(field, `field "${name.slice(0, 80)}"`, depth + 1);
        if (typeof mapped === "string") return mapped;
        inner[name] = mapped;
      }
      value = inner;
    }
    out[key] = value;
  }
  const description = text(schema.description) || text(schema.title);
  if (description) out.description = cut(description);
  return out;
}

/**
 * The tool's `inputSchema` as aim's `input_schema`, or why it cannot be one: an object schema
 * (none: an object without fields) of any shape MCP and WebMCP tools use, annotations left out
 * ({@linkcode ANNOTATIONS}). The bridge checks the rest and closes its objects: an object that
 * does not say it takes other fields takes only its properties.
 */
export function inputSchemaOfTool(inputSchema: unknown): ToolSchema | string {
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
  const out = schemaOf(schema, "its inputSchema", 1);
  if (typeof out === "string") return out;
  return { type: "object", properties: {}, ...out };
}

/**
 * The action of one WebMCP tool, or why it cannot be one. The id is the tool's name (one that
 * is no action id is refused, not renamed: two tools must not end up with one id); a tool is
 * consequential by {@linkcode isConsequentialTool}; the example is the site owner's
 * (`<aim-tool input-example>`), or the bridge makes one from the schema.
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
  // The site owner's example (`<aim-tool input-example>`), else the bridge makes one.
  let example: unknown;
  if (markup.inputExample !== undefined) {
    try {
      example = JSON.parse(markup.inputExample);
    } catch {
      return fail("its <aim-tool input-example> is not JSON");
    }
  }
  const consequential = isConsequentialTool(tool.annotations, markup);
  // Read-only only on the owner's word: the tool itself does not say so.
  const ownersWord = !consequential &&
    (!isObject(tool.annotations) || tool.annotations.readOnlyHint !== true);
  const action: ToolAction = {
    id: name,
    description: cut(description),
    input_schema: schema,
    ...(example !== undefined && { input_example: example }),
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
