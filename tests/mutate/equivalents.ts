/**
 * Mutants accepted as equivalent, each with its reason (see tests/mutate/equivalent.ts for how one
 * is matched). `deno task mutate FILE` prints, for each survivor that no entry matches, an entry
 * to paste here once it is clear that no test can kill it; a survivor that a test can kill gets
 * the test instead. Grouped by file, in the order of the file.
 *
 * @module
 */
import type { Equivalent } from "./equivalent.ts";

/** Every mutant accepted as equivalent. */
export const EQUIVALENTS: readonly Equivalent[] = [];
