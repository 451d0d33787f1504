/**
 * Named mutants of `open=` (issue 33, "Real apps, real gestures"): an action opens what it fills
 * as a person does, with a person's double-click (two presses, `detail` 1 then 2, then
 * `dblclick`) inside the item the agent names, waits for the editor to be there and shown, and a
 * misspelt `open=` leaves the action out. TodoMVC's AngularJS app stores a rename only so.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const OPEN = "tests/browser/open_gesture_test.ts";
const TODOMVC = "tests/browser/todomvc_test.ts";
const UNIT = "tests/unit/open_markup_test.ts";

export const mutants: Mutant[] = [
  {
    name: "open-no-dblclick",
    guarantee: 'open="dblclick:…" ends with the dblclick event a page listens for (AngularJS\'s ' +
      "ng-dblclick): TodoMVC begins the edit, and stores the new title.",
    file: "elements/gestures.ts",
    find: '  fire("dblclick", 2, 0);\n',
    replace: "",
    tests: [TODOMVC, OPEN],
  },
  {
    name: "open-one-press",
    guarantee: "A double-click is two presses, their mousedown, mouseup and click with detail 1 " +
      "then 2, as a person's: a page that counts clicks sees the second.",
    file: "elements/gestures.ts",
    find: "for (const detail of [1, 2]) {",
    replace: "for (const detail of [1]) {",
    tests: [OPEN],
  },
  {
    name: "open-outside-item",
    guarantee: "open= presses the element inside the item the agent names, never the first one " +
      "of the page.",
    file: "elements/bindings.ts",
    find: "      const el = find(opening.selector);",
    replace: "      const el = deep.first(document, opening.selector)!;",
    tests: [OPEN, TODOMVC],
  },
  {
    name: "open-editor-not-waited",
    guarantee: "What open= opens is waited for (bounded) when the page renders it later: the " +
      "agent's value is written into the editor once it is there.",
    file: "elements/gestures.ts",
    find: "    if (performance.now() >= deadline) return null;",
    replace: "    return null;",
    tests: [OPEN],
  },
  {
    name: "open-fills-hidden-editor",
    guarantee:
      "A fill after open= waits for its control to be shown: an editor that stays hidden " +
      "fails the action with the reason, never 200 with nothing saved.",
    file: "elements/gestures.ts",
    find: "el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })",
    replace: "true",
    tests: [OPEN],
  },
  {
    name: "open-not-named-to-person",
    guarantee: "The person asked before a consequential open= action is told what will be " +
      "double-clicked, even before what it opens is there.",
    file: "elements/bindings.ts",
    find: "const opener = opening && first(opening.selector);",
    replace: "const opener = undefined;",
    tests: [OPEN],
  },
  {
    name: "open-spelling-unchecked",
    guarantee: "An open= that is not click:<selector> or dblclick:<selector> leaves the action " +
      "out, on the server and in the page, saying why.",
    file: "bridge/markup/action.ts",
    find: "  readOpen(el);\n",
    replace: "",
    tests: [UNIT, OPEN],
  },
];
