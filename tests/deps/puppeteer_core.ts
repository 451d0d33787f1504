/**
 * puppeteer-core, for the browser tests only. deno.json maps `"puppeteer-core"` here, not
 * to npm, so that `deno task start` never downloads it: the npm package is resolved only by what
 * imports this module, and tests run with their own lockfile, deno.test.lock (`deno task test`).
 * tests/cli/dependencies_test.ts keeps deno.json and deno.lock free of it.
 *
 * @module
 */
export * from "npm:puppeteer-core@25.16.0";
export { default } from "npm:puppeteer-core@25.16.0";
