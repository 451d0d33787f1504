/**
 * Mutants accepted as equivalent, each with its reason (see tests/mutate/equivalent.ts for how one
 * is matched). `deno task mutate FILE` prints, for each survivor that no entry matches, an entry
 * to paste here once it is clear that no test can kill it; a survivor that a test can kill gets
 * the test instead. Grouped by file, in the order of the file.
 *
 * @module
 */
import type { Equivalent } from "./equivalent.ts";

/** Every mutant accepted as equivalent. */
export const EQUIVALENTS: readonly Equivalent[] = [
  // elements/page_tools.ts
  {
    file: "elements/page_tools.ts",
    mutator: "ArrayDeclaration",
    in: "PageTools.#read",
    original: "[]",
    replacement: '["Stryker was here"]',
    near: ": [];",
    reason: "A context that cannot list its tools then lists one string instead of nothing; a " +
      "string has no name, and the loop skips every listed value without a string name.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "ArrayDeclaration",
    in: "PageTools.#read",
    original: "[]",
    replacement: '["Stryker was here"]',
    near: "const sorted = (Array.isArray(listed) ? [...listed] : []).sort((a, b) =>",
    reason: "`listed` is always an array (made as one a few lines above), so the branch that " +
      "would give the empty array never runs.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "EqualityOperator",
    in: "PageTools.#read",
    original: "String(a?.name) < String(b?.name)",
    replacement: "String(a?.name) <= String(b?.name)",
    reason: "It differs only when two listed tools have one name, which WebMCP's registerTool " +
      "refuses (a name is registered once, and aim's registry is by name); for distinct names " +
      "`<=` is `<`.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "ConditionalExpression",
    in: "PageTools.#read",
    original: "String(a?.name) > String(b?.name)",
    replacement: "false",
    reason: "It changes only whether the comparator answers 0 or 1 where a's name is not before " +
      "b's; V8's sort (binary insertion and TimSort's merges alike) acts only on whether the " +
      "answer is below 0, so the tools come in the same order.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "ConditionalExpression",
    in: "PageTools.#read",
    original: "String(a?.name) > String(b?.name)",
    replacement: "true",
    reason: "It changes only whether the comparator answers 0 or 1 where a's name is not before " +
      "b's; V8's sort (binary insertion and TimSort's merges alike) acts only on whether the " +
      "answer is below 0, so the tools come in the same order.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "EqualityOperator",
    in: "PageTools.#read",
    original: "String(a?.name) > String(b?.name)",
    replacement: "String(a?.name) >= String(b?.name)",
    reason: "It changes only whether the comparator answers 0 or 1 where a's name is not before " +
      "b's; V8's sort (binary insertion and TimSort's merges alike) acts only on whether the " +
      "answer is below 0, so the tools come in the same order.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "EqualityOperator",
    in: "PageTools.#read",
    original: "String(a?.name) > String(b?.name)",
    replacement: "String(a?.name) <= String(b?.name)",
    reason: "It changes only whether the comparator answers 0 or 1 where a's name is not before " +
      "b's; V8's sort (binary insertion and TimSort's merges alike) acts only on whether the " +
      "answer is below 0, so the tools come in the same order.",
  },
];
