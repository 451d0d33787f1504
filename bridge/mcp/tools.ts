/**
 * How a session's actions look to an MCP client: one tool per action (named by its id; an
 * object input's schema as it is, any other input, a string, a list or a value of several
 * types, wrapped as `{"input": …}`, since MCP takes an object of arguments), the read tool, and
 * invocation answers and aim errors as tool results. Pure functions, no SDK and no HTTP.
 *
 * @example
 * ```ts
 * import { toolOf } from "./tools.ts";
 *
 * const tool = toolOf({
 *   id: "approve_request",
 *   description: "Approve one pending request",
 *   input_schema: { type: "string", pattern: "^req-[0-9]+$" },
 *   input_example: "req-3",
 *   consequential: true,
 *   protected: true,
 *   read_only: false,
 * });
 * tool.inputSchema; // {type: "object", properties: {input: {...}}, required: ["input"], ...}
 * tool.annotations?.destructiveHint; // true
 * ```
 *
 * @module
 */
import { encode as encodeToon } from "@toon-format/toon";
import type { ActionSpec, InvokeResult, Manifest } from "../wire/schemas.ts";
import { type InputSchema, isObjectSchema } from "../wire/input_schema.ts";
import { READ_TOOL, titleOf } from "../wire/tools.ts";
import { type StateView, stateView, type ToldStates } from "./answers.ts";

/** The name of the read tool, and a tool's title: one definition for MCP and WebMCP. */
export { READ_TOOL, titleOf };

/**
 * An MCP tool as `tools/list` answers it (the fields aim fills). No `title`: it would only
 * repeat the name in words, and hosts show the name without one. Annotations say only what
 * differs from MCP's defaults (`readOnlyHint` false, `destructiveHint` true).
 */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  annotations: {
    readOnlyHint?: true;
    destructiveHint?: boolean;
  };
}

/** A `tools/call` result as aim answers it. */
export interface McpToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** The tool's input schema: an object input as it is, any other wrapped in `input`. */
export function toolInputSchema(spec: ActionSpec): McpTool["inputSchema"] {
  if (isObjectSchema(spec.input_schema)) {
    return { ...spec.input_schema } as McpTool["inputSchema"];
  }
  // A call with other arguments is refused with how to wrap its input (errorResult).
  return { type: "object", properties: { input: spec.input_schema }, required: ["input"] };
}

/** The tool's example arguments: the action's `input_example`, wrapped like its schema. */
export function toolExample(spec: ActionSpec): unknown {
  if (spec.input_example === undefined) return undefined;
  return isObjectSchema(spec.input_schema) ? spec.input_example : { input: spec.input_example };
}

/** What a wrapped input is, as a noun: `string`, `array`, `value` (several types). */
function inputNoun(schema: InputSchema): string {
  return typeof schema.type === "string" ? schema.type : "value";
}

/** The MCP tool of one action. */
export function toolOf(spec: ActionSpec): McpTool {
  // A consequential action is never advertised as read-only, whatever the markup says; it
  // waits for the person's confirmation, which the instructions and a `declined` error say.
  const annotations: McpTool["annotations"] = spec.read_only === true && !spec.consequential
    ? { readOnlyHint: true }
    : { destructiveHint: spec.consequential };
  return {
    name: spec.id,
    description: spec.description,
    inputSchema: toolInputSchema(spec),
    annotations,
  };
}

/** The read tool: takes the version the agent holds, if any; changes nothing. */
export function readTool(): McpTool {
  return {
    name: READ_TOOL,
    description: "The page's state now, and browser_connected. since: a state_version you " +
      "hold, for only the changes since it (JSON Patch).",
    inputSchema: {
      type: "object",
      properties: { since: { type: "integer", minimum: 1 } },
    },
    annotations: { readOnlyHint: true },
  };
}

/** The tools of a session: its actions now, then the read tool. */
export function sessionTools(specs: readonly ActionSpec[]): McpTool[] {
  const tools = specs.filter((spec) => spec.id !== READ_TOOL).map(toolOf);
  tools.push(readTool());
  return tools;
}

