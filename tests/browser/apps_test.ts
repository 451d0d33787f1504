/**
 * Three todo apps written without aim in mind (tests/apps/: vanilla DOM rendering with
 * innerHTML, React with controlled inputs, Lit), each annotated with aim markup only, driven in
 * real Chromium by an agent over HTTP: it reads the list as structured state, adds three todos,
 * completes one by name, filters, clears the completed ones and reads the result. And README's
 * static-site snippet, run as written.
 *
 * The Lit app keeps Lit's default shadow DOM, one shadow root per component (`todo-app`,
 * `todo-list`, `todo-item`…): its markup reaches inside with the deep combinator `>>>`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, ElementHandle, Page } from "puppeteer-core";
import { checkPage } from "../../bridge/site/check.ts";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import {
  Agent,
  type AgentAnswer,
  clickPanelButton,
  launchBrowser,
  NO_CHROMIUM,
  openPage,
  panelToken,
  type TestBrowser,
} from "./harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const APPS = join(ROOT, "tests/apps");

/** One todo as the page's `todos` state publishes it. */
interface Todo {
  title: string;
  done: boolean;
}

/**
 * A new temporary folder holding a copy of the app's index.html, its other `files` and the
 * stylesheet the TodoMVC apps share; returns the folder.
 */
async function appSite(app: string, files: string[] = []): Promise<string> {
  const site = await Deno.makeTempDir({ prefix: `aim-app-${app}-` });
  for (const file of ["index.html", ...files]) {
    await Deno.copyFile(join(APPS, app, file), join(site, file));
  }
  await Deno.copyFile(join(APPS, "todo.css"), join(site, "todo.css"));
  return site;
}

/**
 * Bundles `entry` (a path under tests/apps/) with `deno bundle`, as its author would, into the
 * app's site (see {@linkcode appSite}); returns the folder.
 */
async function bundledSite(app: string, entry: string): Promise<string> {
  const site = await appSite(app);
  const built = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=browser",
      "--minify",
      "--lock=deno.test.lock",
      "--frozen=false",
      "--output",
      join(site, "app.js"),
      join(APPS, app, entry),
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  assert.ok(built.success, `deno bundle ${entry}: ${new TextDecoder().decode(built.stderr)}`);
  return site;
}

/** Where each app's parts are: selectors in aim's syntax (`>>>` crosses into a shadow root). */
interface AppParts {
  /** The new todo's input. */
  newTodo: string;
  /** The todos of the list. */
  items: string;
  /** A todo's title, inside its item. */
  title: string;
  /** A todo's checkbox, inside its item. */
  toggle: string;
  /** The "Active" filter link. */
  active: string;
}

const LIGHT: AppParts = {
  newTodo: ".new-todo",
  items: ".todo-list li",
  title: "label",
  toggle: ".toggle",
  active: '.filters a[href="#/active"]',
};

const LIT: AppParts = {
  newTodo: "todo-app >>> todo-form >>> .new-todo",
  items: "todo-app >>> todo-list >>> todo-item",
  title: ">>> label",
  toggle: ">>> .toggle",
  active: 'todo-app >>> todo-footer >>> .filters a[href="#/active"]',
};

/**
 * In the page, `deepAll(root, selector)`: every element the selector matches, `>>>` crossing
 * into open shadow roots as bridge/markup/deep_selector.ts does (the test's own copy).
 */
const DEEP_ALL = `(root, selector) => {
  let found = [root];
  selector.split(">>>").forEach((part, i) => {
    const scopes = i ? found.flatMap((el) => el.shadowRoot ?? []) : found;
    found = part.trim() ? scopes.flatMap((s) => [...s.querySelectorAll(part)]) : scopes;
  });
  return found;
}`;

/** In the page, an expression: the titles the list shows, as a person sees them. */
function titlesShown(parts: AppParts): string {
  return `((deepAll) => deepAll(document, ${JSON.stringify(parts.items)})
    .filter((item) => item.checkVisibility())
    .map((item) => deepAll(item, ${JSON.stringify(parts.title)})[0].textContent.trim())
  )(${DEEP_ALL})`;
}

