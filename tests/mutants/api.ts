/**
 * Named mutants of the public API's guarantees (issue 32, items 3 to 6): errors rendered one way
 * (an `AimError` answers as hono's `HTTPException` with aim's headers; ACP and run statuses from
 * their tables), the layer table's packages, `serve()` leaving the process's file limit alone
 * unless asked, no import cycle between files, documented defaults equal to the code's, and the
 * elements' author warnings bounded, no module over 500 lines.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "error-answer-without-private-headers",
    guarantee: "Every AimError answers with Cache-Control: private, no-store and Vary, wherever " +
      "hono catches it.",
    file: "bridge/errors/aim_error.ts",
    find: '      headers: { "Content-Type": JSON_TYPE, ...PRIVATE_HEADERS, ...this.headers },',
    replace: '      headers: { "Content-Type": JSON_TYPE, ...this.headers },',
    tests: ["tests/protocol/errors_test.ts"],
  },
  {
    name: "app-errors-not-through-http-exception",
    guarantee: "An HTTPException thrown in any route (an AimError, an embedder's own) answers as " +
      "itself, not as a 500.",
    file: "bridge/http/app.ts",
    find: "    if (error instanceof HTTPException) return error.getResponse();",
    replace: "    if (error instanceof Response) return error;",
    tests: ["tests/protocol/errors_test.ts"],
  },
  {
    name: "acp-unreadable-body-not-422",
    guarantee: "Over ACP a body that does not parse answers 422 invalid_input, as the reference.",
    file: "bridge/acp/errors.ts",
    find: "  bad_request: 422,\n",
    replace: "",
    tests: ["tests/acp/runs_test.ts", "tests/acp/run_control_test.ts"],
  },
  {
    name: "acp-refusal-status-drift",
    guarantee: "Cancelling a finished ACP run is refused with 403, as the reference.",
    file: "bridge/acp/errors.ts",
    find: "  run_refused: 403,",
    replace: "  run_refused: 409,",
    tests: ["tests/acp/runs_test.ts", "tests/acp/run_control_test.ts"],
  },
  {
    name: "acp-error-cached",
    guarantee: "An ACP error answer is never cached and varies with the credentials.",
    file: "bridge/acp/errors.ts",
    find: "        ...PRIVATE_HEADERS,\n",
    replace: "",
    tests: ["tests/acp/agents_test.ts"],
  },
  {
    name: "run-problem-status-drift",
    guarantee:
      "A run whose answer is too large to keep is told with status 507 (ACP's data.status).",
    file: "bridge/runs/run.ts",
    find: "  output_too_large: 507,",
    replace: "  output_too_large: 500,",
    tests: ["tests/unit/errors_test.ts"],
  },
  {
    name: "layers-any-package",
    guarantee: "A package a folder's row does not list (hono in elements/) fails the layer check.",
    file: ".ci/layers.ts",
    find: 'if (layer?.packages.includes("*") || layer?.packages.includes(name)) continue;',
    replace: "continue;",
    tests: ["tests/unit/layers_test.ts"],
  },
  {
    name: "layers-browser-rows-unchecked",
    guarantee: "A folder shared with the page may list only browser folders and browser-safe " +
      "packages.",
    file: ".ci/layers.ts",
    find: "    if (!layer.browser) continue;",
    replace: "    continue;",
    tests: ["tests/unit/layers_test.ts"],
  },
  {
    name: "serve-raises-file-limit-unasked",
    guarantee: "serve() leaves an embedding process's file limit as it is unless asked.",
    file: "bridge/serve/serve.ts",
    find: "const files = raise ? raiseFileLimit() : fileLimit();",
    replace: "const files = raiseFileLimit();",
    tests: ["tests/cli/serve_test.ts", "tests/cli/file_limit_test.ts"],
  },
  {
    name: "aim-serve-keeps-low-file-limit",
    guarantee: "aim serve raises its soft file limit to the hard one (every connection holds a " +
      "file).",
    file: "bridge/cli/serve.ts",
    find: "    raiseFileLimit: true,",
    replace: "    raiseFileLimit: false,",
    tests: ["tests/cli/serve_test.ts", "tests/cli/file_limit_test.ts"],
  },
  {
    name: "cycles-two-file-cycle-unseen",
    guarantee: "Two files that import each other fail the cycle check, named.",
    file: ".ci/cycles.ts",
    find: "if (group.length > 1 || selfImport) groups.push(group);",
    replace: "if (group.length > 2 || selfImport) groups.push(group);",
    tests: ["tests/unit/cycles_test.ts"],
  },
  {
    name: "cycles-check-exits-0",
    guarantee: "The cycle check fails deno task check when it finds a cycle.",
    file: ".ci/cycles.ts",
    find: "  if (cycles.length) Deno.exit(1);",
    replace: "  if (cycles.length) Deno.exit(0);",
    tests: ["tests/unit/cycles_test.ts"],
  },
  {
    name: "default-drifts-from-doc",
    guarantee: "A documented @default is the value the code falls back to.",
    file: "bridge/mcp/routes.ts",
    find: "  maxPerSession: 8,",
    replace: "  maxPerSession: 9,",
    tests: ["tests/unit/defaults_test.ts"],
  },
  {
    name: "default-doc-drifts-from-code",
    guarantee: "A documented @default is the value the code falls back to, whichever side changes.",
    file: "bridge/core/tab_connection.ts",
    find: "   * @default {15_000}",
    replace: "   * @default {10_000}",
    tests: ["tests/unit/defaults_test.ts"],
  },
  {
    name: "default-in-prose-unseen",
    guarantee: "No doc comment states a default in prose; each is @default {value}.",
    file: "bridge/audit/log.ts",
    find: "   * `Infinity` keeps everything.\n   *\n   * @default {90}",
    replace: "   * `Infinity` keeps everything. Default 90.",
    tests: ["tests/unit/defaults_test.ts"],
  },
  {
    name: "author-warnings-unbounded",
    guarantee: "The warnings to page authors stop at MAX_WARNINGS: the set of those given cannot " +
      "grow without bound.",
    file: "elements/warning_text.ts",
    find: "  if (given.has(sentence) || given.size > MAX_WARNINGS) return;",
    replace: "  if (given.has(sentence)) return;",
    tests: ["tests/unit/warnings_test.ts"],
  },
  {
    name: "author-warning-without-link",
    guarantee: "Every warning to a page author names its code and its section of " +
      "docs/elements.md.",
    file: "elements/warning_text.ts",
    find: "      : `[aim] ${sentence} (docs/elements.md#${code})`,",
    replace: "      : `[aim] ${sentence}`,",
    tests: ["tests/unit/warnings_test.ts", "tests/browser/elements_test.ts"],
  },
  {
    name: "author-warning-repeated",
    guarantee: "A warning to a page author is given once per sentence.",
    file: "elements/warning_text.ts",
    find: "  given.add(sentence);",
    replace: "  given.add(sentence + Math.random());",
    tests: ["tests/unit/warnings_test.ts"],
  },
  {
    name: "file-size-bound-off-by-one",
    guarantee: "A module of 501 lines fails the size check, named with its count.",
    file: ".ci/file_size.ts",
    find: "if (lines > max) over.push(",
    replace: "if (lines > max + 1) over.push(",
    tests: ["tests/unit/file_size_test.ts"],
  },
  {
    name: "file-size-exits-zero",
    guarantee: "The size check exits 1 when a module is over the bound, so deno task check fails.",
    file: ".ci/file_size.ts",
    find: "  if (over.length) Deno.exit(1);",
    replace: "",
    tests: ["tests/unit/file_size_test.ts"],
  },
];
