/**
 * Named mutants of the layer check (.ci/layers.ts) and of the session token's shape:
 * an import the table does not list fails `deno task check`, and only a token-shaped string is
 * looked up.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "layers-allow-any-import",
    guarantee: "An import from a folder to one the layer table does not list (an upward one) " +
      "fails the check, naming both files.",
    file: ".ci/layers.ts",
    find: 'if (layer?.imports.includes("*") || layer?.imports.includes(theirs)) continue;',
    replace: "continue;",
    tests: ["tests/unit/layers_test.ts"],
  },
  {
    name: "layers-table-cycle-unseen",
    guarantee: "A layer table in which two folders may import each other is itself refused.",
    file: ".ci/layers.ts",
    find: 'if (seen === "open") cycles.push(',
    replace: 'if (seen === "never") cycles.push(',
    tests: ["tests/unit/layers_test.ts"],
  },
  {
    name: "token-shape-any-length",
    guarantee: "Only 43 base64url characters are taken for a token; anything else is refused " +
      "before a lookup.",
    file: "bridge/core/tokens.ts",
    find: "const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;",
    replace: "const TOKEN_SHAPE = /^[A-Za-z0-9_-]+$/;",
    tests: ["tests/unit/tokens_test.ts"],
  },
];
