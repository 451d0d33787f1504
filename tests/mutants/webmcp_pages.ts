/**
 * Named mutants of a page's own WebMCP tools as actions for remote agents (issue 21): the
 * consent rule, the person's confirmation, the hints aim saw registered, no shadowing of the
 * bridge's actions, the bounds on a page's tools, tools of other frames, `<aim-tool hidden>`,
 * schemas aim cannot enforce, and the caller's own ACP agent kept from shared caches.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

const PAGES_TESTS = [
  "tests/browser/webmcp_pages_test.ts",
  "tests/browser/webmcp_page_edges_test.ts",
];
const UNIT_TESTS = [
  "tests/unit/webmcp_tools_test.ts",
  "tests/unit/webmcp_tool_markup_test.ts",
];

export const mutants: Mutant[] = [
  {
    name: "webmcp-tool-without-hints-reads-only",
    guarantee: "A tool that does not say it only reads (no readOnlyHint) is consequential: the " +
      "person confirms each run.",
    file: "bridge/wire/webmcp_tools.ts",
    find: "const reads = hints.readOnlyHint === true || markup.readOnly === true;",
    replace: "const reads = hints.readOnlyHint !== false || markup.readOnly === true;",
    tests: [...UNIT_TESTS, ...PAGES_TESTS],
  },
  {
    name: "webmcp-tool-skips-confirmation",
    guarantee: "A consequential WebMCP tool runs only once the person approved it in the page, " +
      "whichever protocol called it: only an <aim-action no-confirm> skips asking.",
    file: "elements/page_tools.ts",
    find: "getAttribute: () => null,",
    replace: 'getAttribute: (() => "") as () => null,',
    tests: [...PAGES_TESTS],
  },
  {
    name: "webmcp-tool-registered-hints-ignored",
    guarantee: "A tool registered with destructiveHint is consequential even where Chromium or " +
      "a polyfill lists only readOnlyHint.",
    file: "elements/page_tools.ts",
    find: "{ ...tool, annotations: mergeHints(tool.annotations, registered) },",
    replace: "{ ...tool, annotations: tool.annotations },",
    tests: [...PAGES_TESTS],
  },
  {
    name: "webmcp-tool-shadows-server-action",
    guarantee: "A page's tool named like a server action of the bridge (an app's export_data) " +
      "never replaces it: the tab's registration of it is refused.",
    file: "bridge/core/tab_messages.ts",
    find: "if (this.#ctx.actions.has(id)) {",
    replace: "if (false) {",
    tests: [...PAGES_TESTS],
  },
  {
    name: "webmcp-tool-takes-builtin-name",
    guarantee: "A page's tool never takes the name of a built-in action (login, logout, " +
      "disconnect, any case) or of the read tool, even on a bridge that does not list it.",
    file: "bridge/wire/webmcp_tools.ts",
    find: "if (RESERVED_TOOL_NAMES.includes(name.toLowerCase())) {",
    replace: "if (false) {",
    tests: [...UNIT_TESTS, ...PAGES_TESTS],
  },
  {
    name: "webmcp-tools-unbounded-count",
    guarantee: "A page offers remote agents at most MAX_PAGE_TOOLS of its WebMCP tools.",
    file: "elements/page_tools.ts",
    find: "if (found.size >= MAX_PAGE_TOOLS) {",
    replace: "if (found.size >= Infinity) {",
    tests: [...PAGES_TESTS],
  },
  {
    name: "webmcp-tool-unbounded-size",
    guarantee: "A WebMCP tool larger than MAX_TOOL_BYTES as an action is left out.",
    file: "bridge/wire/webmcp_tools.ts",
    find: "if (JSON.stringify(action).length > MAX_TOOL_BYTES) {",
    replace: "if (false) {",
    tests: [...UNIT_TESTS, ...PAGES_TESTS],
  },
  {
    name: "webmcp-tool-of-another-frame",
    guarantee: "A tool registered by another frame (Chromium lists a frame's tools to its " +
      "parent) is not the page's.",
    file: "elements/page_tools.ts",
    find:
      'if ("window" in tool && tool.window !== undefined && tool.window !== window) return false;',
    replace: "",
    tests: [...PAGES_TESTS],
  },
  {
    name: "webmcp-tool-hidden-ignored",
    guarantee: "<aim-tool name=… hidden> keeps a tool from remote agents.",
    file: "bridge/wire/webmcp_tools.ts",
    find: 'if (markup.hidden) return fail("hidden from remote agents by <aim-tool hidden>");',
    replace: "",
    tests: [...UNIT_TESTS, ...PAGES_TESTS],
  },
  {
    name: "webmcp-tool-unenforced-keyword-dropped",
    guarantee: "A schema keyword aim cannot enforce (multipleOf, exclusiveMinimum…) refuses the " +
      "tool instead of being dropped, so that no input the tool's schema forbids is forwarded.",
    file: "bridge/wire/webmcp_tools.ts",
    find: "const ANNOTATIONS = new Set([",
    replace: 'const ANNOTATIONS = new Set(["allOf", ',
    tests: UNIT_TESTS,
  },
  {
    name: "webmcp-tool-markup-consequential-ignored",
    guarantee: "<aim-tool name=… consequential> makes a read-only tool ask the person.",
    file: "bridge/wire/webmcp_tools.ts",
    find: "return !reads || saysConsequences(hints) || markup.consequential === true;",
    replace: "return !reads || saysConsequences(hints);",
    tests: [...UNIT_TESTS, ...PAGES_TESTS],
  },
  {
    name: "acp-own-agent-cacheable",
    guarantee: "The ACP listing that holds the caller's own page (with a token) is no-store: no " +
      "shared cache hands one session's page to others.",
    file: "bridge/acp/routes.ts",
    find: 'c.header("Cache-Control", session ? "no-store" : "no-cache");',
    replace: 'c.header("Cache-Control", "no-cache");',
    tests: [...PAGES_TESTS],
  },
];
