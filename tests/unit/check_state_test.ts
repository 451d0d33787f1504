/**
 * `aim check`'s reading of one `<aim-state>` (bridge/site/check_state.ts), imported directly:
 * each name it refuses (every object name and secret spelling), each attribute of an action's
 * field it warns about, each reading that cannot work on the static element, a table's columns,
 * and a deep selector. The whole command's lines and columns are tests/cli/check_state_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseDocument } from "htmlparser2";
import type { AnyNode, Element } from "domhandler";
import { selectOne } from "css-select";
import { checkState, patternsOf } from "../../bridge/site/check_state.ts";
import { OBJECT_NAMES } from "../../bridge/wire/object_names.ts";

/** What checkState() reports of the page's first `<aim-state>`: `severity message`, in order. */
function check(html: string): string[] {
  const doc = parseDocument(html, { recognizeSelfClosing: false });
  const el = selectOne<AnyNode, Element>("aim-state", doc);
  assert.ok(el, "the page has an <aim-state>");
  const found: string[] = [];
  checkState(
    el,
    doc,
    (_at, message, severity = "error") => found.push(`${severity} ${message}`),
    "S",
  );
  return found;
}

const LIST = `<ul id="l"><li data-id="1"><input class="t" type="checkbox"><b>one</b></li>
<li data-id="2"><input class="t" type="checkbox"><b>two</b></li></ul>`;

/** A state of the list's items with one field. */
function state(field: string, extra = ""): string {
  return `${LIST}<aim-state name="s" items="#l li" ${extra}>${field}</aim-state>`;
}

Deno.test("checkState() passes a state whose fields read what the static page shows", () => {
  assert.deepEqual(
    check(state(
      `<aim-field name="id" attribute="data-id" type="number"></aim-field>
       <aim-field name="title" from="b"></aim-field>
       <aim-field name="done" from=".t" read="checked"></aim-field>`,
    )),
    [],
  );
});

Deno.test("checkState() refuses each object name and each secret spelling as a field's name, in any case", () => {
  const names = [
    ...OBJECT_NAMES,
    "toString",
    "ValueOf",
    "password",
    "api_key",
    "apiKey",
    "SECRET",
    "access_token",
  ];
  for (const name of names) {
    assert.deepEqual(
      check(state(`<aim-field name="${name}" from="b"></aim-field>`)),
      [
        `error S: <aim-field name="${name}"> has a name that looks like a secret or is reserved: it is never published`,
      ],
      name,
    );
  }
  assert.deepEqual(check(state(`<aim-field name="prototypes" from="b"></aim-field>`)), []);
});

Deno.test("checkState() warns about each attribute of an action's field, which does nothing in a state", () => {
  for (const attr of ["fill", "required", "minimum", "maximum"]) {
    assert.deepEqual(
      check(state(`<aim-field name="title" from="b" ${attr}="1"></aim-field>`)),
      [`warning S: <aim-field name="title">: ${attr}= belongs to <aim-action> and does nothing here`],
      attr,
    );
  }
});

Deno.test("checkState() reports a field twice, visible beside invisible=mark, and fields with nowhere to read", () => {
  const cases: [string, string, string[]][] = [
    [
      "twice",
      state(`<aim-field name="a" from="b"></aim-field><aim-field name="a" from="b"></aim-field>`),
      [
        'error S: <aim-field name="a"> is declared twice',
      ],
    ],
    ["visible", state(`<aim-field name="visible" from="b"></aim-field>`, 'invisible="mark"'), [
      'error S: <aim-field name="visible">: invisible="mark" adds "visible" itself',
    ]],
    [
      "no from= or items=",
      `${LIST}<aim-state name="s"><aim-field name="a" from="b"></aim-field></aim-state>`,
      ["error S: its <aim-field> children need from= or items="],
    ],
  ];
  for (const [name, html, expected] of cases) assert.deepEqual(check(html), expected, name);
});

Deno.test("checkState() warns where a field's reading does not fit the static element", () => {
  const cases: [string, string][] = [
    [
      `<aim-field name="a" from="b" read="checked"></aim-field>`,
      `warning S: <aim-field name="a"> read="checked" reads a <b>, which has no checkedness`,
    ],
    [
      `<aim-field name="a" from="b" read="value"></aim-field>`,
      `warning S: <aim-field name="a"> read="value" reads a <b>, which has no value`,
    ],
    [
      `<aim-field name="a" from="b" type="number"></aim-field>`,
      `warning S: <aim-field name="a"> type="number" does not fit what it reads here, "one"`,
    ],
    [
      `<aim-field name="a" from="i"></aim-field>`,
      `warning S: <aim-field name="a"> from="i" matches nothing in the static items`,
    ],
    [
      `<aim-field name="a" from="b[["></aim-field>`,
      `error S: from="b[[" is not a valid selector`,
    ],
    [
      `<aim-field name="a" from="b >>> i"></aim-field>`,
      'warning S: from="b >>> i" reaches into shadow roots (>>>), which a script attaches: only "b" is checked in the static page',
    ],
  ];
  for (const [field, expected] of cases) assert.deepEqual(check(state(field)), [expected], field);
  // A password is never published, whatever reads it.
  assert.deepEqual(
    check(`<form id="f"><input type="password" class="p"></form>
<aim-state name="s" from="#f"><aim-field name="code" from=".p"></aim-field></aim-state>`),
    ['warning S: <aim-field name="code"> reads a password field, which is never published'],
  );
});

Deno.test("checkState() warns when items= matches nothing, and reads a table's columns by their headers", () => {
  assert.deepEqual(check(`<aim-state name="s" items=".none"></aim-state>`), [
    'warning S: items=".none" matches nothing in the static page (fine if a script renders the items)',
  ]);
  const table = `<table id="t"><thead><tr><th>name</th><th>qty</th></tr></thead>
<tbody><tr><td>Tea</td><td>12</td></tr><tr><td>Rice</td><td>sold out</td></tr></tbody></table>`;
  assert.deepEqual(
    check(`${table}<aim-state name="s" from="#t">
<aim-field name="qty" type="number"></aim-field><aim-field name="price"></aim-field></aim-state>`),
    [
      'warning S: <aim-field name="qty"> type="number" does not fit what it reads here, "sold out"',
      'warning S: <aim-field name="price"> names no column of the table, so it reads each whole row',
    ],
  );
});

Deno.test("patternsOf() lists each string field's pattern with where it is", () => {
  assert.deepEqual(patternsOf({ type: "string", pattern: "^a$" }), [[
    "input_schema.pattern",
    "^a$",
  ]]);
  assert.deepEqual(patternsOf({ type: "string" }), []);
});
