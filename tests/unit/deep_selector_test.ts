/**
 * Property tests of the deep combinator's parsing (splitDeep), and of deepAll and
 * deepFirst on a tree with shadow roots made of plain objects and on the server's parsed HTML,
 * where what follows a `>>>` finds nothing and nothing throws.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  collectRoots,
  deepAll,
  deepFirst,
  type DeepRoot,
  splitDeep,
} from "../../bridge/markup/deep_selector.ts";
import { actionItems, readAction } from "../../bridge/markup/action.ts";
import { scanPage } from "../../bridge/site/catalog.ts";

const RUNS = { numRuns: 300 };

/** A selector part with no `>>>` of its own: names, classes, attributes whose values may hold `>>>`. */
const part = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
  fc.stringMatching(/^\.[a-z][a-z0-9_-]{0,8}$/),
  fc.tuple(fc.stringMatching(/^[a-z]{1,6}$/), fc.string(), fc.constantFrom('"', "'")).map((
    [name, value, q],
  ) => `[${name}=${q}${value.replaceAll("\\", "").replaceAll(q, "")}${q}]`),
  fc.constantFrom("li > a", "ul li", ":is(a, b)", "a:not([title='>>>'])", 'a[title=">>>"] b'),
);

Deno.test("splitDeep() gives back the parts that `>>>` joined, whatever the spacing and quotes", () => {
  fc.assert(
    fc.property(
      fc.array(part, { minLength: 1, maxLength: 5 }),
      fc.constantFrom(" >>> ", ">>>", "  >>>\n"),
      fc.boolean(),
      (parts, joint, leading) => {
        const selector = (leading ? joint : "") + parts.join(joint);
        assert.deepEqual(splitDeep(selector), [...leading ? [""] : [], ...parts]);
      },
    ),
    RUNS,
  );
});

Deno.test("splitDeep() keeps a selector whose `>>>` are all quoted or bracketed as one part", () => {
  fc.assert(
    fc.property(part, (p) => assert.deepEqual(splitDeep(` ${p} `), [p])),
    RUNS,
  );
  assert.deepEqual(splitDeep("a\\>>>b"), ["a\\>>>b"]);
});

Deno.test("splitDeep() refuses a `>>>` with nothing after it", () => {
  for (const bad of ["a >>>", "a >>> >>> b", ">>> >>> b", ">>>"]) {
    assert.throws(() => splitDeep(bad), SyntaxError, bad);
  }
});

/** A fake element: a tag, children, maybe an open shadow root. */
interface Fake {
  tag: string;
  children: Fake[];
  shadowRoot?: FakeRoot | null;
}
type FakeRoot = DeepRoot & { kids: Fake[] };

function* walk(nodes: Fake[]): Generator<Fake> {
  for (const n of nodes) {
    yield n;
    yield* walk(n.children);
  }
}

/** A root whose querySelectorAll matches tag names only, in its own tree (not in shadow roots). */
function root(kids: Fake[]): FakeRoot {
  return { kids, querySelectorAll: (s: string) => [...walk(kids)].filter((n) => n.tag === s) };
}

function el(tag: string, children: Fake[] = [], shadow?: Fake[]): Fake & DeepRoot {
  const self: Fake & DeepRoot & { tagName: string; getAttribute(name: string): null } = {
    tag,
    tagName: tag.toUpperCase(),
    getAttribute: () => null,
    children,
    querySelectorAll: (s: string) => [...walk(children)].filter((n) => n.tag === s),
  };
  if (shadow) self.shadowRoot = root(shadow);
  return self;
}

Deno.test("deepAll() continues inside each match's open shadow root, and collects the roots it crossed", () => {
  const inner1 = el("li", [], [el("label")]);
  const inner2 = el("li");
  const list = el("todo-list", [], [inner1, inner2]);
  const closed = el("todo-list");
  const doc = root([el("todo-app", [el("li")], [list, el("li")]), closed]);
  assert.deepEqual(deepAll<Fake>(doc, "li").length, 1, "plain CSS stays in the light tree");
  assert.deepEqual(deepAll<Fake>(doc, "todo-app >>> todo-list >>> li"), [inner1, inner2]);
  assert.deepEqual(deepAll<Fake>(doc, "todo-list >>> li"), [], "no shadow root, nothing inside");
  assert.equal(deepFirst<Fake>(inner1, ">>> label")?.tag, "label");
  assert.equal(deepFirst<Fake>(inner2, ">>> label"), null);
  const crossed = new Set<unknown>();
  collectRoots(crossed, () => deepAll(doc, "todo-app >>> todo-list >>> li >>> label"));
  assert.equal(crossed.size, 3, "todo-app's, todo-list's and the one item's that has one");
  assert.equal(deepAll(doc, "todo-app >>> li").length, 1);
  assert.equal(crossed.size, 3, "nothing is collected outside collectRoots");
});

Deno.test("the server's reading of a page takes `>>>` selectors without choking", () => {
  const html = `<!doctype html><html><body><todo-app></todo-app>
<aim-action name="done" description="Complete a todo" items="todo-app >>> li" key=">>> label"
  check=">>> .toggle"></aim-action>
<aim-action name="add" description="Add a todo" fill="todo-app >>> .new-todo"
  input-max-length="9"></aim-action>
<aim-state name="todos" items="todo-app >>> li"></aim-state></body></html>`;
  const info = scanPage(html, "/", "index.html");
  assert.deepEqual(info.problems, []);
  assert.deepEqual(info.actions.map((a) => [a.id, a.input_schema.type]), [
    ["done", "string"],
    ["add", "string"],
  ]);
});

Deno.test("readAction() and actionItems() on a tree with shadow roots list the items' keys", () => {
  const label = (text: string) => ({ ...el("label"), textContent: text });
  const item = (text: string) => el("li", [], [label(text) as Fake]);
  const host = el("todo-app", [], [item("milk"), item("eggs")]);
  const doc = {
    ...root([host]),
    getElementById: () => null,
    documentElement: null,
  };
  const action = {
    tagName: "AIM-ACTION",
    children: [],
    textContent: "",
    getAttribute: (name: string) =>
      ({
        name: "done",
        description: "Complete a todo",
        items: "todo-app >>> li",
        key: ">>> label",
        check: ">>> .toggle",
      } as Record<string, string>)[name] ?? null,
  };
  // deno-lint-ignore no-explicit-any
  const fakeDoc = doc as any;
  assert.deepEqual(actionItems(action, fakeDoc).map(([, key]) => key), ["milk", "eggs"]);
  assert.deepEqual(readAction(action, fakeDoc, { keys: true }).input_schema, {
    type: "string",
    description: "The key of the item to act on",
    enum: ["milk", "eggs"],
  });
});
