/**
 * json-merge-patch, an implementation of JSON Merge Patch (RFC 7396) independent of aim's, for the
 * tests only: the merge patches the bridge creates are applied with it. Imported by relative
 * path, not mapped in deno.json, so that `deno task start` never downloads it; locked in
 * deno.test.lock. tests/cli/dependencies_test.ts keeps deno.json and deno.lock free of it.
 *
 * @module
 */
export { default } from "npm:json-merge-patch@1.0.2";
