/**
 * `aim check`'s reading of one `<aim-action>`'s bindings (bridge/site/check_bindings.ts),
 * imported directly on pages parsed as the command parses them: each pair of bindings that binds
 * one action twice, each commit= spelling, each field that names nothing, is declared twice,
 * looks like a secret or is never filled, a type that does not fit its control, and a selector
 * that is no selector. The command's lines and columns are tests/cli/check_actions_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseDocument } from "htmlparser2";
import type { AnyNode, Element } from "domhandler";
import { selectOne } from "css-select";
import { checkActionBindings } from "../../bridge/site/check_bindings.ts";

/** What checkActionBindings() reports of the page's first `<aim-action>`: `severity message`. */
function check(html: string): string[] {
  const doc = parseDocument(html, { recognizeSelfClosing: false });
  const el = selectOne<AnyNode, Element>("aim-action", doc);
  assert.ok(el, "the page has an <aim-action>");
  const found: string[] = [];
  checkActionBindings(
    el,
    doc,
    (_at, message, severity = "error") => found.push(`${severity} ${message}`),
    "A",
  );
  return found;
}

const PAGE =
  `<form id="f"><input name="q"><input type="checkbox" name="ok"><button id="go">Go</button></form>
<input id="free"><ul id="l"><li data-id="1"><button class="x">x</button></li></ul>`;

Deno.test("checkActionBindings() refuses each pair of bindings that binds one action twice", () => {
  const pairs: [string, string][] = [
    ['fill="#free" form="#f"', "fill= and form= bind one action twice; keep one"],
    ['items="#l li" click=".x" fill="#free"', "click= and fill= bind one action twice; keep one"],
    ['items="#l li" click=".x" check=".x"', "click= and check= bind one action twice; keep one"],
    ['items="#l li" fill="#free" form="#f"', "fill= and form= bind one action twice; keep one"],
  ];
  for (const [attrs, message] of pairs) {
    const found = check(`${PAGE}<aim-action name="a" description="A" ${attrs}></aim-action>`);
    assert.ok(found.includes(`error A: ${message}`), `${attrs}: ${found.join(" | ")}`);
  }
  // A click= with more outside items= is readAction's error (the catalog reports it), not this.
  for (const attrs of ['click="#go" check="#free"', 'click="#go" fill="#free"']) {
    const found = check(`${PAGE}<aim-action name="a" description="A" ${attrs}></aim-action>`);
    assert.ok(!found.some((m) => m.includes("bind one action twice")), found.join(" | "));
  }
});

Deno.test("checkActionBindings() takes each commit= it knows and refuses any other", () => {
  const fill = (commit: string) =>
    check(
      `${PAGE}<aim-action name="a" description="A" fill="#free" commit="${commit}"></aim-action>`,
    );
  for (const commit of ["enter", "change", "blur", "click:#go"]) {
    assert.deepEqual(fill(commit), [], commit);
  }
  for (const commit of ["keyup", "Enter", "click:", "submit "]) {
    assert.deepEqual(
      fill(commit),
      [`error A: commit="${commit}" is not enter, change, blur, submit or click:<selector>`],
      commit,
    );
  }
  assert.deepEqual(fill("submit"), [
    'warning A: commit="submit" but the filled control is in no form',
  ]);
  assert.deepEqual(
    check(`${PAGE}<aim-action name="a" description="A" click="#go" commit="enter"></aim-action>`),
    ["warning A: commit= does nothing without fill= or <aim-field fill>"],
  );
  assert.deepEqual(fill("click:#nowhere"), [
    'warning A: commit="#nowhere" matches nothing in the static page (fine if a script renders it)',
  ]);
});

Deno.test("checkActionBindings() reports each field that names nothing, is declared twice, looks like a secret or is never filled", () => {
  const cases: [string, string[]][] = [
    [
      `form="#f"><aim-field name="q"></aim-field><aim-field name="nope"></aim-field>`,
      ['error A: <aim-field name="nope"> names no field of the form'],
    ],
    [
      `form="#f"><aim-field name="q"></aim-field><aim-field name="q"></aim-field>`,
      ['error A: <aim-field name="q"> is declared twice'],
    ],
    [
      `form="#f"><aim-field name="q" fill="#free"></aim-field>`,
      ['warning A: <aim-field name="q"> has fill=, which a form= action ignores: it fills the form\'s field of that name'],
    ],
    [
      `><aim-field name="a" fill="#free"></aim-field><aim-field name="b"></aim-field>`,
      ['warning A: <aim-field name="b"> is never filled: it has no fill='],
    ],
    [
      `><aim-field name="password" fill="#free"></aim-field>`,
      [
        'warning A: <aim-field name="password"> looks like a secret, which an agent should never be asked for; it is also kept out of logs',
      ],
    ],
    [
      `><aim-field name="a" fill="#nowhere"></aim-field>`,
      ['warning A: fill="#nowhere" matches nothing in the static page (fine if a script renders it)'],
    ],
    [
      `><aim-field name="a" fill="[["></aim-field>`,
      ['error A: fill="[[" is not a valid selector'],
    ],
  ];
  for (const [rest, expected] of cases) {
    assert.deepEqual(
      check(`${PAGE}<aim-action name="a" description="A" ${rest}</aim-action>`),
      expected,
      rest,
    );
  }
});

Deno.test("checkActionBindings() says when a field's type does not fit the control it fills", () => {
  const fill = (attrs: string, control = "#free") =>
    check(
      `${PAGE}<aim-action name="a" description="A"><aim-field name="v" fill="${control}" ${attrs}></aim-field></aim-action>`,
    );
  assert.deepEqual(fill('type="string"'), []);
  assert.deepEqual(fill('type="boolean"', "#f [name=ok]"), []);
  for (
    const [attrs, control] of [['type="number"', "#f [name=ok]"], ['type="array"', "#free"], [
      'type="object"',
      "#free",
    ]]
  ) {
    const found = fill(attrs!, control);
    assert.match(
      found[0] ?? "",
      /^error A: <aim-field name="v"> type="[a-z]+" does not fit its control: /,
      `${attrs} into ${control}: ${found.join(" | ")}`,
    );
  }
});
