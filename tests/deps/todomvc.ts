/**
 * TodoMVC (`todomvc` on npm: the TodoMVC project's app, written with each of many frameworks),
 * for tests/browser/todomvc_test.ts only. deno.json does not map it: the test imports this module,
 * so `deno task start` never downloads it, and it is locked in deno.test.lock
 * (`deno task test`). Its files are read where Deno's cache keeps the package.
 *
 * @module
 */
export { default as TODOMVC_PACKAGE } from "npm:todomvc@0.1.1/package.json" with { type: "json" };

/** The folder of the package's files, in Deno's cache. */
export const TODOMVC_DIR: URL = new URL(
  "./",
  import.meta.resolve("npm:todomvc@0.1.1/package.json"),
);
