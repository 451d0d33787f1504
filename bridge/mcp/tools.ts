/**
 * How a session's actions look to an MCP client: one tool per action (named by its
 * id, string inputs wrapped as `{"input": …}`), the read tool, and invocation answers and aim
 * errors as tool results. Pure functions, no SDK and no HTTP.
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
import { READ_TOOL, titleOf } from "../wire/tools.ts";

/** The name of the read tool, and a tool's title: one definition for MCP and WebMCP. */
export { READ_TOOL, titleOf };

/** An MCP tool as `tools/list` answers it (the fields aim fills). */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint?: boolean;
    openWorldHint: boolean;
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
  if (spec.input_schema.type === "object") return { ...spec.input_schema };
  return {
    type: "object",
    properties: { input: spec.input_schema },
    required: ["input"],
    additionalProperties: false,
  };
}

/** The tool's example arguments: the action's `input_example`, wrapped like its schema. */
export function toolExample(spec: ActionSpec): unknown {
  return spec.input_schema.type === "object" ? spec.input_example : { input: spec.input_example };
}

/** The MCP tool of one action. */
export function toolOf(spec: ActionSpec): McpTool {
  const title = titleOf(spec.id);
  return {
    name: spec.id,
    title,
    description: spec.description,
    inputSchema: toolInputSchema(spec),
    annotations: {
      title,
      // A consequential action is never advertised as read-only, whatever the markup says.
      readOnlyHint: spec.read_only === true && !spec.consequential,
      destructiveHint: spec.consequential,
      openWorldHint: false,
    },
  };
}

/** The read tool: takes nothing, changes nothing. */
export function readTool(): McpTool {
  const title = "Read the page";
  return {
    name: READ_TOOL,
    title,
    description:
      "What the page's session manifest says now: the page, its live state, whether a browser " +
      "tab holds the session (browser_connected), and the actions it offers. Read it before " +
      "deciding, and again after an action to see what changed.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    annotations: {
      title,
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
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
  if (!spec || spec.input_schema.type === "object") return { input: args ?? {}, wrapped: true };
  if (
    typeof args === "object" && args !== null && !Array.isArray(args) &&
    Object.keys(args).length === 1 && Object.hasOwn(args, "input")
  ) {
    return { input: (args as { input: unknown }).input, wrapped: true };
  }
  return { input: args ?? {}, wrapped: false };
}

/** A successful invocation as a tool result: the answer, and the same in TOON as text. */
export function successResult(answer: InvokeResult | Manifest): McpToolResult {
  const structured = answer as unknown as Record<string, unknown>;
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
  if (body.error === "invalid_input" && spec && spec.input_schema.type !== "object") {
    out = { ...body, input_schema: toolInputSchema(spec), input_example: toolExample(spec) };
    if (!wrapped) {
      const hint = `call ${spec.id} with {"input": <the ${spec.input_schema.type}>}, for example ${
        JSON.stringify(toolExample(spec))
      }`;
      out.hint = hint;
      out.message =
        `Arguments for "${spec.id}" must be {"input": <${spec.input_schema.type}>}: ${hint}.`;
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
