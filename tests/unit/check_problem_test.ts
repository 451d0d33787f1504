/**
 * `aim check`'s reading of a selector with the deep combinator `>>>`
 * (bridge/site/check_problem.ts), imported directly: the part the static page can check, for
 * each spelling of the combinator's place, null for each invalid part, and the warning's words.
 *
 * @module
 */
import assert from "node:assert/strict";
import { deepPrefix, deepWarning } from "../../bridge/site/check_problem.ts";

Deno.test("deepPrefix() gives the part before the first >>>, undefined for a plain selector, null for a bad part", () => {
  const cases: [string, string | null | undefined][] = [
    ["#app", undefined],
    ["ul > li", undefined],
    ["[data-x='>>>']", undefined],
    ["#app >>> button", "#app"],
    ["#app>>>button", "#app"],
    ["my-app >>> x-list >>> li", "my-app"],
    [">>> button", ""],
    ["#app >>> button[[", null],
    // An open bracket swallows the rest: one (invalid) plain selector, which the caller refuses.
    ["#app[[ >>> button", undefined],
    ["#app >>> >>> button", null],
    ["#app >>>", null],
  ];
  for (const [selector, expected] of cases) {
    assert.equal(deepPrefix(selector), expected, selector);
  }
});

Deno.test("deepWarning() says what the static page checks of a deep selector, or that it checks nothing", () => {
  assert.equal(
    deepWarning("click", "#app >>> button", "#app"),
    'click="#app >>> button" reaches into shadow roots (>>>), which a script attaches: only "#app" is checked in the static page',
  );
  assert.equal(
    deepWarning("items", ">>> li", ""),
    'items=">>> li" reaches into shadow roots (>>>), which a script attaches: it is not checked statically',
  );
});
