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
    tests: ["tests/unit/webmcp_tools_rules_test.ts"],
  },
  {
    name: "hint-wrapped-null-lost",
    guarantee: "A one-value input sent wrapped in an object is told to send its own value, null " +
      "included, not the example.",
    file: "bridge/input/hint.ts",
    find: 'shown(own ? own[1] : example ?? "…");',
    replace: 'shown(own?.[1] ?? example ?? "…");',
    tests: ["tests/unit/validate_test.ts"],
  },
  {
    name: "markup-label-select-text",
    guarantee: "A form field's description is its label's own words, never the text of the " +
      '<select> inside the label ("Resolution", not "Resolution fixed wontfix").',
    file: "bridge/markup/form.ts",
    find: "for (const inner of descendants(el)) if (inner === field) return labelText(el);",
    replace: "for (const inner of descendants(el)) if (inner === field) return textOf(el);",
    tests: ["tests/unit/action_markup_test.ts"],
  },
];
