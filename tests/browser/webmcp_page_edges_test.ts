/**
 * Pages that already use WebMCP, at their edges, in real Chromium with and without
 * `--enable-features=WebMCP`: a page that registers too many tools, one too large, and a frame
 * that registers one of its own; and declarative forms (`<form toolname>`) beside the page's
 * script tools. The pages' own tools are tests/browser/webmcp_pages_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import { connectClient as connectMcp } from "../mcp/helpers.ts";
import { MAX_PAGE_TOOLS } from "../../bridge/wire/webmcp_tools.ts";
import { clickPanelButton, launchBrowser, NO_CHROMIUM } from "./harness.ts";
import {
  AIM_BODY,
  AIM_HEAD,
  openTodos,
  sessionManifest,
  waitForActions,
} from "../helpers/webmcp_pages.ts";

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
        // Chromium tells the page of the frame's tool with a toolchange, which three bridges and
        // a browser on two cores may take more than the default 5 s to deliver and read.
        await warnings.waitFor(/"a_child_tool" was registered by another frame or origin/, 15_000);
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
