/**
 * `aim check` on `<aim-action>`'s bindings: items= and its keys, click=/check=/fill=
 * inside items, commit=, `<aim-field>` children and types that do not fit their controls.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkPage, type CheckProblem } from "../../bridge/site/check.ts";
import { runAim } from "../helpers/cli.ts";

const SCRIPT = `<script type="module" src="/__aim/elements.js"></script>`;

/** The problems of a page, as `severity: message` lines. */
function problems(body: string): string[] {
  return checkPage(`<!doctype html><title>T</title>${SCRIPT}\n${body}`, "p.html")
    .map((p: CheckProblem) => `${p.severity}: ${p.message}`);
}

/** A TodoMVC page as its author annotates it: the list is rendered by script. */
const TODOS = `<input class="new-todo" placeholder="What needs to be done?">
<ul class="todo-list"></ul>
<aim-action name="add_todo" description="Add a todo" fill=".new-todo" commit="enter"></aim-action>
<aim-action name="toggle_todo" description="Complete or reopen the todo with this title"
  items=".todo-list li" key="label" click=".toggle"></aim-action>
<aim-action name="complete_todo" description="Mark the todo with this title done"
  items=".todo-list li" key="label" check=".toggle"></aim-action>`;

Deno.test("aim check passes a page whose items a script renders, warning only that none are static", () => {
  assert.deepEqual(problems(TODOS), [
    'warning: <aim-action name="toggle_todo">: items=".todo-list li" matches nothing in the static ' +
    "page (fine if a script renders the items)",
    'warning: <aim-action name="complete_todo">: items=".todo-list li" matches nothing in the static ' +
    "page (fine if a script renders the items)",
  ]);
});

const STATIC_ITEMS = `<ul class="todo-list">
<li data-id="1"><input class="toggle" type="checkbox"><label>buy milk</label></li>
<li data-id="2"><input class="toggle" type="checkbox"><label>buy milk</label></li>
<li><input class="toggle" type="checkbox"></li>
</ul>`;

Deno.test("aim check warns about static items without a key, and about keys they share", () => {
  assert.deepEqual(
    problems(`${STATIC_ITEMS}
<aim-action name="toggle" description="Toggle it" items=".todo-list li" key="label"
  click=".toggle"></aim-action>
<aim-action name="open" description="Open it" items=".todo-list li" key-attribute="data-id"
  click=".open"></aim-action>`),
    [
      'warning: <aim-action name="toggle">: key="label" finds no key in 1 of the 3 static ' +
      "items, which an agent then cannot name",
      'warning: <aim-action name="toggle">: several static items have the key "buy milk"; ' +
      "naming it acts on the first",
      'warning: <aim-action name="open">: key-attribute="data-id" finds no key in 1 of the 3 ' +
      "static items, which an agent then cannot name",
      'warning: <aim-action name="open">: click=".open" matches nothing in the first static item ' +
      "(fine if a script renders it)",
    ],
  );
});

Deno.test("aim check reports items=, key= and bindings that can never work as errors", () => {
  assert.deepEqual(
    problems(`${STATIC_ITEMS}
<aim-action name="a" description="A" items="li[" click=".toggle"></aim-action>
<aim-action name="b" description="B" items="li" key="label[" click=".toggle"></aim-action>
<aim-action name="c" description="C" items="li"></aim-action>
<form id="f"><input id="q" name="q"></form>
<aim-action name="d" description="D" fill="#q" form="#f"></aim-action>`),
    [
      'error: <aim-action name="a">: items="li[" is not a valid selector',
      'error: <aim-action name="b">: key="label[" is not a valid selector',
      'error: <aim-action name="c">: items= needs click=, check=, uncheck= or fill= to act on the item',
      'warning: <aim-action name="c">: the item\'s own text finds no key in 1 of the 3 static ' +
      "items, which an agent then cannot name",
      'warning: <aim-action name="c">: several static items have the key "buy milk"; naming it ' +
      "acts on the first",
      'error: <aim-action name="d">: fill= and form= bind one action twice; keep one',
    ],
  );
});

Deno.test("aim check warns about inputs that an items= action ignores", () => {
  assert.deepEqual(
    problems(`${STATIC_ITEMS}
<aim-action name="toggle" description="Toggle it" items=".todo-list li" key-attribute="data-id"
  click=".toggle" input-example="x" input-pattern="[0-9]+"></aim-action>`),
    [
      'warning: <aim-action name="toggle">: input-example (the example is a key) is ignored: an ' +
      "items= action takes the item's key",
      'warning: <aim-action name="toggle">: input-pattern is ignored: an items= action takes the ' +
      "item's key",
      'warning: <aim-action name="toggle">: key-attribute="data-id" finds no key in 1 of the 3 ' +
      "static items, which an agent then cannot name",
    ],
  );
});

