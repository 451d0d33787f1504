/**
 * Fails when a module with logic under `bridge/` or `elements/` is imported by no test file: each
 * such module must have a test that imports it directly (`tests/**\/*_test.ts`), so that a
 * one-line break of what it guarantees turns a test red without a chain of other modules between
 * them. A module has logic when one of its top-level statements runs something: a function, a
 * class, a value, an enum, a statement; re-exports, imports and types are not logic. The
 * exceptions are {@linkcode UNTESTED}, each with its reason; an exception that no longer applies
 * (the module is tested now, has no logic, or is gone) fails too, so the list cannot rot.
 * Reads which files each test imports from `deno info --json` (type-only imports count too).
 *
 * @example
 * ```sh
 * deno run --allow-run --allow-read --allow-env --lock=deno.test.lock --frozen=false .ci/untested.ts
 * ```
 *
 * @module
 */
import { join, relative } from "node:path";
import { parse } from "../tests/deps/babel_parser.ts";
import { type Graph, readGraph } from "./graph.ts";

/** The folders whose modules must each be imported by a test. */
export const TESTED_FOLDERS: readonly string[] = ["bridge", "elements"];

/**
 * Modules with logic that no test file imports, each with the reason and the tests that hold it
 * instead. Keep it short: a module's rule belongs in a test that imports the module. Each entry
 * says either that the module runs only in a browser (its browser tests named), or that its
 * direct test is still to write (issue 32) and which tests hold it meanwhile.
 */
export const UNTESTED: Readonly<Record<string, string>> = {
  "bridge/a2a/executor.ts":
    "No direct test yet (issue 32): the SDK's AgentExecutor over a live session's tasks; held over HTTP by the SDK's own client in tests/a2a/a2a_test.ts and tests/a2a/protocol_test.ts.",
  "bridge/cli/serve.ts":
    "No direct test yet (issue 32): `aim serve`; held by tests/cli/serve_test.ts and start_test.ts and tests/upstream/cli_test.ts, which run it as a process.",
  "bridge/core/sessions.ts":
    "No direct test yet (issue 32): the session store; held through the bridge by tests/protocol/session_test.ts, lease_test.ts, tests/security/sessions_test.ts and tests/cluster/.",
  "bridge/core/tab.ts":
    "No direct test yet (issue 32): a tab's state and invocations; held through the tab channel by tests/protocol/channel_test.ts, invoke_test.ts and settle_test.ts.",
  "bridge/http/session_manifests.ts":
    "No direct test yet (issue 32): the session's manifest routes; held over HTTP by tests/protocol/manifest_test.ts, change_documents_test.ts and versions_test.ts.",
  "bridge/mcp/progress.ts":
    "No direct test yet (issue 32): one call's SSE answer, which needs the SDK's server and a waiting tab; held by tests/mcp/endpoint_test.ts and browser_test.ts.",
  "bridge/mcp/sessions.ts":
    "No direct test yet (issue 32): the MCP sessions of the endpoint; held over HTTP by tests/mcp/endpoint_test.ts, session_limits_test.ts and tests/cluster/mcp_cluster_test.ts.",
  "elements/aim_action.ts":
    "Runs only in a browser (custom elements, DOM, Lit): tests/browser/elements_test.ts, item_actions_test.ts and target_test.ts hold it through the bundle.",
  "elements/aim_panel.ts":
    "Runs only in a browser (custom elements, DOM, Lit): a Lit element; tests/browser/session_test.ts, elements_test.ts and arrival_test.ts hold it through the bundle.",
  "elements/aim_state.ts":
    "Runs only in a browser (custom elements, DOM, Lit): tests/browser/state_items_test.ts and elements_test.ts hold it through the bundle.",
  "elements/bindings.ts":
    "Needs a page's DOM; a direct test with a small fake is still to write (issue 32): clicks and fills on live controls; tests/browser/item_actions_test.ts, target_test.ts and elements_test.ts hold it.",
  "elements/build.ts":
    "The bundler script (deno bundle, terser): tests/browser/bundle_test.ts rebuilds the elements with it and fails when the committed bundle is stale.",
  "elements/client_controller.ts":
    "Runs only in a browser (custom elements, DOM, Lit): a Lit controller of the panel; tests/browser/session_test.ts and arrival_test.ts hold it.",
  "elements/client_link.ts":
    "Needs a page's DOM; a direct test with a small fake is still to write (issue 32): the tab's WebSocket to the bridge; tests/browser/session_test.ts, arrival_test.ts and stale_test.ts hold it.",
  "elements/confirm_dialog.ts":
    "Needs a page's DOM; a direct test with a small fake is still to write (issue 32): the <dialog> that asks the person; tests/browser/session_test.ts, cancel_test.ts and withdraw_test.ts hold it (its words: tests/unit/prompt_test.ts).",
  "elements/declaration.ts":
    "Runs only in a browser (custom elements, DOM, Lit): the ReactiveElement base of <aim-state> and <aim-action>; tests/browser/elements_test.ts holds it.",
  "elements/mod.ts":
    "Runs only in a browser (custom elements, DOM, Lit): the bundle's entry, which defines the custom elements; every test of tests/browser/ loads it, tests/browser/bundle_test.ts checks it.",
  "elements/webmcp.ts":
    "Needs a page's DOM; a direct test with a small fake is still to write (issue 32): navigator.modelContext; tests/browser/webmcp_test.ts and webmcp_page_edges_test.ts hold it.",
  "elements/webmcp_api.ts":
    "Needs a page's DOM; a direct test with a small fake is still to write (issue 32): aim's own WebMCP API in the page; tests/browser/webmcp_pages_test.ts and webmcp_forms_test.ts hold it.",
};

