/**
 * Pattern limits, errors and the pieces of RE2 syntax that keep ECMAScript's meaning: what the
 * pattern parser (pattern_parser.ts) and compiler (pattern_cache.ts) share.
 *
 * @module
 */

// ---------------------------------------------------------------------------------------------
// Patterns. An `input_schema.pattern` comes from markup or from a tab, and runs on the bridge
// against agent input: a backtracking engine (`RegExp`) would let `^(a+)+$` freeze the event
// loop. So the bridge reads the pattern as ECMAScript (`u` flag, as JSON Schema asks) and runs
// it with RE2 (re2js), which matches in time linear in the input and the pattern's size.
//
// Where RE2 and ECMAScript `u` differ, the translation below keeps ECMAScript's meaning:
// `.` excludes \n, \r, U+2028 and U+2029; `\s` and `\S` are ECMAScript's white space; `[]`
// matches nothing and `[^]` anything; `\uXXXX\uXXXX` pairs, `\u{…}`, `\cX` and `\0` are
// translated; groups do not capture (nothing reads captures). What RE2 cannot do is refused
// when the action is registered, with a message that names it:
// - lookahead `(?=` `(?!`, lookbehind `(?<=` `(?<!` and backreferences `\1` `\k<name>`;
// - the `m` modifier (`(?m:…)`); `(?i:…)` and `(?s:…)` are kept;
// - repetition counts above 1000 (`a{1001}`), and patterns whose RE2 program has more than
//   MAX_PATTERN_SIZE instructions (an action's together: MAX_ACTION_PATTERN_SIZE); RE2 also
//   refuses nested counts whose product passes 1000;
// - `\p{…}` other than general categories (`\p{L}`, `\p{Letter}`, `\p{gc=Lu}`), scripts by
//   their long name (`\p{Script=Greek}`), `Any`, `ASCII` and `Assigned`; the Unicode version
//   of re2js's tables may differ slightly from V8's.
// Case folding in `(?i:…)` is RE2's simple folding, which equals ECMAScript's `u`
// canonicalization but for rare characters.
// A value is checked only when its length times its pattern's cost per character stays within
// PATTERN_BUDGET (for an object, all its patterned fields together), and never past
// MAX_PATTERN_INPUT characters: longer input is invalid_input before any matching. Each
// pattern's lazy DFA is kept small (DFA_MEMORY), and the pattern cache is bounded by size.

/** The longest value (in UTF-16 code units) checked against a pattern; the HTTP body limit. */
export const MAX_PATTERN_INPUT = 65_536;
/**
 * The work one input may cost its patterns, in units of one character against one instruction:
 * a value costs its length times (its pattern's program size + PATTERN_CHAR_COST). RE2's
 * slowest path (a DFA that thrashes, then the NFA) costs 40 to 70 ns a unit on a busy 2-core
 * machine, so the checks of one input stay within some 40 to 70 ms.
 */
export const PATTERN_BUDGET = 1_000_000;
/** What each character costs beside its pattern's instructions, in the same units. */
export const PATTERN_CHAR_COST = 20;
/**
 * The most instructions one pattern's RE2 program may have, once its repetitions are counted
 * (RE2 itself allows far more). Compiling 1,000 takes some 1.5 ms; parseActionSpec also bounds
 * the total of one action's patterns by MAX_ACTION_PATTERN_SIZE.
 */
export const MAX_PATTERN_SIZE = 1000;
/** The most RE2 instructions the patterns of one action may compile to together. */
export const MAX_ACTION_PATTERN_SIZE = 2000;
/** The longest pattern source read at all; the wire schema allows 512. */
export const MAX_PATTERN_SOURCE = 4096;
/** The most repetitions of one part, as RE2 allows. */
export const MAX_REPEAT = 1000;

/** A pattern the bridge does not run; the message says why, as a predicate of the pattern. */
export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatternError";
  }
}

/** A node of a parsed ECMAScript pattern. */
export type PatternNode =
  | { type: "alt"; alts: PatternNode[] }
  | { type: "seq"; items: PatternNode[] }
  | { type: "group"; body: PatternNode; ignoreCase?: boolean }
  | { type: "repeat"; body: PatternNode; min: number; max: number; lazy: boolean }
  | { type: "assert"; kind: "^" | "$" | "\\b" | "\\B" }
  | {
    type: "atom";
    /** The atom in RE2 syntax. */
    re2: string;
    /** The atom as written, for a `RegExp` with the flags below. */
    source: string;
    ignoreCase: boolean;
    dotAll: boolean;
  };

/** A pattern ready to check values: RE2, with its size and the longest value it checks. */
export interface CompiledPattern {
  readonly source: string;
  /** Instructions of the RE2 program. */
  readonly program: number;
  /** What checking one character costs: `program + PATTERN_CHAR_COST` units. */
  readonly unitCost: number;
  /** The longest value this pattern checks. */
  readonly maxInput: number;
  /** Whether the pattern matches somewhere in `value` (as `RegExp.prototype.test`). */
  test(value: string): boolean;
}

