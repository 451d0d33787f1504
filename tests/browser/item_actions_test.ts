/**
 * Real-browser tests of `<aim-action>` on pages written without aim in mind: actions on
 * the item an agent names (`items=`, `key=`, `click=`, `check=`, `fill=`), the session's enum of
 * the keys present now, inputs outside forms (`fill=`, `<aim-field fill>`, `commit=`) on vanilla
 * and React-style controlled inputs, typed fields checked by the bridge, and the results an
 * agent gets (the item read back, where a navigating form goes).
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import {
  Agent,
  ELEMENTS,
  launchBrowser,
  NO_CHROMIUM,
  openPage,
  panelStatus,
  panelToken,
} from "./harness.ts";

/** A todo list rendered with innerHTML, as vanilla TodoMVC does; no script knows of aim. */
const TODOS = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Todos</title>
${ELEMENTS}<style>
  /* Visually hidden, for screen readers only: no part of what a person sees (after). */
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
    white-space: nowrap; }
</style></head><body><aim-panel></aim-panel>
<input class="new-todo" placeholder="What needs to be done?">
<ul class="todo-list"></ul>
<input id="filter"><p id="shown"></p>
<aim-action name="add_todo" description="Add a todo" fill=".new-todo" commit="enter"
  input-max-length="200"></aim-action>
<aim-action name="toggle_todo" description="Complete or reopen the todo with this title"
  items=".todo-list li" key="label" click=".toggle" input-description="The todo's title">
</aim-action>
<aim-action name="complete_todo" description="Mark the todo with this title done"
  items=".todo-list li" key="label" check=".toggle"></aim-action>
<aim-action name="reopen_todo" description="Mark the todo with this title not done"
  items=".todo-list li" key="label" uncheck=".toggle"></aim-action>
<aim-action name="delete_todo" description="Delete the todo with this title"
  items=".todo-list li" key="label" click=".destroy"></aim-action>
<aim-action name="archive_todo" description="Archive the todo with this title for good"
  items=".todo-list li" key="label" click=".destroy" consequential></aim-action>
<aim-action name="open_todo" description="Open the todo with this id"
  items=".todo-list li" key-attribute="data-id" click=":scope"></aim-action>
<aim-action name="rename_todo" description="Rename the todo with this title"
  items=".todo-list li" key="label" fill=".edit" commit="enter"></aim-action>
<aim-action name="filter_todos" description="Show the todos that hold these words"
  fill="#filter" commit="change"></aim-action>
<script type="module">
  let todos = [{ id: 7, title: "buy milk", done: false }, { id: 8, title: "walk dog", done: true }];
  let next = 9;
  const list = document.querySelector(".todo-list");
  const render = () => {
    list.innerHTML = todos.map((t) => '<li data-id="' + t.id + '"' + (t.done ? ' class="completed"' : "") +
      '><span class="sr-only">Mark as done: </span><input class="toggle" type="checkbox"' +
      (t.done ? " checked" : "") + "><label>" + t.title +
      '</label><button class="destroy">x</button><input class="edit" value="' + t.title + '"></li>').join("");
  };
  const at = (el) => todos[[...list.children].indexOf(el.closest("li"))];
  list.addEventListener("click", (e) => {
    const todo = at(e.target);
    if (e.target.matches(".toggle")) todo.done = !todo.done;
    else if (e.target.matches(".destroy")) todos = todos.filter((t) => t !== todo);
    else if (e.target.matches("li")) window.opened = todo.id;
    else return;
    render();
  });
  // Renaming changes the label in place, as a keyed framework would.
  list.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || !e.target.matches(".edit")) return;
    at(e.target).title = e.target.value;
    e.target.closest("li").querySelector("label").textContent = e.target.value;
  });
  document.querySelector(".new-todo").addEventListener("keydown", (e) => {
    if (e.keyCode !== 13 || !e.target.value.trim()) return;
    todos.push({ id: next++, title: e.target.value.trim(), done: false });
    e.target.value = "";
    render();
  });
  document.querySelector("#filter").addEventListener("change", (e) => {
    document.querySelector("#shown").textContent = "showing " + e.target.value;
  });
  window.todos = () => todos.map((t) => t.title + (t.done ? " (done)" : ""));
  window.removeTodo = (title) => { todos = todos.filter((t) => t.title !== title); render(); };
  render();
