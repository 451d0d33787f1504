/**
 * React's JSX runtime, for the React todo app of the browser tests only
 * (tests/apps/react/). deno.json maps `"react/jsx-runtime"` here, not to npm, so that
 * `deno task start` never downloads it; it is locked in deno.test.lock (`deno task test`).
 * tests/cli/dependencies_test.ts keeps deno.json and deno.lock free of it.
 *
 * @module
 */
export * from "npm:react@19.2.1/jsx-runtime";
