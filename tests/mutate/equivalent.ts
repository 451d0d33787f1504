/**
 * The shape of a mutant accepted as equivalent: one Stryker mutant that no test can kill because
 * the program behaves the same with it (or differs only where no guarantee is at stake, such as a
 * log line), with the reason. tests/mutate/equivalents.ts lists them; `deno task mutate` counts a
 * survivor that one of them matches as listed, not as a failure.
 *
 * A mutant is matched by what it is, not by where it is: its file, its mutator, the function that
 * holds it, the source text it replaces and the text it puts there. A line added above it, or an
 * edit of another function, leaves the entry matching; a change of the mutated text itself, or a
 * move of it into another function, does not, and the run then shows the mutant as a survivor to
 * look at again (and the entry as stale). Where one function holds the same text mutated the same
 * way twice, `near` tells them apart by the text of the mutant's line.
 *
 * @module
 */

/** One mutant accepted as equivalent. */
export interface Equivalent {
  /** The mutated module, relative to the repository root. */
  file: string;
  /** Stryker's mutator name, as the report prints it: `ConditionalExpression`, `StringLiteral`. */
  mutator: string;
  /**
   * The named functions that hold the mutant, outermost first, joined by dots, a class member
   * (a method, or a field's initializer) with its class: `mergeHints`, `PageTools.#read`,
   * `ApproveGate.#moved`, `startPageTools.sync`; `(top level)` outside any named function or
   * field (an anonymous function counts as the named one around it).
   */
  in: string;
  /** The source text the mutant replaces, with each run of white space written as one space. */
  original: string;
  /** The text Stryker puts there, as its report prints it (white space likewise). */
  replacement: string;
  /**
   * Text of the line (or lines) the mutant is on, to tell apart mutants that the five values
   * above do not (the same `[]` twice in one function); left out, the entry names every mutant
   * with those values.
   */
  near?: string;
  /** Why no test can tell the difference, or why the difference guards nothing: a sentence. */
  reason: string;
}
