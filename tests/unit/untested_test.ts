/**
 * The check that every module with logic has a test that imports it (.ci/untested.ts): what
 * counts as logic, which modules a test imports directly, and the exceptions, which must each
 * state a reason and still apply.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  hasLogic,
  importedBy,
  modulesOf,
  rootOfTests,
  testFilesOf,
  UNTESTED,
  untestedProblems,
} from "../../.ci/untested.ts";
import type { Graph } from "../../.ci/graph.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("hasLogic() counts what runs: functions, classes, values, enums, statements", () => {
  for (
    const source of [
      "export function f() {}",
      "function f() {}",
      "export class A {}",
      "export const TABLE = { a: 1 };",
      "let x = 1;",
      "export enum Kind { A }",
      "export default function () {}",
      "export default 1;",
      "(() => { document.title = 'x'; })();",
      'import "./a.ts";\nif (globalThis.x) customElements.define("a-b", class extends HTMLElement {});',
      "export async function* lines() {}",
      "/** doc */\nexport type A = string;\nexport const a: A = 'a';",
    ]
  ) {
    assert.equal(hasLogic(source), true, source);
  }
});

Deno.test("hasLogic() does not count imports, re-exports, types and declarations", () => {
  for (
    const source of [
      "",
      "/** Only a comment. @module */",
      'import { a } from "./a.ts";\nimport type { B } from "./b.ts";',
      'export { a, b } from "./a.ts";\nexport * from "./c.ts";\nexport * as d from "./d.ts";',
      'import { a } from "./a.ts";\nexport { a };',
      'export type { B } from "./b.ts";',
      "export interface A { b: string; c(): void }",
      "export type A = { b: string } | `x${string}`;",
      "interface A {}\ntype B = A;",
      "declare const x: number;\ndeclare function f(): void;\ndeclare global { interface Window { a: 1 } }",
      "export declare class A {}",
      ";",
    ]
  ) {
    assert.equal(hasLogic(source), false, source);
  }
});

Deno.test("importedBy() reads what each test imports itself, not what those modules import", () => {
  const graph: Graph = new Map([
    ["tests/unit/a_test.ts", { files: new Set(["bridge/a.ts"]), packages: new Set() }],
    ["bridge/a.ts", { files: new Set(["bridge/b.ts"]), packages: new Set() }],
    ["tests/helpers/h.ts", { files: new Set(["bridge/c.ts"]), packages: new Set() }],
  ]);
  const imported = importedBy(graph, ["tests/unit/a_test.ts", "tests/unit/missing_test.ts"]);
  assert.deepEqual([...imported], ["bridge/a.ts"]);
});

Deno.test("untestedProblems() names a module with logic no test imports, and nothing else", () => {
  const modules = new Map([
    ["bridge/tested.ts", true],
    ["bridge/untested.ts", true],
    ["bridge/types.ts", false],
    ["elements/listed.ts", true],
  ]);
  const imported = new Set(["bridge/tested.ts"]);
  assert.deepEqual(
    untestedProblems({ modules, imported, allowed: { "elements/listed.ts": "a browser test" } }),
    ["bridge/untested.ts has logic and no test file imports it"],
  );
});

Deno.test("untestedProblems() names an exception that no longer applies or gives no reason", () => {
  const modules = new Map([
    ["bridge/tested.ts", true],
    ["bridge/types.ts", false],
    ["bridge/bare.ts", true],
  ]);
  const allowed = {
    "bridge/tested.ts": "tested elsewhere",
    "bridge/types.ts": "types",
    "bridge/gone.ts": "gone",
    "bridge/bare.ts": " ",
  };
  assert.deepEqual(
    untestedProblems({ modules, imported: new Set(["bridge/tested.ts"]), allowed }),
    [
      "bridge/bare.ts is listed as untested without a reason",
      "bridge/gone.ts is listed as untested but does not exist",
      "bridge/tested.ts is listed as untested but a test file imports it now",
      "bridge/types.ts is listed as untested but has no logic",
    ],
  );
});

Deno.test("every exception of the repository states its reason", () => {
  for (const [module, reason] of Object.entries(UNTESTED)) {
    assert.ok(reason.length >= 20, `${module}: say why no test imports it`);
  }
});

Deno.test("the repository's modules and test files are found where the check looks", () => {
  const modules = modulesOf(ROOT);
  assert.ok(modules.includes("bridge/mod.ts"));
  assert.ok(modules.includes("elements/client.ts"));
  assert.ok(modules.every((m) => /^(bridge|elements)\/.*\.ts$/.test(m)));
  const tests = testFilesOf(ROOT);
  assert.ok(tests.includes("tests/unit/untested_test.ts"));
  assert.ok(tests.every((t) => /^tests\/.*_test\.tsx?$/.test(t)));
});

Deno.test("rootOfTests() is one data: module that imports each test by its file URL", () => {
  const root = rootOfTests("/repo", ["tests/unit/a_test.ts", "tests/x y/b_test.ts"]);
  const [head, body] = root.split(",");
  assert.equal(head, "data:application/typescript;base64");
  assert.equal(
    atob(body!),
    'import "file:///repo/tests/unit/a_test.ts";\nimport "file:///repo/tests/x%20y/b_test.ts";',
  );
});