/** The first element `selector` matches, to type into or click. */
async function $(page: Page, selector: string, inner = "") {
  const handle = await page.waitForFunction(
    `((deepAll) => deepAll(document, ${JSON.stringify(selector)})
      .flatMap((el) => ${JSON.stringify(inner)} ? deepAll(el, ${JSON.stringify(inner)}) : [el])[0]
    )(${DEEP_ALL})`,
    { timeout: 10_000 },
  );
  return handle as unknown as ElementHandle<HTMLInputElement>;
}

/** The titles the page itself shows in its list, as a person sees them. */
function shownTitles(page: Page, parts: AppParts): Promise<string[]> {
  return page.evaluate(titlesShown(parts)) as Promise<string[]>;
}

/** Waits until the list shows `count` todos. */
async function showing(page: Page, parts: AppParts, count: number): Promise<void> {
  await page.waitForFunction(`${titlesShown(parts)}.length === ${count}`, { timeout: 10_000 });
}

/** Checks an invocation's answer: 200, settled, and the `todos` it holds. */
function assertAnswer(answer: AgentAnswer, todos: Todo[]): void {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.settled, true, JSON.stringify(answer.body));
  assert.deepEqual(answer.body.state.todos, todos, JSON.stringify(answer.body));
}

/** The action `id` of a manifest. */
// deno-lint-ignore no-explicit-any
function action(manifest: any, id: string) {
  // deno-lint-ignore no-explicit-any
  const found = manifest.actions.find((a: any) => a.id === id);
  assert.ok(found, `no action ${id} in ${JSON.stringify(manifest.actions)}`);
  return found;
}

/** The actions each todo app declares. */
const ACTIONS = [
  "add_todo",
  "complete_todo",
  "toggle_todo",
  "delete_todo",
  "filter_todos",
  "clear_completed",
];

/** True when a manifest offers every action of `ids` and holds every state key of `keys`. */
// deno-lint-ignore no-explicit-any
function hasAll(manifest: any, ids: string[], keys: string[]): boolean {
  const offered = new Set(manifest.actions.map((a: { id: string }) => a.id));
  return ids.every((id) => offered.has(id)) && keys.every((key) => key in manifest.state);
}

/** A person uses the app without aim in a context of its own: the app works on its own. */
async function personUses(
  context: BrowserContext,
  bridge: TestBridge,
  parts: AppParts,
): Promise<void> {
  const page = await openPage(context, bridge, "/");
  const input = await $(page, parts.newTodo);
  await input.type("Water the plants");
  await page.keyboard.press("Enter");
  await input.type("Call mum");
  await page.keyboard.press("Enter");
  await showing(page, parts, 2);
  await (await $(page, parts.items, parts.toggle)).click();
  await (await $(page, parts.active)).click();
  await page.waitForFunction(() => location.hash === "#/active");
  await showing(page, parts, 1);
  assert.deepEqual(await shownTitles(page, parts), ["Call mum"]);
  await page.close();
}