Deno.test("aim check reports fields that are duplicated, never filled, secret-like or not in the form", () => {
  assert.deepEqual(
    problems(`<input id="title"><input id="qty">
<aim-action name="add" description="Add an item" commit="enter">
  <aim-field name="title" fill="#title"></aim-field>
  <aim-field name="title" fill="#qty"></aim-field>
  <aim-field name="note"></aim-field>
  <aim-field name="pin_code" fill="#missing"></aim-field>
</aim-action>
<form id="f"><input name="qty"></form>
<aim-action name="order" description="Order" form="#f">
  <aim-field name="qty" type="integer"></aim-field>
  <aim-field name="size" type="string" fill="#title"></aim-field>
</aim-action>`),
    [
      'error: <aim-action name="add">: <aim-field name="title"> is declared twice',
      'warning: <aim-action name="add">: <aim-field name="note"> is never filled: it has no fill=',
      'warning: <aim-action name="add">: <aim-field name="pin_code"> looks like a secret, which ' +
      "an agent should never be asked for; it is also kept out of logs",
      'warning: <aim-action name="add">: fill="#missing" matches nothing in the static page ' +
      "(fine if a script renders it)",
      'error: <aim-action name="order">: <aim-field name="size"> names no field of the form',
      'warning: <aim-action name="order">: <aim-field name="size"> has fill=, which a form= ' +
      "action ignores: it fills the form's field of that name",
    ],
  );
});

Deno.test("aim check reports types and bounds that do not fit the field or its control", () => {
  assert.deepEqual(
    problems(
      `<input id="box" type="checkbox"><input id="text"><select id="size"><option>S</option></select>
<aim-action name="a" description="A" fill="#box" input-type="number"></aim-action>
<aim-action name="b" description="B" fill="#text" input-minimum="1"></aim-action>
<aim-action name="c" description="C" input-type="float"></aim-action>
<aim-action name="d" description="D" fill="#text" input-type="integer" input-maximum="ten"></aim-action>
<aim-action name="e" description="E" fill="#text" input-type="boolean"></aim-action>
<aim-action name="f" description="F">
  <aim-field name="size" fill="#size" type="integer"></aim-field>
  <aim-field name="qty" fill="#text" type="number" max-length="3"></aim-field>
</aim-action>`,
    ).filter((line) => line.startsWith("error")),
    [
      'error: <aim-action name="a">: input-type="number" does not fit its control: a checkbox ' +
      "takes a boolean",
      'error: <aim-action name="b">: input-minimum does not fit input-type="string" (it is for ' +
      "number and integer)",
      'error: action "c" is not valid: input_schema.type: type must be one of string, number, ' +
      "integer, boolean, null, object, array, or a list of them",
      'error: action "d" is not valid: input_schema.maximum: Invalid input: expected number, ' +
      "received NaN",
      'error: <aim-action name="d">: input-maximum="ten" is not a number',
      'error: <aim-action name="e">: input-type="boolean" does not fit its control: a <input> ' +
      "takes text; only a checkbox takes a boolean",
      'error: <aim-action name="f">: <aim-field name="size"> type="integer" does not fit its ' +
      "control: a <select> or radio buttons take one of their values",
      'error: <aim-action name="f">: <aim-field name="qty"> max-length does not fit ' +
      'type="number" (it is for string)',
    ],
  );
});

Deno.test("aim check reports commit= values that are not a way to commit, and those that do nothing", () => {
  assert.deepEqual(
    problems(`<input id="q">
<aim-action name="a" description="A" fill="#q" commit="return"></aim-action>
<aim-action name="b" description="B" commit="enter" input-example="x"></aim-action>
<aim-action name="c" description="C" fill="#q" commit="click:#send"></aim-action>
<aim-action name="d" description="D" fill="#q" commit="submit"></aim-action>`),
    [
      'error: <aim-action name="a">: commit="return" is not enter, change, blur, submit or ' +
      "click:<selector>",
      'warning: <aim-action name="b">: commit= does nothing without fill= or <aim-field fill>',
      'warning: <aim-action name="c">: commit="#send" matches nothing in the static page (fine ' +
      "if a script renders it)",
      'warning: <aim-action name="d">: commit="submit" but the filled control is in no form',
    ],
  );
});

