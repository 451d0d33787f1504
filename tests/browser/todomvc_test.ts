/**
 * A real single-page app others wrote with a framework: TodoMVC's AngularJS app (AngularJS 1.3,
 * ngRoute, from the `todomvc` package on npm), served from a static folder behind
 * `aim serve --upstream` in real Chromium. The app is unmodified; its index.html (the template)
 * is the package's with aim's markup added between `<!-- aim -->` and `<!-- /aim -->`
 * (tests/apps/todomvc-angularjs/index.html), written from the docs alone. An agent adds todos,
 * completes and reopens one, renames one (double-clicking its label first, as the app asks: a
 * reload shows the new title stored), switches the app's views (its routes), deletes one and
 * clears the completed ones, the person approving exactly the two deletions.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TODOMVC_DIR } from "../deps/todomvc.ts";
import { startAim, startApp } from "../helpers/upstream.ts";
import {
  clickPanelButton,
  launchBrowser,
  NO_CHROMIUM,
  panelStatus,
  panelToken,
} from "./harness.ts";
import { agentOf, watchPerson } from "./person.ts";
import { withoutAim } from "../helpers/fossil.ts";

/** The app in the package. */
const APP = fileURLToPath(new URL("examples/angularjs/", TODOMVC_DIR));
/** The annotated template. */
const TEMPLATE = fileURLToPath(
  new URL("../apps/todomvc-angularjs/index.html", import.meta.url),
);

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".png": "image/png",
};

/** A copy of the app with the annotated index.html, in a new temporary folder. */
async function site(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "aim-todomvc-" });
  await new Deno.Command("cp", { args: ["-R", `${APP}.`, dir] }).output();
  await Deno.copyFile(TEMPLATE, join(dir, "index.html"));
  return dir;
}

/** A static file server of `dir`, as any would serve the app (no `/api`: the app keeps its
 * todos in localStorage). */
function serveStatic(dir: string) {
  return startApp(async (request) => {
    const path = decodeURIComponent(new URL(request.url).pathname);
    const file = path.endsWith("/") ? `${path}index.html` : path;
    if (file.split("/").includes("..")) return new Response("bad path", { status: 400 });
    try {
      const body = await Deno.readFile(join(dir, file));
      const type = TYPES[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream";
      return new Response(body, { headers: { "Content-Type": type } });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
}

/** The todos of the page's state. */
// deno-lint-ignore no-explicit-any
function titles(body: any): [string, boolean][] {
  return body.state.todos.map((t: { title: string; done: boolean }) => [t.title, t.done]);
}

Deno.test("TodoMVC's index.html here is the package's with only aim's blocks added", async () => {
  const ours = await Deno.readTextFile(TEMPLATE);
  assert.match(ours, /<!-- aim -->/);
  assert.equal(withoutAim(ours), await Deno.readTextFile(join(APP, "index.html")));
});

Deno.test({
  name:
    "an agent keeps TodoMVC's AngularJS todos through its own inputs and routes, the person approving each deletion",
  ignore: NO_CHROMIUM,
  async fn() {
    const dir = await site();
    try {
      await using app = serveStatic(dir);
      await using aim = startAim(app.url);
      await using browser = await launchBrowser();
      await using context = await browser.context();
      const page = await context.newPage();
      const shown = await watchPerson(page);
      await page.goto(`${aim.url}/`);
      const agent = agentOf(aim, await panelToken(page));
      await agent.manifestWhen(
        "/index.json",
        (m) => m.actions.some((a: { id: string }) => a.id === "add_todo"),
        15_000,
      );

      for (const title of ["Buy milk", "Write the report", "Call the plumber"]) {
        const added = await agent.invoke("add_todo", title);
        assert.equal(added.status, 200, JSON.stringify(added.body));
      }
      const three = await agent.manifestWhen("/index.json", (m) => m.state.todos?.length === 3);
      assert.deepEqual(titles(three.body), [
        ["Buy milk", false],
        ["Write the report", false],
        ["Call the plumber", false],
      ]);
      assert.deepEqual(three.body.state.left, { count: 3 });
      // What the app stores: the framework saw the typing and the Enter.
      const stored = await page.evaluate(() => localStorage.getItem("todos-angularjs"));
      assert.equal(JSON.parse(stored!).length, 3);

      const completed = await agent.invoke("complete_todo", "Buy milk");
      assert.equal(completed.status, 200, JSON.stringify(completed.body));
      assert.deepEqual(titles(completed.body)[0], ["Buy milk", true]);
      assert.deepEqual(completed.body.state.left, { count: 2 });
      const reopened = await agent.invoke("reopen_todo", "Buy milk");
      assert.deepEqual(titles(reopened.body)[0], ["Buy milk", false]);
      await agent.invoke("complete_todo", "Write the report");

      // Renaming: the app edits a todo once its label is double-clicked (open=), then saves what
      // its edit field holds when its form is submitted; a reload shows what it stored.
      const renamed = await agent.invoke("rename_todo", {
        item: "Call the plumber",
        value: "Call the electrician",
      });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      assert.deepEqual(renamed.body.result, {
        item: "Call the plumber",
        opened: "dblclick:label",
        filled: ".edit",
        committed: "submit",
        after: "Call the electrician",
      });
      const saved = await page.evaluate(() => localStorage.getItem("todos-angularjs"));
      assert.deepEqual(
        JSON.parse(saved!).map((t: { title: string }) => t.title),
        ["Buy milk", "Write the report", "Call the electrician"],
      );
      // The page loaded again reads what the app stored; the session follows it.
      await page.reload();
      await panelStatus(page, "connected");
      const shownAgain = await page.$$eval(
        "#todo-list label",
        (els) => els.map((el) => el.textContent),
      );
      assert.deepEqual(shownAgain, ["Buy milk", "Write the report", "Call the electrician"]);
      const reloaded = await agent.manifestWhen(
        "/index.json",
        (m) => m.state.todos?.length === 3,
        15_000,
      );
      assert.deepEqual(titles(reloaded.body), [
        ["Buy milk", false],
        ["Write the report", true],
        ["Call the electrician", false],
      ]);

      // The app's routes (#/active, #/completed): one page for aim, the view in its state.
      const active = await agent.invoke("show_todos", "Active");
      assert.equal(active.status, 200, JSON.stringify(active.body));
      assert.equal(active.body.state.showing, "Active");
      assert.deepEqual(titles(active.body), [["Buy milk", false], ["Call the electrician", false]]);
      assert.equal(new URL(page.url()).hash, "#/active");
      const all = await agent.invoke("show_todos", "All");
      assert.equal(all.body.state.showing, "All");
      assert.equal(all.body.state.todos.length, 3);

      // Deleting is consequential: the person approves, in the page.
      const deleting = agent.invoke("delete_todo", "Buy milk");
      await clickPanelButton(page, "Approve");
      const deleted = await deleting;
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.ok(!titles(deleted.body).some(([title]) => title === "Buy milk"));

      const clearing = agent.invoke("clear_completed");
      await clickPanelButton(page, "Approve");
      const cleared = await clearing;
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
      assert.deepEqual(titles(cleared.body), [["Call the electrician", false]]);
      assert.deepEqual(cleared.body.state.left, { count: 1 });
      const kept = await page.evaluate(() => localStorage.getItem("todos-angularjs"));
      assert.deepEqual(JSON.parse(kept!), [{ title: "Call the electrician", completed: false }]);

      assert.deepEqual(shown.prompts, ["delete_todo", "clear_completed"]);
      assert.deepEqual(shown.dialogs, []);
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
