/**
 * fast-check, for the property tests only. deno.json maps `"fast-check"` here, not to npm,
 * so that `deno task start` never downloads it: the npm package is resolved only by what imports
 * this module, and tests run with their own lockfile, deno.test.lock (`deno task test`).
 * tests/cli/dependencies_test.ts keeps deno.json and deno.lock free of it.
 *
 * @module
 */
export * from "npm:fast-check@4.11.0";
export { default } from "npm:fast-check@4.11.0";
