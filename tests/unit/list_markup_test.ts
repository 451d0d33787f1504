/**
 * List and object inputs declared in markup (issue 33, docs/elements.md): `<aim-field
 * type="array">` with `items-…`, `min-items`, `max-items`, `unique-items`, `<aim-field
 * type="object">` with fields of its own, `enum=`, `input-type="array"` on an `<aim-action>`,
 * and a `<select multiple>` or checkboxes of one name in `form=` or `fill=`, read by the bridge
 * from the page's HTML, the reading the browser shares.
 *
 * @module
 */
import assert from "node:assert/strict";
import { scanPage } from "../../bridge/site/catalog.ts";
import type { ActionSpec } from "../../bridge/wire/schemas.ts";

/** The one action of `html`, read as the bridge reads a page. */
function actionOf(html: string): ActionSpec {
  const info = scanPage(`<!doctype html>${html}`, "/", "index.html");
  assert.deepEqual(info.problems, []);
  assert.equal(info.actions.length, 1);
  return info.actions[0]!;
}

/** The problem `html` makes. */
function problemOf(html: string): string {
  const info = scanPage(`<!doctype html>${html}`, "/", "index.html");
  assert.equal(info.problems.length, 1, JSON.stringify(info.problems));
  return info.problems[0]!.message;
}

Deno.test("<aim-field type=array> is a list of items-type, with items-* and its bounds", () => {
  const spec = actionOf(`<aim-action name="tag" description="Tag it">
    <aim-field name="tags" type="array" items-enum="bug, task ,epic" min-items="1" max-items="2"
      unique-items description="The tags" required></aim-field>
    <aim-field name="scores" type="array" items-type="integer" items-minimum="0"
      items-maximum="10"></aim-field>
    <aim-field name="words" type="array" items-pattern="[a-z]+" items-max-length="8"></aim-field>
  </aim-action>`);
  assert.deepEqual(spec.input_schema, {
    type: "object",
    properties: {
      tags: {
        type: "array",
        items: { type: "string", enum: ["bug", "task", "epic"] },
        minItems: 1,
        maxItems: 2,
        uniqueItems: true,
        description: "The tags",
      },
      scores: { type: "array", items: { type: "integer", minimum: 0, maximum: 10 } },
      words: { type: "array", items: { type: "string", maxLength: 8, pattern: "^[a-z]+$" } },
    },
    required: ["tags"],
    additionalProperties: false,
  });
  assert.deepEqual(spec.input_example, { tags: ["bug"] });
});

Deno.test("<aim-field type=object> holds the fields of its own <aim-field> children, lists of them too", () => {
  const spec = actionOf(`<aim-action name="order" description="Order">
    <aim-field name="to" type="object" required>
      <aim-field name="name" required></aim-field>
      <aim-field name="zip" pattern="[0-9]{5}"></aim-field>
    </aim-field>
    <aim-field name="lines" type="array" items-type="object" min-items="2" required>
      <aim-field name="sku" enum="tea,cake" required></aim-field>
      <aim-field name="qty" type="integer" enum="1,2,5"></aim-field>
    </aim-field>
  </aim-action>`);
  assert.deepEqual(spec.input_schema.properties, {
    to: {
      type: "object",
      properties: { name: { type: "string" }, zip: { type: "string", pattern: "^[0-9]{5}$" } },
      required: ["name"],
      additionalProperties: false,
    },
    lines: {
      type: "array",
      items: {
        type: "object",
        properties: {
          sku: { type: "string", enum: ["tea", "cake"] },
          qty: { type: "integer", enum: [1, 2, 5] },
        },
        required: ["sku"],
        additionalProperties: false,
      },
      minItems: 2,
    },
  });
  assert.deepEqual(spec.input_schema.required, ["to", "lines"]);
  assert.deepEqual(spec.input_example, {
    to: { name: "example" },
    lines: [{ sku: "tea" }, { sku: "cake" }],
  });
});

Deno.test("an <aim-action>'s single input may be a list: input-type=array and input-items-*", () => {
  const spec = actionOf(
    `<aim-action name="pick" description="Pick" input-type="array" input-items-type="number"
      input-min-items="1"></aim-action>`,
  );
  assert.deepEqual(spec.input_schema, {
    type: "array",
    items: { type: "number" },
    minItems: 1,
  });
  assert.deepEqual(spec.input_example, [1]);
  const given = actionOf(
    `<aim-action name="pick" description="Pick" input-type="array" input-items-type="integer"
      input-example="[2, 3]">
    </aim-action>`,
  );
  assert.deepEqual(given.input_example, [2, 3]);
});

Deno.test("in form=, a <select multiple> or checkboxes of one name are a list of their values", () => {
  const spec = actionOf(`<form id="f">
    <label for="s">Status</label>
    <select id="s" name="status" multiple><option>open</option><option value="x">Closed</option>
    </select>
    <label><input type="checkbox" name="labels" value="ui"> UI</label>
    <label><input type="checkbox" name="labels" value="api"> API</label>
    <label><input type="checkbox" name="urgent" value="yes"> Urgent</label>
    <select name="size"><option>S</option><option>M</option></select>
  </form>
  <aim-action name="search" description="Search" form="#f"></aim-action>`);
  assert.deepEqual(spec.input_schema.properties, {
    status: {
      type: "array",
      items: { type: "string", enum: ["open", "x"] },
      uniqueItems: true,
      description: "Status",
    },
    labels: { type: "array", items: { type: "string", enum: ["ui", "api"] }, uniqueItems: true },
    // One checkbox stays one value: its own, or "" when unchecked.
    urgent: { type: "string", description: "Urgent", enum: ["", "yes"] },
    size: { type: "string", enum: ["S", "M"] },
  });
});

Deno.test("fill= into a <select multiple> or several checkboxes takes a list", () => {
  const spec = actionOf(`<select id="s" multiple><option>a</option><option>b</option></select>
    <input type="checkbox" class="day" value="mon"><input type="checkbox" class="day" value="tue">
    <aim-action name="set" description="Set">
      <aim-field name="letters" fill="#s"></aim-field>
      <aim-field name="days" fill=".day" min-items="1"></aim-field>
    </aim-action>`);
  assert.deepEqual(spec.input_schema.properties, {
    letters: { type: "array", items: { type: "string", enum: ["a", "b"] }, uniqueItems: true },
    days: {
      type: "array",
      items: { type: "string", enum: ["mon", "tue"] },
      minItems: 1,
      uniqueItems: true,
    },
  });
});

Deno.test("list markup that cannot be a schema is a problem that names the attribute", () => {
  assert.match(
    problemOf(`<aim-action name="a" description="A">
      <aim-field name="n" type="array" min-items="many"></aim-field></aim-action>`),
    /min-items="many" is not a whole number/,
  );
  assert.match(
    problemOf(`<aim-action name="a" description="A">
      <aim-field name="n" type="array" min-items="3" max-items="1"></aim-field></aim-action>`),
    /minItems is greater than maxItems/,
  );
  assert.match(
    problemOf(`<aim-action name="a" description="A">
      <aim-field name="n" type="list"></aim-field></aim-action>`),
    /type must be one of/,
  );
});
