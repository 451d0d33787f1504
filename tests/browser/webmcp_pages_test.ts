/**
 * Tests of pages that already use WebMCP (issue 21): a page that registers tools of its own, as
 * pages written for WebMCP do (an inline classic script while it is parsed, a module, a React
 * app with the `usewebmcp` hooks, the `@mcp-b/webmcp-polyfill` polyfill), with aim's two lines
 * added, in real Chromium with and without `--enable-features=WebMCP`: the tools are actions of
 * its session manifest, MCP tools and A2A skills, live as the page registers and withdraws
 * them, run in the page, a consequential one only once the person approved it.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { clusterSize, startBridge, type TestBridge } from "../helpers/bridge.ts";
import type { ServerAction } from "../../bridge/core/server_actions.ts";
import { connectClient as connectMcp, within } from "../mcp/helpers.ts";
import {
  action as a2aAction,
  answerOf,
  asTask,
  collect,
  connectClient as connectA2a,
  failureOf,
  shapes,
} from "../a2a/helpers.ts";
import { TaskState } from "@a2a-js/sdk";
import { MAX_PAGE_TOOLS } from "../../bridge/wire/webmcp_tools.ts";
import { call, jsonPart, message, postRun } from "../acp/helpers.ts";
import {
  clickPanelButton,
  launchBrowser,
  NO_CHROMIUM,
  panelStatus,
  panelToken,
  type TestBrowser,
  Warnings,
} from "./harness.ts";

/** aim's two lines, as docs/webmcp.md tells a site that uses WebMCP to add them. */
const AIM_HEAD = '<script src="/__aim/webmcp.js"></script>';
const AIM_BODY = "<aim-panel></aim-panel>";

