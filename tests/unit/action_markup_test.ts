/**
 * Property tests of the reading of `<aim-action items= key= fill=>` and `<aim-field>`
 * (readAction), on the server's htmlparser2 tree and on a DOM-like tree with CSS selectors:
 * item keys and the session's enum of keys. Typed fields and the controls they are filled into
 * are tests/unit/action_inputs_test.ts's, the DOM-like tree tests/helpers/fake_dom.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { actionItems, MarkupError } from "../../bridge/markup/action.ts";
import { scanPage } from "../../bridge/site/catalog.ts";
import { h, page, read } from "../helpers/fake_dom.ts";

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
