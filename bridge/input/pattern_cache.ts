/**
 * Compiling a pattern for RE2 with its lazy DFA's memory bounded, and the bounded cache of
 * compiled patterns.
 *
 * @module
 */
import { RE2JS } from "re2js";
import {
  type CompiledPattern,
  MAX_PATTERN_INPUT,
  MAX_PATTERN_SIZE,
  PATTERN_BUDGET,
  PATTERN_CHAR_COST,
  PatternError,
} from "./pattern.ts";
import { parsePattern, patternSize, toRE2 } from "./pattern_parser.ts";

/** Memory the lazy DFA of one pattern may use while it checks a value (re2js's default: 8 MiB). */
const DFA_MEMORY = 256 * 1024;
/** DFA memory a pattern keeps between checks; more is dropped after the check. */
const DFA_KEPT = 32 * 1024;

/** The parts of re2js's (2.10) internals that bound a pattern's DFA memory. */
interface LazyDfa {
  stateBudget: number;
  memBudget: number;
  clearCache(): void;
}
interface Re2Internals {
  prog: unknown;
  lazyDFA: LazyDfa | null;
  readonly dfa: LazyDfa;
}

/**
 * Gives `re` a DFA of DFA_MEMORY bytes instead of re2js's 8 MiB: thousands of cached patterns
 * would otherwise keep gigabytes, and a smaller DFA gives up sooner on inputs that thrash it.
 * Returns the DFA, or null when re2js's internals are not what this version has (a test fails).
 */
function boundDfa(re: RE2JS): LazyDfa | null {
  const inner = (re as unknown as { re2Input?: Re2Internals }).re2Input;
  const dfa = inner?.dfa;
  if (!inner || !dfa || typeof dfa.clearCache !== "function") return null;
  const Dfa = dfa.constructor as new (prog: unknown, maxMem: number) => LazyDfa;
  inner.lazyDFA = new Dfa(inner.prog, DFA_MEMORY);
  return inner.lazyDFA;
}

/** re2js's DFA of a compiled pattern, for tests; null when the internals changed. */
export function patternDfa(pattern: CompiledPattern): LazyDfa | null {
  return (pattern as CompiledPattern & { dfa?: LazyDfa | null }).dfa ?? null;
}

function compileUncached(source: string): CompiledPattern {
  const tree = parsePattern(source);
  const tooLarge = (size: number) =>
    new PatternError(
      `is too large for the bridge's matcher: its repetitions expand to about ${size} steps, ` +
        `more than ${MAX_PATTERN_SIZE}`,
    );
  // The estimate spares compiling what is far too large; the program's size decides.
  const estimate = patternSize(tree);
  if (estimate > 2 * MAX_PATTERN_SIZE) throw tooLarge(estimate);
  let re: RE2JS;
  try {
    re = RE2JS.compile(toRE2(tree));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PatternError(`is refused by the bridge's matcher (RE2): ${reason}`);
  }
  const program = Math.max(1, re.programSize());
  if (program > MAX_PATTERN_SIZE) throw tooLarge(program);
  const dfa = boundDfa(re);
  return {
    source,
    program,
    unitCost: program + PATTERN_CHAR_COST,
    maxInput: Math.min(
      MAX_PATTERN_INPUT,
      Math.floor(PATTERN_BUDGET / (program + PATTERN_CHAR_COST)),
    ),
    dfa,
    test(value: string): boolean {
      try {
        return re.test(value);
      } finally {
        if (dfa && dfa.stateBudget - dfa.memBudget > DFA_KEPT) dfa.clearCache();
      }
    },
  } as CompiledPattern;
}

/**
 * Compiled patterns (and refusals) by source, most recently used last: tabs register the same
 * few again and again. Bounded by their programs' total size, so that what they keep (about
 * 100 bytes an instruction, and at most DFA_KEPT of DFA each) stays within some 50 MB.
 */
const patterns = new Map<string, CompiledPattern | PatternError>();
const MAX_CACHED_INSTRUCTIONS = 250_000;
const MAX_PATTERNS = 2000;
let cachedInstructions = 0;

/** What the pattern cache holds now: patterns (and refusals), and their instructions. */
export function patternCacheSize(): { patterns: number; instructions: number } {
  return { patterns: patterns.size, instructions: cachedInstructions };
}

/** The most instructions the pattern cache keeps. */
export const PATTERN_CACHE_INSTRUCTIONS = MAX_CACHED_INSTRUCTIONS;

/**
 * The pattern `source` (ECMAScript, `u` flag) compiled for RE2, once per source while it is
 * cached. Validators look their patterns up here on each check rather than hold them, so the
 * cache alone bounds what patterns keep.
 *
 * @throws {PatternError} naming what the bridge cannot run.
 */
export function compilePattern(source: string): CompiledPattern {
  let entry = patterns.get(source);
  if (entry !== undefined) {
    // Most recently used last.
    patterns.delete(source);
    patterns.set(source, entry);
  } else {
    try {
      entry = compileUncached(source);
    } catch (error) {
      if (!(error instanceof PatternError)) throw error;
      entry = error;
    }
    patterns.set(source, entry);
    if (!(entry instanceof PatternError)) cachedInstructions += entry.program;
    while (
      (cachedInstructions > MAX_CACHED_INSTRUCTIONS || patterns.size > MAX_PATTERNS) &&
      patterns.size > 1
    ) {
      const [oldest, evicted] = patterns.entries().next().value!;
      patterns.delete(oldest);
      if (!(evicted instanceof PatternError)) cachedInstructions -= evicted.program;
    }
  }
  if (entry instanceof PatternError) throw entry;
  return entry;
}