const SPACE_RANGES: [number, number][] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

export function hex(cp: number): string {
  return `\\x{${cp.toString(16)}}`;
}

function rangesBody(ranges: [number, number][]): string {
  return ranges.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join("");
}

function complement(ranges: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [a, b] of ranges) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

/** ECMAScript's `\s` as the body of an RE2 class (RE2's own `\s` lacks \v and Unicode spaces). */
export const SPACE: string = rangesBody(SPACE_RANGES);
export const NOT_SPACE: string = rangesBody(complement(SPACE_RANGES));
/** ECMAScript's `.` without the `s` flag. */
export const DOT = `[^${hex(0x0a)}${hex(0x0d)}${hex(0x2028)}${hex(0x2029)}]`;
/** A class that matches nothing: ECMAScript's `[]`. */
export const NOTHING = `[^${hex(0)}-${hex(0x10ffff)}]`;

/** General categories, by every name ECMAScript accepts, to the short name RE2 knows. */
const CATEGORIES: Record<string, string> = Object.assign(Object.create(null), {
  Letter: "L",
  Cased_Letter: "LC",
  Uppercase_Letter: "Lu",
  Lowercase_Letter: "Ll",
  Titlecase_Letter: "Lt",
  Modifier_Letter: "Lm",
  Other_Letter: "Lo",
  Mark: "M",
  Combining_Mark: "M",
  Nonspacing_Mark: "Mn",
  Spacing_Mark: "Mc",
  Enclosing_Mark: "Me",
  Number: "N",
  Decimal_Number: "Nd",
  digit: "Nd",
  Letter_Number: "Nl",
  Other_Number: "No",
  Punctuation: "P",
  punct: "P",
  Connector_Punctuation: "Pc",
  Dash_Punctuation: "Pd",
  Open_Punctuation: "Ps",
  Close_Punctuation: "Pe",
  Initial_Punctuation: "Pi",
  Final_Punctuation: "Pf",
  Other_Punctuation: "Po",
  Symbol: "S",
  Math_Symbol: "Sm",
  Currency_Symbol: "Sc",
  Modifier_Symbol: "Sk",
  Other_Symbol: "So",
  Separator: "Z",
  Space_Separator: "Zs",
  Line_Separator: "Zl",
  Paragraph_Separator: "Zp",
  Other: "C",
  Control: "Cc",
  cntrl: "Cc",
  Format: "Cf",
  Surrogate: "Cs",
  Private_Use: "Co",
  Unassigned: "Cn",
});
for (const short of Object.values(CATEGORIES)) CATEGORIES[short] = short;

export const LINEAR = "the bridge matches patterns with RE2, in linear time, which has no";

/** `\p{body}` or `\P{body}` in RE2 syntax; `inClass` when it goes inside `[…]`. */
export function unicodeProperty(body: string, negated: boolean, inClass: boolean): string {
  const written = `\\${negated ? "P" : "p"}{${body}}`;
  const eq = body.indexOf("=");
  const name = eq < 0 ? body : body.slice(0, eq);
  const value = eq < 0 ? undefined : body.slice(eq + 1);
  let re2Name: string;
  if (value !== undefined) {
    if ((name === "General_Category" || name === "gc") && CATEGORIES[value]) {
      re2Name = CATEGORIES[value];
    } else if ((name === "Script" || name === "sc") && /^[A-Za-z_]+$/.test(value)) {
      re2Name = value;
    } else {
      throw new PatternError(`uses ${written}, which the bridge's matcher does not support`);
    }
  } else if (CATEGORIES[body]) {
    re2Name = CATEGORIES[body];
  } else if (body === "Any") {
    re2Name = "Any";
  } else if (body === "Assigned") {
    return `\\${negated ? "p" : "P"}{Cn}`;
  } else if (body === "ASCII") {
    const range = negated ? `${hex(0x80)}-${hex(0x10ffff)}` : `${hex(0)}-${hex(0x7f)}`;
    return inClass ? range : `[${range}]`;
  } else {
    throw new PatternError(
      `uses ${written}, a property the bridge's matcher does not support (use a general ` +
        "category such as \\p{L}, or a script such as \\p{Script=Greek})",
    );
  }
  return `\\${negated ? "P" : "p"}{${re2Name}}`;
}

export function literal(cp: number): string {
  return /[A-Za-z0-9_]/.test(String.fromCodePoint(cp)) ? String.fromCodePoint(cp) : hex(cp);
}

export const SIMPLE_ESCAPES: Map<string, number> = new Map([["f", 0x0c], ["n", 0x0a], ["r", 0x0d], [
  "t",
  0x09,
], [
  "v",
  0x0b,
]]);
export const SYNTAX_CHARS = "^$\\.*+?()[]{}|/";

export interface Flags {
  ignoreCase: boolean;
  dotAll: boolean;
}