/** The todo page's tools, registered by the page's own script (`mc` is the API). */
const TODO_TOOLS = `
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
const INLINE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
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
const MODULE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
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
const OLD_DRAFT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
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
const EXPORT_DATA: ServerAction = {
  id: "export_data",
  description: "Export the site's data (the app's own action, on the bridge)",
  input_schema: { type: "object", properties: {}, additionalProperties: false },
  input_example: {},
  run: () => ({ exported: true }),
};

/** A GET of `path` with the session's token. */
async function sessionManifest(bridge: TestBridge, path: string, token: string) {
  const res = await bridge.fetch(path, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json() as { actions: { id: string; consequential: boolean }[] };
}

/** Waits until the session manifest's actions are `ids` (the page's tools registered). */
async function waitForActions(
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

const TOOL_IDS = ["add_todo", "clear_todos", "fail_todo", "list_todos", "tag_todos"];

/** Opens `path`, waits for its session, returns the page and its token. */
async function openTodos(browser: TestBrowser, bridge: TestBridge, path: string) {
  const context = await browser.context();
  const page = await context.newPage();
  // Before the page loads: the page warns as it reads its tools, at once.
  const warnings = new Warnings(page);
  await page.goto(bridge.origin + path);
  const token = await panelToken(page);
  await panelStatus(page, "connected");
  return { context, page, token, warnings };
}

async function todosText(page: Page): Promise<string> {
  return await page.$eval("#todos", (el) => el.textContent ?? "");
}

for (const webmcp of [true, false]) {
  const flag = webmcp ? "with the WebMCP flag" : "without the WebMCP flag";
  Deno.test({
    name: `a page's own WebMCP tools are actions of its session, ${flag}`,
    ignore: NO_CHROMIUM,
    async fn(t) {
      await using browser = await launchBrowser({ webmcp });
      await using bridge = await startBridge({
        site: {
          "inline.html": INLINE_PAGE,
          "module.html": MODULE_PAGE,
          "clock.html": OLD_DRAFT_PAGE,
        },
        serverActions: [EXPORT_DATA],
      });

      await t.step("a hand-written polyfill of an older draft: its tools too", async () => {
        const { context, page, token } = await openTodos(browser, bridge, "/clock");
        await using _context = context;
        const actions = await waitForActions(bridge, "/clock.json", token, [
          "disconnect",
          "export_data",
          "get_time",
          "say",
        ]);
        assert.equal(actions.get_time!.consequential, false);
        assert.equal(actions.say!.consequential, true);
        await using mcp = await connectMcp("v2", bridge.origin, token);
        const time = await mcp.callTool("get_time", {});
        assert.deepEqual(time.structuredContent.result, {
          content: [{ type: "text", text: "noon" }],
        });
        const saying = mcp.callTool("say", { text: "hello" });
        await clickPanelButton(page, "Approve");
        assert.equal((await saying).structuredContent.result, "said");
        assert.equal(await page.$eval("#said", (el) => el.textContent), "hello");
        const changed = mcp.nextListChanged();
        await page.evaluate(() => (window as unknown as { unsay(): void }).unsay());
        await changed;
        await waitForActions(bridge, "/clock.json", token, [
          "disconnect",
          "export_data",
          "get_time",
        ]);
      });

      await t.step("the public catalog knows nothing of them", async () => {
        const res = await bridge.fetch("/inline.json");
        assert.equal(res.status, 404);
        assert.equal((await res.json()).error, "not_found");
        const map = await (await bridge.fetch("/sitemap.json")).json();
        assert.deepEqual(map.pages.map((p: { path: string }) => p.path), []);
      });

      for (const path of ["/inline", "/module"]) {
        await t.step(`${path}: tools become actions, run by MCP and A2A`, async (t) => {
          const { context, page, token, warnings } = await openTodos(browser, bridge, path);
          await using _context = context;
          const actions = await waitForActions(bridge, `${path}.json`, token, [
            "disconnect",
            "export_data",
            ...TOOL_IDS,
          ]);
          assert.equal(actions.add_todo!.consequential, true, "no readOnlyHint: consequential");
          assert.equal(
            actions.list_todos!.consequential,
            path === "/inline",
            "<aim-tool consequential> makes a read-only tool consequential",
          );
          assert.equal(actions.clear_todos!.consequential, true, "destructiveHint wins");
          assert.deepEqual(actions.add_todo!.input_schema, {
            type: "object",
            properties: {
              text: { type: "string", description: "What to do", minLength: 1, maxLength: 100 },
              priority: { type: "integer", minimum: 1, maximum: 3 },
            },
            required: ["text"],
            additionalProperties: false,
          });
          await warnings.waitFor(/"merged_todo" was rejected: .*"allOf"/);
          // A tool never takes a built-in's name (the page refuses it), nor a server action's
          // (the bridge refuses it): the app's export_data is the server's.
          await warnings.waitFor(/tool "Login": its name is aim's own/);
          await warnings.waitFor(/"export_data" was rejected: "export_data" is a server action/);
          assert.equal(actions.export_data!.consequential, false);
          assert.equal(
            (await sessionManifest(bridge, `${path}.json`, token)).actions
              .filter((a) => a.id === "export_data").length,
            1,
          );

          await using mcp = await connectMcp("v2", bridge.origin, token);

          await t.step("MCP lists them as tools", async () => {
            const tools = await mcp.listTools();
            assert.deepEqual(tools.map((tool) => tool.name), [
              "disconnect",
              "export_data",
              ...TOOL_IDS,
              "aim_read_page",
            ]);
          });

          await t.step("a read-only tool runs at once; its result is the tool's", async () => {
            if (path === "/inline") return; // consequential there, by markup
            const listed = await mcp.callTool("list_todos", {});
            assert.equal(listed.isError, undefined, JSON.stringify(listed));
            assert.deepEqual(listed.structuredContent.result, { todos: [] });
          });

          await t.step("a consequential tool runs once the person approves", async () => {
            const call = mcp.callTool("add_todo", { text: "milk", priority: 1 });
            await clickPanelButton(page, "Approve");
            const added = await call;
            assert.equal(added.isError, undefined, JSON.stringify(added));
            assert.deepEqual(added.structuredContent.result, {
              content: [{ type: "text", text: "Added milk" }],
            });
            assert.equal(await todosText(page), "milk");
          });

          await t.step("declined, the tool does not run", async () => {
            const call = mcp.callTool("add_todo", { text: "eggs" });
            await clickPanelButton(page, "Decline");
            const declined = await call;
            assert.equal(declined.isError, true);
            assert.equal(declined.structuredContent.error, "declined");
            assert.equal(await todosText(page), "milk");
          });

          await t.step("input the schema does not allow never reaches the page", async () => {
            const wrong = await mcp.callTool("add_todo", { text: "x", priority: 9 });
            assert.equal(wrong.isError, true);
            assert.equal(wrong.structuredContent.error, "invalid_input");
            const extra = await mcp.callTool("add_todo", { text: "x", sneaky: true });
            assert.equal(extra.structuredContent.error, "invalid_input");
            assert.equal(await todosText(page), "milk");
          });

          await t.step("a tool with a list field is offered and runs with a list", async () => {
            const tag = actions.tag_todos! as unknown as {
              input_schema: unknown;
              input_example: unknown;
            };
            assert.deepEqual(tag.input_schema, {
              type: "object",
              properties: {
                tags: {
                  type: "array",
                  items: { enum: ["home", "work"] },
                  uniqueItems: true,
                  minItems: 1,
                },
                due: { type: ["string", "null"], pattern: "^[1-9]:[0-5][0-9] (AM|PM)$" },
              },
              required: ["tags", "due"],
              additionalProperties: false,
            });
            // The site owner's example (<aim-tool input-example>), else one made from the schema.
            assert.deepEqual(
              tag.input_example,
              path === "/inline"
                ? { tags: ["work"], due: "9:30 AM" }
                : { tags: ["home"], due: "1:00 AM" },
            );
            const listed = await mcp.callTool("tag_todos", { tags: ["work", "home"], due: null });
            assert.equal(listed.isError, undefined, JSON.stringify(listed));
            assert.deepEqual(listed.structuredContent.result, {
              tags: ["work", "home"],
              due: null,
            });
            assert.equal(await page.$eval("#tags", (el) => el.textContent), "work+home null");
            for (
              const [input, hint] of [
                [
                  { tags: ["play"], due: null },
                  /field "tags\[0\]": must be one of \["home","work"\]/,
                ],
                [{ tags: ["home", "home"], due: null }, /must not repeat an item/],
                [{ tags: [], due: null }, /field "tags": must have at least 1 item/],
                [{ tags: "home", due: null }, /field "tags" must be an array, not a string/],
                [{ tags: ["home"], due: "noon" }, /field "due": must match the pattern/],
              ] as const
            ) {
              const wrong = await mcp.callTool("tag_todos", input);
              assert.equal(wrong.isError, true, JSON.stringify(input));
              assert.equal(wrong.structuredContent.error, "invalid_input");
              assert.match(wrong.structuredContent.hint, hint);
            }
            assert.equal(await page.$eval("#tags", (el) => el.textContent), "work+home null");
          });

          await t.step("a tool that throws is action_failed with its message", async () => {
            const failed = await mcp.callTool("fail_todo", {});
            assert.equal(failed.isError, true);
            assert.equal(failed.structuredContent.error, "action_failed");
            assert.match(failed.structuredContent.message, /the list is locked/);
          });

          // A resubscribe that lands on another instance than the task's gets the task as it is,
          // then its stream ends (docs/scaling.md): deno task test runs this against one bridge.
          await t.step({
            name: "A2A runs them too, approved and declined",
            ignore: clusterSize() >= 2,
            fn: async () => {
              const a2a = await connectA2a("v1", bridge.origin, token);
              const asked = asTask(await a2a.sendMessage(a2aAction("add_todo", { text: "bread" })));
              assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
              const following = collect(a2a.resubscribeTask({ tenant: "", id: asked.id }));
              await clickPanelButton(page, "Approve");
              assert.deepEqual(shapes(await following).slice(-1), ["status:TASK_STATE_COMPLETED"]);
              const done = await a2a.getTask({
                tenant: "",
                id: asked.id,
                historyLength: undefined,
              });
              assert.deepEqual(answerOf(done).result, {
                content: [{ type: "text", text: "Added bread" }],
              });
              assert.equal(await todosText(page), "milk, bread");
              const refused = asTask(await a2a.sendMessage(a2aAction("clear_todos")));
              const refusing = collect(a2a.resubscribeTask({ tenant: "", id: refused.id }));
              await clickPanelButton(page, "Decline");
              assert.deepEqual(shapes(await refusing).slice(-1), ["status:TASK_STATE_FAILED"]);
              failureOf(
                await a2a.getTask({ tenant: "", id: refused.id, historyLength: undefined }),
                "declined",
              );
              assert.equal(await todosText(page), "milk, bread");
            },
          });

          await t.step("ACP: the caller's own page is an agent, for its session only", async () => {
            const agent = path.slice(1);
            const open = await bridge.fetch("/agents");
            assert.deepEqual((await open.json()).agents, []);
            const mine = await call(bridge, token, "/agents");
            assert.equal(mine.status, 200);
            assert.equal(mine.headers.get("Cache-Control"), "no-store");
            const [listed] = (await mine.json()).agents;
            assert.equal(listed.name, agent);
            const capabilities = listed.metadata.capabilities.map((c: { name: string }) => c.name);
            assert.deepEqual(capabilities, ["disconnect", "export_data", ...TOOL_IDS]);
            const res = await postRun(bridge, token, {
              agent_name: agent,
              input: [message(jsonPart("fail_todo", {}))],
            });
            assert.equal(res.status, 200);
            const run = await res.json();
            assert.equal(run.status, "failed", JSON.stringify(run));
            assert.match(run.error.message, /the list is locked/);
            const stranger = await postRun(bridge, null, {
              agent_name: agent,
              input: [message(jsonPart("fail_todo", {}))],
            });
            assert.equal(stranger.status, 401);
            await stranger.body?.cancel();
          });

          await t.step("a withdrawn tool leaves the tools at once", async () => {
            const changed = mcp.nextListChanged();
            await page.evaluate(() =>
              (window as unknown as { withdrawClear(): void }).withdrawClear()
            );
            await within(changed, "the tool list to change");
            const names = (await mcp.listTools()).map((tool) => tool.name);
            assert.ok(!names.includes("clear_todos"), names.join(", "));
            assert.ok(names.includes("add_todo"));
          });
        });
      }
    },
  });
}

