/**
 * `aim check` on `<aim-state items=>` and its `<aim-field>` children: what the element
 * refuses is an error, and what the static HTML shows will not read as declared is a warning.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runAim } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp.ts";

const SCRIPT = `<script type="module" src="/__aim/elements.js"></script>`;

const LIST = `<ul class="todo-list">
<li data-id="1"><input class="toggle" type="checkbox"><label>write report</label><span class="votes">3</span></li>
<li data-id="2"><input class="toggle" type="checkbox" checked><label>walk dog</label><span class="votes">many</span></li>
</ul>`;

const TABLE = `<table id="t"><thead><tr><th>name</th><th>qty</th></tr></thead>
<tbody><tr data-sku="A1"><td>Tea</td><td>12</td></tr><tr><td>Rice</td><td>sold out</td></tr></tbody></table>`;

/** Pages that `aim check` passes without a word. */
const CLEAN = `<!doctype html><title>Todos</title>${SCRIPT}
${LIST}
${TABLE}
<form id="f"><input class="who" value="ann"></form>
<aim-state name="todos" from=".todo-list" items="li" invisible="mark">
  <aim-field name="id" attribute="data-id" type="number"></aim-field>
  <aim-field name="title" from="label"></aim-field>
  <aim-field name="done" from=".toggle" read="checked"></aim-field>
  <aim-field name="urgent" attribute="data-urgent" type="boolean"></aim-field>
</aim-state>
<aim-state name="titles" items=".todo-list label"></aim-state>
<aim-state name="stock" from="#t">
  <aim-field name="name" from=""></aim-field>
  <aim-field name="sku" attribute="data-sku"></aim-field>
</aim-state>
<aim-state name="who" from="#f"><aim-field name="name" from=".who" read="value"></aim-field></aim-state>`;

/** One page per problem: the problem's line, column, severity and message. */
const BROKEN: Record<string, [string, [number, number, "error" | "warning", RegExp]]> = {
  "secret.html": [
    `${SCRIPT}\n${LIST}\n<aim-state name="s" items="li">\n  <aim-field name="api_key" from="label"></aim-field></aim-state>`,
    [
      7,
      3,
      "error",
      /^<aim-state name="s">: <aim-field name="api_key"> has a name that looks like a secret or is reserved: it is never published$/,
    ],
  ],
  "twice.html": [
    `${SCRIPT}\n${LIST}\n<aim-state name="s" items="li"><aim-field name="t" from="label"></aim-field>\n  <aim-field name="t" from="span"></aim-field></aim-state>`,
    [7, 3, "error", /^<aim-state name="s">: <aim-field name="t"> is declared twice$/],
  ],
  "read.html": [
    `${SCRIPT}\n${LIST}\n<aim-state name="s" items="li"><aim-field name="t" read="html"></aim-field></aim-state>`,
    [6, 1, "error", /^<aim-state name="s">: read="html" is not one of text, value, checked$/],
  ],
  "visible.html": [
    `${SCRIPT}\n${LIST}\n<aim-state name="s" items="li" invisible="mark">\n<aim-field name="visible" from="label"></aim-field></aim-state>`,
    [7, 1, "error", /: <aim-field name="visible">: invisible="mark" adds "visible" itself$/],
  ],
  "sourceless.html": [
    `${SCRIPT}\n<aim-state name="s"><aim-field name="t"></aim-field></aim-state>`,
    [2, 1, "error", /^<aim-state name="s">: its <aim-field> children need from= or items=$/],
  ],
  "items-invalid.html": [
    `${SCRIPT}\n${LIST}\n<aim-state name="s" items="li[">\n</aim-state>`,
    [6, 1, "error", /^<aim-state name="s">: items="li\[" is not a valid selector$/],
  ],
  "items-empty.html": [
    `${SCRIPT}\n<aim-state name="s" items=""></aim-state>`,
    [2, 1, "error", /^<aim-state name="s">: items="" is not a valid selector$/],
  ],
  "scripted.html": [
    `${SCRIPT}\n<ul class="todo-list"></ul>\n<aim-state name="s" items=".todo-list li"></aim-state>`,
    [
      3,
      1,
      "warning",
      /items="\.todo-list li" matches nothing in the static page \(fine if a script renders the items\)$/,
    ],
  ],
  "field-from.html": [
    `${SCRIPT}\n${LIST}\n<aim-state name="s" items="li">\n  <aim-field name="t" from=".title"></aim-field></aim-state>`,
    [
      7,
      3,
      "warning",
      /^<aim-state name="s">: <aim-field name="t"> from="\.title" matches nothing in the static items$/,
    ],
  ],
  "checked.html": [
    `${SCRIPT}\n${LIST}\n<aim-state name="s" items="li"><aim-field name="done" from="label" read="checked"></aim-field></aim-state>`,
    [
      6,
      32,
      "warning",
      /<aim-field name="done"> read="checked" reads a <label>, which has no checkedness$/,
    ],
  ],
  "value.html": [
    `${SCRIPT}\n${LIST}\n<aim-state name="s" items="li"><aim-field name="t" from="label" read="value"></aim-field></aim-state>`,
    [6, 32, "warning", /<aim-field name="t"> read="value" reads a <label>, which has no value$/],
  ],
  "number.html": [
    `${SCRIPT}\n${LIST}\n<aim-state name="s" items="li"><aim-field name="votes" from=".votes" type="number"></aim-field></aim-state>`,
    [
      6,
      32,
      "warning",
      /<aim-field name="votes"> type="number" does not fit what it reads here, "many"$/,
    ],
  ],
  "column.html": [
    `${SCRIPT}\n${TABLE}\n<aim-state name="s" from="#t"><aim-field name="Qty" type="number"></aim-field></aim-state>`,
    [
      4,
      31,
      "warning",
      /<aim-field name="Qty"> names no column of the table, so it reads each whole row$/,
    ],
  ],
  "column-type.html": [
    `${SCRIPT}\n${TABLE}\n<aim-state name="s" from="#t"><aim-field name="qty" type="number"></aim-field></aim-state>`,
    [
      4,
      31,
      "warning",
      /<aim-field name="qty"> type="number" does not fit what it reads here, "sold out"$/,
    ],
  ],
  "fill.html": [
    `${SCRIPT}\n${LIST}\n<aim-state name="s" items="li"><aim-field name="t" from="label" fill="#x"></aim-field></aim-state>`,
    [
      6,
      32,
      "warning",
      /<aim-field name="t">: fill= belongs to <aim-action> and does nothing here$/,
    ],
  ],
  "password.html": [
    `${SCRIPT}\n<form id="f"><input class="pw" type="password"></form>\n<aim-state name="s" from="#f"><aim-field name="hint" from=".pw"></aim-field></aim-state>`,
    [3, 31, "warning", /<aim-field name="hint"> reads a password field, which is never published$/],
  ],
};

