/**
 * Mutants of the consent rules that issue 32's review broke by hand, kept by name beside the
 * mutation tool's own run (`deno task mutate`, tests/mutate/): each must turn the unit test
 * beside its module red.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "webmcp-merge-hints-either-read-only",
    guarantee: "A WebMCP tool is read-only only when what was registered and what is listed both " +
      "say so: otherwise it runs only once the person approves.",
    file: "elements/page_tools.ts",
    find: "readOnlyHint: a.readOnlyHint === true && b.readOnlyHint === true,",
    replace: "readOnlyHint: a.readOnlyHint === true || b.readOnlyHint === true,",
    tests: ["tests/unit/page_tools_test.ts", "tests/unit/page_tool_runs_test.ts"],
  },
  {
    name: "webmcp-merge-hints-listed-destructive-dropped",
    guarantee: "A tool listed as destructive stays destructive whatever its registration says.",
    file: "elements/page_tools.ts",
    find: "destructiveHint: a.destructiveHint === true || b.destructiveHint === true,",
    replace: "destructiveHint: b.destructiveHint === true,",
    tests: ["tests/unit/page_tools_test.ts", "tests/unit/page_tool_runs_test.ts"],
  },
  {
    name: "tab-protected-action-signed-out",
    guarantee: "A session signed out is not offered its tab's protected actions.",
    file: "bridge/core/actions.ts",
    find: "if (!spec.protected || signedIn) out.push(spec);",
    replace: "out.push(spec);",
    tests: ["tests/unit/actions_test.ts"],
  },
  {
    name: "webmcp-field-named-proto",
    guarantee: "A WebMCP tool's field never takes a name that reaches an object's prototype: " +
      "the page refuses the tool, saying so, where copying a __proto__ field would drop it unsaid.",
    file: "bridge/wire/webmcp_tools.ts",
    find: 'FORBIDDEN_NAMES: readonly string[] = ["__proto__", "constructor", "prototype"];',
    replace: 'FORBIDDEN_NAMES: readonly string[] = ["constructor", "prototype"];',
    tests: ["tests/unit/webmcp_tools_rules_test.ts", "tests/unit/webmcp_tool_fields_test.ts"],
  },
  {
    name: "content-length-not-a-number-read-whole",
    guarantee: "A Content-Length that is no number of bytes is refused (400): hono's body limit " +
      "would take it for a length it need not count and read a body of any size whole.",
    file: "bridge/http/request.ts",
    find: "if (length !== undefined && !/^\\d+$/.test(length)) {",
    replace: "if (false) {",
    tests: ["tests/unit/http_request_edges_test.ts"],
  },
];
