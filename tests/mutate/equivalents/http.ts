/**
 * Mutants of bridge/http/ accepted as equivalent, each with its reason (the shape and the
 * matching: tests/mutate/equivalent.ts). Grouped by file, in the order of the file.
 *
 * @module
 */
import type { Equivalent } from "../equivalent.ts";

/** The accepted equivalents of bridge/http/. */
export const HTTP_EQUIVALENTS: readonly Equivalent[] = [
  // bridge/http/credentials.ts
  {
    file: "bridge/http/credentials.ts",
    mutator: "ConditionalExpression",
    in: "secretCandidates",
    original: "value.length < SECRET_LENGTH",
    replacement: "false",
    reason: "A short cut: a value shorter than 43 characters holds no run of 43, so the loop " +
      "finds no candidate either.",
  },
  {
    file: "bridge/http/credentials.ts",
    mutator: "ConditionalExpression",
    in: "AimCredentials.issuedIn",
    original: "value.length < SECRET_LENGTH",
    replacement: "false",
    reason: "A short cut: secretCandidates() finds no candidate in a value shorter than 43 " +
      "characters, so none is pushed and the answer is undefined as with it.",
  },
  {
    file: "bridge/http/credentials.ts",
    mutator: "ArrayDeclaration",
    in: "AimCredentials.issued",
    original: "[]",
    replacement: '["Stryker was here"]',
    reason: "The array only collects promises for Promise.all, which takes a plain string as " +
      "an already resolved value: the answer, and when it comes, are the same.",
  },
  {
    file: "bridge/http/credentials.ts",
    mutator: "ConditionalExpression",
    in: "withoutSecrets",
    original: "secrets.size === 0",
    replacement: "false",
    reason: "A short cut: with no secret, no member carries one, so every member is kept and " +
      "the value is returned unchanged as with it.",
  },
];