/** A page that registers too many tools, one too large, and holds a frame that registers one. */
const BOUNDS_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Many</title>
${AIM_HEAD}
<script>
  for (let i = 0; i < 70; i++) {
    document.modelContext.registerTool({
      name: "t" + String(i).padStart(2, "0"),
      description: "Tool " + i,
      annotations: { readOnlyHint: true },
      execute: () => i,
    });
  }
  const properties = {};
  for (let i = 0; i < 40; i++) properties["f" + i] = { type: "string", description: "x".repeat(1000) };
  document.modelContext.registerTool({
    name: "huge",
    description: "A tool of 40 KB",
    inputSchema: { type: "object", properties },
    annotations: { readOnlyHint: true },
    execute: () => "big",
  });
</script>
</head><body>
${AIM_BODY}
<aim-tool name="t00" hidden></aim-tool>
<iframe src="/child.html"></iframe>
</body></html>`;

/** A frame of the same origin, with tools of its own (not aim's page). */
const CHILD_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Child</title>
<script>
  if (document.modelContext) {
    document.modelContext.registerTool({
      name: "a_child_tool",
      description: "The frame's tool",
      annotations: { readOnlyHint: true },
      execute: () => "from the frame",
    });
    window.childRegistered = true;
  }
</script></head><body>child</body></html>`;

