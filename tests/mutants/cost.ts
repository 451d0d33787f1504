/**
 * Named mutants of what an agent reads staying cheap: over MCP it still says what it
 * needs (changes from the version it was told, an unsettled page, a version it cannot hold); and
 * the tab's answer carries its state in one message, after the actions it changed.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "mcp-results-whole-state",
    guarantee:
      "An MCP result's text holds only the changes since the state this MCP session was told, so the demo task stays within its token budget.",
    file: "bridge/mcp/tools.ts",
    find: "? stateView(told, { version: answer.state_version, state: answer.state })",
    replace: "? { state_version: answer.state_version, state: answer.state }",
    tests: ["tests/mcp/tokens_test.ts"],
  },
  {
    name: "mcp-changes-from-nothing",
    guarantee: "The changes an MCP result holds start from the state told at changes_since.",
    file: "bridge/mcp/answers.ts",
    find: "changes: createJsonPatch(base, state)",
    replace: "changes: createJsonPatch({}, state)",
    tests: ["tests/mcp/tools_test.ts"],
  },
  {
    name: "mcp-unsettled-not-said",
    guarantee: "An MCP result whose page had not settled says settled: false in its text.",
    file: "bridge/mcp/tools.ts",
    find: "if (answer.settled === false) text.settled = false;",
    replace: "",
    tests: ["tests/mcp/tools_test.ts"],
  },
  {
    name: "mcp-since-ahead-unexplained",
    guarantee:
      "A since ahead of the page's state_version is answered with the whole state and a note that says it is ahead.",
    file: "bridge/mcp/answers.ts",
    find: "if (since > version) {",
    replace: "if (since > version && false) {",
    tests: ["tests/mcp/tokens_test.ts"],
  },
  {
    name: "mcp-read-ignores-since",
    guarantee: "aim_read_page with since answers the changes since that version.",
    file: "bridge/mcp/tools.ts",
    find: "since: options.since ?? null,",
    replace: "since: null,",
    tests: ["tests/mcp/tools_test.ts"],
  },
  {
    name: "mcp-consequential-read-only",
    guarantee: "A consequential action's tool is never advertised as read-only.",
    file: "bridge/mcp/tools.ts",
    find: "spec.read_only === true && !spec.consequential",
    replace: "spec.read_only === true",
    tests: ["tests/mcp/tools_test.ts"],
  },
  {
    name: "tab-result-state-ignored",
    guarantee:
      "The state a tab's result carries is the session's state, and the agent's answer holds it.",
    file: "bridge/core/tab_messages.ts",
    find: "if (message.state) this.#state(message.state, h);",
    replace: "",
    tests: ["tests/protocol/settle_test.ts"],
  },
  {
    name: "tab-actions-after-result",
    guarantee:
      "Actions an invocation changed are registered before its result, so the agent's next call may name them.",
    file: "elements/client.ts",
    find: "if (this.#actionsChanged) this.#register();",
    replace: "",
    tests: ["tests/browser/invoke_path_test.ts"],
  },
  {
    name: "tab-result-without-state",
    guarantee: "The tab's result carries the state the action left.",
    file: "elements/client.ts",
    find: "text = `${text.slice(0, -1)},${state.slice(16)}`;",
    replace: "",
    tests: ["tests/browser/invoke_path_test.ts"],
  },
  {
    name: "minimal-answer-version-forgotten",
    guarantee:
      "The manifest at a return=minimal answer's version is kept: an If-Match on it is answered with changes.",
    file: "bridge/http/session_routes.ts",
    find: "const changes = wanted\n",
    replace: 'const changes = wanted === "changes"\n',
    tests: ["tests/protocol/invoke_answers_test.ts"],
  },
  {
    name: "tab-large-pair-one-message",
    guarantee:
      "A large result and its state go as two messages, each within the bridge's message limit.",
    file: "elements/client.ts",
    find: "if (text.length + state.length > ONE_MESSAGE_CHARS) this.#sendOnce(1, state);",
    replace: "if (false) this.#sendOnce(1, state);",
    tests: ["tests/browser/invoke_path_test.ts"],
  },
  {
    name: "stale-ahead-says-changed",
    guarantee:
      "An If-Match ahead of the page's state_version is refused with a message that says it is ahead.",
    file: "bridge/core/invocations.ts",
    find: "const message = call.ifMatch > session.version",
    replace: "const message = false",
    tests: ["tests/protocol/versions_test.ts"],
  },
  {
    name: "minimal-answer-holds-state",
    guarantee:
      "An answer under Prefer: return=minimal holds no state, so the cheapest HTTP way stays within its token budget.",
    file: "bridge/http/session_routes.ts",
    find: 'if (wanted === "minimal" || changes) {',
    replace: "if (changes) {",
    tests: ["tests/protocol/http_tokens_test.ts"],
  },
];
