/**
 * Mutants of bridge/upstream/ accepted as equivalent, each with its reason (the shape and the
 * matching: tests/mutate/equivalent.ts). Grouped by file, in the order of the file.
 *
 * @module
 */
import type { Equivalent } from "../equivalent.ts";

const WHOLE_COOKIE = "Read whole, a cookie gets the same verdict as its name: isAimCookie() " +
  "looks only at how the trimmed, lowercased, unprefixed text begins (`aim_`), and those first " +
  "characters hold no `=`; a part that begins with `=` has an empty name and is no one's.";

/** The accepted equivalents of bridge/upstream/. */
export const UPSTREAM_EQUIVALENTS: readonly Equivalent[] = [
  // bridge/upstream/headers.ts
  {
    file: "bridge/upstream/headers.ts",
    mutator: "ConditionalExpression",
    in: "isAimCookie",
    original: "bare === SESSION_COOKIE",
    replacement: "false",
    reason: "SESSION_COOKIE is `aim_session`, which begins with `aim_`: the test after it names " +
      "it too (tests/upstream/header_filter_test.ts holds every spelling).",
  },
  {
    file: "bridge/upstream/headers.ts",
    mutator: "ConditionalExpression",
    in: "appCookies",
    original: "eq < 0",
    replacement: "true",
    reason: WHOLE_COOKIE,
  },
  {
    file: "bridge/upstream/headers.ts",
    mutator: "EqualityOperator",
    in: "appCookies",
    original: "eq < 0",
    replacement: "eq <= 0",
    reason: WHOLE_COOKIE,
  },
  {
    file: "bridge/upstream/headers.ts",
    mutator: "MethodExpression",
    in: "appCookies",
    original: "part.slice(0, eq)",
    replacement: "part",
    reason: WHOLE_COOKIE,
  },
  {
    file: "bridge/upstream/headers.ts",
    mutator: "StringLiteral",
    in: "connectionListed",
    original: '""',
    replacement: '"Stryker was here!"',
    reason: "Without a Connection header it lists `stryker was here!`, which no header can be " +
      "named (a header name holds no space): no header is dropped for it.",
  },
  {
    file: "bridge/upstream/headers.ts",
    mutator: "ConditionalExpression",
    in: "connectionListed",
    original: "trimmed",
    replacement: "true",
    reason: "It lists the empty name too, and no header has an empty name: no header is " +
      "dropped for it.",
  },
  {
    file: "bridge/upstream/headers.ts",
    mutator: "ConditionalExpression",
    in: "clientResponseHeaders",
    original: "coding !== undefined",
    replacement: "true",
    reason: "`DECODED_BY_FETCH.has(undefined)` is false: without a Content-Encoding nothing is " +
      "stripped, as with the test.",
  },
  {
    file: "bridge/upstream/headers.ts",
    mutator: "ConditionalExpression",
    in: "clientResponseHeaders",
    original: "eq < 0",
    replacement: "true",
    reason: WHOLE_COOKIE,
  },
  {
    file: "bridge/upstream/headers.ts",
    mutator: "EqualityOperator",
    in: "clientResponseHeaders",
    original: "eq < 0",
    replacement: "eq <= 0",
    reason: WHOLE_COOKIE,
  },
  {
    file: "bridge/upstream/headers.ts",
    mutator: "MethodExpression",
    in: "clientResponseHeaders",
    original: "cookie.slice(0, eq)",
    replacement: "cookie",
    reason: WHOLE_COOKIE,
  },
];
