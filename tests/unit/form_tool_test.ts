/**
 * A declarative WebMCP tool read from `<form toolname>` (bridge/markup/form_tool.ts) and the
 * element helpers every declaration is read through (bridge/markup/element.ts), imported
 * directly: each skipped input type, each type that makes a boolean, a number or an enum, each
 * place a description comes from, and each way a child JSON script can be refused.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseDocument } from "htmlparser2";
import { ParsedView } from "../../bridge/site/catalog.ts";
import { formToolOf } from "../../bridge/markup/form_tool.ts";
import {
  jsonScript,
  type MarkupElement,
  MarkupError,
  readJsonChild,
  tagOf,
} from "../../bridge/markup/element.ts";

/** The first element of `html` with tag `tag`, as the bridge's markup readers see it. */
function first(html: string, tag: string): MarkupElement {
  const view = new ParsedView(parseDocument(html));
  const found = view.elements.find((el) => el.name === tag);
  assert.ok(found, `the markup has a <${tag}>`);
  return view.wrap(found);
}

/** What formToolOf() returns, with its schema's shape known. */
interface FormTool {
  name: unknown;
  description: unknown;
  inputSchema: { properties: Record<string, Record<string, unknown>>; required?: string[] };
}

/** The tool of a form holding `fields`. */
function tool(fields: string, attrs = 'toolname="t" tooldescription="d"'): FormTool {
  return formToolOf(first(`<form ${attrs}>${fields}</form>`, "form")) as FormTool;
}

Deno.test("formToolOf() leaves out each input type that is no field, and unnamed fields", () => {
  for (const type of ["submit", "button", "reset", "image", "file", "hidden", "SUBMIT", "Hidden"]) {
    assert.deepEqual(tool(`<input name="x" type="${type}">`).inputSchema.properties, {}, type);
  }
  assert.deepEqual(tool(`<input type="text"><textarea></textarea>`).inputSchema.properties, {});
  for (const type of ["text", "email", "date", "password", "search", "tel", "url", "color"]) {
    assert.deepEqual(tool(`<input name="x" type="${type}">`).inputSchema.properties, {
      x: { type: "string" },
    }, type);
  }
});

Deno.test("formToolOf() types a checkbox as a boolean, number and range as whole numbers unless step=any", () => {
  const cases: [string, Record<string, unknown>][] = [
    [`<input name="x" type="checkbox">`, { type: "boolean" }],
    [`<input name="x" type="CheckBox">`, { type: "boolean" }],
    [`<input name="x" type="number">`, { type: "number", multipleOf: 1 }],
    [`<input name="x" type="range">`, { type: "number", multipleOf: 1 }],
    [`<input name="x" type="number" step="0.5">`, { type: "number", multipleOf: 1 }],
    [`<input name="x" type="number" step="any">`, { type: "number" }],
    [`<input name="x" type="range" step="ANY">`, { type: "number" }],
    [`<textarea name="x"></textarea>`, { type: "string" }],
    [`<input name="x">`, { type: "string" }],
  ];
  for (const [field, expected] of cases) {
    assert.deepEqual(tool(field).inputSchema.properties, { x: expected }, field);
  }
});

Deno.test("formToolOf() lists a select's options and a radio group's values as an enum, each once", () => {
  assert.deepEqual(
    tool(`<select name="s"><option value="a">A</option><option> Bee  b </option>
<optgroup><option value="a">again</option><option value="c"></option></optgroup></select>`)
      .inputSchema.properties,
    { s: { type: "string", enum: ["a", "Bee b", "c"] } },
  );
  assert.deepEqual(
    tool(`<input type="radio" name="r" value="x"><input type="radio" name="r" value="y">
<input type="radio" name="r" value="x"><input type="radio" name="r">`).inputSchema.properties,
    { r: { type: "string", enum: ["x", "y", "on"] } },
  );
});

Deno.test("formToolOf() describes a field by toolparamdescription, else the label it is in, else the label for its id", () => {
  const cases: [string, string | undefined][] = [
    [`<label>Outer <input name="x" toolparamdescription="  Own   words "></label>`, "Own words"],
    [`<label>Your  name <input name="x"></label>`, "Your name"],
    [`<label for="i">By id</label><input id="i" name="x">`, "By id"],
    [`<input id="i" name="x"><label for="i">After it</label>`, "After it"],
    [`<label for="i">First</label><label for="i">Second</label><input id="i" name="x">`, "First"],
    [`<label for="other">No</label><input id="i" name="x">`, undefined],
    [`<input name="x">`, undefined],
  ];
  for (const [fields, description] of cases) {
    const field = tool(fields).inputSchema.properties;
    assert.equal(field.x?.description, description, fields);
  }
});

Deno.test("formToolOf() lists each required field once, and reads the form's name and description in words", () => {
  const read = tool(
    `<input name="a" required><input name="b"><input type="radio" name="r" value="1" required>
<input type="radio" name="r" value="2" required>`,
    'toolname="  book\n a  table " tooldescription=" Books  a table. "',
  );
  assert.equal(read.name, "book a table");
  assert.equal(read.description, "Books a table.");
  assert.deepEqual(read.inputSchema.required, ["a", "r"]);
  assert.equal("required" in tool(`<input name="a">`).inputSchema, false);
  assert.deepEqual(tool("", "").name, "");
});

Deno.test("tagOf() is upper case, and jsonScript() finds only a child script of type application/json", () => {
  assert.equal(tagOf(first("<aim-State></aim-State>", "aim-state")), "AIM-STATE");
  const cases: [string, boolean][] = [
    [`<aim-action><script type="application/json">1</script></aim-action>`, true],
    [`<aim-action><script type=" Application/JSON ">1</script></aim-action>`, true],
    [`<aim-action><script type="application/ld+json">1</script></aim-action>`, false],
    [`<aim-action><script>1</script></aim-action>`, false],
    [`<aim-action><div><script type="application/json">1</script></div></aim-action>`, false],
  ];
  for (const [html, found] of cases) {
    assert.equal(jsonScript(first(html, "aim-action")) !== undefined, found, html);
  }
});

Deno.test("readJsonChild() parses the child JSON, and refuses bad JSON, too deep a nesting and a __proto__ key by name", () => {
  const read = (json: string) =>
    readJsonChild(
      first(
        `<aim-action><script type="application/json">${json}</script></aim-action>`,
        "aim-action",
      ),
    );
  assert.deepEqual(read('{"type":"string"}'), { type: "string" });
  assert.equal(readJsonChild(first("<aim-action></aim-action>", "aim-action")), undefined);
  const refused: [string, string][] = [
    ["{", 'the child <script type="application/json"> is not valid JSON'],
    ["", 'the child <script type="application/json"> is not valid JSON'],
    [
      "[".repeat(200) + "]".repeat(200),
      'the child <script type="application/json"> nests too deep',
    ],
    ['{"__proto__":{}}', 'the child JSON may not use the key "__proto__"'],
    ['{"a":{"\\u005f_proto__":1}}', 'the child JSON may not use the key "__proto__"'],
  ];
  for (const [json, message] of refused) {
    assert.throws(() => read(json), (e) => e instanceof MarkupError && e.message === message, json);
  }
  assert.equal(new MarkupError("x").name, "MarkupError");
});
