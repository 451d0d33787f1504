/**
 * `<aim-state>`'s reading of items and fields (elements/state_reader.ts), imported directly under
 * Deno with a small fake DOM (elements with attributes, visibility, and inputs as the classes
 * the reader checks): each way a field reads (an attribute typed, a boolean attribute's each
 * spelling, a checkbox, a control's value, text), a password never read, hidden items left out or
 * marked, items without fields as their text, one object of a source, and a declaration that
 * cannot be read. Tables in a real page are tests/browser/state_items_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readStructured } from "../../elements/state_reader.ts";
import { Fake, FakeDoc } from "../helpers/fake_dom.ts";

/** An element as the reader sees one: attributes, `hidden`, and whether it renders. */
class El extends Fake {
  hasAttribute(name: string): boolean {
    return this.getAttribute(name) !== null;
  }
  checkVisibility(): boolean {
    return this.getAttribute("data-gone") === null;
  }
}
/** An `<input>`: its type, value and checkedness. */
class Input extends El {
  get type(): string {
    return (this.getAttribute("type") ?? "text").toLowerCase();
  }
  get value(): string {
    return this.getAttribute("value") ?? "";
  }
  get checked(): boolean {
    return this.hasAttribute("checked");
  }
}
class Other extends El {}
Object.assign(globalThis, {
  HTMLInputElement: Input,
  HTMLSelectElement: Other,
  HTMLTextAreaElement: Other,
  HTMLTableElement: Other,
});

/** An element `tag` (an Input for `input`) with `attrs` and `kids`. */
function e(tag: string, attrs: Record<string, string> = {}, kids: (Fake | string)[] = []): El {
  return tag === "input" ? new Input(tag, attrs, kids) : new El(tag, attrs, kids);
}

/** What `state` publishes of `source`, and the warnings it gave. */
function read(state: El, source: El) {
  const warnings: string[] = [];
  const value = readStructured(state as never, source as never, {
    warn: (code) => void warnings.push(code),
    all: (root, selector) =>
      new FakeDoc(root as unknown as Fake).querySelectorAll(selector) as never,
    text: (node) => (node as unknown as Fake).textContent,
  });
  return { value, warnings };
}

const field = (attrs: Record<string, string>) => e("aim-field", attrs);

Deno.test("readStructured() reads each field of each item: an attribute typed, a checkbox, a value, text", () => {
  const list = e("ul", {}, [
    e("li", { "data-id": "1" }, [
      e("input", { class: "t", type: "checkbox", checked: "" }),
      e("b", {}, ["  write \n report "]),
      e("input", { class: "n", value: "3" }),
    ]),
    e("li", { "data-id": "x" }, [
      e("input", { class: "t", type: "CHECKBOX" }),
      e("b", {}, ["walk"]),
      e("input", { class: "n", value: "many" }),
    ]),
  ]);
  const state = e("aim-state", { name: "todos", items: "li" }, [
    field({ name: "id", attribute: "data-id", type: "number" }),
    field({ name: "done", from: ".t" }),
    field({ name: "title", from: "b" }),
    field({ name: "votes", from: ".n", type: "number" }),
    field({ name: "raw", from: ".n", read: "value" }),
    field({ name: "none", from: "i" }),
  ]);
  assert.deepEqual(read(state, list).value, [
    { id: 1, done: true, title: "write report", votes: 3, raw: "3", none: null },
    { id: null, done: false, title: "walk", votes: null, raw: "many", none: null },
  ]);
});

Deno.test("readStructured() reads a boolean attribute as HTML does: present and not false is true, in each spelling", () => {
  const cases: [Record<string, string>, boolean][] = [
    [{ "data-urgent": "" }, true],
    [{ "data-urgent": "yes" }, true],
    [{ "data-urgent": "false" }, false],
    [{ "data-urgent": " FALSE " }, false],
    [{ "data-urgent": "False" }, false],
    [{}, false],
  ];
  for (const [attrs, expected] of cases) {
    const state = e("aim-state", { name: "s", items: "li" }, [
      field({ name: "urgent", attribute: "data-urgent", type: "boolean" }),
    ]);
    assert.deepEqual(
      read(state, e("ul", {}, [e("li", attrs)])).value,
      [{ urgent: expected }],
      JSON.stringify(attrs),
    );
  }
});

Deno.test("readStructured() never reads a password field, and says so", () => {
  const form = e("form", {}, [e("input", { class: "p", type: "password", value: "hunter2" })]);
  const state = e("aim-state", { name: "s" }, [field({ name: "code", from: ".p" })]);
  const { value, warnings } = read(state, form);
  assert.deepEqual(value, { code: null });
  assert.deepEqual(warnings, ["password-field"]);
});

Deno.test("readStructured() leaves out hidden items, or marks each with visible; items without fields are their text", () => {
  const list = () =>
    e("ul", {}, [
      e("li", {}, ["shown"]),
      e("li", { hidden: "" }, ["hidden"]),
      e("li", { "data-gone": "" }, ["gone"]),
    ]);
  assert.deepEqual(read(e("aim-state", { name: "s", items: "li" }), list()).value, ["shown"]);
  assert.deepEqual(
    read(e("aim-state", { name: "s", items: "li", invisible: "mark" }), list()).value,
    [
      { text: "shown", visible: true },
      { text: "hidden", visible: false },
      { text: "gone", visible: false },
    ],
  );
  const marked = e("aim-state", { name: "s", items: "li", invisible: "mark" }, [
    field({ name: "t", from: "" }),
  ]);
  assert.deepEqual(
    read(marked, e("ul", {}, [e("li", { hidden: "" }, ["x"])])).value,
    [{ t: "x", visible: false }],
  );
});

Deno.test("readStructured() reads a source without items as one object of its fields, or as a field would", () => {
  const form = e("form", {}, [e("input", { class: "who", value: "ann" }), e("b", {}, ["7"])]);
  const state = e("aim-state", { name: "s" }, [
    field({ name: "who", from: ".who" }),
    field({ name: "n", from: "b", type: "number" }),
  ]);
  assert.deepEqual(read(state, form).value, { who: "ann", n: 7 });
  assert.equal(read(e("aim-state", { name: "s" }), e("input", { value: "v" })).value, "v");
  assert.equal(
    read(e("aim-state", { name: "s" }), e("p", {}, [" some  text "])).value,
    "some text",
  );
});

Deno.test("readStructured() throws a SyntaxError for a declaration that cannot be read", () => {
  const state = e("aim-state", { name: "s", items: "li" }, [field({ name: "a", type: "date" })]);
  assert.throws(() => read(state, e("ul")), SyntaxError);
});
