/**
 * Tests of WebMCP (elements/webmcp.ts): in real Chromium started with
 * `--enable-features=WebMCP`, the page's actions are tools of `document.modelContext`, run as an
 * agent's invocations are (input checked, the person asked, the panel and the bridge's audit log
 * told); without the flag nothing loads; a static page without a bridge. The in-page input check
 * against the bridge's is tests/unit/input_check_test.ts's, the bridge's side of the `run`
 * message tests/protocol/run_reports_test.ts's, the page and the agent's steps
 * tests/helpers/webmcp_page.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ElementHandle } from "puppeteer-core";
import { READ_TOOL } from "../../bridge/wire/tools.ts";
import { ELEMENTS_CHUNKS, ELEMENTS_JS } from "../../bridge/http/assets.ts";
import type { Schema } from "../../elements/input_check.ts";
import { startBridge } from "../helpers/bridge.ts";
import {
  activity,
  execute,
  listTools,
  PAGE,
  pendingAnswer,
  startExecute,
  toolsAre,
  users,
  watchTools,
  type WithModelContext,
} from "../helpers/webmcp_page.ts";
import {
  clickPanelButton,
  ELEMENTS,
  launchBrowser,
  NO_CHROMIUM,
  panelStatus,
  panelText,
  panelToken,
  pointAtApprove,
} from "./harness.ts";

Deno.test({
  name: "an agent in the browser sees the page's actions as WebMCP tools and runs them as an " +
    "agent of the bridge would",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser({ webmcp: true });
    await using bridge = await startBridge({ site: { "bills.html": PAGE }, users });
    await using context = await browser.context();
    const tab = await context.newPage();
    await watchTools(tab);
    await tab.goto(`${bridge.origin}/bills`);
    await panelStatus(tab, "connected");
    const token = await panelToken(tab);
    const visible = ["rename", "place_order", "search", "pay", "tag", READ_TOOL];
    await toolsAre(tab, visible);

    await t.step(
      "getTools() lists each action with its schema and hints, and the read tool",
      async () => {
        const tools = Object.fromEntries((await listTools(tab)).map((tool) => [tool.name, tool]));
        // The schemas are the manifest's, a string input wrapped exactly as the MCP tool's.
        const manifest = await (await bridge.fetch("/bills.json")).json();
        const schemaOf = (id: string) =>
          manifest.actions.find((a: { id: string }) => a.id === id).input_schema;
        assert.deepEqual(tools.rename, {
          name: "rename",
          title: "Rename",
          description: "Set the page's title",
          inputSchema: {
            type: "object",
            properties: { input: schemaOf("rename") },
            required: ["input"],
            additionalProperties: false,
          },
          annotations: {
            readOnlyHint: false,
            consequentialHint: false,
            untrustedContentHint: false,
            debugging: false,
          },
        });
        assert.deepEqual(schemaOf("rename"), {
          type: "string",
          description: "The new title",
          minLength: 2,
        });
        assert.equal(tools.place_order?.title, "Place order");
        assert.deepEqual(tools.place_order?.inputSchema, schemaOf("place_order"));
        assert.deepEqual(Object.keys(schemaOf("place_order").properties), ["item", "quantity"]);
        assert.equal(tools.search?.annotations.readOnlyHint, true);
        assert.equal(tools.search?.annotations.consequentialHint, false);
        assert.equal(tools.pay?.annotations.consequentialHint, true);
        assert.equal(tools.pay?.annotations.readOnlyHint, false);
        assert.equal(tools[READ_TOOL]?.annotations.readOnlyHint, true);
        // Protected: not a tool before someone signs in.
        assert.equal(tools.history, undefined);
      },
    );

    await t.step("executeTool runs a string action and an object action", async () => {
      const renamed = await execute(tab, "rename", { input: "Paid bills" });
      assert.equal(renamed.ok, true);
      assert.equal(renamed.actionId, "rename");
      assert.deepEqual(renamed.result, { title: "Paid bills" });
      assert.equal(renamed.state.title, "Paid bills");
      assert.equal(renamed.settled, true);

      const ordered = await execute(tab, "place_order", { item: "pen", quantity: "3" });
      assert.equal(ordered.ok, true);
      assert.deepEqual(ordered.result, { submitted: "#order" });
      assert.equal(await tab.$eval("#ordered", (el) => el.textContent), "3 pen");

      const read = await execute(tab, READ_TOOL, {});
      assert.equal(read.page, "/bills");
      assert.equal(read.state.title, "Paid bills");
      assert.deepEqual(read.actions.map((a: { id: string }) => a.id).sort(), [
        "pay",
        "place_order",
        "rename",
        "search",
        "tag",
      ]);
    });

    await t.step(
      "invalid input is answered invalid_input with a hint, and nothing runs",
      async () => {
        const short = await execute(tab, "rename", { input: "x" });
        assert.equal(short.ok, false);
        assert.equal(short.error, "invalid_input");
        assert.match(short.message, /^Input for "rename" does not match its input_schema: input/);
        assert.equal(short.hint, "input must be at least 2 characters long");
        assert.deepEqual(short.input_example, { input: "Hi" });
        assert.equal((short.input_schema as Schema).required?.[0], "input");

        const unwrapped = await execute(tab, "rename", { title: "Paid" });
        assert.equal(unwrapped.error, "invalid_input");
        assert.match(
          unwrapped.message,
          /^Arguments for "rename" must be \{"input": <string>\}: call rename/,
        );
        assert.match(unwrapped.hint, /for example \{"input":"Hi"\}/);

        const missing = await execute(tab, "place_order", { quantity: "2" });
        assert.equal(missing.error, "invalid_input");
        assert.equal(missing.hint, 'field "item" is required');
        const unknown = await execute(tab, "place_order", { item: "pen", colour: "red" });
        assert.match(unknown.hint, /^unknown field "colour"; allowed fields: item, quantity$/);
        const pattern = await execute(tab, "place_order", { item: "pen", quantity: "two" });
        assert.equal(pattern.hint, 'field "quantity" must match the pattern ^[0-9]+$');
        assert.equal(await tab.$eval("#title", (el) => el.textContent), "Paid bills");
        assert.equal(await tab.$eval("#ordered", (el) => el.textContent), "3 pen");
      },
    );

    await t.step(
      "a consequential tool waits for the person: Decline answers declined",
      async () => {
        await startExecute(tab, "pay", { input: "bill-7" });
        await tab.waitForFunction(() =>
          document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") !== null
        );
        assert.match(await panelText(tab), /The agent asks to run pay .*"bill-7"/);
        await clickPanelButton(tab, "Decline");
        const declined = await pendingAnswer(tab);
        assert.deepEqual(declined, {
          actionId: "pay",
          ok: false,
          error: "declined",
          message: 'The person declined "pay".',
        });

        await startExecute(tab, "pay", { input: "bill-8" });
        await clickPanelButton(tab, "Approve");
        const paid = await pendingAnswer(tab);
        assert.equal(paid.ok, true);
        assert.deepEqual(paid.result, { paid: "bill-8" });
      },
    );

    await t.step("an agent that cancels its run withdraws the person's prompt", async () => {
      await startExecute(tab, "pay", { input: "bill-9" });
      await tab.waitForFunction(() =>
        document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") !== null
      );
      await tab.evaluate(() => (window as unknown as WithModelContext).cancel.abort());
      assert.deepEqual(await pendingAnswer(tab), { rejected: "AbortError" });
      await tab.waitForFunction(() =>
        document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") === null
      );
    });

    await t.step("the runs show in the panel and in /__aim/activity, as from WebMCP", async () => {
      await tab.waitForFunction(() =>
        (document.querySelector("aim-panel")?.shadowRoot?.textContent ?? "").includes(
          "409 cancelled",
        )
      );
      const text = await panelText(tab);
      for (const line of ["rename 200 ok", "place_order 200 ok", "pay 403 declined"]) {
        assert.ok(text.includes(line), `the panel lacks "${line}": ${text}`);
      }
      const entries = await activity(bridge.origin, token);
      const runs = entries.map((e) => [e.actionId, e.status, e.outcome, e.via, e.input]);
      assert.deepEqual(runs.reverse(), [
        ["rename", 200, "ok", "webmcp", "Paid bills"],
        ["place_order", 200, "ok", "webmcp", { item: "pen", quantity: "3" }],
        ["rename", 400, "invalid_input", "webmcp", null],
        ["rename", 400, "invalid_input", "webmcp", null],
        ["place_order", 400, "invalid_input", "webmcp", null],
        ["place_order", 400, "invalid_input", "webmcp", null],
        ["place_order", 400, "invalid_input", "webmcp", null],
        ["pay", 403, "declined", "webmcp", "bill-7"],
        ["pay", 200, "ok", "webmcp", "bill-8"],
        ["pay", 409, "cancelled", "webmcp", "bill-9"],
      ]);
      assert.ok(entries.every((e) => e.page === "/bills" && e.username === null));
    });

    await t.step(
      "one prompt at a time: a second consequential run waits for the first's answer",
      async () => {
        await startExecute(tab, "pay", { input: "bill-10" });
        await tab.evaluate(() => {
          const w = window as unknown as WithModelContext & { first: Promise<string> };
          w.first = w.pending;
        });
        await startExecute(tab, "pay", { input: "bill-11" });
        await tab.waitForFunction(() =>
          document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") !== null
        );
        const first = await panelText(tab);
        assert.ok(first.includes("bill-10") && !first.includes("bill-11"), first);
        await clickPanelButton(tab, "Decline");
        await tab.waitForFunction(() =>
          document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm")?.textContent
            ?.includes("bill-11")
        );
        await clickPanelButton(tab, "Approve");
        const answers = await tab.evaluate(async () => {
          const w = window as unknown as WithModelContext & { first: Promise<string> };
          return [JSON.parse(await w.first).error, JSON.parse(await w.pending).result];
        });
        assert.deepEqual(answers, ["declined", { paid: "bill-11" }]);
      },
    );

    await t.step(
      "hiding an action removes its tool (toolchange); showing it brings it back",
      async () => {
        const before = await tab.evaluate(() =>
          (window as unknown as WithModelContext).toolchanges
        );
        await tab.evaluate(() =>
          document.querySelector<HTMLElement>("aim-action[name=search]")!.hidden = true
        );
        await toolsAre(tab, visible.filter((name) => name !== "search"));
        assert.ok(
          await tab.evaluate(() => (window as unknown as WithModelContext).toolchanges) > before,
        );
        await tab.evaluate(() =>
          document.querySelector<HTMLElement>("aim-action[name=search]")!.hidden = false
        );
        await toolsAre(tab, visible);
        await tab.evaluate(() => document.querySelector("aim-action[name=pay]")!.remove());
        await toolsAre(tab, visible.filter((name) => name !== "pay"));
      },
    );

    await t.step("a changed declaration is registered again, as it is now", async () => {
      await tab.evaluate(() =>
        document.querySelector("aim-action[name=rename]")!.setAttribute(
          "description",
          "Give the page a new title",
        )
      );
      await tab.waitForFunction(async () => {
        const tools = await (window as unknown as WithModelContext).modelContext().getTools();
        return tools.find((t) => t.name === "rename")?.description === "Give the page a new title";
      });
    });

    await t.step("signing in makes a protected action a tool", async () => {
      const login = await bridge.invoke(token, "login", {
        username: "alice",
        password: "wonderland",
      });
      assert.equal(login.status, 200);
      await login.body?.cancel();
      await toolsAre(tab, [...visible.filter((name) => name !== "pay"), "history"]);
      const history = await execute(tab, "history", { input: "2026" });
      assert.deepEqual(history.result, { year: "2026", bills: [] });
      // The tab reports the run after the tool has answered in the page: wait for the report.
      const deadline = Date.now() + 10_000;
      let [last] = await activity(bridge.origin, token);
      while (last?.actionId !== "history" && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        [last] = await activity(bridge.origin, token);
      }
      assert.deepEqual([last.actionId, last.username, last.via], ["history", "alice", "webmcp"]);
    });

    await t.step(
      "a list and a nested object run from the browser and from the bridge",
      async () => {
        const input = { tags: ["food", "rent"], period: { from: "2026-01" } };
        const tagged = await execute(tab, "tag", input);
        assert.equal(tagged.ok, true, JSON.stringify(tagged));
        assert.deepEqual(tagged.result, { tagged: input });
        for (
          const [wrong, hint] of [
            [{ tags: ["fun"] }, 'field "tags[0]" must be one of ["rent","food"]'],
            [{ tags: ["food", "food"] }, 'field "tags" must not repeat an item'],
            [{ tags: [] }, 'field "tags" must have at least 1 item'],
            [{ tags: ["food"], period: {} }, 'field "period.from" is required'],
            [{ tags: ["food"], period: { from: "2026" } }, /^field "period.from" must match/],
          ] as const
        ) {
          const refused = await execute(tab, "tag", wrong);
          assert.equal(refused.error, "invalid_input", JSON.stringify(wrong));
          if (typeof hint === "string") assert.equal(refused.hint, hint);
          else assert.match(refused.hint, hint);
        }
        const res = await fetch(`${bridge.origin}/__aim/invoke`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
          body: JSON.stringify({ actionId: "tag", input }),
        });
        const answer = await res.json();
        assert.equal(res.status, 200, JSON.stringify(answer));
        assert.deepEqual(answer.result, { tagged: input });
        const manifest = await (await fetch(`${bridge.origin}/bills.json`, {
          headers: { Authorization: `Bearer ${token}` },
        })).json();
        const tag = manifest.actions.find((a: { id: string }) => a.id === "tag");
        assert.deepEqual(tag.input_example, { tags: ["rent"] });
      },
    );
  },
});

/** Serves `page` and the elements from a plain server that is no bridge. */
function staticServer(page: string): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    const chunk = ELEMENTS_CHUNKS.get(url.pathname + url.search);
    const js = { "Content-Type": "text/javascript" };
    if (url.pathname === "/__aim/elements.js") return new Response(ELEMENTS_JS, { headers: js });
    if (chunk) return new Response(chunk.bytes, { headers: js });
    if (url.pathname === "/") {
      return new Response(page, { headers: { "Content-Type": "text/html" } });
    }
    return new Response("Not found", { status: 404 });
  });
}

