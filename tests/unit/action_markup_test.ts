/**
 * Property tests of the reading of `<aim-action items= key= fill=>` and `<aim-field>`
 * (readAction), on the server's htmlparser2 tree and on a DOM-like tree with CSS selectors:
 * item keys, the session's enum of keys, typed fields and the controls they are filled into.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  actionItems,
  type MarkupDocument,
  type MarkupElement,
  MarkupError,
  type MarkupNode,
  readAction,
  type ReadActionOptions,
} from "../../bridge/markup/action.ts";
import { parseActionSpec } from "../../bridge/input/action_spec.ts";
import { scanPage } from "../../bridge/site/catalog.ts";
import { labelText } from "../../bridge/markup/reading.ts";
import { escapeAttr, escapeText } from "../helpers/markup_model.ts";

// ---------------------------------------------------------------------------------------------
// A DOM-like tree with the selectors the tests use: compound selectors (tag, .class, #id,
// [attr], [attr=value]) joined by descendant combinators.

class Fake implements MarkupElement {
  parent: Fake | null = null;
  readonly tagName: string;
  constructor(
    tag: string,
    readonly attrs: Record<string, string>,
    readonly kids: (Fake | string)[] = [],
  ) {
    this.tagName = tag.toUpperCase();
    for (const kid of kids) if (kid instanceof Fake) kid.parent = this;
  }
  getAttribute(name: string): string | null {
    return Object.hasOwn(this.attrs, name) ? this.attrs[name]! : null;
  }
  get children(): Fake[] {
    return this.kids.filter((k): k is Fake => k instanceof Fake);
  }
  get textContent(): string {
    return this.kids.map((k) => (typeof k === "string" ? k : k.textContent)).join("");
  }
  readonly nodeType = 1;
  get childNodes(): MarkupNode[] {
    return this.kids.map((k) => typeof k === "string" ? { nodeType: 3, textContent: k } : k);
  }
  *descendants(): Generator<Fake> {
    for (const child of this.children) {
      yield child;
      yield* child.descendants();
    }
  }
  querySelector(selector: string): Fake | null {
    for (const el of this.descendants()) if (matches(el, selector)) return el;
    return null;
  }
  html(): string {
    const tag = this.tagName.toLowerCase();
    const attrs = Object.entries(this.attrs).map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join("");
    if (tag === "input") return `<input${attrs}>`;
    const inner = this.kids.map((k) => (typeof k === "string" ? escapeText(k) : k.html())).join("");
    return `<${tag}${attrs}>${inner}</${tag}>`;
  }
}

function matchesCompound(el: Fake, compound: string): boolean {
  const parts = compound.match(/^[a-z-]+|\.[\w-]+|#[\w-]+|\[[\w-]+(?:=[^\]]+)?\]/g) ?? [];
  if (parts.join("") !== compound) throw new Error(`the fake cannot read ${compound}`);
  return parts.every((part) => {
    if (part.startsWith(".")) {
      return (el.getAttribute("class") ?? "").split(/\s+/).includes(part.slice(1));
    }
    if (part.startsWith("#")) return el.getAttribute("id") === part.slice(1);
    if (part.startsWith("[")) {
      const [name, value] = part.slice(1, -1).split("=") as [string, string | undefined];
      const actual = el.getAttribute(name);
      return value === undefined ? actual !== null : actual === value.replace(/^"|"$/g, "");
    }
    return el.tagName === part.toUpperCase();
  });
}

function matches(el: Fake, selector: string): boolean {
  const compounds = selector.trim().split(/\s+/);
  if (!matchesCompound(el, compounds.at(-1)!)) return false;
  let up = el.parent;
  for (const compound of compounds.slice(0, -1).reverse()) {
    while (up && !matchesCompound(up, compound)) up = up.parent;
    if (!up) return false;
    up = up.parent;
  }
  return true;
}

class FakeDoc implements MarkupDocument {
  constructor(readonly documentElement: Fake) {}
  getElementById(id: string): Fake | null {
    for (const el of this.documentElement.descendants()) {
      if (el.getAttribute("id") === id) return el;
    }
    return null;
  }
  querySelectorAll(selector: string): Fake[] {
    return [...this.documentElement.descendants()].filter((el) => matches(el, selector));
  }
}

const h = (tag: string, attrs: Record<string, string | null> = {}, kids: (Fake | string)[] = []) =>
  new Fake(
    tag,
    Object.fromEntries(Object.entries(attrs).filter((a): a is [string, string] => a[1] !== null)),
    kids,
  );

/** A page of `body` children: the action found in it, the tree, and the same as HTML. */
function page(...body: Fake[]) {
  const root = h("#document", {}, [h("html", {}, [h("body", {}, body)])]);
  const doc = new FakeDoc(root);
  const action = doc.querySelectorAll("aim-action")[0]!;
  const html = "<!doctype html>" + root.children.map((c) => c.html()).join("");
  return { action, doc, html };
}