</script></body></html>`;

/**
 * Controlled inputs as React keeps them: a value tracker on the instance, so that setting
 * `el.value` directly is undone by the next render and fires no onChange; a checkbox and a
 * select the same way. The item is added by a button.
 */
const CONTROLLED = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
${ELEMENTS}</head><body><aim-panel></aim-panel>
<input id="title" placeholder="Item"><input id="qty"><input id="gift" type="checkbox">
<select id="size"><option value="S">Small</option><option value="M">Medium</option></select>
<button id="add">Add</button><ul id="cart"></ul>
<aim-action name="add_item" description="Add an item with a quantity" commit="click:#add">
  <aim-field name="title" fill="#title" required></aim-field>
  <aim-field name="qty" fill="#qty" type="integer" minimum="1" required></aim-field>
  <aim-field name="gift" fill="#gift"></aim-field>
  <aim-field name="size" fill="#size" description="The size"></aim-field>
</aim-action>
<script type="module">
  const state = { title: "", qty: "", gift: false, size: "S" };
  const proto = (el) => Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), "value");
  // React's value tracker: the instance's setter records what React itself wrote.
  const control = (id, key) => {
    const el = document.getElementById(id);
    let tracked = el.value;
    Object.defineProperty(el, "value", {
      configurable: true,
      get() { return proto(el).get.call(el); },
      set(v) { tracked = String(v); proto(el).set.call(el, v); },
    });
    el.addEventListener(el.tagName === "SELECT" ? "change" : "input", () => {
      const now = proto(el).get.call(el);
      // No change React knows of: no onChange, and the render puts its own value back.
      if (now !== tracked) { tracked = now; state[key] = now; }
      el.value = state[key];
    });
  };
  control("title", "title");
  control("qty", "qty");
  control("size", "size");
  const gift = document.getElementById("gift");
  gift.addEventListener("click", () => { state.gift = gift.checked; });
  document.getElementById("add").addEventListener("click", () => {
    if (!state.title) return;
    document.getElementById("cart").insertAdjacentHTML("beforeend",
      "<li>" + state.title + " x" + state.qty + " " + state.size + (state.gift ? " gift" : "") + "</li>");
  });
</script></body></html>`;

/** A form that navigates on submit, and one whose page handles it. */
const ORDER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Order</title>
${ELEMENTS}</head><body><aim-panel></aim-panel>
<form id="search" action="/thanks" method="get"><input name="q" required><input name="n" value="1"><input type="hidden" name="csrf" value="s3cr3t"><input type="password" name="pin" value="1234"></form>
<form id="stay"><input name="q"></form><p id="kept"></p>
<aim-action name="search" description="Search, leaving this page" form="#search"
  input-example='{"q":"pens"}'></aim-action>
<aim-action name="note" description="Keep a note on this page" form="#stay"></aim-action>
<script type="module">
  document.getElementById("stay").addEventListener("submit", (e) => {
    e.preventDefault();
    document.getElementById("kept").textContent = new FormData(e.target).get("q");
  });
</script></body></html>`;

/**
 * A board whose script reuses its elements, as keyless renders do: moving a card rewrites the
 * text of the elements in place. A card's "Later" button is shown only on hover.
 */
const REUSED = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Board</title>
${ELEMENTS}<style>.later { display: none } li:hover .later { display: inline }</style></head>
<body><aim-panel></aim-panel>
<ul id="now"></ul><ul id="later"></ul>
<aim-action name="postpone" description="Move the card with this title to later"
  items="li" key=".title" click=".later"></aim-action>
<script type="module">
  const lists = { now: ["Write spec", "Fix bug"], later: ["Ship"] };
  const draw = (id) => {
    const ul = document.getElementById(id);
    while (ul.children.length > lists[id].length) ul.lastElementChild.remove();
    while (ul.children.length < lists[id].length) {
      ul.insertAdjacentHTML("beforeend", '<li><span class="title"></span><button class="later">Later</button></li>');
    }
    lists[id].forEach((title, i) => { ul.children[i].querySelector(".title").textContent = title; });
  };
  draw("now"); draw("later");
  document.body.addEventListener("click", (e) => {
    if (!e.target.matches(".later")) return;
    const title = e.target.closest("li").querySelector(".title").textContent;
    lists.now = lists.now.filter((t) => t !== title);
    lists.later.push(title);
    draw("now"); draw("later");
  });
</script></body></html>`;

