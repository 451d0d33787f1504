/**
 * Test helper of the tests of bridge/wire/webmcp_tools.ts: a tool's schema with one field, and
 * the action a tool maps to, which must be taken.
 *
 * @module
 */
import assert from "node:assert/strict";
import { actionOfTool, type ToolAction, type ToolMarkup } from "../../bridge/wire/webmcp_tools.ts";

/** The schema of one tool with one field `a`. */
export const one = (field: unknown): Record<string, unknown> => ({
  type: "object",
  properties: { a: field },
});

/** The action of a tool `t` of `inputSchema`, which must be taken. */
export function mapped(inputSchema: unknown, markup: ToolMarkup = {}): ToolAction {
  const result = actionOfTool({ name: "t", description: "T", inputSchema }, markup);
  assert.ok(result.ok, result.ok ? "" : result.problem);
  return result.action;
}
