/**
 * Tests of pages that already use WebMCP (issue 21): a page that registers tools of its own, as
 * pages written for WebMCP do (an inline classic script while it is parsed, a module, a React
 * app with the `usewebmcp` hooks, the `@mcp-b/webmcp-polyfill` polyfill), with aim's two lines
 * added, in real Chromium with and without `--enable-features=WebMCP`: the tools are actions of
 * its session manifest, MCP tools and A2A skills, live as the page registers and withdraws
 * them, run in the page, a consequential one only once the person approved it. Too many tools,
 * frames and declarative forms are tests/browser/webmcp_page_edges_test.ts's, the pages
 * tests/helpers/webmcp_pages.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import { clusterSize, startBridge } from "../helpers/bridge.ts";
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
import { call, jsonPart, message, postRun } from "../acp/helpers.ts";
import { clickPanelButton, launchBrowser, NO_CHROMIUM } from "./harness.ts";
import {
  EXPORT_DATA,
  INLINE_PAGE,
  MODULE_PAGE,
  OLD_DRAFT_PAGE,
  openTodos,
  sessionManifest,
  todosText,
  TOOL_IDS,
  waitForActions,
} from "../helpers/webmcp_pages.ts";

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
