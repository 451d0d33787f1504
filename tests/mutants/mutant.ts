/**
 * The shape of a named mutant: one small change to one file that breaks one guarantee, and the
 * test files that must go red when it is applied. `deno task mutants` (tests/mutants/run.ts)
 * applies each in turn to a scratch copy of the repository and reports the survivors.
 *
 * @module
 */

/** One named mutant. */
export interface Mutant {
  /** Unique, kebab-case: `tab-key-in-events`. */
  name: string;
  /** The guarantee it breaks, one sentence. */
  guarantee: string;
  /** The file it changes, relative to the repository root. */
  file: string;
  /** Text that occurs exactly once in `file`. */
  find: string;
  /** What replaces it. */
  replace: string;
  /** Test files, relative to the repository root, of which at least one must fail. */
  tests: string[];
  /** Environment for the test run (for example `AIM_TEST_FAST_READS=0`). */
  env?: Record<string, string>;
}
