/**
 * Named mutants of the modules that `.ci/untested.ts` found without a test importing them (issue
 * 32, item 2), now tested directly: each breaks one rule of one module in one line, and that
 * module's own test goes red.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "input-bounds-constructor-key-taken",
    guarantee: "A key named constructor is refused in any input, as __proto__ and prototype are.",
    file: "bridge/wire/input_bounds.ts",
    find: '  "constructor",\n',
    replace: "",
    tests: ["tests/unit/input_bounds_test.ts"],
  },
  {
    name: "input-bounds-items-off-by-one",
    guarantee: "An array of exactly INPUT_LIMITS.items items is within the bounds.",
    file: "bridge/wire/input_bounds.ts",
    find: "if (value.length > INPUT_LIMITS.items) {",
    replace: "if (value.length >= INPUT_LIMITS.items) {",
    tests: ["tests/unit/input_bounds_test.ts"],
  },
  {
    name: "mcp-progress-any-method",
    guarantee:
      "Only a tools/call with an id and a progress token is served over its own SSE answer.",
    file: "bridge/mcp/replies.ts",
    find: 'if (message.method !== "tools/call") return undefined;',
    replace: "",
    tests: ["tests/unit/mcp_replies_test.ts"],
  },
  {
    name: "mcp-transport-refusal-anywhere",
    guarantee:
      "Only a message that starts with one of the transport's refusals is the client's mistake.",
    file: "bridge/mcp/replies.ts",
    find: "/^(Not Acceptable|",
    replace: "/(Not Acceptable|",
    tests: ["tests/unit/mcp_replies_test.ts"],
  },
  {
    name: "mcp-shared-session-without-token-hash",
    guarantee: "A shared MCP session document without a token hash is no session.",
    file: "bridge/mcp/replies.ts",
    find:
      'if (typeof tokenHash !== "string" || !mcp.isInitializeRequest(initialize)) return undefined;',
    replace: "if (!mcp.isInitializeRequest(initialize)) return undefined;",
    tests: ["tests/unit/mcp_replies_test.ts"],
  },
  {
    name: "check-state-action-field-attribute-missed",
    guarantee:
      "aim check warns about maximum= on a state's field, as about fill=, required= and minimum=.",
    file: "bridge/site/check_state.ts",
    find: 'const ACTION_FIELD_ATTRIBUTES = ["fill", "required", "minimum", "maximum"];',
    replace: 'const ACTION_FIELD_ATTRIBUTES = ["fill", "required", "minimum"];',
    tests: ["tests/unit/check_state_test.ts"],
  },
  {
    name: "check-state-object-name-case",
    guarantee:
      "aim check refuses an object name as a state field's name in any case (ValueOf too).",
    file: "bridge/site/check_state.ts",
    find: "OBJECT_NAMES.has(field.name.toLowerCase())",
    replace: "OBJECT_NAMES.has(field.name)",
    tests: ["tests/unit/check_state_test.ts"],
  },
  {
    name: "check-deep-prefix-bad-part-passes",
    guarantee:
      "A deep selector with an invalid part after >>> is reported as not a valid selector.",
    file: "bridge/site/check_problem.ts",
    find: "for (const part of parts) if (part) selectAll(part, EMPTY);",
    replace: 'selectAll(parts[0] || "*", EMPTY);',
    tests: ["tests/unit/check_problem_test.ts"],
  },
  {
    name: "form-tool-hidden-field-listed",
    guarantee: "A hidden input of a declarative WebMCP form is no field of its tool.",
    file: "bridge/markup/form_tool.ts",
    find: '"image", "file", "hidden"]);',
    replace: '"image", "file"]);',
    tests: ["tests/unit/form_tool_test.ts"],
  },
  {
    name: "form-tool-step-any-case",
    guarantee:
      "A number field with step=any (in any case) takes any number, not whole numbers only.",
    file: "bridge/markup/form_tool.ts",
    find: '(el.getAttribute("step") ?? "").toLowerCase() !== "any"',
    replace: 'el.getAttribute("step") !== "any"',
    tests: ["tests/unit/form_tool_test.ts"],
  },
  {
    name: "form-tool-label-for-last",
    guarantee: "A field described by label for= takes the first such label's text.",
    file: "bridge/markup/form_tool.ts",
    find: "if (target && !byFor.has(target)) byFor.set(target, labelText(el));",
    replace: "if (target) byFor.set(target, labelText(el));",
    tests: ["tests/unit/form_tool_test.ts"],
  },
  {
    name: "markup-json-child-type-case",
    guarantee:
      "A child script of type application/json is read in any case and with spaces around.",
    file: "bridge/markup/element.ts",
    find: '(child.getAttribute("type") ?? "").trim().toLowerCase() === "application/json"',
    replace: 'child.getAttribute("type") === "application/json"',
    tests: ["tests/unit/form_tool_test.ts"],
  },
  {
    name: "markup-json-child-proto-vanishes",
    guarantee: "A __proto__ key in a child JSON script is refused by name, not dropped.",
    file: "bridge/markup/element.ts",
    find: 'if (parsed.problem === "proto") {',
    replace: 'if (parsed.problem === "__proto__") {',
    tests: ["tests/unit/form_tool_test.ts"],
  },
  {
    name: "anonymous-read-x-gzip-unread",
    guarantee: "A catalog read decodes a body in x-gzip, as in gzip.",
    file: "bridge/upstream/anonymous_read.ts",
    find: '  "x-gzip": "gzip",\n',
    replace: "",
    tests: ["tests/upstream/anonymous_read_test.ts"],
  },
  {
    name: "anonymous-read-bound-off-by-one",
    guarantee: "A catalog read takes a body of exactly its byte bound, and no byte more.",
    file: "bridge/upstream/anonymous_read.ts",
    find: "if (size > max) return null;",
    replace: "if (size >= max) return null;",
    tests: ["tests/upstream/anonymous_read_test.ts"],
  },
  {
    name: "anonymous-read-coding-case",
    guarantee: "A catalog read knows a content coding in any case and with spaces around.",
    file: "bridge/upstream/anonymous_read.ts",
    find: '(headers.get("content-encoding") ?? "identity").trim().toLowerCase();',
    replace: 'headers.get("content-encoding") ?? "identity";',
    tests: ["tests/upstream/anonymous_read_test.ts"],
  },
  {
    name: "beside-nginx-real-ip-passed",
    guarantee: "nginx beside aim never passes a client's own X-Real-IP on to the app.",
    file: "bridge/upstream/beside_nginx.ts",
    find: '    proxy_set_header X-Real-IP "";${',
    replace: "    ${",
    tests: ["tests/upstream/beside_nginx_test.ts"],
  },
  {
    name: "beside-nginx-aim-hands-back-everywhere",
    guarantee: "Only @aim_first and @aim_manifest tell aim it may hand a request back.",
    file: "bridge/upstream/beside_nginx.ts",
    find: "${first ? '\"1\"' : '\"\"'}",
    replace: '"1"',
    tests: ["tests/upstream/beside_nginx_test.ts"],
  },
  {
    name: "redis-trace-batched-error-alone",
    guarantee:
      "A failed command inside a MULTI or a pipeline is an error of its batch, not one alone.",
    file: "bridge/metrics/redis_trace.ts",
    find: "if (context.batchMode === undefined && !unloaded(context)) {",
    replace: "if (!unloaded(context)) {",
    tests: ["tests/metrics/redis_trace_test.ts"],
  },
  {
    name: "redis-trace-noscript-counted",
    guarantee: "A NOSCRIPT reply to a command alone (the client loads the script) is no error.",
    file: "bridge/metrics/redis_trace.ts",
    find: "if (context.batchMode === undefined && !unloaded(context)) {",
    replace: "if (context.batchMode === undefined) {",
    tests: ["tests/metrics/redis_trace_test.ts"],
  },
  {
    name: "redis-trace-labels-unbounded",
    guarantee: "The Redis metrics keep at most 64 command labels, the rest counted as other.",
    file: "bridge/metrics/redis_trace.ts",
    find: "if (made === undefined && labels.size < 64)",
    replace: "if (made === undefined)",
    tests: ["tests/metrics/redis_trace_test.ts"],
  },
  {
    name: "redis-trace-command-name-unanchored",
    guarantee: "A command name that is no plain upper-case word is labelled other.",
    file: "bridge/metrics/redis_trace.ts",
    find: "const COMMAND_NAME = /^[A-Z][A-Z.]{0,31}$/;",
    replace: "const COMMAND_NAME = /[A-Z][A-Z.]{0,31}/;",
    tests: ["tests/metrics/redis_trace_test.ts"],
  },
  {
    name: "hash-password-length-in-units",
    guarantee: "aim hash-password counts a password's characters, not its UTF-16 units.",
    file: "bridge/cli/hash_password.ts",
    find: "if ([...password].length < MIN_PASSWORD_LENGTH) {",
    replace: "if (password.length < MIN_PASSWORD_LENGTH) {",
    tests: ["tests/cli/hash_password_test.ts"],
  },
  {
    name: "hash-password-crlf-kept",
    guarantee: "aim hash-password takes a CRLF line ending off the password, as an LF one.",
    file: "bridge/cli/hash_password.ts",
    find: '(await io.stdin()).replace(/\\r?\\n$/, "")',
    replace: '(await io.stdin()).replace(/\\n$/, "")',
    tests: ["tests/cli/hash_password_test.ts"],
  },
  {
    name: "hash-password-from-arguments",
    guarantee: "aim hash-password never takes a password from its arguments.",
    file: "bridge/cli/hash_password.ts",
    find: "if (positionals.length) {",
    replace: "if (false) {",
    tests: ["tests/cli/hash_password_test.ts"],
  },
];
