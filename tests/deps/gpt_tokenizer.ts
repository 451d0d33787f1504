/**
 * gpt-tokenizer's o200k_base encoding (the tokenizer of GPT-4o and later), for the token
 * benchmark only (bench/tokens.ts). deno.json maps `"gpt-tokenizer"` here, not to npm, so that
 * `deno task start` never downloads it: the npm package is resolved only by what imports this
 * module, and it is locked in deno.test.lock (`deno task bench:tokens`).
 * tests/cli/dependencies_test.ts keeps deno.json and deno.lock free of it.
 *
 * @module
 */
export * from "npm:gpt-tokenizer@4.0.0/encoding/o200k_base";