for (const webmcp of [true, false]) {
  const flag = webmcp ? "with the WebMCP flag" : "without the WebMCP flag";
  Deno.test({
    name: `a page gets at most ${MAX_PAGE_TOOLS} tools of bounded size, and no frame's, ${flag}`,
    ignore: NO_CHROMIUM,
    async fn() {
      await using browser = await launchBrowser({ webmcp });
      await using bridge = await startBridge({
        site: { "many.html": BOUNDS_PAGE, "child.html": CHILD_PAGE },
      });
      const { context, page, token, warnings } = await openTodos(browser, bridge, "/many");
      await using _context = context;
      // t00 is hidden by the page's <aim-tool hidden>: the 64 after it.
      const first = Array.from(
        { length: MAX_PAGE_TOOLS },
        (_, i) => `t${String(i + 1).padStart(2, "0")}`,
      );
      await waitForActions(bridge, "/many.json", token, ["disconnect", ...first]);
      await warnings.waitFor(/more than 64 WebMCP tools/);
      await warnings.waitFor(/tool "huge": it is larger than 16384 bytes/);
      if (webmcp) {
        // Chromium lists the frame's tool to the page too; it is not the page's.
        await page.waitForFrame((f) => f.url().endsWith("/child.html"));
        const child = page.frames().find((f) => f.url().endsWith("/child.html"))!;
        await child.waitForFunction(() =>
          (window as { childRegistered?: boolean }).childRegistered
        );
        await warnings.waitFor(/"a_child_tool" was registered by another frame or origin/);
        const ids = (await sessionManifest(bridge, "/many.json", token)).actions.map((a) => a.id);
        assert.ok(!ids.includes("a_child_tool"));
      }
    },
  });
}

