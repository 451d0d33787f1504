/**
 * The reading of `<aim-action open=>` (bridge/markup/open.ts): every spelling an author may
 * write, read alike by the elements' markup reader and the bridge's HTML scan (readAction), the
 * action left out with the reason when it does not read, and what `aim check` adds of its
 * element. The gesture itself runs in tests/browser/open_gesture_test.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { MarkupError } from "../../bridge/markup/action.ts";
import { OPEN_GESTURES, readOpen } from "../../bridge/markup/open.ts";
import { scanPage } from "../../bridge/site/catalog.ts";
import { checkPage } from "../../bridge/site/check.ts";
import { h, page, read } from "../helpers/fake_dom.ts";

/** What open= says when it is no gesture the elements run. */
const NOT_A_GESTURE = (raw: string) =>
  `open="${raw}" is not click:<selector> or dblclick:<selector> (for example open="dblclick:label")`;
/** What open= says on an action that fills nothing. */
const NO_FILL =
  "open= opens what fill= (or an <aim-field fill>) writes into: add fill=, or remove open=";

/** A TodoMVC list of one todo and an action on its items with `attrs` (fill=".edit" unless said). */
function todoPage(attrs: Record<string, string | null>, fields: string[] = []) {
  const item = h("li", {}, [
    h("div", { class: "view" }, [h("label", {}, ["Buy milk"])]),
    h("form", {}, [h("input", { class: "edit" })]),
  ]);
  const action = h(
    "aim-action",
    {
      name: "rename_todo",
      description: "Rename the todo with this title",
      items: "#todo-list li",
      key: "label",
      fill: ".edit",
      ...attrs,
    },
    fields.map((name) => h("aim-field", { name, fill: ".edit" })),
  );
  return page(h("ul", { id: "todo-list" }, [item]), action);
}

/** Every spelling, and what it reads as: a gesture on a selector, or the author's error. */
const SPELLINGS: [string, { gesture: string; selector: string } | string][] = [
  ["dblclick:label", { gesture: "dblclick", selector: "label" }],
  ["click:.edit-button", { gesture: "click", selector: ".edit-button" }],
  ["dblclick::scope", { gesture: "dblclick", selector: ":scope" }],
  ["  dblclick:  .view label  ", { gesture: "dblclick", selector: ".view label" }],
  ["dblclick:a[href='x:y']", { gesture: "dblclick", selector: "a[href='x:y']" }],
  ["dblclick:todo-item >>> label", { gesture: "dblclick", selector: "todo-item >>> label" }],
  ["dblclick", NOT_A_GESTURE("dblclick")],
  ["dblclick:", NOT_A_GESTURE("dblclick:")],
  ["dblclick:   ", NOT_A_GESTURE("dblclick:   ")],
  ["label", NOT_A_GESTURE("label")],
  ["", NOT_A_GESTURE("")],
  ["doubleclick:label", NOT_A_GESTURE("doubleclick:label")],
  ["dbl-click:label", NOT_A_GESTURE("dbl-click:label")],
  ["double-click:label", NOT_A_GESTURE("double-click:label")],
  ["DblClick:label", NOT_A_GESTURE("DblClick:label")],
  ["dblclick :label", NOT_A_GESTURE("dblclick :label")],
  ["hover:label", NOT_A_GESTURE("hover:label")],
  ["focus:.edit", NOT_A_GESTURE("focus:.edit")],
  ["enter", NOT_A_GESTURE("enter")],
  [":label", NOT_A_GESTURE(":label")],
  ["constructor:label", NOT_A_GESTURE("constructor:label")],
];

for (const [raw, expected] of SPELLINGS) {
  Deno.test(`open="${raw}" reads ${typeof expected === "string" ? "as an error" : "as a gesture"}, alike on the server and in the page`, () => {
    const { action, doc, html } = todoPage({ open: raw });
    const info = scanPage(html, "/", "index.html");
    const direct = read(action, doc);
    if (typeof expected === "string") {
      assert.throws(
        () => readOpen(action),
        (e) => e instanceof MarkupError && e.message === expected,
      );
      assert.ok(direct instanceof MarkupError);
      assert.equal(direct.message, expected);
      // The scan leaves the action out and says why, as the page's console does.
      assert.deepEqual(info.actions, []);
      assert.deepEqual(info.problems.map((p) => p.message), [expected]);
      return;
    }
    assert.deepEqual(readOpen(action), expected);
    // open= adds nothing to the manifest: the action is the one without it.
    const without = todoPage({});
    assert.ok(!(direct instanceof MarkupError), String(direct));
    assert.deepEqual(direct, read(without.action, without.doc));
    assert.deepEqual(info.problems, []);
    assert.deepEqual(info.actions, scanPage(without.html, "/", "index.html").actions);
  });
}

