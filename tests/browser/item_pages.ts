/**
 * The pages tests/browser/item_actions_test.ts serves, written without aim in mind and then
 * annotated: a todo list rendered with innerHTML, a shop of React-style controlled inputs, an
 * order form that leaves the page, a board that reuses its elements, and the page after it.
 *
 * @module
 */
import { ELEMENTS } from "./harness.ts";

/** A todo list rendered with innerHTML, as vanilla TodoMVC does; no script knows of aim. */
export const TODOS: string =
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Todos</title>
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
export const CONTROLLED: string =
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
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
export const ORDER: string =
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Order</title>
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
export const REUSED: string =
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Board</title>
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

/** Where the order form goes. */
export const THANKS: string = `<!doctype html><title>Thanks</title>${ELEMENTS}<p>Thanks</p>
<aim-action name="done" description="Nothing more"></aim-action>`;
