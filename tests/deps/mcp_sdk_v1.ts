/**
 * The v1 MCP SDK's client (`@modelcontextprotocol/sdk`), for the MCP tests only: they check
 * aim against both official clients. deno.json maps each `@modelcontextprotocol/sdk/...` path the
 * tests import here, not to npm, so that `deno task start` never downloads the SDK and what it
 * needs (express, ajv and some sixty more packages); tests resolve it through deno.test.lock.
 * tests/cli/dependencies_test.ts keeps deno.json and deno.lock free of it.
 *
 * @module
 */
export { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
export { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
export { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
export { ToolListChangedNotificationSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