Deno.test({
  name: "a static page served without a bridge gets its tools from the elements alone, and a " +
    "consequential one asks in the elements' own dialog",
  ignore: NO_CHROMIUM,
  async fn() {
    await using browser = await launchBrowser({ webmcp: true });
    await using server = staticServer(`<!doctype html><title>Static</title>${ELEMENTS}
<aim-action name="pay" description="Pay one bill now" input-example="bill-1" consequential>
</aim-action>
<script type="module">
  document.querySelector("aim-action").handler = (bill) => ({ paid: bill });
</script>`);
    await using context = await browser.context();
    const tab = await context.newPage();
    await watchTools(tab);
    await tab.goto(`http://127.0.0.1:${server.addr.port}/`);
    await toolsAre(tab, ["pay", READ_TOOL]);
    // No bridge answered: the session is unavailable, the tools are there all the same.
    await tab.waitForFunction(async () => {
      const url = "/__aim/elements.js";
      return (await import(url)).client.status === "ended";
    });

    for (const [button, answer] of [[".decline", "declined"], [".approve", "ok"]]) {
      await startExecute(tab, "pay", { input: "bill-2" });
      const click = await tab.waitForFunction(
        (selector: string) =>
          document.querySelector("aim-confirm")?.shadowRoot?.querySelector(selector) ?? false,
        {},
        button!,
      );
      const target = click as unknown as ElementHandle<HTMLButtonElement>;
      // Approve works once the dialog has been read (elements/prompt.ts).
      if (button === ".approve") await pointAtApprove(tab, target);
      await target.click();
      const result = await pendingAnswer(tab);
      assert.equal(result.ok ? "ok" : result.error, answer);
    }
  },
});

Deno.test({
  name: "without WebMCP in the browser, the WebMCP chunk is never loaded",
  ignore: NO_CHROMIUM,
  async fn() {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: { "bills.html": PAGE }, users });
    await using context = await browser.context();
    const tab = await context.newPage();
    const loaded: string[] = [];
    tab.on("request", (request) => loaded.push(new URL(request.url()).pathname));
    await tab.goto(`${bridge.origin}/bills`);
    await panelStatus(tab, "connected");
    assert.equal(await tab.evaluate(() => "modelContext" in document), false);
    assert.ok(loaded.includes("/__aim/elements.panel.js"));
    assert.ok(!loaded.some((path) => path.includes("webmcp")), loaded.join(" "));
  },
});