Deno.test("aim check passes structured state that reads as declared, and says nothing", async () => {
  await using root = await tempDir("aim-check-state-");
  await Deno.writeTextFile(join(root.path, "index.html"), CLEAN);
  const result = await runAim(["check", root.path, "--strict"]);
  assert.equal(result.stdout, "");
  assert.equal(result.code, 0, result.stderr);
});

Deno.test("aim check reports each problem of <aim-state> fields once, where it is, as error or warning", async () => {
  await using root = await tempDir("aim-check-state-");
  for (const [name, [html]] of Object.entries(BROKEN)) {
    await Deno.writeTextFile(join(root.path, name), html);
  }
  const result = await runAim(["check", root.path, "--format", "json"]);
  const body = JSON.parse(result.stdout);
  const errors = Object.values(BROKEN).filter(([, [, , severity]]) => severity === "error");
  assert.equal(result.code, 1, "the errors fail the check");
  assert.equal(body.errors, errors.length);
  assert.equal(body.warnings, Object.keys(BROKEN).length - errors.length);
  for (const [name, [, [line, column, severity, message]]] of Object.entries(BROKEN)) {
    const found = body.problems.filter((p: { file: string }) => p.file.endsWith(`/${name}`));
    assert.equal(found.length, 1, `${name}: ${JSON.stringify(found)}`);
    assert.match(found[0].message, message, name);
    assert.deepEqual(
      [found[0].line, found[0].column, found[0].severity],
      [line, column, severity],
      name,
    );
  }
});

Deno.test("aim check prints a field's warning as file:line:col and fails only with --strict", async () => {
  await using root = await tempDir("aim-check-state-");
  const [html] = BROKEN["scripted.html"]!;
  await Deno.writeTextFile(join(root.path, "scripted.html"), html);
  const result = await runAim(["check", root.path]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(
    result.stdout,
    /scripted\.html:3:1: warning: <aim-state name="s">: items="\.todo-list li" matches nothing/,
  );
  const strict = await runAim(["check", root.path, "--strict"]);
  assert.equal(strict.code, 1);
});
