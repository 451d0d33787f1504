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

const REMEMBERED = "A remembered answer only: without it the same answer is worked out " +
  "again, so every request gets what it got before.";

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
  // bridge/http/request.ts
  {
    file: "bridge/http/request.ts",
    mutator: "OptionalChaining",
    in: "addressOf",
    original: "hops?.[hops.length - 1]?.trim",
    replacement: "hops?.[hops.length - 1].trim",
    reason:
      "`split()` of a string always gives at least one part, so the last hop is a string whenever " +
      "there are hops (and with no header the chain stops at `hops?.`).",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "ConditionalExpression",
    in: "requestOrigin",
    original: "hostHeader !== undefined",
    replacement: "true",
    reason:
      "Without a Host header the shape is tested on `undefined`, which RegExp reads as the text " +
      '"undefined", a well-formed name: the header is let through either way.',
  },
  {
    file: "bridge/http/request.ts",
    mutator: "BlockStatement",
    in: "requestOrigin",
    original: "{ return null; }",
    replacement: "{}",
    near: "} catch { return null; }",
    reason:
      "The first of the two: a Request's url is always written by the URL parser, so urlOrigin() " +
      "throws only for a url that `new URL()` just below refuses too, which answers null.",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "OptionalChaining",
    in: "requestOrigin",
    original: 'req.header("X-Forwarded-Proto")?.split(",")[0]?.trim',
    replacement: 'req.header("X-Forwarded-Proto")?.split(",")[0].trim',
    reason: "`split()` of a string always gives a first part, so `[0]` is never undefined.",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "OptionalChaining",
    in: "requestOrigin",
    original: 'req.header("X-Forwarded-Host")?.split(",")[0]?.trim',
    replacement: 'req.header("X-Forwarded-Host")?.split(",")[0].trim',
    reason: "`split()` of a string always gives a first part, so `[0]` is never undefined.",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "ConditionalExpression",
    in: "urlOrigin",
    original: "end < 0",
    replacement: "true",
    reason:
      "The origin of the whole URL is the origin of its scheme and authority: only the key under " +
      "which it is remembered changes.",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "EqualityOperator",
    in: "urlOrigin",
    original: "end < 0",
    replacement: "end <= 0",
    reason: "The slash is looked for past `scheme://`, so it is never at index 0.",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "MethodExpression",
    in: "urlOrigin",
    original: "url.slice(0, end)",
    replacement: "url",
    reason:
      "The origin of the whole URL is the origin of its scheme and authority: only the key under " +
      "which it is remembered changes.",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "ConditionalExpression",
    in: "urlOrigin",
    original: "origin === undefined",
    replacement: "true",
    reason: REMEMBERED,
  },
  {
    file: "bridge/http/request.ts",
    mutator: "CallExpression",
    in: "urlOrigin",
    original: "origins.set(prefix, origin);",
    replacement: ";",
    reason: REMEMBERED,
  },
  {
    file: "bridge/http/request.ts",
    mutator: "StringLiteral",
    in: "readJson",
    original: '""',
    replacement: '"Stryker was here!"',
    reason:
      "Without a Content-Type the type read is not application/json either way: the same 400.",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "ConditionalExpression",
    in: "readJson",
    original: "declared !== undefined",
    replacement: "true",
    reason:
      "`undefined > maxBytes` is false: without a declared length the test is false either way.",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "CallExpression",
    in: "readJson",
    original: "late.catch(() => {});",
    replacement: ";",
    reason:
      "`late` rejects only once its timer fires, and the timer is cleared as soon as the race is " +
      "decided: a rejection of it is always the race's, which is awaited.",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "ConditionalExpression",
    in: "readJson",
    original: "declared === undefined",
    replacement: "true",
    near: "const limit = declared === undefined",
    reason:
      "Hono's bodyLimit, given a Content-Length, checks it against the limit and counts nothing; " +
      "the declared length is already within the limit here, so it only calls on to the read.",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "ArrowFunction",
    in: "readJson",
    original: "() => Promise.resolve()",
    replacement: "() => undefined",
    reason:
      "Hono's bodyLimit awaits what its `next` returns; awaiting undefined and a resolved promise " +
      "go on alike.",
  },
  {
    file: "bridge/http/request.ts",
    mutator: "ConditionalExpression",
    in: "isAllowedHost",
    original: "verdict === undefined",
    replacement: "true",
    reason: REMEMBERED,
  },
  {
    file: "bridge/http/request.ts",
    mutator: "CallExpression",
    in: "isAllowedHost",
    original: "hostVerdicts.set(key, verdict);",
    replacement: ";",
    reason: REMEMBERED,
  },
];
