/**
 * Babel's parser, for `deno task mutate` only (tests/mutate/report.ts finds the function that
 * holds each mutant with it). The version Stryker's instrumenter parses with
 * (tests/mutate/stryker.lock), so that both read the source alike and share one download.
 *
 * @module
 */
export { parse } from "npm:@babel/parser@8.1.5";
