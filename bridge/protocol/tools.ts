/**
 * @module What the tools of MCP (bridge/mcp/) and WebMCP (elements/webmcp.ts) share: the read
 * tool's name, a tool's title, and the status each run outcome is recorded with. No imports: only
 * the lazy WebMCP chunk of the elements carries it.
 */

/**
 * The name of the read tool of MCP and WebMCP: what the page shows now (page, state, actions).
 * Reserved: no page action may take it (bridge/protocol/action_spec.ts).
 */
export const READ_TOOL = "aim_read_page";

/** `approve_request` → `Approve request`: a tool's title, as MCP and WebMCP hosts show it. */
export function titleOf(id: string): string {
  const words = id.replace(/[_.-]+/g, " ").replace(/([a-z0-9])([A-Z])/g, "$1 $2").trim();
  const lower = words.toLowerCase();
  return lower.charAt(0).toUpperCase() + lower.slice(1);
}

/**
 * The HTTP status recorded for each way a run by an agent in the browser can end (`ok`, or the
 * error code it was answered with), as `POST /__aim/invoke` answers it.
 */
export const RUN_STATUS = {
  ok: 200,
  invalid_input: 400,
  login_required: 403,
  declined: 403,
  unknown_action: 404,
  cancelled: 409,
  action_failed: 422,
} as const;

/** How a run by an agent in the browser ended. */
export type RunOutcome = keyof typeof RUN_STATUS;
