/**
 * Named mutants of the guarantees the input modules gained after the validator's change
 * (issue 33 items 3 and 4, issue 32 item 1): keys named `__proto__` refused wherever a copy
 * would drop them, the agent's own value in a hint, and the bounds the mutation run found
 * unheld.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "schema-proto-key-dropped",
    guarantee: "A declaration whose input_schema or input_example has a key named __proto__ is " +
      "refused: zod would leave the key out of what it reads, and a field would vanish unsaid.",
    file: "bridge/input/action_spec.ts",
    find: "  if (proto) {",
    replace: "  if (proto && false) {",
    tests: ["tests/unit/action_spec_test.ts"],
  },
  {
    name: "webmcp-keyword-named-proto",
    guarantee: "A WebMCP tool's schema with a keyword named __proto__ is refused by the page, " +
      "not copied into the prototype of the schema aim sends.",
    file: "bridge/wire/webmcp_tools.ts",
    find:
      'if (FORBIDDEN_NAMES.includes(key)) return `${where} uses "${key}", which is no keyword`;',
    replace: "",
    tests: ["tests/unit/webmcp_tools_rules_test.ts", "tests/unit/webmcp_tool_fields_test.ts"],
  },
  {
    name: "hint-wrapped-null-lost",
    guarantee: "A one-value input sent wrapped in an object is told to send its own value, null " +
      "included, not the example.",
    file: "bridge/input/hint.ts",
    find: 'shown(own ? own[1] : example ?? "…");',
    replace: 'shown(own?.[1] ?? example ?? "…");',
    tests: ["tests/unit/validate_test.ts", "tests/unit/input_hint_test.ts"],
  },
  {
    name: "markup-label-select-text",
    guarantee: "A form field's description is its label's own words, never the text of the " +
      '<select> inside the label ("Resolution", not "Resolution fixed wontfix").',
    file: "bridge/markup/form.ts",
    find: "for (const inner of descendants(el)) if (inner === field) return labelText(el);",
    replace: "for (const inner of descendants(el)) if (inner === field) return textOf(el);",
    tests: ["tests/unit/action_markup_test.ts", "tests/unit/action_inputs_test.ts"],
  },
  {
    name: "schema-check-budget-unbounded",
    guarantee: "A session's tabs spend at most the schema-check budget of the bridge's time on " +
      "actions it has not checked before: past it, a new action is refused, unchecked.",
    file: "bridge/core/schema_checks.ts",
    find: "if (left.tokens <= 0) {",
    replace: "if (false) {",
    tests: ["tests/unit/schema_checks_test.ts", "tests/protocol/schema_budget_test.ts"],
  },
  {
    name: "schema-check-overrun-forgiven",
    guarantee: "A check that takes more than what was left is paid back before the next one.",
    file: "bridge/core/schema_checks.ts",
    find: "left.tokens -= Math.max(0, this.#clock() - started);",
    replace: "left.tokens = Math.max(0, left.tokens - (this.#clock() - started));",
    tests: ["tests/unit/schema_checks_test.ts"],
  },
  {
    name: "schema-check-clock-frozen",
    guarantee: "Without a clock of its own, a check of a new action is charged the time it took " +
      "on the bridge's clock (performance.now).",
    file: "bridge/core/schema_checks.ts",
    find: "this.#clock = options.clock ?? (() => performance.now());",
    replace: "this.#clock = options.clock ?? (() => 0);",
    tests: ["tests/unit/schema_checks_test.ts"],
  },
  {
    name: "core-work-clock-ignored",
    guarantee: "The core times the checks of new actions by its `workClock` option: a test's " +
      "own makes a check cost what the test says, whatever the machine's speed.",
    file: "bridge/core/bridge.ts",
    find: "workClock: options.workClock,",
    replace: "",
    tests: ["tests/protocol/schema_budget_test.ts"],
  },
  {
    name: "schema-check-cache-ignored",
    guarantee: "An action checked before costs no time of the budget: the tabs of a page " +
      "register the same actions again and again.",
    file: "bridge/core/schema_checks.ts",
    find: "if (known !== undefined) return outcome(known);",
    replace: "",
    tests: ["tests/unit/schema_checks_test.ts", "tests/protocol/schema_budget_test.ts"],
  },
  {
    name: "example-work-unbounded",
    guarantee: "The tries of one example build at most 4,000 values in all.",
    file: "bridge/input/example.ts",
    find: "if (++choices.values > MAX_VALUES || ++choices.work.values > MAX_WORK || level > 64) {",
    replace: "if (++choices.values > MAX_VALUES || level > 64) {",
    tests: ["tests/unit/example_test.ts"],
  },
  {
    name: "example-pattern-strings-unbounded",
    guarantee: "The tries of one example make at most 200 strings of patterns in all (randexp " +
      "costs some 0.1 ms a string).",
    file: "bridge/input/example.ts",
    find: "if (++choices.work.strings > MAX_PATTERN_STRINGS) return undefined;",
    replace: "",
    tests: ["tests/unit/example_test.ts"],
  },
];
