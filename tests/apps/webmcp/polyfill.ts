/**
 * The polyfill a WebMCP page loads from npm (`@mcp-b/webmcp-polyfill`), as its author bundles it:
 * a classic script that gives the page `document.modelContext` where the browser has none.
 *
 * @module
 */
import { initializeWebMCPPolyfill } from "@mcp-b/webmcp-polyfill";

initializeWebMCPPolyfill();