/** The agent's task on one app: the same steps, the same answers, whatever the framework. */
async function driveApp(
  t: Deno.TestContext,
  bridge: TestBridge,
  browser: TestBrowser,
  parts: AppParts = LIGHT,
): Promise<void> {
  await t.step("the app works for a person, without aim", async () => {
    await using context = await browser.context();
    await personUses(context, bridge, parts);
  });

  await t.step("aim check finds no error in the app's markup", async () => {
    const html = await Deno.readTextFile(join(bridge.root, "index.html"));
    const errors = checkPage(html, "index.html").filter((p) => p.severity === "error");
    assert.deepEqual(errors, []);
  });

  await using context = await browser.context();
  const page = await openPage(context, bridge, "/");
  const agent = new Agent(bridge, await panelToken(page));

  await t.step("the agent reads the list as structured state", async () => {
    const { body } = await agent.manifestWhen(
      "/index.json",
      // The tab registers each element as it connects: wait for all of them.
      (m) => hasAll(m, ACTIONS, ["todos", "filter", "left"]),
    );
    assert.deepEqual(body.state.todos, []);
    assert.deepEqual(action(body, "add_todo").input_schema, {
      type: "string",
      description: "What to do",
      maxLength: 200,
    });
  });

  const titles = ["Write report", "Walk the dog", "Buy milk"];
  await t.step("the agent adds three todos, each answer holding the list after it", async () => {
    for (const [i, title] of titles.entries()) {
      const answer = await agent.invoke("add_todo", title);
      assertAnswer(answer, titles.slice(0, i + 1).map((title) => ({ title, done: false })));
      assert.deepEqual(answer.body.result, {
        filled: { [parts.newTodo]: title },
        committed: "enter",
      });
    }
    assert.deepEqual(await shownTitles(page, parts), titles);
    assert.equal(
      await (await $(page, parts.newTodo)).evaluate((el) => (el as HTMLInputElement).value),
      "",
    );
  });

  await t.step("the agent completes one todo by its title, among the titles offered", async () => {
    const { body } = await agent.manifestWhen(
      "/index.json",
      (m) => action(m, "complete_todo").input_schema.enum?.length === 3,
    );
    assert.deepEqual(action(body, "complete_todo").input_schema, {
      type: "string",
      description: "The title of the todo",
      enum: titles,
    });
    const missing = await agent.invoke("complete_todo", "Feed the cat");
    assert.equal(missing.status, 400, JSON.stringify(missing.body));
    assert.equal(missing.body.error, "invalid_input");

    const answer = await agent.invoke("complete_todo", "Walk the dog");
    assertAnswer(answer, [
      { title: "Write report", done: false },
      { title: "Walk the dog", done: true },
      { title: "Buy milk", done: false },
    ]);
    assert.deepEqual(answer.body.result, {
      item: "Walk the dog",
      checked: parts.toggle,
      after: "Walk the dog",
    });
    assert.equal(answer.body.state.left, "2 items left");
  });

  await t.step("the agent filters to Completed and sees only the completed todo", async () => {
    const { body } = await agent.manifest("/index.json");
    assert.deepEqual(action(body, "filter_todos").input_schema.enum, [
      "All",
      "Active",
      "Completed",
    ]);
    const answer = await agent.invoke("filter_todos", "Completed");
    assertAnswer(answer, [{ title: "Walk the dog", done: true }]);
    assert.equal(answer.body.state.filter, "Completed");
    assert.equal(await page.evaluate(() => location.hash), "#/completed");
    assert.deepEqual(await shownTitles(page, parts), ["Walk the dog"]);
  });

  await t.step("the agent clears the completed todos", async () => {
    const answer = await agent.invoke("clear_completed");
    assertAnswer(answer, []);
    assert.equal(answer.body.state.left, "2 items left");
    assert.deepEqual(await shownTitles(page, parts), []);
  });

  await t.step("the agent shows all todos again and reads the result", async () => {
    const left = [{ title: "Write report", done: false }, { title: "Buy milk", done: false }];
    assertAnswer(await agent.invoke("filter_todos", "All"), left);
    const { body } = await agent.manifest("/index.json");
    assert.deepEqual(body.state.todos, left);
    assert.equal(body.state.filter, "All");
    assert.deepEqual(await shownTitles(page, parts), ["Write report", "Buy milk"]);
  });

  await t.step("the agent toggles and deletes todos by title", async () => {
    assertAnswer(await agent.invoke("toggle_todo", "Write report"), [
      { title: "Write report", done: true },
      { title: "Buy milk", done: false },
    ]);
    const answer = await agent.invoke("delete_todo", "Buy milk");
    assertAnswer(answer, [{ title: "Write report", done: true }]);
    assert.equal(answer.body.result.item, "Buy milk");
    assert.equal(answer.body.result.after, null, "a deleted item reads back as null");
    assert.deepEqual(await shownTitles(page, parts), ["Write report"]);
  });
}

