/**
 * Named mutants of the modules that `.ci/untested.ts` found without a test importing them (issue
 * 32, item 2), now tested directly: each breaks one rule of one module in one line, and that
 * module's own test goes red.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "input-bounds-constructor-key-taken",
    guarantee: "A key named constructor is refused in any input, as __proto__ and prototype are.",
    file: "bridge/wire/input_bounds.ts",
    find: '  "constructor",\n',
    replace: "",
    tests: ["tests/unit/input_bounds_test.ts"],
  },
  {
    name: "input-bounds-items-off-by-one",
    guarantee: "An array of exactly INPUT_LIMITS.items items is within the bounds.",
    file: "bridge/wire/input_bounds.ts",
    find: "if (value.length > INPUT_LIMITS.items) {",
    replace: "if (value.length >= INPUT_LIMITS.items) {",
    tests: ["tests/unit/input_bounds_test.ts"],
  },
];
