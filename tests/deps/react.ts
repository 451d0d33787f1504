/**
 * React, for the React todo app of the browser tests only (tests/apps/react/).
 * deno.json maps `"react"` here, not to npm, so that `deno task start` never downloads it: the
 * app is bundled at test time and React is locked in deno.test.lock (`deno task test`).
 * tests/cli/dependencies_test.ts keeps deno.json and deno.lock free of it.
 *
 * @module
 */
export * from "npm:react@19.2.1";
export { default } from "npm:react@19.2.1";
