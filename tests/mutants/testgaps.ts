/**
 * Named mutants of the guarantees of modules that had no test importing them (issue 32, item 2):
 * each breaks one rule of one module in one line, and the module's own test goes red.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "site-root-sibling-prefix",
    guarantee:
      "A symlink to a sibling folder whose name starts with the site root's is out of the root.",
    file: "bridge/site/paths.ts",
    find: "if (real !== this.#real && !real.startsWith(this.#real + SEPARATOR)) return null;",
    replace: "if (real !== this.#real && !real.startsWith(this.#real)) return null;",
    tests: ["tests/unit/site_paths_test.ts"],
  },
  {
    name: "site-path-dotfiles-served",
    guarantee: "Dotfiles such as .env or .git are never a page or a file of the site.",
    file: "bridge/site/paths.ts",
    find: 'if (part.startsWith(".")) return null;',
    replace: 'if (part === "." || part === "..") return null;',
    tests: ["tests/unit/site_paths_test.ts"],
  },
  {
    name: "site-page-path-length",
    guarantee: "A page path of 2048 characters is a page; one of 2049 is not.",
    file: "bridge/site/paths.ts",
    find: "path.length > 2048",
    replace: "path.length >= 2048",
    tests: ["tests/unit/site_paths_test.ts"],
  },
  {
    name: "local-share-answers-empty",
    guarantee: "A bridge that runs alone fails closed on any call to a shared store.",
    file: "bridge/share/local.ts",
    find: "load = unshared;",
    replace: "load = () => Promise.resolve(null);",
    tests: ["tests/unit/local_share_test.ts"],
  },
  {
    name: "acp-shared-events-budget",
    guarantee: "A run's events are mirrored to other instances at exactly the byte budget.",
    file: "bridge/acp/shared.ts",
    find: "<= maxBytes",
    replace: "< maxBytes",
    tests: ["tests/unit/acp_shared_test.ts"],
  },
  {
    name: "acp-shared-session-shape",
    guarantee: "A value read from the store is an ACP session only with a list of run ids.",
    file: "bridge/acp/shared.ts",
    find: 'Array.isArray(doc.runs) && doc.runs.every((id) => typeof id === "string")',
    replace: "Array.isArray(doc.runs)",
    tests: ["tests/unit/acp_shared_test.ts"],
  },
  {
    name: "bounded-map-one-over",
    guarantee: "A bounded cache holds at most its bound.",
    file: "bridge/utils/bounded_map.ts",
    find: "this.size >= this.max",
    replace: "this.size > this.max",
    tests: ["tests/unit/bounded_map_test.ts"],
  },
  {
    name: "run-status-cancelled",
    guarantee: "A cancelled run by an agent in the browser is recorded with 409, as its error.",
    file: "bridge/wire/run_status.ts",
    find: "cancelled: 409",
    replace: "cancelled: 410",
    tests: ["tests/unit/run_status_test.ts"],
  },
  {
    name: "beside-header-any-value",
    guarantee: "X-Aim-Beside asks aim to hand back whatever its value.",
    file: "bridge/upstream/beside.ts",
    find: "request.headers.has(BESIDE_HEADER)",
    replace: 'request.headers.get(BESIDE_HEADER) === "1"',
    tests: ["tests/unit/beside_test.ts"],
  },
  {
    name: "acp-stats-success-bound",
    guarantee: "An invocation answered 400 counts as a failure in ACP's success rate.",
    file: "bridge/acp/stats.ts",
    find: "record.status < 400",
    replace: "record.status <= 400",
    tests: ["tests/unit/acp_stats_test.ts"],
  },
];