/** open= on actions that fill nothing, or where another binding runs instead of fill=. */
const BINDINGS: [string, Record<string, string | null>, string[], string | null][] = [
  ["fill=", {}, [], null],
  ["<aim-field fill> children", { fill: null, items: null, key: null }, ["title"], null],
  ["no binding (a handler's)", { fill: null, items: null, key: null }, [], NO_FILL],
  ["<aim-field> without fill", { fill: null, items: null, key: null }, [], NO_FILL],
  [
    "click= as well",
    { fill: null, click: ".destroy" },
    [],
    "open= opens what fill= (or an <aim-field fill>) writes into: remove click=, or remove open=",
  ],
  [
    "check= with fill=",
    { check: ".toggle" },
    [],
    "open= opens what fill= (or an <aim-field fill>) writes into: remove check=, or remove open=",
  ],
  [
    "uncheck= with fill=",
    { uncheck: ".toggle" },
    [],
    "open= opens what fill= (or an <aim-field fill>) writes into: remove uncheck=, or remove open=",
  ],
];

for (const [what, attrs, fields, expected] of BINDINGS) {
  Deno.test(`open= with ${what} ${expected ? "is refused" : "reads"}`, () => {
    const { action, doc, html } = todoPage({ open: "dblclick:label", ...attrs }, fields);
    const direct = read(action, doc);
    const info = scanPage(html, "/", "index.html");
    if (expected) {
      assert.ok(direct instanceof MarkupError);
      assert.equal(direct.message, expected);
      assert.deepEqual(info.problems.map((p) => p.message), [expected]);
    } else {
      assert.ok(!(direct instanceof MarkupError), String(direct));
      assert.deepEqual(info.problems, []);
      assert.equal(info.actions.length, 1);
    }
  });
}

Deno.test("open= with form= is refused, whatever else the action says", () => {
  const { action } = page(
    h("form", { id: "f" }, [h("input", { name: "q" })]),
    h("aim-action", { name: "a", description: "A", form: "#f", open: "click:#go" }),
  );
  assert.throws(
    () => readOpen(action),
    (e) => e instanceof MarkupError && /remove form=, or remove open=$/.test(e.message),
  );
});

Deno.test("an action without open= reads no gesture", () => {
  assert.equal(readOpen(todoPage({}).action), undefined);
});

Deno.test("readOpen() either refuses a value or gives a known gesture on the rest, trimmed", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.tuple(fc.constantFrom(...OPEN_GESTURES, "Click", "dbl", ""), fc.string()).map((
          [g, s],
        ) => `${g}:${s}`),
      ),
      (raw) => {
        const { action } = todoPage({ open: raw });
        let read;
        try {
          read = readOpen(action);
        } catch (error) {
          assert.ok(error instanceof MarkupError);
          assert.equal(error.message, NOT_A_GESTURE(raw));
          return;
        }
        assert.ok(read);
        assert.ok(OPEN_GESTURES.includes(read.gesture));
        const rest = raw.trimStart().slice(read.gesture.length + 1);
        assert.equal(raw.trimStart().slice(0, read.gesture.length + 1), `${read.gesture}:`);
        assert.equal(read.selector, rest.trim());
        assert.notEqual(read.selector, "");
      },
    ),
  );
});

Deno.test("aim check reports an open= selector that can never work, and one no static item has", () => {
  const list = `<ul id="todo-list"><li><div class="view"><label>Buy milk</label></div>
<form><input class="edit"></form></li></ul>`;
  const problems = (attrs: string) =>
    checkPage(
      `<!doctype html><title>T</title><script type="module" src="/__aim/elements.js"></script>${list}\n<aim-action name="rename_todo" ` +
        `description="Rename the todo with this title" items="#todo-list li" key="label" ` +
        `fill=".edit" ${attrs}></aim-action>`,
      "index.html",
    ).map((p) => `${p.severity}: ${p.message}`);
  assert.deepEqual(problems(`open="dblclick:label"`), []);
  assert.deepEqual(problems(`open="dblclick::scope"`), []);
  assert.deepEqual(problems(`open="dblclick:label["`), [
    'error: <aim-action name="rename_todo">: open="label[" is not a valid selector',
  ]);
  assert.deepEqual(problems(`open="click:.edit-button"`), [
    'warning: <aim-action name="rename_todo">: open=".edit-button" matches nothing in the first ' +
    "static item (fine if a script renders it)",
  ]);
  assert.deepEqual(problems(`open="doubleclick:label"`), [
    `error: ${NOT_A_GESTURE("doubleclick:label")}`,
  ]);
});