const THANKS = `<!doctype html><title>Thanks</title>${ELEMENTS}<p>Thanks</p>
<aim-action name="done" description="Nothing more"></aim-action>`;

// deno-lint-ignore no-explicit-any
type Manifest = any;

function actionOf(manifest: Manifest, id: string) {
  return manifest.actions.find((a: { id: string }) => a.id === id);
}

Deno.test({
  name: "actions on the item an agent names, and inputs outside forms, in a real browser",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({
      site: {
        "index.html": TODOS,
        "shop.html": CONTROLLED,
        "order.html": ORDER,
        "thanks.html": THANKS,
        "board.html": REUSED,
      },
    });

    await t.step(
      "the session manifest lists the keys present now and follows the list; the public one lists none",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        const first = await agent.manifestWhen("/index.json", (m) => actionOf(m, "toggle_todo"));
        assert.deepEqual(actionOf(first.body, "toggle_todo"), {
          id: "toggle_todo",
          description: "Complete or reopen the todo with this title",
          input_schema: {
            type: "string",
            description: "The todo's title",
            enum: ["buy milk", "walk dog"],
          },
          input_example: "buy milk",
          consequential: false,
        });
        assert.deepEqual(actionOf(first.body, "open_todo").input_schema.enum, ["7", "8"]);
        assert.deepEqual(actionOf(first.body, "rename_todo").input_schema, {
          type: "object",
          properties: {
            item: {
              type: "string",
              description: "The key of the item to act on",
              enum: ["buy milk", "walk dog"],
            },
            value: { type: "string" },
          },
          required: ["item", "value"],
          additionalProperties: false,
        });
        assert.deepEqual(actionOf(first.body, "add_todo").input_schema, {
          type: "string",
          description: "What needs to be done?",
          maxLength: 200,
        });

        const publicManifest = await (await bridge.fetch("/index.json")).json();
        assert.deepEqual(actionOf(publicManifest, "toggle_todo").input_schema, {
          type: "string",
          description: "The todo's title",
        });
        assert.equal(actionOf(publicManifest, "toggle_todo").input_example, "example");

        // The page changes its list by itself: the enum follows, with no action of the agent.
        await page.evaluate(() =>
          (window as unknown as { removeTodo(t: string): void }).removeTodo("walk dog")
        );
        const after = await agent.manifestWhen(
          "/index.json",
          (m) => actionOf(m, "toggle_todo").input_schema.enum.length === 1,
        );
        assert.deepEqual(actionOf(after.body, "complete_todo").input_schema.enum, ["buy milk"]);
      },
    );

    await t.step(
      "an item an action added is a key the very next invocation may name, every time",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        await agent.manifestWhen("/index.json", (m) => actionOf(m, "complete_todo"));
        // No wait between the two: the add's answer comes once its actions are registered.
        for (let i = 0; i < 15; i++) {
          const title = `chained ${i}`;
          const added = await agent.invoke("add_todo", title);
          assert.equal(added.status, 200, JSON.stringify(added.body));
          const done = await agent.invoke("complete_todo", title);
          assert.equal(done.status, 200, `${title}: ${JSON.stringify(done.body)}`);
        }
      },
    );

    await t.step(
      "after reads back the item the agent named, even when the page reused its element for another",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/board");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        await agent.manifestWhen("/board.json", (m) => actionOf(m, "postpone"));
        const moved = await agent.invoke("postpone", "Write spec");
        assert.equal(moved.status, 200, JSON.stringify(moved.body));
        // The element that held "Write spec" now shows "Fix bug": after is the moved card, and
        // what a person sees of it (the button shown on hover is not).
        assert.deepEqual(moved.body.result, {
          item: "Write spec",
          clicked: ".later",
          after: "Write spec",
        });
      },
    );

    await t.step(
      "an agent adds a todo with Enter, then checks, toggles, unchecks, renames and deletes it by its title",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        const todos = () =>
          page.evaluate(() => (window as unknown as { todos(): string[] }).todos());

        const added = await agent.invoke("add_todo", "write report");
        assert.equal(added.status, 200, JSON.stringify(added.body));
        assert.deepEqual(added.body.result, {
          filled: { ".new-todo": "write report" },
          committed: "enter",
        });
        assert.deepEqual(await todos(), ["buy milk", "walk dog (done)", "write report"]);
        await agent.manifestWhen(
          "/index.json",
          (m) => actionOf(m, "complete_todo").input_schema.enum.includes("write report"),
        );

        const checked = await agent.invoke("complete_todo", "write report");
        assert.equal(checked.status, 200, JSON.stringify(checked.body));
        assert.deepEqual(checked.body.result, {
          item: "write report",
          checked: ".toggle",
          after: "write reportx",
        });
        // Checking what is checked clicks nothing: it stays done.
        const again = await agent.invoke("complete_todo", "write report");
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.deepEqual(await todos(), ["buy milk", "walk dog (done)", "write report (done)"]);

        const toggled = await agent.invoke("toggle_todo", "walk dog");
        assert.equal(toggled.status, 200, JSON.stringify(toggled.body));
        assert.deepEqual(toggled.body.result, {
          item: "walk dog",
          clicked: ".toggle",
          after: "walk dogx",
        });
        const reopened = await agent.invoke("reopen_todo", "write report");
        assert.deepEqual(reopened.body.result, {
          item: "write report",
          unchecked: ".toggle",
          after: "write reportx",
        });
        assert.deepEqual(await todos(), ["buy milk", "walk dog", "write report"]);

        const renamed = await agent.invoke("rename_todo", {
          item: "buy milk",
          value: "buy oat milk",
        });
        assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
        assert.deepEqual(renamed.body.result, {
          item: "buy milk",
          filled: ".edit",
          committed: "enter",
          after: "buy oat milkx",
        });

        const opened = await agent.invoke("open_todo", "8");
        assert.deepEqual(opened.body.result, { item: "8", clicked: ":scope", after: "walk dogx" });
        assert.equal(
          await page.evaluate(() => (window as unknown as { opened: number }).opened),
          8,
        );

        await agent.manifestWhen(
          "/index.json",
          (m) => actionOf(m, "delete_todo").input_schema.enum.includes("buy oat milk"),
        );
        const deleted = await agent.invoke("delete_todo", "write report");
        assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
        assert.deepEqual(deleted.body.result, {
          item: "write report",
          clicked: ".destroy",
          after: null,
        });
        assert.deepEqual(await todos(), ["buy oat milk", "walk dog"]);

        const filtered = await agent.invoke("filter_todos", "milk");
        assert.deepEqual(filtered.body.result, {
          filled: { "#filter": "milk" },
          committed: "change",
        });
        assert.equal(await page.$eval("#shown", (el) => el.textContent), "showing milk");
      },
    );

    await t.step(
      "a key that names no item is refused: 400 by the enum, 422 action_failed listing the keys when the list changed meanwhile",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        await agent.manifestWhen("/index.json", (m) => actionOf(m, "toggle_todo"));
        const unknown = await agent.invoke("toggle_todo", "feed cat");
        assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
        assert.equal(unknown.body.error, "invalid_input");
        assert.match(unknown.body.hint, /must be one of \["buy milk","walk dog"\]/);

        // The item goes while the person confirms: the page no longer has it when the action runs.
        await page.evaluate(async () => {
          const { client } = await import("/__aim/elements.js" as string);
          client.confirmer = () => {
            (window as unknown as { removeTodo(t: string): void }).removeTodo("walk dog");
            return true;
          };
        });
        const gone = await agent.invoke("archive_todo", "walk dog");
        assert.equal(gone.status, 422, JSON.stringify(gone.body));
        assert.equal(gone.body.error, "action_failed");
        assert.equal(
          gone.body.message,
          'No item has the key "walk dog"; the keys now: "buy milk".',
        );
      },
    );

    await t.step(
      "fields outside a form fill React-style controlled inputs, a checkbox and a select, and commit with a click",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/shop");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        const manifest = await agent.manifestWhen("/shop.json", (m) => actionOf(m, "add_item"));
        assert.deepEqual(actionOf(manifest.body, "add_item").input_schema, {
          type: "object",
          properties: {
            title: { type: "string", description: "Item" },
            qty: { type: "integer", minimum: 1 },
            gift: { type: "boolean" },
            size: { type: "string", enum: ["S", "M"], description: "The size" },
          },
          required: ["title", "qty"],
          additionalProperties: false,
        });
        assert.deepEqual(actionOf(manifest.body, "add_item").input_example, {
          title: "example",
          qty: 1,
        });

        const added = await agent.invoke("add_item", {
          title: "pen",
          qty: 2,
          gift: true,
          size: "M",
        });
        assert.equal(added.status, 200, JSON.stringify(added.body));
        assert.deepEqual(added.body.result, {
          filled: { title: "pen", qty: 2, gift: true, size: "M" },
          committed: "click:#add",
        });
        assert.deepEqual(await page.$$eval("#cart li", (lis) => lis.map((li) => li.textContent)), [
          "pen x2 M gift",
        ]);
        assert.equal(await page.$eval("#title", (el) => (el as HTMLInputElement).value), "pen");

        // The bridge checks the types before anything reaches the page.
        for (
          const [input, hint] of [
            [{ title: "pen", qty: 1.5 }, 'field "qty" must be an integer, not 1.5'],
            [
              { title: "pen", qty: "2" },
              'field "qty" must be an integer, not a string: send 2, not "2"',
            ],
            [{ title: "pen", qty: 0 }, 'field "qty": must be at least 1'],
            [{ title: "pen", qty: 1, gift: "yes" }, 'field "gift" must be a boolean, not a string'],
            [{ title: "pen", qty: 1, size: "XL" }, 'field "size": must be one of ["S","M"]'],
          ] as const
        ) {
          const refused = await agent.invoke("add_item", input);
          assert.equal(refused.status, 400, JSON.stringify(refused.body));
          assert.equal(refused.body.error, "invalid_input");
          assert.equal(refused.body.hint, hint);
        }
        assert.equal(await page.$$eval("#cart li", (lis) => lis.length), 1);
      },
    );

    await t.step({
      name:
        "a form whose submission navigates answers where the tab goes; one the page keeps does not",
      fn: async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/order");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        await agent.manifestWhen("/order.json", (m) => actionOf(m, "note"));
        const kept = await agent.invoke("note", { q: "later" });
        assert.equal(kept.status, 200, JSON.stringify(kept.body));
        assert.deepEqual(kept.body.result, { submitted: "#stay" });
        assert.equal(await page.$eval("#kept", (el) => el.textContent), "later");

        const navigated = page.waitForNavigation();
        const left = await agent.invoke("search", { q: "red pens" });
        assert.equal(left.status, 200, JSON.stringify(left.body));
        // Where the tab goes, without the hidden token and the password the agent never read;
        // answered once the next page holds the session, with that page's state.
        assert.deepEqual(left.body.result, {
          submitted: "#search",
          navigating_to: `${bridge.origin}/thanks?q=red+pens&n=1`,
          page: "/thanks",
        });
        await navigated;
        assert.equal(page.url(), `${bridge.origin}/thanks?q=red+pens&n=1&csrf=s3cr3t&pin=1234`);
      },
    });
  },
});
