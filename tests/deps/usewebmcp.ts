/**
 * `usewebmcp`, React hooks that register WebMCP tools, for the React app of the browser tests
 * only (tests/apps/webmcp/). deno.json maps `"usewebmcp"` here, not to npm, so that
 * `deno task start` never downloads it; the app is bundled at test time.
 *
 * @module
 */
export * from "npm:usewebmcp@5.1.0";
