/**
 * Unit tests of how actions become MCP tools: names, wrapped string schemas,
 * annotations, the read tool, argument unwrapping and error results; and the `read-only`
 * attribute of `<aim-action>`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseActionSpec } from "../../bridge/input/action_spec.ts";
import { type MarkupElement, readAction } from "../../bridge/markup/action.ts";
import {
  errorResult,
  READ_TOOL,
  sessionTools,
  successResult,
  titleOf,
  toolOf,
  unwrapArguments,
} from "../../bridge/mcp/tools.ts";
import type { ActionSpec } from "../../bridge/wire/schemas.ts";

const APPROVE: ActionSpec = parseActionSpec({
  id: "approve_request",
  description: "Approve one pending request",
  input_schema: { type: "string", description: "The request ID", pattern: "^req-[0-9]+$" },
  input_example: "req-3",
  consequential: true,
  protected: true,
});

const COMMENT: ActionSpec = parseActionSpec({
  id: "add_comment",
  description: "Comment on a request",
  input_schema: {
    type: "object",
    properties: { request_id: { type: "string" }, text: { type: "string" } },
    required: ["request_id", "text"],
    additionalProperties: false,
  },
  input_example: { request_id: "req-1", text: "ok" },
  consequential: false,
  protected: false,
});

/** A minimal element for readAction: attributes and no children. */
function element(attributes: Record<string, string>): MarkupElement {
  return {
    tagName: "AIM-ACTION",
    getAttribute: (name) => attributes[name] ?? null,
    children: [],
    textContent: "",
  };
}

Deno.test("a string action's tool takes {input: <the string schema>} and nothing else", () => {
  const tool = toolOf(APPROVE);
  assert.equal(tool.name, "approve_request");
  assert.equal(tool.description, "Approve one pending request");
  assert.deepEqual(tool.inputSchema, {
    type: "object",
    properties: {
      input: { type: "string", description: "The request ID", pattern: "^req-[0-9]+$" },
    },
    required: ["input"],
    additionalProperties: false,
  });
});

Deno.test("an object action's tool takes the action's own input schema", () => {
  assert.deepEqual(toolOf(COMMENT).inputSchema, COMMENT.input_schema);
});

Deno.test("a consequential action is destructive, never read-only, and closed-world", () => {
  const annotations = toolOf({ ...APPROVE, read_only: true }).annotations;
  assert.equal(annotations.destructiveHint, true);
  assert.equal(annotations.readOnlyHint, false);
  assert.equal(annotations.openWorldHint, false);
  assert.equal(annotations.title, "Approve request");
});

Deno.test("only an action declared read-only gets readOnlyHint", () => {
  assert.equal(toolOf(COMMENT).annotations.readOnlyHint, false);
  assert.equal(toolOf({ ...COMMENT, read_only: true }).annotations.readOnlyHint, true);
  assert.equal(toolOf({ ...COMMENT, read_only: true }).annotations.destructiveHint, false);
});

Deno.test("titles read as words", () => {
  assert.equal(titleOf("filter_requests"), "Filter requests");
  assert.equal(titleOf("fileRequest"), "File request");
  assert.equal(titleOf("a.b-c"), "A b c");
});

Deno.test("the read tool comes last, and a page action cannot take its name", () => {
  const squatter = { ...COMMENT, id: READ_TOOL, description: "Pretends to read the page" };
  const tools = sessionTools([APPROVE, squatter]);
  assert.deepEqual(tools.map((t) => t.name), ["approve_request", READ_TOOL]);
  const read = tools.at(-1)!;
  assert.equal(read.annotations.readOnlyHint, true);
  assert.equal(read.annotations.destructiveHint, false);
  assert.notEqual(read.description, squatter.description);
});

Deno.test("{input: x} calls a string action with x; other arguments are passed on to be refused", () => {
  assert.deepEqual(unwrapArguments(APPROVE, { input: "req-3" }), { input: "req-3", wrapped: true });
  assert.deepEqual(unwrapArguments(APPROVE, { id: "req-3" }), {
    input: { id: "req-3" },
    wrapped: false,
  });
  assert.deepEqual(unwrapArguments(APPROVE, { input: "req-3", more: "x" }).wrapped, false);
  assert.deepEqual(unwrapArguments(COMMENT, { request_id: "r", text: "t" }).input, {
    request_id: "r",
    text: "t",
  });
  assert.deepEqual(unwrapArguments(COMMENT, undefined).input, {});
});