Deno.test({
  name: "an agent runs the vanilla todo app (innerHTML, hidden items) through its markup",
  ignore: NO_CHROMIUM,
  async fn(t) {
    const site = await appSite("vanilla", ["app.js"]);
    try {
      await using bridge = await startBridge({ root: site });
      await using browser = await launchBrowser();
      await driveApp(t, bridge, browser);
    } finally {
      await Deno.remove(site, { recursive: true });
    }
  },
});

Deno.test({
  name: "an agent runs the React todo app (controlled input) through its markup",
  ignore: NO_CHROMIUM,
  async fn(t) {
    const site = await bundledSite("react", "app.jsx");
    try {
      await using bridge = await startBridge({ root: site });
      await using browser = await launchBrowser();
      await driveApp(t, bridge, browser);
    } finally {
      await Deno.remove(site, { recursive: true });
    }
  },
});

Deno.test({
  name: "an agent runs the Lit todo app, nested components in shadow roots, through its markup",
  ignore: NO_CHROMIUM,
  async fn(t) {
    const site = await bundledSite("lit", "app.ts");
    try {
      await using bridge = await startBridge({ root: site });
      await using browser = await launchBrowser();
      await driveApp(t, bridge, browser, LIT);
    } finally {
      await Deno.remove(site, { recursive: true });
    }
  },
});

/** The page of README's "For static sites", as written there. */
async function readmeSnippet(): Promise<string> {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const section = readme.split(/^## /m).find((s) => s.startsWith("For static sites\n"));
  const html = section?.match(/^```html\n([\s\S]*?)^```$/m)?.[1];
  assert.ok(html, 'README.md has no html block under "## For static sites"');
  return html;
}

Deno.test({
  name:
    "README's static-site page runs as written: the list as state, an item added, ticked and removed",
  ignore: NO_CHROMIUM,
  async fn(t) {
    const html = await readmeSnippet();
    await t.step("aim check finds no problem in it", () => {
      assert.deepEqual(checkPage(html, "index.html"), []);
    });
    await using bridge = await startBridge({ site: { "index.html": html } });
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const page = await openPage(context, bridge, "/");
    const agent = new Agent(bridge, await panelToken(page));
    const milk = { item: "Milk", done: false };
    const bread = { item: "Bread", done: false };

    await t.step("the agent reads the list as state, and the names as the enum", async () => {
      const { body } = await agent.manifestWhen(
        "/index.json",
        (m) => hasAll(m, ["add_item", "tick_item", "remove_item"], ["shopping"]),
      );
      assert.deepEqual(body.state.shopping, [milk, bread]);
      assert.deepEqual(action(body, "tick_item").input_schema.enum, ["Milk", "Bread"]);
      assert.equal(action(body, "remove_item").consequential, true);
    });

    await t.step("the agent adds an item and ticks one off", async () => {
      const added = await agent.invoke("add_item", "Eggs");
      assert.equal(added.status, 200, JSON.stringify(added.body));
      assert.deepEqual(added.body.state.shopping, [milk, bread, { item: "Eggs", done: false }]);
      const ticked = await agent.invoke("tick_item", "Milk");
      assert.equal(ticked.status, 200, JSON.stringify(ticked.body));
      assert.deepEqual(ticked.body.state.shopping, [{ item: "Milk", done: true }, bread, {
        item: "Eggs",
        done: false,
      }]);
    });

    await t.step("removing an item waits for the person's approval", async () => {
      const removed = agent.invoke("remove_item", "Bread");
      await clickPanelButton(page, "Approve");
      const { status, body } = await removed;
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(body.state.shopping, [{ item: "Milk", done: true }, {
        item: "Eggs",
        done: false,
      }]);
    });
  },
});
