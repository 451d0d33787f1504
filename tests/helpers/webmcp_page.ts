/**
 * Test helper of the WebMCP tests: the bills page they serve, its user, and what an agent in the
 * browser does with `document.modelContext` (watch, list and run its tools, read a pending
 * answer), and the session's activity as the bridge records it.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { ELEMENTS } from "../browser/harness.ts";

export const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bills</title>
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

export const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }), name: "Alice" },
]);

/** A tool as `getTools()` lists it, without its window. */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: unknown;
  annotations: { readOnlyHint: boolean; consequentialHint: boolean };
}

/** `document.modelContext`, as the page sees it (not in TypeScript's DOM types yet). */
export interface ModelContext extends EventTarget {
  getTools(): Promise<(ListedTool & { window: Window })[]>;
  executeTool(tool: unknown, input: unknown, options?: { signal?: AbortSignal }): Promise<string>;
}
export type WithModelContext = Window & {
  modelContext(): ModelContext;
  toolchanges: number;
  pending: Promise<string>;
  cancel: AbortController;
};

/**
 * Before the page loads, gives it `modelContext()` and counts its `toolchange` events, as an
 * agent watching the page would.
 */
export async function watchTools(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(() => {
    const w = window as unknown as WithModelContext;
    w.modelContext = () => (document as unknown as { modelContext: ModelContext }).modelContext;
    w.toolchanges = 0;
    w.modelContext()?.addEventListener("toolchange", () => w.toolchanges++);
  });
}

/** The tools the page lists, by name. */
export function listTools(page: Page): Promise<ListedTool[]> {
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
export async function toolsAre(page: Page, names: string[]): Promise<void> {
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
export async function execute(page: Page, name: string, input: unknown): Promise<any> {
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
export async function startExecute(page: Page, name: string, input: unknown): Promise<void> {
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
export async function pendingAnswer(page: Page): Promise<any> {
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
export async function activity(origin: string, token: string): Promise<any[]> {
  const res = await fetch(`${origin}/__aim/activity`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
  return (await res.json()).entries;
}
