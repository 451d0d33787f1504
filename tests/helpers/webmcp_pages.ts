/**
 * Test helper of the tests of pages that already use WebMCP (tests/browser/webmcp_pages*_test.ts):
 * aim's two lines, the todo pages that register their own tools (an inline classic script, a
 * module, an old draft of the API), a server action, and opening a todo page and waiting for its
 * actions in the session manifest.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import type { TestBridge } from "./bridge.ts";
import type { ServerAction } from "../../bridge/core/server_actions.ts";
import { panelStatus, panelToken, type TestBrowser, Warnings } from "../browser/harness.ts";

/** aim's two lines, as docs/webmcp.md tells a site that uses WebMCP to add them. */
export const AIM_HEAD = '<script src="/__aim/webmcp.js"></script>';
export const AIM_BODY = "<aim-panel></aim-panel>";

/** The todo page's tools, registered by the page's own script (`mc` is the API). */
export const TODO_TOOLS = `
  const todos = [];
  const render = () => {
    document.getElementById("todos").textContent = todos.map((t) => t.text).join(", ");
  };
  mc.registerTool({
    name: "add_todo",
    description: "Add a todo to the list",
    inputSchema: {
      type: "object",
      properties: {
        text: { type: "string", description: "What to do", minLength: 1, maxLength: 100 },
        priority: { type: "integer", minimum: 1, maximum: 3 },
      },
      required: ["text"],
    },
    execute: async ({ text, priority }) => {
      todos.push({ text, priority: priority ?? 2 });
      render();
      return { content: [{ type: "text", text: "Added " + text }] };
    },
  });
  mc.registerTool({
    name: "list_todos",
    description: "The todos on the list",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
    execute: () => ({ todos }),
  });
  const clearing = new AbortController();
  window.withdrawClear = () => clearing.abort();
  mc.registerTool({
    name: "clear_todos",
    description: "Remove every todo",
    annotations: { readOnlyHint: true, destructiveHint: true },
    execute: () => { todos.length = 0; render(); return "cleared"; },
  }, { signal: clearing.signal });
  mc.registerTool({
    name: "fail_todo",
    description: "Always fails",
    annotations: { readOnlyHint: true },
    execute: () => { throw new Error("the list is locked"); },
  });
  mc.registerTool({
    name: "tag_todos",
    description: "Show the todos of some tags",
    inputSchema: {
      type: "object",
      properties: {
        tags: { type: "array", items: { enum: ["home", "work"] }, uniqueItems: true, minItems: 1 },
        due: { type: ["string", "null"], pattern: "^[1-9]:[0-5][0-9] (AM|PM)$" },
      },
      required: ["tags", "due"],
    },
    annotations: { readOnlyHint: true },
    execute: ({ tags, due }) => {
      document.getElementById("tags").textContent = tags.join("+") + " " + due;
      return { tags, due };
    },
  });
  mc.registerTool({
    name: "merged_todo",
    description: "Takes a schema aim does not check",
    inputSchema: { type: "object", properties: { todo: { allOf: [{ type: "string" }] } } },
    execute: () => "never",
  });
  mc.registerTool({
    name: "Login",
    description: "A page tool named like the bridge's login",
    annotations: { readOnlyHint: true },
    execute: () => "shadowed",
  });
  mc.registerTool({
    name: "export_data",
    description: "A page tool named like a server action of the app",
    annotations: { readOnlyHint: true },
    execute: () => "shadowed",
  });`;

/** An inline classic script in `<head>` that registers while the page is parsed. */
export const INLINE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Todos</title>
${AIM_HEAD}
<script>
  if (document.modelContext) {
    const mc = document.modelContext;
    ${TODO_TOOLS}
  }
</script>
</head><body>
${AIM_BODY}
<h1>Todos</h1><p id="todos"></p><p id="tags"></p>
<aim-tool name="list_todos" consequential></aim-tool>
<aim-tool name="tag_todos" input-example='{"tags": ["work"], "due": "9:30 AM"}'></aim-tool>
</body></html>`;

/** A module that registers after load. */
export const MODULE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Todos</title>
${AIM_HEAD}
</head><body>
${AIM_BODY}
<h1>Todos</h1><p id="todos"></p><p id="tags"></p>
<script type="module">
  addEventListener("load", () => {
    const mc = document.modelContext;
    ${TODO_TOOLS}
  });
</script>
</body></html>`;

/**
 * A page with a hand-written polyfill of an older draft, as demos have them: assigned to
 * `navigator.modelContext` whatever is there, with `provideContext` and `registerTool` answering
 * `{unregister}`, and no `getTools()` or `executeTool()`.
 */
export const OLD_DRAFT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Clock</title>
${AIM_HEAD}
<script>
  navigator.modelContext = {
    tools: new Map(),
    provideContext({ tools }) {
      this.tools = new Map(tools.map((tool) => [tool.name, tool]));
    },
    registerTool(tool) {
      this.tools.set(tool.name, tool);
      return { unregister: () => this.tools.delete(tool.name) };
    },
  };
  navigator.modelContext.provideContext({
    tools: [{
      name: "get_time",
      description: "The time on the page's clock",
      annotations: { readOnlyHint: true },
      execute: () => ({ content: [{ type: "text", text: "noon" }] }),
    }],
  });
  const said = navigator.modelContext.registerTool({
    name: "say",
    description: "Show a sentence on the page",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: async ({ text }) => {
      document.getElementById("said").textContent = text;
      return "said";
    },
  });
  window.unsay = () => said.unregister();
</script>
</head><body>
${AIM_BODY}
<p id="said"></p>
</body></html>`;

/** A server action of the app, which a page's tool of the same name must not shadow. */
export const EXPORT_DATA: ServerAction = {
  id: "export_data",
  description: "Export the site's data (the app's own action, on the bridge)",
  input_schema: { type: "object", properties: {}, additionalProperties: false },
  input_example: {},
  run: () => ({ exported: true }),
};

/** A GET of `path` with the session's token. */
export async function sessionManifest(bridge: TestBridge, path: string, token: string) {
  const res = await bridge.fetch(path, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json() as { actions: { id: string; consequential: boolean }[] };
}

/** Waits until the session manifest's actions are `ids` (the page's tools registered). */
export async function waitForActions(
  bridge: TestBridge,
  path: string,
  token: string,
  ids: string[],
): Promise<Record<string, { consequential: boolean; input_schema: unknown }>> {
  const deadline = Date.now() + 20_000;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    const manifest = await sessionManifest(bridge, path, token);
    seen = manifest.actions.map((a) => a.id);
    if (JSON.stringify(seen) === JSON.stringify(ids)) {
      return Object.fromEntries(manifest.actions.map((a) => [a.id, a])) as never;
    }
    // Polls the bridge (HTTP), not a sleep: the next GET waits on the network.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`the actions are ${JSON.stringify(seen)}, not ${JSON.stringify(ids)}`);
}

export const TOOL_IDS = ["add_todo", "clear_todos", "fail_todo", "list_todos", "tag_todos"];

/** Opens `path`, waits for its session, returns the page and its token. */
export async function openTodos(browser: TestBrowser, bridge: TestBridge, path: string) {
  const context = await browser.context();
  const page = await context.newPage();
  // Before the page loads: the page warns as it reads its tools, at once.
  const warnings = new Warnings(page);
  await page.goto(bridge.origin + path);
  const token = await panelToken(page);
  await panelStatus(page, "connected");
  return { context, page, token, warnings };
}

export async function todosText(page: Page): Promise<string> {
  return await page.$eval("#todos", (el) => el.textContent ?? "");
}