/** readAction, then parseActionSpec, or the MarkupError either throws. */
function read(action: Fake, doc: FakeDoc, options?: ReadActionOptions) {
  try {
    return parseActionSpec(readAction(action, doc, options));
  } catch (error) {
    if (error instanceof MarkupError) return error;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------

const KEYS = ["buy milk", "walk dog", " write  report ", "", "x".repeat(201), "a"];

interface ItemsModel {
  items: { label: string | null; id: string | null }[];
  key: string | null;
  keyAttribute: string | null;
  binding: "click" | "check" | "uncheck" | "fill";
  description: string | null;
}

const itemsModel: fc.Arbitrary<ItemsModel> = fc.record({
  items: fc.array(
    fc.record({
      label: fc.option(fc.constantFrom(...KEYS), { nil: null, freq: 6 }),
      id: fc.option(fc.constantFrom("1", "2", "3", ""), { nil: null, freq: 4 }),
    }),
    { maxLength: 8 },
  ),
  key: fc.constantFrom("label", "", null),
  keyAttribute: fc.constantFrom("data-id", null),
  binding: fc.constantFrom("click", "check", "uncheck", "fill"),
  description: fc.option(fc.constantFrom("Which todo", ""), { nil: null }),
});

function itemsPage(m: ItemsModel) {
  const list = h(
    "ul",
    { class: "list" },
    m.items.map(({ label, id }) =>
      h("li", { "data-id": id }, [
        h("input", { class: "toggle", type: "checkbox" }),
        ...(label === null ? [] : [h("label", {}, [label])]),
        h("input", { class: "edit" }),
      ])
    ),
  );
  const selector = m.binding === "fill" ? ".edit" : ".toggle";
  const action = h("aim-action", {
    name: "act_on_item",
    description: "Act on the item the agent names",
    items: ".list li",
    key: m.key,
    "key-attribute": m.keyAttribute,
    [m.binding]: selector,
    "input-description": m.description,
  });
  return page(list, action);
}

/** The key the model's item has, as the markup names it. */
function expectedKey(m: ItemsModel, item: ItemsModel["items"][number]): string | null {
  const text = (item.label ?? "").replace(/\s+/g, " ").trim();
  if (m.key === "label") {
    // key-attribute then reads the label's attribute, which it has not.
    return item.label === null || m.keyAttribute ? null : text;
  }
  // No key=: the item itself, its attribute or its text.
  return m.keyAttribute ? item.id : text;
}

Deno.test("an items= action reads the same on the server and in a DOM-like tree, with no enum in public", () => {
  fc.assert(
    fc.property(itemsModel, (m) => {
      const { action, doc, html } = itemsPage(m);
      const direct = read(action, doc);
      const info = scanPage(html, "/p", "p.html");
      assert.ok(!(direct instanceof MarkupError), String(direct));
      assert.deepEqual(info.problems, []);
      assert.deepEqual(info.actions, [direct]);
      const key = direct.input_schema.type === "object"
        ? direct.input_schema.properties!.item!
        : direct.input_schema;
      assert.equal(key.type, "string");
      assert.ok(!("enum" in key), "the public reading lists no keys");
      const example = direct.input_example;
      assert.equal(
        typeof example === "object" ? (example as { item: string }).item : example,
        "example",
      );
    }),
    { numRuns: 200 },
  );
});

Deno.test("in the session, an items= action's key lists the keys present now, in order, once each", () => {
  fc.assert(
    fc.property(itemsModel, (m) => {
      const { action, doc } = itemsPage(m);
      const spec = read(action, doc, { keys: true });
      assert.ok(!(spec instanceof MarkupError), String(spec));
      const keys = m.items.map((item) => expectedKey(m, item));
      assert.deepEqual(actionItems(action, doc).map(([, key]) => key), keys);
      const listed = [...new Set(keys.filter((k): k is string => Boolean(k)))];
      const schema = spec.input_schema;
      const key = schema.type === "object" ? schema.properties!.item! : schema;
      assert.equal(key.type, "string");
      if (key.type !== "string") return;
      const fits = listed.length > 0 && listed.every((k) => k.length <= 200);
      assert.deepEqual(key.enum, fits ? listed : undefined);
      const example = schema.type === "object"
        ? (spec.input_example as { item: string }).item
        : spec.input_example;
      assert.equal(example, fits ? listed[0] : listed[0] ?? "example");
      assert.equal(
        key.description,
        m.binding !== "fill" && m.description ? m.description : "The key of the item to act on",
      );
      if (m.binding === "fill") {
        assert.deepEqual(schema.type === "object" && schema.required, ["item", "value"]);
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("more than 100 keys are not listed: the enum would cost more than it helps", () => {
  const items = Array.from({ length: 101 }, (_, i) => h("li", {}, [`todo ${i}`]));
  const { action, doc } = page(
    h("ul", {}, items),
    h("aim-action", { name: "done", description: "Finish it", items: "li", click: ":scope" }),
  );
  const spec = read(action, doc, { keys: true });
  assert.ok(!(spec instanceof MarkupError));
  assert.deepEqual(spec.input_schema, {
    type: "string",
    description: "The key of the item to act on",
  });
  assert.equal(spec.input_example, "todo 0");
});

/** Every way an `<aim-action>` can declare an input beyond a key. */
const DECLARED: Record<string, string>[] = [
  { "input-example": "x" },
  { "input-type": "integer" },
  { "input-minimum": "1" },
  { fill: "#q" },
  { form: "#f" },
];

Deno.test("click=, check= and uncheck= without items= refuse any declared input; with items= the input is the key", () => {
  for (const binding of ["click", "check", "uncheck"]) {
    for (const attrs of [...DECLARED, { field: "yes" }]) {
      const { field, ...rest } = attrs;
      const kids = field ? [h("aim-field", { name: "a" })] : [];
      const { action, doc } = page(
        h("form", { id: "f" }, [h("input", { id: "q", name: "q" })]),
        h("aim-action", { name: "go", description: "Go", [binding]: "#q", ...rest }, kids),
      );
      const result = read(action, doc);
      assert.ok(result instanceof MarkupError, `${binding} ${JSON.stringify(attrs)}`);
      assert.equal(
        result.message,
        `action "go": ${binding}= ignores the input; remove the input-* attributes, or run the ` +
          "action with a handler",
      );
    }
    const { action, doc } = page(
      h("ul", {}, [h("li", {}, ["one"])]),
      h("aim-action", {
        name: "go",
        description: "Go",
        items: "li",
        [binding]: ":scope",
        "input-description": "Which one",
      }),
    );
    assert.deepEqual(read(action, doc, { keys: true }), {
      id: "go",
      description: "Go",
      input_schema: { type: "string", description: "Which one", enum: ["one"] },
      input_example: "one",
      consequential: false,
      protected: false,
      read_only: false,
    });
  }
});

Deno.test("fill= takes the type of its control: a select's values, radio buttons', a checkbox's boolean", () => {
  const controls = [
    h("select", { id: "size", "aria-label": "Size" }, [
      h("option", { value: "s" }, ["Small"]),
      h("option", {}, ["Medium"]),
    ]),
    h("input", { type: "radio", name: "c", value: "red" }),
    h("input", { type: "radio", name: "c", value: "blue" }),
    h("input", { type: "checkbox", id: "gift" }),
    h("input", { id: "qty", placeholder: "How many" }),
    h("textarea", { id: "note" }),
  ];
  const cases: [Record<string, string>, unknown, unknown][] = [
    [{ fill: "#size" }, { type: "string", description: "Size", enum: ["s", "Medium"] }, "s"],
    [{ fill: "[name=c]" }, { type: "string", enum: ["red", "blue"] }, "red"],
    [{ fill: "#gift" }, { type: "boolean" }, false],
    [{ fill: "#qty" }, { type: "string", description: "How many" }, "example"],
    [
      { fill: "#qty", "input-type": "integer", "input-minimum": "2", "input-maximum": "9" },
      { type: "integer", minimum: 2, maximum: 9, description: "How many" },
      2,
    ],
    [{ fill: "#qty", "input-type": "number", "input-maximum": "-0.5" }, {
      type: "number",
      maximum: -0.5,
      description: "How many",
    }, -0.5],
    [{ fill: "#note", "input-max-length": "3" }, { type: "string", maxLength: 3 }, "exa"],
    [{ fill: "#missing" }, { type: "string" }, "example"],
    [{ "input-type": "boolean", "input-description": "Really?" }, {
      type: "boolean",
      description: "Really?",
    }, false],
  ];
  for (const [attrs, schema, example] of cases) {
    const { action, doc, html } = page(
      ...controls,
      h("aim-action", { name: "set", description: "Set it", ...attrs }),
    );
    const spec = read(action, doc);
    assert.ok(!(spec instanceof MarkupError), `${JSON.stringify(attrs)}: ${spec}`);
    assert.deepEqual(spec.input_schema, schema, JSON.stringify(attrs));
    assert.deepEqual(spec.input_example, example, JSON.stringify(attrs));
    assert.deepEqual(scanPage(html, "/", "p.html").actions, [spec], JSON.stringify(attrs));
  }
});

Deno.test("<aim-field> children make an object of typed fields, and give a form's fields types", () => {
  const fields = [
    h("aim-field", { name: "title", fill: "#title", required: "" }),
    h("aim-field", { name: "qty", fill: "#qty", type: "integer", minimum: "1", required: "" }),
    h("aim-field", { name: "gift", fill: "#gift" }),
    h("aim-field", { name: "size", fill: "#size", description: "The size" }),
  ];
  const controls = [
    h("input", { id: "title" }),
    h("input", { id: "qty" }),
    h("input", { id: "gift", type: "checkbox" }),
    h("select", { id: "size" }, [h("option", {}, ["S"]), h("option", {}, ["M"])]),
  ];
  const { action, doc, html } = page(
    ...controls,
    h("aim-action", { name: "add_item", description: "Add an item", commit: "enter" }, fields),
  );
  const spec = read(action, doc);
  assert.ok(!(spec instanceof MarkupError), String(spec));
  assert.deepEqual(spec.input_schema, {
    type: "object",
    properties: {
      title: { type: "string" },
      qty: { type: "integer", minimum: 1 },
      gift: { type: "boolean" },
      size: { type: "string", enum: ["S", "M"], description: "The size" },
    },
    required: ["title", "qty"],
    additionalProperties: false,
  });
  assert.deepEqual(spec.input_example, { title: "example", qty: 1 });
  assert.deepEqual(scanPage(html, "/", "p.html").actions, [spec]);

  const form = h("form", { id: "order" }, [
    h("label", {}, ["Quantity ", h("input", { name: "qty", required: "" })]),
    h("input", { name: "gift", type: "checkbox", value: "yes" }),
    h("input", { name: "note" }),
  ]);
  const typed = page(
    form,
    h("aim-action", { name: "order", description: "Order", form: "#order" }, [
      h("aim-field", { name: "qty", type: "integer", maximum: "5" }),
      h("aim-field", { name: "gift", type: "boolean" }),
      h("aim-field", { name: "absent", type: "number" }),
    ]),
  );
  const order = read(typed.action, typed.doc);
  assert.ok(!(order instanceof MarkupError), String(order));
  assert.deepEqual(order.input_schema, {
    type: "object",
    properties: {
      qty: { type: "integer", maximum: 5, description: "Quantity" },
      gift: { type: "boolean" },
      note: { type: "string" },
    },
    required: ["qty"],
    additionalProperties: false,
  });
  assert.deepEqual(order.input_example, { qty: 1 });
  assert.deepEqual(scanPage(typed.html, "/", "p.html").actions, [order]);
});

Deno.test("a field name of Object.prototype, or that the wire schema refuses, makes no action", () => {
  for (
    const [name, message] of [
      ["toString", /the field name "toString" is not allowed/],
      ["constructor", /the field name "constructor" is not allowed/],
      ["", /input_schema\.properties/],
      ["bad name", /input_schema\.properties/],
    ] as const
  ) {
    const { action, doc, html } = page(
      h("aim-action", { name: "a", description: "A" }, [h("aim-field", { name })]),
    );
    const result = read(action, doc);
    assert.ok(result instanceof MarkupError, name);
    assert.match(result.message, message);
    assert.deepEqual(scanPage(html, "/", "p.html").problems.map((p) => p.message), [
      result.message,
    ]);
  }
});

Deno.test("a selector the server cannot read is a problem of the page, not a crash", () => {
  const { html } = page(h("aim-action", { name: "a", description: "A", fill: "##" }));
  const info = scanPage(html, "/", "p.html");
  assert.deepEqual(info.actions, []);
  assert.deepEqual(info.problems.map((p) => p.message), ['"##" is not a valid selector']);
});

Deno.test("a password field is never an item's key, so its value never reaches a manifest", () => {
  const { action, doc } = page(
    h("ul", {}, [
      h("li", {}, [h("input", { type: "password", value: "hunter2" })]),
      h("li", {}, [h("input", { type: "text", value: "visible" })]),
    ]),
    h("aim-action", {
      name: "pick",
      description: "Pick one",
      items: "li",
      key: "input",
      "key-attribute": "value",
      click: ":scope",
    }),
  );
  assert.deepEqual(actionItems(action, doc).map(([, key]) => key), [null, "visible"]);
  const spec = read(action, doc, { keys: true });
  assert.ok(!(spec instanceof MarkupError));
  assert.ok(!JSON.stringify(spec).includes("hunter2"));
});

Deno.test("an items= fill= action takes its value's example from input-example, or the bridge makes one", () => {
  const list = h("ul", {}, [h("li", {}, [h("label", {}, ["milk"]), h("input", { class: "qty" })])]);
  const { action, doc, html } = page(
    list,
    h("aim-action", {
      name: "rename",
      description: "Rename an item",
      items: "li",
      key: "label",
      fill: ".qty",
      "input-pattern": "[a-z]+",
      "input-example": "oat",
    }),
  );
  for (const keys of [false, true]) {
    const spec = read(action, doc, { keys });
    assert.ok(!(spec instanceof MarkupError), String(spec));
    assert.deepEqual(spec.input_example, { item: keys ? "milk" : "example", value: "oat" });
  }
  assert.deepEqual(scanPage(html, "/", "p.html").problems, []);
  const without = page(
    list,
    h("aim-action", {
      name: "rename",
      description: "Rename an item",
      items: "li",
      key: "label",
      fill: ".qty",
      "input-pattern": "[a-z]+",
    }),
  );
  // Without one, the bridge makes one from the pattern.
  for (const keys of [false, true]) {
    const made = read(without.action, without.doc, { keys });
    assert.ok(!(made instanceof MarkupError), String(made));
    assert.deepEqual(made.input_example, { item: keys ? "milk" : "example", value: "a" });
  }
});

Deno.test("items= with form= or a JSON schema child is refused, not registered with a key it cannot read", () => {
  for (
    const extra of [
      { attrs: { form: "#f" }, children: [] as Fake[], message: /remove form=/ },
      {
        attrs: {},
        children: [h("script", { type: "application/json" }, ['{"type":"string"}'])],
        message: /remove the JSON schema/,
      },
    ]
  ) {
    const { action, doc, html } = page(
      h("form", { id: "f" }, [h("input", { name: "q" })]),
      h("ul", {}, [h("li", {}, ["milk"])]),
      h("aim-action", {
        name: "pick",
        description: "Pick an item",
        items: "li",
        click: ":scope",
        ...extra.attrs,
      }, extra.children),
    );
    const result = read(action, doc, { keys: true });
    assert.ok(result instanceof MarkupError);
    assert.match(result.message, extra.message);
    assert.equal(scanPage(html, "/", "p.html").actions.length, 0);
  }
});

Deno.test("fill= of an items= action reads its control inside the first item, never elsewhere in the page", () => {
  const { action, doc, html } = page(
    h("input", { type: "checkbox", class: "val" }),
    h("ul", {}, [h("li", {}, [h("label", {}, ["milk"]), h("input", { class: "val" })])]),
    h("aim-action", {
      name: "rename",
      description: "Rename an item",
      items: "li",
      key: "label",
      fill: ".val",
    }),
  );
  for (const keys of [false, true]) {
    const spec = read(action, doc, { keys });
    assert.ok(!(spec instanceof MarkupError), String(spec));
    assert.equal(spec.input_schema.type, "object");
    const value = (spec.input_schema as { properties: Record<string, { type: string }> })
      .properties.value!;
    assert.equal(value.type, "string", "the item's text input, not the checkbox outside the list");
  }
  assert.equal(
    (scanPage(html, "/", "p.html").actions[0]!.input_schema as {
      properties: Record<string, { type: string }>;
    }).properties.value!.type,
    "string",
  );
});

Deno.test("a label's words are its own, never its select's options or its textarea's text, on the server and in the page", () => {
  const select = (name: string) =>
    h("select", { name }, [h("option", {}, ["fixed"]), h("option", { value: "w" }, ["wontfix"])]);
  const cases: [Fake, string][] = [
    [h("label", {}, ["Resolution ", select("a")]), "Resolution"],
    [h("label", {}, [select("a"), " Resolution"]), "Resolution"],
    [h("label", {}, ["Reso", h("b", {}, ["lu", select("a"), "tion"]), " now"]), "Resolution now"],
    // The option's text is also the label's own word: only the option's goes.
    [h("label", {}, ["fixed ", select("a"), " fix"]), "fixed fix"],
    [h("label", {}, ["Note ", h("textarea", { name: "a" }, ["hello"])]), "Note"],
    [h("label", {}, ["Name ", h("input", { name: "a" })]), "Name"],
    // Found by for= as well as by wrapping.
    [
      h("label", { for: "r" }, [
        "Resolution ",
        h("select", { name: "a", id: "r" }, [
          h("option", {}, ["fixed"]),
        ]),
      ]),
      "Resolution",
    ],
  ];
  for (const [label, words] of cases) {
    assert.equal(labelText(label), words);
    const form = h("form", { id: "f" }, [label, h("input", { name: "z" })]);
    const { action, doc, html } = page(
      form,
      h("aim-action", { name: "resolve", description: "Resolve", form: "#f" }),
    );
    const spec = read(action, doc);
    assert.ok(!(spec instanceof MarkupError), String(spec));
    const properties = spec.input_schema.properties!;
    assert.equal(properties.a!.description, words, label.html());
    assert.deepEqual(scanPage(html, "/", "p.html").actions, [spec]);
    // A declarative form tool's label reads the same.
    const tool = scanPage(
      `<!doctype html><form toolname="resolve" tooldescription="Resolve">${label.html()}</form>`,
      "/",
      "p.html",
    ).actions[0]!;
    assert.equal(tool.input_schema.properties!.a!.description, words, label.html());
  }
  // A tree without child nodes reads the label's text, less that of its controls.
  const bare = {
    tagName: "LABEL",
    getAttribute: () => null,
    textContent: "Resolution fixedwontfix",
    children: [{
      tagName: "SELECT",
      getAttribute: () => null,
      children: [],
      textContent: "fixedwontfix",
    }],
  } as MarkupElement;
  assert.equal(labelText(bare), "Resolution");
});
