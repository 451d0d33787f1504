/**
 * `aim check` on selectors with the deep combinator `>>>`: it checks the part before
 * the first `>>>` in the static page, warns that the rest is inside shadow roots, and reports a
 * part that is not a selector as an error.
 *
 * @module
 */
import assert from "node:assert/strict";
import { checkPage, type CheckProblem } from "../../bridge/site/check.ts";

const SCRIPT = `<script type="module" src="/__aim/elements.js"></script>`;

/** The problems of a page, as `severity: message` lines. */
function problems(body: string): string[] {
  return checkPage(`<!doctype html><title>T</title>${SCRIPT}\n${body}`, "p.html")
    .map((p: CheckProblem) => `${p.severity}: ${p.message}`);
}

const SHADOW = "reaches into shadow roots (>>>), which a script attaches";

Deno.test("aim check accepts `>>>` in every selector attribute, warning what it cannot see", () => {
  const found = problems(`<todo-app></todo-app>
<aim-state name="todos" items="todo-app >>> todo-list >>> todo-item">
  <aim-field name="title" from=">>> label"></aim-field>
</aim-state>
<aim-state name="left" from="todo-app >>> .todo-count"></aim-state>
<aim-action name="add" description="Add a todo" fill="todo-app >>> .new-todo" commit="enter"></aim-action>
<aim-action name="done" description="Complete the todo with this title"
  items="todo-app >>> todo-item" key=">>> label" check=">>> .toggle"></aim-action>
<aim-action name="clear" description="Clear the completed todos"
  click="todo-app >>> .clear-completed"></aim-action>`);
  assert.deepEqual(found.filter((p) => p.startsWith("error")), []);
  assert.deepEqual(found, [
    `warning: <aim-state name="todos">: items="todo-app >>> todo-list >>> todo-item" ${SHADOW}: ` +
    'only "todo-app" is checked in the static page',
    `warning: <aim-state name="todos">: from=">>> label" ${SHADOW}: it is not checked statically`,
    `warning: <aim-state name="left">: from="todo-app >>> .todo-count" ${SHADOW}: only ` +
    '"todo-app" is checked in the static page',
    `warning: <aim-action name="add">: fill="todo-app >>> .new-todo" ${SHADOW}: only "todo-app" ` +
    "is checked in the static page",
    `warning: <aim-action name="done">: items="todo-app >>> todo-item" ${SHADOW}: only ` +
    '"todo-app" is checked in the static page',
    `warning: <aim-action name="done">: check=">>> .toggle" ${SHADOW}: it is not checked statically`,
    `warning: <aim-action name="clear">: click="todo-app >>> .clear-completed" ${SHADOW}: only ` +
    '"todo-app" is checked in the static page',
  ]);
});

Deno.test("aim check says when the part before `>>>` matches nothing, and errs on a part that is no selector", () => {
  assert.deepEqual(
    problems(`<aim-state name="left" from="todo-ap >>> .count"></aim-state>
<aim-action name="clear" description="Clear the completed todos"
  click="todo-app >>> .clear[">
</aim-action>
<aim-action name="done" description="Complete the todo with this title"
  items="todo-app >>> >>> li" click=".toggle"></aim-action>`),
    [
      'warning: <aim-state name="left">: from="todo-ap >>> .count" matches nothing in the page ' +
      "(fine if a script renders it)",
      'error: <aim-action name="clear">: click="todo-app >>> .clear[" is not a valid selector',
      'error: <aim-action name="done">: items="todo-app >>> >>> li" is not a valid selector',
    ],
  );
});
