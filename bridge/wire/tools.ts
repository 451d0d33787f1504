/**
 * What the tools of MCP (bridge/mcp/) and WebMCP (elements/webmcp.ts) share: the read tool's
 * name and a tool's title. No imports: only the lazy WebMCP chunk of the elements carries it.
 *
 * @module
 */

/**
 * The name of the read tool of MCP and WebMCP: what the page shows now (page, state, actions).
 * Reserved: no page action may take it (bridge/input/action_spec.ts).
 */
export const READ_TOOL = "aim_read_page";

/** `approve_request` → `Approve request`: a tool's title, as MCP and WebMCP hosts show it. */
export function titleOf(id: string): string {
  const words = id.replace(/[_.-]+/g, " ").replace(/([a-z0-9])([A-Z])/g, "$1 $2").trim();
  const lower = words.toLowerCase();
  return lower.charAt(0).toUpperCase() + lower.slice(1);
}
