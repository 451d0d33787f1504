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
  readResult,
  sessionTools,
  successResult,
  titleOf,
  toolOf,
  unwrapArguments,
} from "../../bridge/mcp/tools.ts";
import { ToldStates } from "../../bridge/mcp/answers.ts";
import type { ActionSpec, Manifest } from "../../bridge/wire/schemas.ts";

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
  });
});

Deno.test("an object action's tool takes the action's own input schema", () => {
  assert.deepEqual(toolOf(COMMENT).inputSchema, COMMENT.input_schema);
});

Deno.test("a consequential action is destructive and never read-only", () => {
  assert.deepEqual(toolOf({ ...APPROVE, read_only: true }).annotations, { destructiveHint: true });
});

Deno.test("only an action declared read-only gets readOnlyHint; another says it is not destructive", () => {
  assert.deepEqual(toolOf(COMMENT).annotations, { destructiveHint: false });
  assert.deepEqual(toolOf({ ...COMMENT, read_only: true }).annotations, { readOnlyHint: true });
});

Deno.test("a tool has no title: it would only repeat its name", () => {
  assert.deepEqual(Object.keys(toolOf(APPROVE)).sort(), [
    "annotations",
    "description",
    "inputSchema",
    "name",
  ]);
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
  assert.deepEqual(read.annotations, { readOnlyHint: true });
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

Deno.test("a success is the invoke answer as structured content; its text the result and state in TOON", () => {
  const answer = {
    ok: true as const,
    actionId: "x",
    result: { a: 1 },
    state: { b: "c" },
    state_version: 4,
    settled: true,
  };
  const result = successResult(answer, new ToldStates());
  assert.deepEqual(result.structuredContent, answer);
  assert.equal(result.isError, undefined);
  assert.equal(result.content[0]?.text, "result:\n  a: 1\nstate_version: 4\nstate:\n  b: c");
});

Deno.test("the next success tells what changed since the state told, as a JSON Patch", () => {
  const told = new ToldStates();
  const rows = [{ id: "req-3", status: "pending" }, { id: "req-4", status: "pending" }];
  const first = { ok: true as const, actionId: "login", result: null, state_version: 7 };
  successResult({ ...first, state: { rows } }, told);
  const approved = [{ id: "req-3", status: "approved" }, rows[1]!];
  const second = successResult(
    { ok: true, actionId: "approve", result: "ok", state: { rows: approved }, state_version: 8 },
    told,
  );
  assert.equal(
    second.content[0]?.text,
    "result: ok\nstate_version: 8\nchanges_since: 7\nchanges[1]{op,path,value}:\n" +
      "  replace,/rows/0/status,approved",
  );
  // Nothing changed: an empty patch from the version told.
  const third = successResult(
    { ok: true, actionId: "noop", result: null, state: { rows: approved }, state_version: 8 },
    told,
  );
  assert.equal(
    third.content[0]?.text,
    "result: null\nstate_version: 8\nchanges_since: 8\nchanges: []",
  );
});

Deno.test("an answer that did not settle says so; one older than the state told is told whole", () => {
  const told = new ToldStates();
  const answer = (state_version: number, settled: boolean) => ({
    ok: true as const,
    actionId: "x",
    result: null,
    state: { n: state_version },
    state_version,
    settled,
  });
  successResult(answer(9, true), told);
  const older = successResult(answer(8, false), told);
  assert.equal(
    older.content[0]?.text,
    "result: null\nstate_version: 8\nstate:\n  n: 8\nsettled: false",
  );
});

const MANIFEST = {
  page: "/control-panel",
  browser_connected: true,
  state_version: 5,
  state: { filter: "all" },
  actions: [{ id: "approve_request" }],
} as unknown as Manifest;

Deno.test("the read tool answers the page, the tab and the state, not the actions", () => {
  const result = readResult(MANIFEST, new ToldStates());
  assert.equal(
    result.content[0]?.text,
    "page: /control-panel\nbrowser_connected: true\nstate_version: 5\nstate:\n  filter: all",
  );
  assert.deepEqual(result.structuredContent, {
    page: "/control-panel",
    browser_connected: true,
    state_version: 5,
    state: { filter: "all" },
  });
});

Deno.test("the read tool with since: the changes since it, or the whole state and why", () => {
  const told = new ToldStates();
  readResult(MANIFEST, told);
  const now = { ...MANIFEST, state_version: 6, state: { filter: "pending" } };
  assert.deepEqual(readResult(now, told, { since: 5 }).structuredContent, {
    page: "/control-panel",
    browser_connected: true,
    state_version: 6,
    changes_since: 5,
    changes: [{ op: "replace", path: "/filter", value: "pending" }],
  });
  assert.deepEqual(readResult(now, told, { since: 6 }).structuredContent.changes, []);
  // Ahead of the page: the whole state, and a note that says the version is ahead.
  const ahead = readResult(now, told, { since: 9 }).structuredContent;
  assert.deepEqual(ahead.state, { filter: "pending" });
  assert.match(String(ahead.note), /^Version 9 is ahead of the page's state_version 6/);
  // A version never told: the whole state, and a note that says so.
  const unknown = readResult(now, told, { since: 2 }).structuredContent;
  assert.deepEqual(unknown.state, { filter: "pending" });
  assert.match(String(unknown.note), /^Version 2 is not one this session was told/);
  // Without since: the whole state, whatever was told before.
  assert.deepEqual(readResult(now, told).structuredContent.state, { filter: "pending" });
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