interface Statement {
  type: string;
  declare?: boolean;
  declaration?: Statement | null;
  source?: unknown;
  exportKind?: string;
}

/** Whether a top-level statement runs something (not an import, a re-export or a type). */
function runs(statement: Statement): boolean {
  if (statement.declare) return false; // `declare const x: T;` and the like: types only
  switch (statement.type) {
    case "ImportDeclaration":
    case "ExportAllDeclaration":
    case "EmptyStatement":
    case "TSInterfaceDeclaration":
    case "TSTypeAliasDeclaration":
    case "TSDeclareFunction":
      return false;
    case "ExportNamedDeclaration":
      // `export { a } from "./a.ts"`, `export { a }` and `export type …`: nothing of its own runs.
      return statement.declaration ? runs(statement.declaration) : false;
    case "ExportDefaultDeclaration":
      return statement.declaration ? runs(statement.declaration) : true;
    default:
      return true;
  }
}

/**
 * Whether a module's source (TypeScript) has logic: a top-level statement that runs something (a
 * function, a class, a variable, an enum, an expression); imports, re-exports, interfaces, type
 * aliases and `declare`d names are not logic.
 */
export function hasLogic(source: string): boolean {
  const tree = parse(source, { sourceType: "module", plugins: ["typescript"] }) as unknown as {
    program: { body: Statement[] };
  };
  return tree.program.body.some(runs);
}

/** The files under `folder` of `root` (relative paths) whose names match `pattern`, sorted. */
export function filesUnder(root: string, folder: string, pattern: RegExp): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(join(root, dir))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && pattern.test(entry.name)) found.push(path);
    }
  };
  walk(folder);
  return found.sort();
}

/** The test files under `root`: `tests/**\/*_test.ts` and `*_test.tsx`, relative, sorted. */
export function testFilesOf(root: string): string[] {
  return filesUnder(root, "tests", /_test\.tsx?$/);
}

/** The modules of {@linkcode TESTED_FOLDERS} under `root`: every `.ts` file, relative, sorted. */
export function modulesOf(root: string): string[] {
  return TESTED_FOLDERS.flatMap((folder) => filesUnder(root, folder, /\.ts$/)).sort();
}

/** The modules `tests` import directly (each test's own imports, not theirs), from `graph`. */
export function importedBy(graph: Graph, tests: readonly string[]): Set<string> {
  const imported = new Set<string>();
  for (const test of tests) {
    for (const file of graph.get(test)?.files ?? []) imported.add(file);
  }
  return imported;
}

/** What {@linkcode untestedProblems} reads. */
export interface UntestedInput {
  /** Every module that must be tested, relative path → whether it has logic. */
  modules: ReadonlyMap<string, boolean>;
  /** The modules some test file imports directly. */
  imported: ReadonlySet<string>;
  /** The exceptions, module → reason. @default {UNTESTED} */
  allowed?: Readonly<Record<string, string>>;
}

/**
 * What is wrong, one line each, sorted: a module with logic no test imports that is not an
 * exception, and an exception that no longer applies (tested, without logic, or gone) or states
 * no reason.
 */
export function untestedProblems(input: UntestedInput): string[] {
  const allowed = input.allowed ?? UNTESTED;
  const problems: string[] = [];
  for (const [module, logic] of input.modules) {
    if (!logic || input.imported.has(module) || module in allowed) continue;
    problems.push(`${module} has logic and no test file imports it`);
  }
  for (const [module, reason] of Object.entries(allowed)) {
    const logic = input.modules.get(module);
    if (logic === undefined) problems.push(`${module} is listed as untested but does not exist`);
    else if (!logic) problems.push(`${module} is listed as untested but has no logic`);
    else if (input.imported.has(module)) {
      problems.push(`${module} is listed as untested but a test file imports it now`);
    }
    if (reason.trim() === "") problems.push(`${module} is listed as untested without a reason`);
  }
  return problems.sort();
}

/**
 * One module that imports every test file of `root` (a `data:` URL), so that one `deno info`
 * reads the whole graph of the tests.
 */
export function rootOfTests(root: string, tests: readonly string[]): string {
  const base = new URL(`file://${root.endsWith("/") ? root : `${root}/`}`);
  const source = tests.map((test) => `import "${new URL(test, base).href}";`).join("\n");
  const bytes = new TextEncoder().encode(source);
  return `data:application/typescript;base64,${btoa(String.fromCharCode(...bytes))}`;
}

if (import.meta.main) {
  const root = Deno.cwd();
  const tests = testFilesOf(root);
  const graph = await readGraph([rootOfTests(root, tests)], root, { lock: "deno.test.lock" });
  const modules = new Map(
    modulesOf(root).map((module) => [module, hasLogic(Deno.readTextFileSync(join(root, module)))]),
  );
  const problems = untestedProblems({ modules, imported: importedBy(graph, tests) });
  for (const problem of problems) console.error(problem);
  if (problems.length) Deno.exit(1);
  const logic = [...modules.values()].filter(Boolean).length;
  const allowed = Object.keys(UNTESTED).length;
  console.log(
    `${logic - allowed} of ${logic} modules with logic in ${TESTED_FOLDERS.join("/, ")}/ ` +
      `are imported by a test file; ${allowed} are listed with their reason ` +
      `(${relative(root, new URL(import.meta.url).pathname)})`,
  );
}
