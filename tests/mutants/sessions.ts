/**
 * Named mutants of session guarantees: what ends a session ends every read at once.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [];