Deno.test("a success is the invoke answer as structured content and the same in TOON", () => {
  const answer = { ok: true as const, actionId: "x", result: { a: 1 }, state: { b: "c" } };
  const result = successResult(answer);
  assert.deepEqual(result.structuredContent, answer);
  assert.equal(result.isError, undefined);
  assert.match(result.content[0]?.text ?? "", /^ok: true\nactionId: x\nresult:\n {2}a: 1/);
});

Deno.test("an invalid string input names the tool's wrapped schema and how to wrap it", () => {
  const body = {
    error: "invalid_input",
    message:
      'Input for "approve_request" does not match its input_schema: input must be the string itself, not an object.',
    hint: "input must be the string itself, not an object",
    input_schema: APPROVE.input_schema,
    input_example: "req-3",
  };
  const result = errorResult(body, APPROVE, false);
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent.error, "invalid_input");
  assert.deepEqual(result.structuredContent.input_example, { input: "req-3" });
  assert.deepEqual(result.structuredContent.input_schema, toolOf(APPROVE).inputSchema);
  assert.match(String(result.structuredContent.hint), /\{"input": <the string>\}/);
  assert.match(result.content[0]?.text ?? "", /^invalid_input: /);
});

Deno.test("an action's error is a tool error with its code and message as text", () => {
  const result = errorResult({ error: "declined", message: "The person declined." });
  assert.equal(result.isError, true);
  assert.equal(result.content[0]?.text, "declined: The person declined.");
  assert.deepEqual(result.structuredContent, {
    error: "declined",
    message: "The person declined.",
  });
});

Deno.test("the read-only attribute of <aim-action> declares a read-only action", () => {
  const base = { name: "list_requests", description: "List the requests" };
  const readOnly = parseActionSpec(readAction(element({ ...base, "read-only": "" }), {
    getElementById: () => null,
    documentElement: null,
  }));
  assert.equal(readOnly.read_only, true);
  const plain = parseActionSpec(readAction(element(base), {
    getElementById: () => null,
    documentElement: null,
  }));
  assert.equal(plain.read_only, false);
  const off = parseActionSpec(readAction(element({ ...base, "read-only": "false" }), {
    getElementById: () => null,
    documentElement: null,
  }));
  assert.equal(off.read_only, false);
});

const ADD_ITEM: ActionSpec = parseActionSpec({
  id: "add_item",
  description: "Add an item",
  input_schema: {
    type: "object",
    properties: {
      title: { type: "string" },
      qty: { type: "integer", minimum: 1 },
      price: { type: "number", maximum: 100 },
      gift: { type: "boolean" },
    },
    required: ["title", "qty"],
    additionalProperties: false,
  },
  input_example: { title: "pen", qty: 2 },
  consequential: false,
  protected: false,
});

const SET_QTY: ActionSpec = parseActionSpec({
  id: "set_qty",
  description: "Set the quantity",
  input_schema: { type: "integer", minimum: 1, description: "How many" },
  input_example: 3,
  consequential: false,
  protected: false,
});

Deno.test("typed fields reach the tool's schema as they are; a typed input is wrapped like a string", () => {
  assert.deepEqual(toolOf(ADD_ITEM).inputSchema, ADD_ITEM.input_schema);
  assert.deepEqual(toolOf(SET_QTY).inputSchema, {
    type: "object",
    properties: { input: { type: "integer", minimum: 1, description: "How many" } },
    required: ["input"],
    additionalProperties: false,
  });
  assert.deepEqual(unwrapArguments(SET_QTY, { input: 4 }), { input: 4, wrapped: true });
  assert.deepEqual(unwrapArguments(SET_QTY, { qty: 4 }), { input: { qty: 4 }, wrapped: false });
  assert.deepEqual(unwrapArguments(ADD_ITEM, { title: "a", qty: 1, gift: true }).input, {
    title: "a",
    qty: 1,
    gift: true,
  });
  const result = errorResult(
    {
      error: "invalid_input",
      message: 'Input for "set_qty" does not match its input_schema: input must be the integer ' +
        'itself, not an object: send "input": 4.',
      hint: 'input must be the integer itself, not an object: send "input": 4',
    },
    SET_QTY,
    false,
  );
  assert.deepEqual(result.structuredContent.input_example, { input: 3 });
  assert.deepEqual(result.structuredContent.input_schema, toolOf(SET_QTY).inputSchema);
  assert.match(String(result.structuredContent.message), /must be \{"input": <integer>\}/);
});
