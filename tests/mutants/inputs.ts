/**
 * Named mutants of structured inputs (issue 33 items 3 and 4): the matching budget and the RE2
 * matcher the library validator runs patterns on, the checked formats, aim's bounds on schemas
 * and inputs, objects closed to fields they do not list, examples that always validate, list
 * inputs from markup, `<aim-tool input-example>`, the page's own check of structured inputs, and
 * how MCP wraps an input that is not an object.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const CHECK_TEST = "tests/unit/schema_check_test.ts";
const EXAMPLE_TEST = "tests/unit/example_test.ts";
const PATTERN_TEST = "tests/security/pattern_test.ts";
const PROTOCOL_TEST = "tests/protocol/structured_input_test.ts";

export const mutants: Mutant[] = [
  {
    name: "input-pattern-budget-unbounded",
    guarantee: "The strings of one input are matched against patterns within one budget in all: " +
      "many long strings are refused before they cost more than PATTERN_BUDGET.",
    file: "bridge/input/schema_check.ts",
    find: "if (cost > budget.left) {",
    replace: "if (false) {",
    tests: [PATTERN_TEST],
  },
  {
    name: "input-pattern-budget-not-renewed",
    guarantee: "Each check starts with the whole matching budget: one input's long strings never " +
      "make the next input refused.",
    file: "bridge/input/schema_check.ts",
    find: "budget.left = PATTERN_BUDGET;",
    replace: "",
    tests: [PATTERN_TEST],
  },
  {
    name: "input-unchecked-string-taken",
    guarantee: "A string too long to be matched against its pattern is never taken, even where " +
      "the branch it fails makes a oneOf pass.",
    file: "bridge/input/schema_check.ts",
    find: "if (result.valid && !tooLong && !out) return { ok: true };",
    replace: "if (result.valid) return { ok: true };",
    tests: [CHECK_TEST],
  },
  {
    name: "input-formats-unchecked",
    guarantee: "The formats aim lists (email, uuid, date, date-time, time, ipv4, ipv6, hostname, " +
      "uri) are checked, on RE2 or the URL parser.",
    file: "bridge/input/schema_check.ts",
    find: "const format = Object.hasOwn(FORMATS, name) ? FORMATS[name]! : undefined;",
    replace: "const format = undefined as (typeof FORMATS)[string] | undefined;",
    tests: [CHECK_TEST],
  },
  {
    name: "input-pattern-on-regexp",
    guarantee:
      "A schema's pattern reaches the validator only as a check of aim's on RE2, never as " +
      "a pattern it would run with a backtracking RegExp.",
    file: "bridge/input/schema_check.ts",
    find: "formats.push({ format: PATTERN_FORMAT + value });",
    replace: "out.pattern = value;",
    // Its tests' catastrophic patterns (^(a+)+$ on "aaa…a!") then hang on a backtracking
    // RegExp: the run is cut off at the timeout, which counts as killed.
    tests: [PATTERN_TEST],
  },
  {
    name: "input-depth-unbounded",
    guarantee: "An input nested deeper than INPUT_LIMITS.depth is refused, whatever its schema.",
    file: "bridge/wire/input_bounds.ts",
    find: "if (path.length >= INPUT_LIMITS.depth) {",
    replace: "if (false) {",
    tests: [CHECK_TEST, PROTOCOL_TEST],
  },
  {
    name: "input-prototype-key-taken",
    guarantee: "A key named __proto__, constructor or prototype anywhere in an input refuses it, " +
      "even where the schema takes any object.",
    file: "bridge/wire/input_bounds.ts",
    find: "if (FORBIDDEN_KEYS.has(key)) {",
    replace: "if (false) {",
    tests: [CHECK_TEST],
  },
  {
    name: "schema-depth-unbounded",
    guarantee: "A schema nested deeper than SCHEMA_LIMITS.depth is refused at registration.",
    file: "bridge/wire/input_schema.ts",
    find: "const deep = nodes.find((n) => n.level > SCHEMA_LIMITS.depth);",
    replace: "const deep = nodes.find((n) => n.level > Infinity);",
    tests: [PROTOCOL_TEST],
  },
  {
    name: "schema-objects-left-open",
    guarantee: "An object that lists its fields and says nothing of others takes no others, and " +
      "its published schema says so (additionalProperties: false).",
    file: "bridge/input/action_spec.ts",
    find: "node.additionalProperties = false;",
    replace: "",
    tests: [PROTOCOL_TEST, "tests/mcp/structured_test.ts"],
  },
  {
    name: "example-not-validated",
    guarantee: "An example the bridge makes validates against its schema, or there is none.",
    file: "bridge/input/example.ts",
    find: "    fits(value);",
    replace: "    true;",
    tests: [EXAMPLE_TEST],
  },
  {
    name: "example-wrong-own-kept",
    guarantee: "A declaration's own input_example must fit its schema: the action is refused " +
      "otherwise, never offered with a wrong example.",
    file: "bridge/input/action_spec.ts",
    find: "    if (problem !== undefined) {",
    replace: "    if (false) {",
    tests: [EXAMPLE_TEST],
  },
  {
    name: "markup-select-multiple-one-value",
    guarantee: "A <select multiple> in form= or fill= takes a list of its values.",
    file: "bridge/markup/form.ts",
    find: '? control!.getAttribute("multiple") !== null',
    replace: "? false",
    tests: ["tests/unit/list_markup_test.ts"],
  },
  {
    name: "tool-input-example-ignored",
    guarantee: "<aim-tool input-example> gives the tool's example in the manifest.",
    file: "bridge/wire/webmcp_tools.ts",
    find: 'const example = el.getAttribute("input-example") ?? before.inputExample ?? null;',
    replace: "const example = before.inputExample ?? null;",
    tests: [
      "tests/unit/page_tools_test.ts",
      "tests/unit/page_tool_runs_test.ts",
      "tests/browser/webmcp_pages_test.ts",
      "tests/browser/webmcp_page_edges_test.ts",
    ],
  },
  {
    name: "page-check-objects-open",
    guarantee: "The page's own check of an agent's input in the browser closes an object that " +
      "lists its fields, as the bridge does: it takes exactly what the bridge takes.",
    file: "elements/input_check.ts",
    find: "(schema.properties ? false : true);",
    replace: "true;",
    tests: [
      "tests/browser/webmcp_test.ts",
      "tests/unit/input_check_test.ts",
      "tests/protocol/run_reports_test.ts",
    ],
  },
  {
    name: "page-check-bounds-skipped",
    guarantee: "The page's own check of an in-browser agent's input holds the bridge's bounds " +
      "and refuses a key that would reach a prototype, which no bridge sees.",
    file: "elements/input_check.ts",
    find: "  if (bounds) return `${whereOf(bounds.path)} ${bounds.problem}`;",
    replace: "",
    tests: ["tests/unit/input_check_test.ts"],
  },
  {
    name: "mcp-list-input-unwrapped",
    guarantee: "Over MCP, an input that is not an object (a list) is wrapped as {input: …}, " +
      "since MCP takes an object of arguments.",
    file: "bridge/mcp/tools.ts",
    find: "  if (isObjectSchema(spec.input_schema)) {",
    replace: "  if (spec.input_schema.type !== undefined) {",
    tests: ["tests/mcp/structured_test.ts"],
  },
];
