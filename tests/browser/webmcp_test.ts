/**
 * Tests of WebMCP (elements/webmcp.ts): in real Chromium started with
 * `--enable-features=WebMCP`, the page's actions are tools of `document.modelContext`, run as an
 * agent's invocations are (input checked, the person asked, the panel and the bridge's audit log
 * told); without the flag nothing loads. Also the in-page input check against the bridge's, and
 * the bridge's side of the `run` message.
 *
 * @module
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import fc from "fast-check";
import type { ElementHandle, Page } from "puppeteer-core";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { READ_TOOL } from "../../bridge/wire/tools.ts";
import { parseActionSpec, RESERVED_TOOL_IDS } from "../../bridge/input/action_spec.ts";
import { validateInput } from "../../bridge/input/validate.ts";
import type { ActionSpec, InputSchema } from "../../bridge/wire/schemas.ts";
import { AuditLog } from "../../bridge/audit/log.ts";
import { ELEMENTS_CHUNKS, ELEMENTS_JS } from "../../bridge/http/assets.ts";
import { inputProblem, type Schema } from "../../elements/input_check.ts";
import { RUN_REPORTS } from "../../bridge/core/tab_messages.ts";
import { startBridge } from "../helpers/bridge.ts";
import { FakeTab, openPageSession } from "../helpers/fake_tab.ts";
import { tempDir } from "../helpers/temp.ts";
import { schemaArbitrary, valueArbitrary } from "../helpers/input_schemas.ts";
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

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bills</title>
${ELEMENTS}</head><body>
<aim-panel></aim-panel>
<h1 id="title">Bills</h1>
<form id="order"><label for="item">Item</label><input id="item" name="item" required>
<label>Quantity <input name="quantity" pattern="[0-9]+"></label><button>Order</button></form>
<p id="ordered"></p>
<aim-state name="title" from="#title"></aim-state>
<aim-state name="ordered" from="#ordered"></aim-state>
<aim-action name="rename" description="Set the page's title" input-description="The new title"
  input-min-length="2" input-example="Hi"></aim-action>
<aim-action name="place_order" description="Order an item" form="#order"
  input-example='{"item": "pen", "quantity": "2"}'></aim-action>
<aim-action name="search" description="Search the bills" input-example="open" read-only>
</aim-action>
<aim-action name="pay" description="Pay one bill now; the money leaves the account"
  input-example="bill-1" consequential></aim-action>
<aim-action name="history" description="The bills paid this year" input-example="2026"
  protected></aim-action>
<aim-action name="tag" description="Tag bills" read-only>
  <aim-field name="tags" type="array" items-enum="rent,food" unique-items min-items="1" required>
  </aim-field>
  <aim-field name="period" type="object">
    <aim-field name="from" pattern="[0-9]{4}-[0-9]{2}" required></aim-field>
  </aim-field>
</aim-action>
<script type="module">
  const action = (name) => document.querySelector(\`aim-action[name=\${name}]\`);
  action("rename").handler = (title) => {
    document.getElementById("title").textContent = title;
    return { title };
  };
  action("search").handler = (query) => ({ query, bills: ["bill-1"] });
  action("pay").handler = (bill) => ({ paid: bill });
  action("history").handler = (year) => ({ year, bills: [] });
  action("tag").handler = (input) => ({ tagged: input });
  document.getElementById("order").addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(event.target);
    document.getElementById("ordered").textContent = data.get("quantity") + " " + data.get("item");
  });
</script>
</body></html>`;

const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }), name: "Alice" },
]);

/** A tool as `getTools()` lists it, without its window. */
interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: unknown;
  annotations: { readOnlyHint: boolean; consequentialHint: boolean };
}

/** `document.modelContext`, as the page sees it (not in TypeScript's DOM types yet). */
interface ModelContext extends EventTarget {
  getTools(): Promise<(ListedTool & { window: Window })[]>;
  executeTool(tool: unknown, input: unknown, options?: { signal?: AbortSignal }): Promise<string>;
}
type WithModelContext = Window & {
  modelContext(): ModelContext;
  toolchanges: number;
  pending: Promise<string>;
  cancel: AbortController;
};

/**
 * Before the page loads, gives it `modelContext()` and counts its `toolchange` events, as an
 * agent watching the page would.
 */
