/**
 * Tests of the reading of an `<aim-action>`'s input (readAction), on the server's htmlparser2 tree
 * and on the DOM-like tree of tests/helpers/fake_dom.ts: click=, check= and uncheck= (no input, or
 * the item's key), fill= and the type of its control, `<aim-field>` children and their names, a
 * password never a key, examples, refused combinations, and a label's own words. Item keys and
 * the session's enum of them are tests/unit/action_markup_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { actionItems, type MarkupElement, MarkupError } from "../../bridge/markup/action.ts";
import { scanPage } from "../../bridge/site/catalog.ts";
import { labelText } from "../../bridge/markup/reading.ts";
import { type Fake, h, page, read } from "../helpers/fake_dom.ts";

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
