/**
 * Mutants of bridge/http/ accepted as equivalent, each with its reason (the shape and the
 * matching: tests/mutate/equivalent.ts). Grouped by file, in the order of the file.
 *
 * @module
 */
import type { Equivalent } from "../equivalent.ts";

const HOT_PATH_CHECKS = "A short cut before the Host check: the hot path " +
  "(bridge/http/fast_reads.ts) itself answers nothing but a GET without a query of a path " +
  "ending in .json or .toon, so the request is left to the router all the same (the Host " +
  "check in between only remembers a verdict).";

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
  // bridge/http/front_door.ts
  {
    file: "bridge/http/front_door.ts",
    mutator: "ConditionalExpression",
    in: "frontDoor",
    original: "!reads && !app",
    replacement: "false",
    reason: "A short cut: with neither, the handler takes every path as a manifest's and, " +
      "without the hot path, leaves it to the router: undefined, as the short cut answers.",
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "StringLiteral",
    in: "frontDoor.originOf",
    original: '""',
    replacement: '"Stryker was here!"',
    near: ': "";',
    reason: "Without a trusted proxy every request gets the same constant here, whichever it " +
      "is: remembered verdicts compare equal as before.",
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "ConditionalExpression",
    in: "frontDoor.originOf",
    original: "known === undefined || known.prefix.length !== pathStart || " +
      "!url.startsWith(known.prefix) || known.forwarded !== forwarded",
    replacement: "true",
    reason: "The Host check then runs on every request instead of once per Host: the same " +
      "verdicts, at the cost of the check (the cache's own misses are held by " +
      "tests/unit/front_door_test.ts).",
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "MethodExpression",
    in: "frontDoor.originOf",
    original: "url.slice(0, pathStart)",
    replacement: "url",
    reason: "A remembered prefix that is the whole URL is longer than any later request's " +
      "authority, so the verdict is checked anew each time: the same verdicts, uncached.",
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "CallExpression",
    in: "frontDoor.originOf",
    original: "hosts.set(host, known);",
    replacement: ";",
    reason: "Nothing remembered: the Host check runs on every request, with the same verdicts.",
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "ConditionalExpression",
    in: "frontDoor",
    original: "pathStart < 0",
    replacement: "false",
    reason: "A Request's URL is always absolute with a path (`new Request` and Deno.serve " +
      "both give at least `/`), so a slash always follows the authority.",
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "EqualityOperator",
    in: "frontDoor",
    original: "pathStart < 0",
    replacement: "pathStart <= 0",
    reason: "The path's slash follows `scheme://authority`, so it is never at index 0.",
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "ConditionalExpression",
    in: "frontDoor",
    original: "query >= 0",
    replacement: "false",
    reason: HOT_PATH_CHECKS,
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "EqualityOperator",
    in: "frontDoor",
    original: "query >= 0",
    replacement: "query > 0",
    reason: HOT_PATH_CHECKS,
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "ConditionalExpression",
    in: "frontDoor",
    original: 'request.method !== "GET"',
    replacement: "false",
    reason: HOT_PATH_CHECKS,
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "ConditionalExpression",
    in: "frontDoor",
    original: '!path.endsWith(".json") && !path.endsWith(".toon")',
    replacement: "false",
    reason: HOT_PATH_CHECKS,
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "StringLiteral",
    in: "frontDoor",
    original: '".json"',
    replacement: '""',
    reason: HOT_PATH_CHECKS,
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "StringLiteral",
    in: "frontDoor",
    original: '".toon"',
    replacement: '""',
    reason: HOT_PATH_CHECKS,
  },
  {
    file: "bridge/http/front_door.ts",
    mutator: "EqualityOperator",
    in: "frontDoor",
    original: "query < 0",
    replacement: "query <= 0",
    reason: "A `?` is looked for from the path's slash on, past `scheme://authority`, so it is " +
      "never at index 0.",
  },
];