async function watchTools(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(() => {
    const w = window as unknown as WithModelContext;
    w.modelContext = () => (document as unknown as { modelContext: ModelContext }).modelContext;
    w.toolchanges = 0;
    w.modelContext()?.addEventListener("toolchange", () => w.toolchanges++);
  });
}

/** The tools the page lists, by name. */
function listTools(page: Page): Promise<ListedTool[]> {
  return page.evaluate(async () => {
    const tools = await (window as unknown as WithModelContext).modelContext().getTools();
    return tools.map(({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      annotations,
    }));
  });
}

/** Waits until the page's tools (their names, sorted) are `names`. */
async function toolsAre(page: Page, names: string[]): Promise<void> {
  await page.waitForFunction(
    async (want: string) => {
      const tools = await (window as unknown as WithModelContext).modelContext().getTools();
      return tools.map((t) => t.name).sort().join() === want;
    },
    { timeout: 10_000 },
    [...names].sort().join(),
  );
}

/** Runs a tool as an agent in the browser does; returns its answer, parsed. */
// deno-lint-ignore no-explicit-any
async function execute(page: Page, name: string, input: unknown): Promise<any> {
  const text = await page.evaluate(
    async (name: string, input: unknown) => {
      const context = (window as unknown as WithModelContext).modelContext();
      const tool = (await context.getTools()).find((t) => t.name === name);
      return await context.executeTool(tool, input as object);
    },
    name,
    input,
  );
  return JSON.parse(text);
}

/** Starts a tool run in the page without waiting for it (`window.pending`). */
async function startExecute(page: Page, name: string, input: unknown): Promise<void> {
  await page.evaluate(
    async (name: string, input: unknown) => {
      const w = window as unknown as WithModelContext;
      const tool = (await w.modelContext().getTools()).find((t) => t.name === name);
      w.cancel = new AbortController();
      w.pending = w.modelContext().executeTool(tool, input as object, { signal: w.cancel.signal });
      w.pending.catch(() => {});
    },
    name,
    input,
  );
}

/** The answer of the run started by {@linkcode startExecute}, or the error it failed with. */
// deno-lint-ignore no-explicit-any
async function pendingAnswer(page: Page): Promise<any> {
  return JSON.parse(
    await page.evaluate(() =>
      (window as unknown as WithModelContext).pending.then(
        (text) => text,
        (error) => JSON.stringify({ rejected: String(error?.name) }),
      )
    ),
  );
}

// deno-lint-ignore no-explicit-any
async function activity(origin: string, token: string): Promise<any[]> {
  const res = await fetch(`${origin}/__aim/activity`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
  return (await res.json()).entries;
}

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

// ------------------------------------------------------------------------------------------
// The in-page input check and the names the page and the bridge share.

Deno.test("the read tool's name, which WebMCP and MCP share from bridge/wire/names.ts, is reserved", () => {
  assert.ok(RESERVED_TOOL_IDS.includes(READ_TOOL));
});

const PATTERNS = ["^[a-z]+$", "^req-[0-9]+$", "\\d", "^(?:a|bc)+$", "^\\p{Lu}", "x.y"];

const stringSchema = fc.record({
  type: fc.constant("string" as const),
  minLength: fc.option(fc.nat(4), { nil: undefined }),
  maxLength: fc.option(fc.integer({ min: 4, max: 8 }), { nil: undefined }),
  pattern: fc.option(fc.constantFrom(...PATTERNS), { nil: undefined }),
  enum: fc.option(fc.array(fc.constantFrom("a", "abc", "req-1", "X1"), { minLength: 1 }), {
    nil: undefined,
  }),
}, { requiredKeys: ["type"] });

const numberSchema = fc.record({
  type: fc.constantFrom("number" as const, "integer" as const),
  minimum: fc.option(fc.integer({ min: -5, max: 0 }), { nil: undefined }),
  maximum: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
}, { requiredKeys: ["type"] });

const fieldSchema = fc.oneof(stringSchema, numberSchema, fc.constant({ type: "boolean" as const }));

const NAMES = ["a", "b", "c"];

const objectSchema = fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), fieldSchema), {
  selector: ([name]) => name,
  maxLength: 3,
}).chain((fields) =>
  fc.subarray(fields.map(([name]) => name)).map((required) => ({
    type: "object" as const,
    properties: Object.fromEntries(fields),
    required,
    additionalProperties: false as const,
  }))
);

