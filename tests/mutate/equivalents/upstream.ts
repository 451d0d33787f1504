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
  // bridge/upstream/routes.ts
  {
    file: "bridge/upstream/routes.ts",
    mutator: "CallExpression",
    in: "aimPaths",
    original: "seen.add(path);",
    replacement: ";",
    reason: "A route listed twice (hono lists one per method) then adds its alternative twice " +
      "to the patterns, which match the same paths.",
  },
  {
    file: "bridge/upstream/routes.ts",
    mutator: "StringLiteral",
    in: "decodeAscii",
    original: '"%"',
    replacement: '""',
    reason: "A short cut: a path without `%` has nothing to decode, so the first round changes " +
      "nothing and the loop ends on `next === path`.",
  },
  {
    file: "bridge/upstream/routes.ts",
    mutator: "ConditionalExpression",
    in: "decodeAscii",
    original: "next === path",
    replacement: "false",
    reason: "A short cut: once a round decodes nothing, the rounds left decode nothing either " +
      "(the same text, the same replacement), and the path returned is the same.",
  },
  {
    file: "bridge/upstream/routes.ts",
    mutator: "EqualityOperator",
    in: "resolve",
    original: "nul >= 0",
    replacement: "nul > 0",
    reason: "Every path read here begins with `/` (the front door and the catch-all route cut " +
      "it at the first slash after the authority, and decoding leaves that slash), so a NUL " +
      "is never at index 0.",
  },
  {
    file: "bridge/upstream/routes.ts",
    mutator: "ConditionalExpression",
    in: "resolve",
    original: 'segment !== "."',
    replacement: "true",
    reason: "`.` with its trailing dots dropped is the empty segment, which is skipped as `.` " +
      "is: the reading is the same.",
  },
  {
    file: "bridge/upstream/routes.ts",
    mutator: "StringLiteral",
    in: "resolve",
    original: '"."',
    replacement: '""',
    near: 'if (segment !== "." && segment !== "..") segment = segment.replace(/[. ]+$/, "");',
    reason: "`.` with its trailing dots dropped is the empty segment, which is skipped as `.` " +
      "is, and the empty segment is unchanged by the replacement: the reading is the same.",
  },
  {
    file: "bridge/upstream/routes.ts",
    mutator: "ConditionalExpression",
    in: "judge",
    original: 'plain && !raw.includes("%")',
    replacement: "false",
    reason: "A short cut: a plain path has no `;` and, without `%`, decodes to itself, so all " +
      "its readings are the one reading taken instead.",
  },
  {
    file: "bridge/upstream/routes.ts",
    mutator: "StringLiteral",
    in: "judge",
    original: '"%"',
    replacement: '""',
    reason: "A short cut: with it every path takes all its readings, and a plain path without " +
      "`%` has no other reading than the one taken instead.",
  },
  {
    file: "bridge/upstream/routes.ts",
    mutator: "BooleanLiteral",
    in: "judge",
    original: "false",
    replacement: "true",
    reason: "It cuts `;` parameters from a plain path, which has none (a `;` makes a path not " +
      "plain): the reading is the same.",
  },
  // bridge/upstream/sitemap.ts
  {
    file: "bridge/upstream/sitemap.ts",
    mutator: "Regex",
    in: "sitemapPaths",
    original: "/[?#].*$/s",
    replacement: "/[?#].*/s",
    reason: "With the `s` flag, a greedy `.*` already runs to the end of the text, and `$` " +
      "(without `m`) matches only there: both cut from the first `?` or `#` to the end.",
  },
];