Deno.test("aim check on the command line: warnings pass, an error fails, each with its line", async () => {
  const root = Deno.makeTempDirSync({ prefix: "aim-check-actions-" });
  try {
    Deno.writeTextFileSync(join(root, "todos.html"), `${SCRIPT}\n${TODOS}`);
    const ok = await runAim(["check", root]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /todos\.html:5:1: warning: <aim-action name="toggle_todo">: items=/);
    assert.match(ok.stderr, /1 file checked, no problems, 2 warnings/);
    Deno.writeTextFileSync(
      join(root, "bad.html"),
      `${SCRIPT}\n<input id="box" type="checkbox">\n` +
        `<aim-action name="a" description="A" fill="#box" input-type="integer"></aim-action>`,
    );
    const bad = await runAim(["check", root]);
    assert.equal(bad.code, 1);
    assert.match(
      bad.stdout,
      /bad\.html:3:1: <aim-action name="a">: input-type="integer" does not fit/,
    );
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("aim check warns when a number input is filled as a string, since the agent would send text", () => {
  assert.deepEqual(
    problems(`<input id="qty" type="number" min="1"><button id="add">Add</button>
<aim-action name="add" description="Add some" commit="click:#add">
  <aim-field name="qty" fill="#qty" required></aim-field>
</aim-action>
<aim-action name="add2" description="Add some more" commit="click:#add">
  <aim-field name="qty" fill="#qty" type="integer" required></aim-field>
</aim-action>
<aim-action name="set" description="Set the quantity" fill="#qty" input-example="3"></aim-action>`),
    [
      'warning: <aim-action name="add">: <aim-field name="qty"> it fills an <input type="number"> ' +
      'as a string: declare type="number" or "integer" so that the agent sends a number',
      'warning: <aim-action name="set">: it fills an <input type="number"> as a string: declare ' +
      'input-type="number" or "integer" so that the agent sends a number',
    ],
  );
});

Deno.test("aim check checks a list field's type, bounds and items as it checks any field's, and the control it fills", () => {
  assert.deepEqual(
    problems(
      `<input id="text"><select id="one"><option>a</option></select>
<select id="many" multiple><option>a</option></select><input id="box" type="checkbox" value="a">
<input id="radio" type="radio" value="a">
<aim-action name="a" description="A">
  <aim-field name="tags" type="array" items-enum="a,b" min-items="1" max-items="3" unique-items></aim-field>
  <aim-field name="nums" type="array" items-type="integer" items-minimum="x" items-max-length="2"></aim-field>
  <aim-field name="grid" type="array" items-type="array" items-items-type="number" items-items-minimum="0"></aim-field>
  <aim-field name="title" min-items="1" items-enum="a" unique-items></aim-field>
</aim-action>
<aim-action name="b" description="B">
  <aim-field name="from_many" type="array" fill="#many"></aim-field>
  <aim-field name="from_boxes" type="array" fill="#box"></aim-field>
  <aim-field name="from_text" type="array" fill="#text"></aim-field>
  <aim-field name="from_one" type="array" fill="#one"></aim-field>
  <aim-field name="from_radio" type="array" fill="#radio"></aim-field>
</aim-action>
<aim-action name="c" description="C" fill="#text" input-type="array" input-items-type="boolean" input-items-pattern="x"></aim-action>
<aim-action name="d" description="D" input-type="array" input-min-items="x"></aim-action>`,
    ),
    [
      'error: action "a" is not valid: input_schema.properties.nums.items.minimum: Invalid ' +
      "input: expected number, received NaN",
      'error: <aim-action name="a">: <aim-field name="nums"> items-max-length does not fit ' +
      'items-type="integer" (it is for string)',
      'error: <aim-action name="a">: <aim-field name="nums"> items-minimum="x" is not a number',
      'error: <aim-action name="a">: <aim-field name="title"> min-items does not fit ' +
      'type="string" (it is for array)',
      'error: <aim-action name="a">: <aim-field name="title"> unique-items does not fit ' +
      'type="string" (it is for array)',
      'error: <aim-action name="a">: <aim-field name="title"> items-enum does not fit ' +
      'type="string" (it is for array)',
      'error: <aim-action name="b">: <aim-field name="from_text"> type="array" does not fit its ' +
      'control: a <input type="text"> takes one value; only a <select multiple> or checkboxes ' +
      "take a list",
      'error: <aim-action name="b">: <aim-field name="from_one"> type="array" does not fit its ' +
      "control: a <select> takes one value; only a <select multiple> or checkboxes take a list",
      'error: <aim-action name="b">: <aim-field name="from_radio"> type="array" does not fit its ' +
      'control: a <input type="radio"> takes one value; only a <select multiple> or checkboxes ' +
      "take a list",
      'error: <aim-action name="c">: input-type="array" does not fit its control: a <input ' +
      'type="text"> takes one value; only a <select multiple> or checkboxes take a list',
      'error: <aim-action name="c">: input-items-pattern does not fit input-items-type="boolean" ' +
      "(it is for string)",
      // readAction's own words, as the catalog reports them.
      'error: input-min-items="x" is not a whole number',
    ],
  );
});

Deno.test("aim check checks an object field's own fields, each named by its path, and says what an object ignores", () => {
  assert.deepEqual(
    problems(
      `<input id="text">
<aim-action name="plan" description="Plan an order">
  <aim-field name="lines" type="array" items-type="object" min-items="1">
    <aim-field name="sku" enum="tea,cake" required></aim-field>
    <aim-field name="sku" type="integer"></aim-field>
    <aim-field name="quantity" type="integer" minimum="one" max-length="2"></aim-field>
    <aim-field name="api_key" fill="#text"></aim-field>
  </aim-field>
  <aim-field name="deliver_to" type="object">
    <aim-field name="address" type="object">
      <aim-field name="zip" type="boolean" pattern="[0-9]+"></aim-field>
    </aim-field>
    <aim-field name="empty" type="object"></aim-field>
  </aim-field>
  <aim-field name="note">
    <aim-field name="lost"></aim-field>
  </aim-field>
</aim-action>
<aim-action name="put" description="Put an object">
  <aim-field name="whole" type="object" fill="#text">
    <aim-field name="a"></aim-field>
  </aim-field>
</aim-action>`,
    ),
    [
      'error: action "plan" is not valid: input_schema.properties.lines.items.properties.' +
      "quantity.minimum: Invalid input: expected number, received NaN",
      'error: <aim-action name="plan">: <aim-field name="lines.sku"> is declared twice',
      'error: <aim-action name="plan">: <aim-field name="lines.quantity"> max-length does not ' +
      'fit type="integer" (it is for string)',
      'error: <aim-action name="plan">: <aim-field name="lines.quantity"> minimum="one" is not a ' +
      "number",
      'warning: <aim-action name="plan">: <aim-field name="lines.api_key"> looks like a secret, ' +
      "which an agent should never be asked for; it is also kept out of logs",
      'warning: <aim-action name="plan">: <aim-field name="lines.api_key"> has fill=, which a ' +
      "field of an object ignores: only an action's own <aim-field>s are filled",
      'error: <aim-action name="plan">: <aim-field name="deliver_to.address.zip"> pattern does ' +
      'not fit type="boolean" (it is for string)',
      'warning: <aim-action name="plan">: <aim-field name="deliver_to.empty"> is an object ' +
      "without <aim-field> children: it takes only {} (give it its fields)",
      'warning: <aim-action name="plan">: <aim-field name="note"> has <aim-field> children, ' +
      'which only type="object" or items-type="object" reads: they are ignored',
      'error: <aim-action name="put">: <aim-field name="whole"> type="object" does not fit its ' +
      "control: a <input> takes one value; an object is filled into no control (a handler or " +
      "an aim-invoke listener gets it)",
    ],
  );
});

Deno.test("aim check takes the list and object fields docs/elements.md shows, saying nothing", () => {
  assert.deepEqual(
    problems(`<aim-action name="plan_order" description="Plan an order of one or more lines">
  <aim-field name="lines" type="array" items-type="object" min-items="1" required>
    <aim-field name="sku" enum="tea,cake" required></aim-field>
    <aim-field name="quantity" type="integer" minimum="1" required></aim-field>
  </aim-field>
  <aim-field name="tags" type="array" items-enum="gift,urgent" unique-items></aim-field>
  <aim-field name="deliver_to" type="object">
    <aim-field name="name" required></aim-field>
    <aim-field name="time" pattern="[1-9]:[0-5][0-9] (AM|PM)"></aim-field>
  </aim-field>
</aim-action>
<select id="days" multiple><option>mon</option></select>
<aim-action name="days" description="Pick days" fill="#days" input-type="array"></aim-action>`),
    [],
  );
});