/** Values near what the schemas above accept and refuse, and some of any kind. */
const fieldValue = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      ...["", "a", "abc", "bcbc", "req-1", "req-", "X1", "Éa", "xzy", "x\ny", "p{Lu}", "12"],
      ...["abcdefghij", "1.5", "true"],
    ),
    weight: 6,
  },
  { arbitrary: fc.integer({ min: -7, max: 7 }), weight: 2 },
  fc.double({ min: -7, max: 7, noNaN: true }),
  fc.boolean(),
  fc.string({ maxLength: 6 }),
);

const inputValue = fc.oneof(
  { arbitrary: fieldValue, weight: 4 },
  fc.constantFrom(null, [], ["a"]),
  {
    arbitrary: fc.dictionary(
      fc.constantFrom(...NAMES, "d"),
      fc.oneof({ arbitrary: fieldValue, weight: 5 }, fc.constant(null)),
      { maxKeys: 4 },
    ),
    weight: 3,
  },
);

Deno.test("inputProblem() accepts exactly the inputs the bridge's validateInput() accepts", () => {
  fc.assert(
    fc.property(fc.oneof(fieldSchema, objectSchema), inputValue, (schema, input) => {
      // Only schemas the bridge would take (a minLength above maxLength it refuses).
      if ("minLength" in schema && (schema.minLength ?? 0) > (schema.maxLength ?? Infinity)) return;
      const spec = {
        id: "act",
        description: "An action",
        input_schema: schema as InputSchema,
        input_example: "",
        consequential: false,
        protected: false,
        read_only: false,
      } as ActionSpec;
      let bridge = true;
      try {
        validateInput(spec, input);
      } catch {
        bridge = false;
      }
      const problem = inputProblem(schema as Schema, input);
      assert.equal(problem === undefined, bridge, `${JSON.stringify(input)}: ${problem}`);
    }),
    { numRuns: 10_000 },
  );
});

Deno.test("inputProblem() accepts exactly what the bridge accepts, for nested, listed and mixed schemas", () => {
  fc.assert(
    fc.property(
      schemaArbitrary({ formats: false }),
      // As JSON carries them: plain objects (fast-check makes some without a prototype).
      fc.oneof(valueArbitrary(), fc.jsonValue({ maxDepth: 3 })).map((v) =>
        JSON.parse(JSON.stringify(v))
      ),
      (schema, input) => {
        let spec: ActionSpec;
        try {
          spec = parseActionSpec({
            id: "act",
            description: "An action",
            input_schema: schema,
            consequential: false,
            protected: false,
          });
        } catch {
          return; // a schema the bridge refuses, which no page registers
        }
        let bridge = true;
        try {
          validateInput(spec, input);
        } catch {
          bridge = false;
        }
        const problem = inputProblem(schema as Schema, input);
        assert.equal(
          problem === undefined,
          bridge,
          `${JSON.stringify(schema)} ${JSON.stringify(input)}: ${problem}`,
        );
      },
    ),
    { numRuns: 3000 },
  );
});

// ------------------------------------------------------------------------------------------
// The bridge's side: the tab's `run` message and the audit log.

