/**
 * fast-json-patch, an implementation of JSON Patch (RFC 6902) independent of aim's, for the tests
 * only: the patches the bridge creates are applied with it. Imported by relative path, not mapped
 * in deno.json, so that `deno task start` never downloads it; locked in deno.test.lock.
 * tests/cli/dependencies_test.ts keeps deno.json and deno.lock free of it.
 *
 * @module
 */
export { default } from "npm:fast-json-patch@3.1.1";