/** Declarative tools: forms with `toolname`, one submitted by the agent, one by the person. */
const FORMS_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Tea shop</title>
${AIM_HEAD}
</head><body>
${AIM_BODY}
<form id="order" toolname="order_tea" tooldescription="Order tea" toolautosubmit>
  <label>Tea <select name="tea"><option>green</option><option>black</option></select></label>
  <label>Cups <input type="number" name="cups" toolparamdescription="How many cups"></label>
</form>
<form id="note" toolname="leave_note" tooldescription="Leave a note for the shop">
  <input name="text" required><button id="send">Send</button>
</form>
<p id="out"></p>
<script>
  for (const form of document.forms) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const fields = Object.fromEntries(new FormData(form));
      document.getElementById("out").textContent += form.id + ":" + JSON.stringify(fields) + ";";
      if (event.agentInvoked) event.respondWith(Promise.resolve({ done: form.id, fields }));
    });
  }
</script>
</body></html>`;

for (const webmcp of [true, false]) {
  const flag = webmcp ? "Chromium's WebMCP" : "aim's API (no WebMCP flag)";
  Deno.test({
    name:
      `declarative forms (toolname) are actions through ${flag}, with and without toolautosubmit`,
    ignore: NO_CHROMIUM,
    async fn(t) {
      await using browser = await launchBrowser({ webmcp });
      await using bridge = await startBridge({ site: { "forms.html": FORMS_PAGE } });
      // The bridge reads the forms from the HTML: the public catalog lists them, no tab needed.
      const published = await bridge.fetch("/forms.json");
      assert.equal(published.status, 200);
      const manifest = await published.json();
      assert.deepEqual(manifest.actions.map((a: { id: string }) => a.id), [
        "order_tea",
        "leave_note",
        "disconnect",
      ]);
      assert.deepEqual(manifest.actions[1].input_schema, {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
        additionalProperties: false,
      });
      const map = await (await bridge.fetch("/sitemap.json")).json();
      assert.deepEqual(map.pages.map((p: { actions: string[] }) => p.actions), [[
        "order_tea",
        "leave_note",
        "disconnect",
      ]]);
      const { context, page, token } = await openTodos(browser, bridge, "/forms");
      await using _context = context;
      const actions = await waitForActions(bridge, "/forms.json", token, [
        "disconnect",
        "leave_note",
        "order_tea",
      ]);
      assert.equal(actions.order_tea!.consequential, true, "a form has no readOnlyHint");
      // The bridge's reading of the form is the browser's.
      assert.deepEqual(manifest.actions[0].input_schema, actions.order_tea!.input_schema);
      assert.deepEqual(actions.order_tea!.input_schema, {
        type: "object",
        properties: {
          tea: { type: "string", description: "Tea", enum: ["green", "black"] },
          cups: { type: "integer", description: "How many cups" },
        },
        additionalProperties: false,
      });
      await using mcp = await connectMcp("v2", bridge.origin, token);

      await t.step("toolautosubmit: the form is filled and submitted once approved", async () => {
        const call = mcp.callTool("order_tea", { tea: "black", cups: 2 });
        await clickPanelButton(page, "Approve");
        const ordered = await call;
        assert.equal(ordered.isError, undefined, JSON.stringify(ordered));
        assert.deepEqual(ordered.structuredContent.result, {
          done: "order",
          fields: { tea: "black", cups: "2" },
        });
      });

      await t.step("without it, the form is filled and the person submits it", async () => {
        const call = mcp.callTool("leave_note", { text: "thanks" });
        await clickPanelButton(page, "Approve");
        await page.waitForFunction(() =>
          document.querySelector<HTMLInputElement>("#note input")?.value === "thanks"
        );
        await page.click("#send");
        const left = await call;
        assert.equal(left.isError, undefined, JSON.stringify(left));
        assert.deepEqual(left.structuredContent.result, {
          done: "note",
          fields: { text: "thanks" },
        });
      });
    },
  });
}

const ROOT = new URL("../../", import.meta.url);
const APP = new URL("tests/apps/webmcp/", ROOT);

/** Bundles `entry` of tests/apps/webmcp/ with `deno bundle`, as its author would, to `out`. */
async function bundle(entry: string, out: string): Promise<void> {
  const built = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=browser",
      "--minify",
      "--lock=deno.test.lock",
      "--frozen=false",
      "--output",
      out,
      new URL(entry, APP).pathname,
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  assert.ok(built.success, `deno bundle ${entry}: ${new TextDecoder().decode(built.stderr)}`);
}

/** The site of the npm pages: the React app with `usewebmcp`, a page with the npm polyfill. */
async function npmSite(): Promise<string> {
  const site = await Deno.makeTempDir({ prefix: "aim-webmcp-npm-" });
  for (const file of ["react.html", "polyfill.html"]) {
    await Deno.copyFile(new URL(file, APP), `${site}/${file}`);
  }
  await bundle("app.jsx", `${site}/app.js`);
  await bundle("polyfill.ts", `${site}/polyfill.js`);
  return site;
}

for (const webmcp of [true, false]) {
  const flag = webmcp ? "with the WebMCP flag" : "without the WebMCP flag";
  Deno.test({
    name: `pages built with npm WebMCP packages (React hooks, a polyfill) are operable, ${flag}`,
    ignore: NO_CHROMIUM,
    async fn(t) {
      const site = await npmSite();
      try {
        await using browser = await launchBrowser({ webmcp });
        await using bridge = await startBridge({ root: site });

        await t.step("React with usewebmcp: hooks' tools, live with the app's state", async () => {
          const { context, page, token } = await openTodos(browser, bridge, "/react");
          await using _context = context;
          const actions = await waitForActions(bridge, "/react.json", token, [
            "disconnect",
            "add_item",
            "add_items",
            "empty_cart",
            "list_items",
          ]);
          assert.equal(actions.list_items!.consequential, false);
          assert.equal(actions.add_item!.consequential, true);
          assert.equal(actions.empty_cart!.consequential, true);
          await using mcp = await connectMcp("v1", bridge.origin, token);
          const call = mcp.callTool("add_item", { item: "tea" });
          await clickPanelButton(page, "Approve");
          const added = await call;
          assert.equal(added.isError, undefined, JSON.stringify(added));
          assert.deepEqual(added.structuredContent.result.structuredContent, { added: "tea" });
          await page.waitForFunction(() => document.getElementById("items")?.textContent === "tea");
          // A list, through the npm polyfill's JSON and React's state.
          const many = mcp.callTool("add_items", { items: ["milk", "eggs"] });
          await clickPanelButton(page, "Approve");
          const addedMany = await many;
          assert.equal(addedMany.isError, undefined, JSON.stringify(addedMany));
          assert.deepEqual(addedMany.structuredContent.result.structuredContent, {
            added: ["milk", "eggs"],
          });
          await page.waitForFunction(() =>
            document.getElementById("items")?.textContent === "teamilkeggs"
          );
          const repeated = await mcp.callTool("add_items", { items: ["milk", "milk"] });
          assert.equal(repeated.structuredContent.error, "invalid_input");
          const listed = await mcp.callTool("list_items", {});
          assert.deepEqual(listed.structuredContent.result.structuredContent, {
            items: ["tea", "milk", "eggs"],
          });
          // The app disables a hook: its tool leaves the session.
          const changed = mcp.nextListChanged();
          await page.click("#lock");
          await changed;
          await waitForActions(bridge, "/react.json", token, [
            "disconnect",
            "add_item",
            "add_items",
            "list_items",
          ]);
        });

        await t.step("a page with the npm polyfill: its tools, its errors", async () => {
          const { context, page, token } = await openTodos(browser, bridge, "/polyfill");
          await using _context = context;
          const actions = await waitForActions(bridge, "/polyfill.json", token, [
            "disconnect",
            "add_note",
            "burn_notes",
          ]);
          // The polyfill lists no destructiveHint; aim saw it registered.
          assert.equal(actions.burn_notes!.consequential, true);
          await using mcp = await connectMcp("v2", bridge.origin, token);
          const call = mcp.callTool("add_note", { text: "call Bob" });
          await clickPanelButton(page, "Approve");
          const added = await call;
          assert.deepEqual(added.structuredContent.result, { notes: 1 });
          assert.equal(await page.$eval("#notes", (el) => el.textContent), "call Bob");
          const burning = mcp.callTool("burn_notes", {});
          await clickPanelButton(page, "Approve");
          const burnt = await burning;
          assert.equal(burnt.structuredContent.error, "action_failed");
          assert.match(burnt.structuredContent.message, /the notes are fireproof/);
        });
      } finally {
        await Deno.remove(site, { recursive: true });
      }
    },
  });
}