Deno.test("the bridge records a tab's run report as from WebMCP, with its own status and the input as it validates it", async () => {
  await using bridge = await startBridge();
  const token = await openPageSession(bridge.origin, "/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.register([{
    id: "sign",
    input_schema: {
      type: "object",
      properties: { name: { type: "string" }, password: { type: "string" } },
      additionalProperties: false,
    },
    input_example: { name: "ann" },
  }]);
  const run = { type: "run", via: "webmcp", actionId: "sign", durationMs: 12.345 };
  tab.send({ ...run, input: { name: "ann", password: "hunter2" }, outcome: "declined" });
  // An input that does not pass the registered schema is not kept, whatever the tab says.
  tab.send({ ...run, input: { nick: "x" }, outcome: "ok" });
  // An action the tab never declared is not recorded.
  tab.send({ ...run, actionId: "elsewhere", input: "y", outcome: "action_failed" });
  // A prompt left open for days is recorded as a day, and the channel stays open.
  tab.send({ ...run, outcome: "ok", durationMs: 9 * 24 * 3600 * 1000 });
  // A round trip: the runs before it are recorded by then.
  await tab.register([]);
  const entries = await activity(bridge.origin, token);
  assert.deepEqual(
    entries.map((e) => [e.actionId, e.status, e.outcome, e.via, e.input, e.durationMs]),
    [
      ["sign", 200, "ok", "webmcp", null, 24 * 3600 * 1000],
      ["sign", 200, "ok", "webmcp", null, 12.35],
      ["sign", 403, "declined", "webmcp", { name: "ann" }, 12.35],
    ],
  );
  assert.ok(!JSON.stringify(entries).includes("hunter2"));
  // What a page reports is its word: the public ACP statistics do not count it.
  const agents = await (await bridge.fetch("/agents")).json();
  const panel = agents.agents.find((a: { name: string }) => a.name === "control-panel");
  assert.ok(panel, "the page is an agent");
  assert.equal(panel.status, undefined, JSON.stringify(panel.status));
});

Deno.test("a tab reports at most RUN_REPORTS.burst runs at once; the rest are dropped, the channel kept", async () => {
  let now = 1_000_000;
  await using bridge = await startBridge({ now: () => now });
  const token = await openPageSession(bridge.origin, "/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.register([{ id: "sign", input_schema: { type: "string" }, input_example: "x" }]);
  const run = { type: "run", via: "webmcp", actionId: "sign", outcome: "ok", durationMs: 1 };
  for (let i = 0; i < RUN_REPORTS.burst + 20; i++) tab.send(run);
  await tab.register([{ id: "sign", input_schema: { type: "string" }, input_example: "x" }]);
  assert.equal((await activity(bridge.origin, token)).length, RUN_REPORTS.burst);
  // The budget refills with time: a minute later, so many more a minute.
  now += 60_000;
  for (let i = 0; i < RUN_REPORTS.perMinute + 5; i++) tab.send(run);
  await tab.register([{ id: "sign", input_schema: { type: "string" }, input_example: "x" }]);
  assert.equal(
    (await activity(bridge.origin, token)).length,
    RUN_REPORTS.burst + Math.min(RUN_REPORTS.burst, RUN_REPORTS.perMinute),
  );
  assert.equal(tab.socket.readyState, WebSocket.OPEN);
});

Deno.test("a run report with an outcome the bridge does not know closes that channel (1008)", async () => {
  await using bridge = await startBridge();
  const token = await openPageSession(bridge.origin, "/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  tab.send({ type: "run", via: "webmcp", actionId: "x", outcome: "teleported", durationMs: 1 });
  const closed = await tab.closed;
  assert.equal(closed.code, 1008);
  assert.match(closed.reason, /malformed message/);
  assert.deepEqual(await activity(bridge.origin, token), []);
});

Deno.test("an audit log written before runs in the browser were recorded opens with them as from the bridge", async () => {
  await using temp = await tempDir("aim-audit-");
  const path = `${temp.path}/audit.sqlite`;
  const old = new DatabaseSync(path);
  old.exec(`CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL,
    session_id TEXT NOT NULL, username TEXT, page TEXT NOT NULL, action_id TEXT NOT NULL,
    input TEXT NOT NULL, status INTEGER NOT NULL, outcome TEXT NOT NULL, duration_ms REAL NOT NULL);
    INSERT INTO audit (at, session_id, username, page, action_id, input, status, outcome, duration_ms)
    VALUES ('${new Date().toISOString()}', 's1', NULL, '/', 'search', '"x"', 200, 'ok', 1);`);
  old.close();
  using audit = new AuditLog(path);
  audit.record({
    at: new Date(),
    sessionId: "s1",
    page: "/",
    username: null,
    actionId: "pay",
    input: "bill-1",
    status: 200,
    outcome: "ok",
    durationMs: 2,
    via: "webmcp",
  });
  assert.deepEqual(audit.forSession("s1").map((e) => [e.actionId, e.via]), [
    ["pay", "webmcp"],
    ["search", "bridge"],
  ]);
});