/** What the arguments of a call mean: the action's input, and whether the wrapper was right. */
export interface Unwrapped {
  input: unknown;
  /** False when a string action's arguments were not exactly `{"input": …}`. */
  wrapped: boolean;
}

/**
 * The action input of a tool call's `arguments`: an object action takes them as they are; a
 * string (or number, boolean) action takes `arguments.input` when the arguments are exactly
 * `{"input": …}`, and otherwise the arguments themselves, which its validation then refuses.
 */
export function unwrapArguments(spec: ActionSpec | undefined, args: unknown): Unwrapped {
  if (!spec || isObjectSchema(spec.input_schema)) return { input: args ?? {}, wrapped: true };
  if (
    typeof args === "object" && args !== null && !Array.isArray(args) &&
    Object.keys(args).length === 1 && Object.hasOwn(args, "input")
  ) {
    return { input: (args as { input: unknown }).input, wrapped: true };
  }
  return { input: args ?? {}, wrapped: false };
}

/**
 * A successful invocation as a tool result: the whole answer as structured content, and as
 * text, in TOON, what the agent needs to read: the action's result, the state version, the
 * state the first time and then only what changed since the version this MCP session last told
 * (see answers.ts), and `settled: false` when the page had not finished reacting.
 */
export function successResult(answer: InvokeResult, told: ToldStates): McpToolResult {
  const view = answer.state
    ? stateView(told, { version: answer.state_version, state: answer.state })
    : {};
  const text: Record<string, unknown> = { result: answer.result, ...view };
  if (answer.settled === false) text.settled = false;
  return {
    content: [{ type: "text", text: encodeToon(text) }],
    structuredContent: answer as unknown as Record<string, unknown>,
  };
}

/** The read tool's answer: where the page is, whether a tab holds it, and its state. */
export interface PageRead extends StateView {
  page: string;
  browser_connected: boolean;
}

/**
 * The read tool's result: the page, `browser_connected`, and the state (whole, or the changes
 * since `since`) in TOON, as text and as structured content. The actions are not repeated: the
 * tool list holds them.
 */
export function readResult(
  manifest: Manifest,
  told: ToldStates,
  options: { since?: number | undefined } = {},
): McpToolResult {
  const read: PageRead = {
    page: manifest.page,
    browser_connected: manifest.browser_connected,
    ...stateView(told, { version: manifest.state_version, state: manifest.state }, {
      since: options.since ?? null,
    }),
  };
  const structured = read as unknown as Record<string, unknown>;
  return {
    content: [{ type: "text", text: encodeToon(structured) }],
    structuredContent: structured,
  };
}

/**
 * An aim error body as a tool result: `isError`, the body as structured content, and its code
 * and message as text. For a string action's invalid input, the schema and example are the
 * tool's (wrapped), and a call that did not wrap its string is told how to.
 */
export function errorResult(
  body: Record<string, unknown>,
  spec?: ActionSpec,
  wrapped = true,
): McpToolResult {
  let out = body;
  if (body.error === "invalid_input" && spec && !isObjectSchema(spec.input_schema)) {
    const example = toolExample(spec);
    out = {
      ...body,
      input_schema: toolInputSchema(spec),
      ...(example !== undefined && { input_example: example }),
    };
    if (!wrapped) {
      const noun = inputNoun(spec.input_schema);
      const hint = `call ${spec.id} with {"input": <the ${noun}>}` +
        (example === undefined ? "" : `, for example ${JSON.stringify(example)}`);
      out.hint = hint;
      out.message = `Arguments for "${spec.id}" must be {"input": <${noun}>}: ${hint}.`;
    }
  }
  const hint = typeof out.hint === "string" && !String(out.message).includes(out.hint)
    ? ` (${out.hint})`
    : "";
  return {
    content: [{ type: "text", text: `${out.error}: ${out.message}${hint}` }],
    structuredContent: out,
    isError: true,
  };
}
