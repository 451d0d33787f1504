/**
 * `@mcp-b/webmcp-polyfill`, a WebMCP polyfill (`document.modelContext` where the browser has
 * none), for the test pages of tests/apps/webmcp/ only. deno.json maps
 * `"@mcp-b/webmcp-polyfill"` here, not to npm, so that `deno task start` never downloads it.
 *
 * @module
 */
export * from "npm:@mcp-b/webmcp-polyfill@5.1.0";
