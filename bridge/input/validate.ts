/**
 * @module Validating an invocation's input against an action's `input_schema`, with zod,
 * and explaining a mismatch in words an agent can act on. Patterns run with RE2 (re2js), in
 * time linear in the input: see "Patterns" below. Server only: the browser bundle never
 * imports this module.
 */
import { z } from "zod";
import { RE2JS } from "re2js";
import { AimError } from "../wire/errors.ts";
import { SECRET_KEY } from "../markup/action.ts";
import type {
  ActionSpec,
  FieldSchema,
  InputSchema,
  NumberSchema,
  ObjectSchema,
  StringSchema,
} from "../wire/schemas.ts";

/**
 * Validators by schema text: every tab registers its own copies of the same schemas, and one
 * validator per distinct schema keeps 10,000 sessions from holding 10,000 copies.
 */
const compiled = new Map<string, z.ZodType>();
const MAX_COMPILED = 2000;

function stringValidator(schema: StringSchema): z.ZodType<string> {
  let out = z.string();
  if (schema.minLength !== undefined) out = out.min(schema.minLength);
  if (schema.maxLength !== undefined) out = out.max(schema.maxLength);
  if (schema.pattern !== undefined) {
    const source = schema.pattern;
    compilePattern(source);
    out = out.check((ctx) => {
      // Looked up on each check (a cached map lookup): the pattern cache bounds its memory.
      const pattern = compilePattern(source);
      const value = ctx.value;
      if (value.length > pattern.maxInput) {
        // Refused before any matching: the cost of a check grows with the value's length.
        ctx.issues.push({
          code: "custom",
          input: value,
          message: `must be at most ${pattern.maxInput} characters long to be checked ` +
            `against its pattern (it has ${value.length})`,
        });
      } else if (!pattern.test(value)) {
        ctx.issues.push({
          code: "custom",
          input: value,
          message: `must match the pattern ${schema.pattern}`,
        });
      }
    });
  }
  if (schema.enum) {
    const allowed = new Set(schema.enum);
    return out.refine((v) => allowed.has(v), `must be one of ${JSON.stringify(schema.enum)}`);
  }
  return out;
}

/**
 * A number, exactly as JSON Schema says: `integer` refuses 1.5 (and any string, "1" too);
 * `minimum` and `maximum` are inclusive.
 */
function numberValidator(schema: NumberSchema): z.ZodType<number> {
  let out = schema.type === "integer" ? z.int() : z.number();
  if (schema.minimum !== undefined) out = out.min(schema.minimum);
  if (schema.maximum !== undefined) out = out.max(schema.maximum);
  return out;
}

/** The validator of one field, or of an input that is not an object. */
function fieldValidator(schema: FieldSchema): z.ZodType {
  if (schema.type === "string") return stringValidator(schema);
  if (schema.type === "boolean") return z.boolean();
  return numberValidator(schema);
}

function objectValidator(schema: ObjectSchema): z.ZodType {
  const required = new Set(schema.required ?? []);
  const shape: Record<string, z.ZodType> = {};
  const patterned: [string, string][] = [];
  for (const [name, field] of Object.entries(schema.properties)) {
    shape[name] = required.has(name) ? fieldValidator(field) : fieldValidator(field).optional();
    if (field.type === "string" && field.pattern !== undefined) {
      patterned.push([name, field.pattern]);
    }
  }
  const fields = z.strictObject(shape);
  if (patterned.length < 2) return fields;
  // Each field keeps within the budget alone; together they must too, before any matching.
  const names = patterned.map(([name]) => `"${name}"`).join(", ");
  return z.unknown().check((ctx) => {
    const value = ctx.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return;
    let cost = 0;
    for (const [name, source] of patterned) {
      const field = Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : null;
      if (typeof field === "string") cost += field.length * compilePattern(source).unitCost;
    }
    if (cost > PATTERN_BUDGET) {
      ctx.issues.push({
        code: "custom",
        input: value,
        message: `the fields ${names} are too long to be checked against their patterns ` +
          "together; send shorter values",
      });
    }
  }).pipe(fields);
}

/**
 * The zod validator of an `input_schema`, compiled once per schema object.
 *
 * @throws {PatternError} when a pattern cannot run on the bridge; parseActionSpec refuses
 * such schemas first.
 */
export function inputValidator(schema: InputSchema): z.ZodType {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  const validator = schema.type === "object" ? objectValidator(schema) : fieldValidator(schema);
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, validator);
  return validator;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value === undefined) return "missing";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** What a field of each type must be, in words. */
const KINDS: Record<FieldSchema["type"], string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
};

/** Whether `value` has the JSON type of `schema` (an integer is a number here). */
function ofType(schema: FieldSchema, value: unknown): boolean {
  const type: string = typeof value;
  return type === (schema.type === "integer" ? "number" : schema.type);
}

/** Why `value` is not a valid `schema` value, when its type is the reason. */
function wrongType(where: string, schema: FieldSchema, value: unknown): string {
  // A missing field is required; a missing input is not of the type.
  if (value === undefined && where !== "input") return `${where} is required`;
  const kind = KINDS[schema.type];
  if (schema.type === "integer" && typeof value === "number") {
    return `${where} must be an integer, not ${value}`;
  }
  // "3" for 3: the commonest slip of an agent that sends every value as text.
  const number = typeof value === "string" && schema.type !== "string" && value.trim() !== ""
    ? Number(value)
    : NaN;
  const send = schema.type === "boolean" && (value === "true" || value === "false")
    ? value
    : Number.isFinite(number) && ofType(schema, number)
    ? String(number)
    : undefined;
  return `${where} must be ${kind}, not ${describe(value)}` +
    (send === undefined ? "" : `: send ${send}, not ${JSON.stringify(value)}`);
}

/** A hint for the commonest mistakes, such as wrapping a string input in an object. */
export function inputHint(
  schema: InputSchema,
  input: unknown,
  issues: z.core.$ZodIssue[],
  example?: unknown,
): string {
  if (schema.type !== "object") {
    if (typeof input === "object" && input !== null && !Array.isArray(input)) {
      // The agent's own value shows the fix best, unless its key says it is a secret.
      const own = Object.entries(input).find(([k, v]) => ofType(schema, v) && !SECRET_KEY.test(k));
      const noun = KINDS[schema.type].replace(/^an? /, "");
      return `input must be the ${noun} itself, not an object: send "input": ` +
        JSON.stringify(own?.[1] ?? example ?? "…");
    }
    if (!ofType(schema, input)) return wrongType("input", schema, input);
  } else if (typeof input !== "object" || input === null || Array.isArray(input)) {
    const entries = Object.entries(schema.properties);
    const fields = entries.every(([, field]) => field.type === "string")
      ? `the string fields ${entries.map(([name]) => name).join(", ") || "(none)"}`
      : `the fields ${entries.map(([name, field]) => `${name} (${KINDS[field.type]})`).join(", ")}`;
    return `input must be an object with ${fields}, not ${describe(input)}`;
  }
  const issue = issues[0];
  if (!issue) return "input does not match input_schema";
  const where = issue.path.length ? `field "${issue.path.join(".")}"` : "input";
  if (issue.code === "unrecognized_keys") {
    const allowed = schema.type === "object" ? Object.keys(schema.properties).join(", ") : "";
    return `unknown field ${issue.keys.map((k) => `"${k}"`).join(", ")}; allowed fields: ${
      allowed || "(none)"
    }`;
  }
  const value = issue.path.reduce<unknown>(
    (
      v,
      key,
    ) => (typeof v === "object" && v !== null
      ? (v as Record<PropertyKey, unknown>)[key]
      : undefined),
    input,
  );
  const field = schema.type === "object"
    ? Object.hasOwn(schema.properties, String(issue.path[0]))
      ? schema.properties[String(issue.path[0])]
      : undefined
    : schema;
  if (issue.code === "invalid_type" && field) return wrongType(where, field, value);
  return `${where}: ${issue.message}`;
}

/**
 * Validates `input` for `action`; returns it when valid.
 *
 * @throws {AimError} 400 `invalid_input` with the schema, the example and a hint.
 */
export function validateInput(action: ActionSpec, input: unknown): unknown {
  const result = inputValidator(action.input_schema).safeParse(input);
  if (result.success) return result.data;
  const hint = inputHint(action.input_schema, input, result.error.issues, action.input_example);
  throw new AimError(
    400,
    "invalid_input",
    `Input for "${action.id}" does not match its input_schema: ${hint}.`,
    {
      details: {
        actionId: action.id,
        hint,
        input_schema: action.input_schema,
        input_example: action.input_example,
      },
    },
  );
}

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
const MAX_PATTERN_SOURCE = 4096;
/** The most repetitions of one part, as RE2 allows. */
const MAX_REPEAT = 1000;

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

function hex(cp: number): string {
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
const SPACE = rangesBody(SPACE_RANGES);
const NOT_SPACE = rangesBody(complement(SPACE_RANGES));
/** ECMAScript's `.` without the `s` flag. */
const DOT = `[^${hex(0x0a)}${hex(0x0d)}${hex(0x2028)}${hex(0x2029)}]`;
/** A class that matches nothing: ECMAScript's `[]`. */
const NOTHING = `[^${hex(0)}-${hex(0x10ffff)}]`;

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

const LINEAR = "the bridge matches patterns with RE2, in linear time, which has no";

/** `\p{body}` or `\P{body}` in RE2 syntax; `inClass` when it goes inside `[…]`. */
function unicodeProperty(body: string, negated: boolean, inClass: boolean): string {
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

function literal(cp: number): string {
  return /[A-Za-z0-9_]/.test(String.fromCodePoint(cp)) ? String.fromCodePoint(cp) : hex(cp);
}

const SIMPLE_ESCAPES = new Map([["f", 0x0c], ["n", 0x0a], ["r", 0x0d], ["t", 0x09], ["v", 0x0b]]);
const SYNTAX_CHARS = "^$\\.*+?()[]{}|/";

interface Flags {
  ignoreCase: boolean;
  dotAll: boolean;
}

/**
 * Reads an ECMAScript pattern that `new RegExp(source, "u")` accepts into a tree, refusing what
 * RE2 cannot run.
 */
class PatternParser {
  readonly #src: string;
  #i = 0;

  constructor(source: string) {
    this.#src = source;
  }

  parse(): PatternNode {
    const tree = this.#disjunction({ ignoreCase: false, dotAll: false });
    if (this.#i !== this.#src.length) this.#unexpected();
    return tree;
  }

  #at(text: string): boolean {
    return this.#src.startsWith(text, this.#i);
  }

  #take(): number {
    const cp = this.#src.codePointAt(this.#i);
    if (cp === undefined) throw new PatternError("ends too early");
    this.#i += cp > 0xffff ? 2 : 1;
    return cp;
  }

  #unexpected(): never {
    throw new PatternError(`has an unexpected "${this.#src[this.#i] ?? "end"}"`);
  }

  #disjunction(flags: Flags): PatternNode {
    const alts = [this.#alternative(flags)];
    while (this.#at("|")) {
      this.#i++;
      alts.push(this.#alternative(flags));
    }
    return alts.length === 1 ? alts[0]! : { type: "alt", alts };
  }

  #alternative(flags: Flags): PatternNode {
    const items: PatternNode[] = [];
    while (this.#i < this.#src.length && !this.#at("|") && !this.#at(")")) {
      items.push(this.#term(flags));
    }
    return { type: "seq", items };
  }

  #term(flags: Flags): PatternNode {
    const c = this.#src[this.#i];
    if (c === "^" || c === "$") {
      this.#i++;
      return { type: "assert", kind: c };
    }
    if (this.#at("\\b") || this.#at("\\B")) {
      const kind = this.#at("\\b") ? "\\b" : "\\B";
      this.#i += 2;
      return { type: "assert", kind };
    }
    for (const look of ["(?=", "(?!", "(?<=", "(?<!"]) {
      if (this.#at(look)) {
        const kind = look.length === 3 ? "lookahead" : "lookbehind";
        throw new PatternError(`uses a ${kind} "${look}…)", and ${LINEAR} lookaround`);
      }
    }
    const atom = c === "(" ? this.#group(flags) : this.#atom(flags);
    return this.#quantifier(atom);
  }

  #quantifier(body: PatternNode): PatternNode {
    let min: number;
    let max: number;
    const c = this.#src[this.#i];
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const braces = /\{(\d+)(?:(,)(\d*))?\}/y;
      braces.lastIndex = this.#i;
      const m = braces.exec(this.#src);
      if (!m) this.#unexpected();
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) {
        throw new PatternError(
          `repeats a part more than ${MAX_REPEAT} times (${m[0]}), which the bridge's ` +
            "matcher (RE2) does not allow",
        );
      }
      this.#i = braces.lastIndex - 1;
    } else {
      return body;
    }
    this.#i++;
    const lazy = this.#at("?");
    if (lazy) this.#i++;
    return { type: "repeat", body, min, max, lazy };
  }

  #group(flags: Flags): PatternNode {
    let inner = flags;
    let ignoreCase: boolean | undefined;
    if (this.#at("(?:")) {
      this.#i += 3;
    } else if (this.#at("(?<")) {
      // A named group; nothing reads captures, so it is a plain group.
      const end = this.#src.indexOf(">", this.#i);
      if (end < 0) this.#unexpected();
      this.#i = end + 1;
    } else if (this.#at("(?")) {
      const modifiers = /\(\?([ims]*)(?:-([ims]*))?:/y;
      modifiers.lastIndex = this.#i;
      const m = modifiers.exec(this.#src);
      if (!m) this.#unexpected();
      // Group 1 always takes part in a match; group 2 may not.
      const on = m[1]!;
      const off = m[2] ?? "";
      if (on.includes("m")) {
        throw new PatternError(
          `uses the modifier "(?m:", which the bridge's matcher does not support`,
        );
      }
      inner = { ...flags };
      if (on.includes("s")) inner.dotAll = true;
      if (off.includes("s")) inner.dotAll = false;
      if (on.includes("i")) ignoreCase = inner.ignoreCase = true;
      if (off.includes("i")) ignoreCase = inner.ignoreCase = false;
      this.#i = modifiers.lastIndex;
    } else {
      this.#i++;
    }
    const body = this.#disjunction(inner);
    if (!this.#at(")")) throw new PatternError("has a group that is not closed");
    this.#i++;
    return ignoreCase === undefined ? { type: "group", body } : { type: "group", body, ignoreCase };
  }

  #atom(flags: Flags): PatternNode {
    const start = this.#i;
    const c = this.#src[this.#i];
    let re2: string;
    if (c === ".") {
      this.#i++;
      re2 = flags.dotAll ? "(?s:.)" : DOT;
    } else if (c === "[") {
      re2 = this.#class();
    } else if (c === "\\") {
      re2 = this.#atomEscape();
    } else if (c !== undefined && "*+?{}]|)".includes(c)) {
      this.#unexpected();
    } else {
      re2 = literal(this.#take());
    }
    return {
      type: "atom",
      re2,
      source: this.#src.slice(start, this.#i),
      ignoreCase: flags.ignoreCase,
      dotAll: flags.dotAll,
    };
  }

  #backreference(): never {
    const m = /\\(?:\d+|k<[^>]*>)/y;
    m.lastIndex = this.#i - 1;
    const written = m.exec(this.#src)?.[0] ?? "\\k";
    throw new PatternError(`uses a backreference "${written}", and ${LINEAR} backreferences`);
  }

  #atomEscape(): string {
    this.#i++;
    const c = this.#src[this.#i];
    if (c === "d" || c === "D" || c === "w" || c === "W") {
      this.#i++;
      return `\\${c}`;
    }
    if (c === "s" || c === "S") {
      this.#i++;
      return c === "s" ? `[${SPACE}]` : `[^${SPACE}]`;
    }
    if (c === "p" || c === "P") return this.#property(false);
    if (c === "k" || (c !== undefined && c >= "1" && c <= "9")) this.#backreference();
    return literal(this.#charEscape(false));
  }

  #property(inClass: boolean): string {
    const negated = this.#src[this.#i] === "P";
    const end = this.#src.indexOf("}", this.#i);
    if (this.#src[this.#i + 1] !== "{" || end < 0) this.#unexpected();
    const body = this.#src.slice(this.#i + 2, end);
    this.#i = end + 1;
    return unicodeProperty(body, negated, inClass);
  }

  /** The code point of a character escape, the backslash read. */
  #charEscape(inClass: boolean): number {
    const c = this.#src[this.#i];
    const simple = c === undefined ? undefined : SIMPLE_ESCAPES.get(c);
    if (simple !== undefined) {
      this.#i++;
      return simple;
    }
    if (inClass && c === "b") {
      this.#i++;
      return 0x08;
    }
    if (inClass && c === "-") {
      this.#i++;
      return 0x2d;
    }
    if (c === "c") {
      const letter = this.#src.charCodeAt(this.#i + 1);
      if (!/[A-Za-z]/.test(this.#src[this.#i + 1] ?? "")) this.#unexpected();
      this.#i += 2;
      return letter % 32;
    }
    if (c === "0") {
      this.#i++;
      return 0;
    }
    if (c === "x") {
      const digits = this.#src.slice(this.#i + 1, this.#i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(digits)) this.#unexpected();
      this.#i += 3;
      return parseInt(digits, 16);
    }
    if (c === "u") return this.#unicodeEscape();
    if (c !== undefined && SYNTAX_CHARS.includes(c)) {
      this.#i++;
      return c.charCodeAt(0);
    }
    throw new PatternError(`uses the escape "\\${c ?? ""}", which has no meaning here`);
  }

  #unicodeEscape(): number {
    if (this.#src[this.#i + 1] === "{") {
      const end = this.#src.indexOf("}", this.#i);
      const digits = this.#src.slice(this.#i + 2, end);
      if (end < 0 || !/^[0-9A-Fa-f]{1,8}$/.test(digits)) this.#unexpected();
      this.#i = end + 1;
      const cp = parseInt(digits, 16);
      if (cp > 0x10ffff) this.#unexpected();
      return cp;
    }
    const four = (at: number) => {
      const digits = this.#src.slice(at, at + 4);
      return /^[0-9A-Fa-f]{4}$/.test(digits) ? parseInt(digits, 16) : -1;
    };
    const unit = four(this.#i + 1);
    if (unit < 0) this.#unexpected();
    this.#i += 5;
    // As in ECMAScript's u mode, an escaped surrogate pair is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && this.#at("\\u")) {
      const low = four(this.#i + 2);
      if (low >= 0xdc00 && low <= 0xdfff) {
        this.#i += 6;
        return 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
      }
    }
    return unit;
  }

  #class(): string {
    this.#i++;
    const negate = this.#at("^");
    if (negate) this.#i++;
    const parts: string[] = [];
    while (!this.#at("]")) {
      if (this.#i >= this.#src.length) throw new PatternError("has a class that is not closed");
      const first = this.#classAtom();
      if (typeof first === "number" && this.#at("-") && !this.#at("-]")) {
        this.#i++;
        const last = this.#classAtom();
        if (typeof last !== "number") this.#unexpected();
        parts.push(`${hex(first)}-${hex(last)}`);
      } else {
        parts.push(typeof first === "number" ? hex(first) : first);
      }
    }
    this.#i++;
    if (parts.length === 0) return negate ? "(?s:.)" : NOTHING;
    return `[${negate ? "^" : ""}${parts.join("")}]`;
  }

  /** One member of a class: a code point, or a set as the body of an RE2 class. */
  #classAtom(): number | string {
    if (!this.#at("\\")) return this.#take();
    this.#i++;
    const c = this.#src[this.#i];
    if (c === "d" || c === "D" || c === "w" || c === "W") {
      this.#i++;
      return `\\${c}`;
    }
    if (c === "s" || c === "S") {
      this.#i++;
      return c === "s" ? SPACE : NOT_SPACE;
    }
    if (c === "p" || c === "P") return this.#property(true);
    if (c === "k" || (c !== undefined && c >= "1" && c <= "9")) this.#backreference();
    return this.#charEscape(true);
  }
}

function toRE2(node: PatternNode): string {
  switch (node.type) {
    case "alt":
      return node.alts.map(toRE2).join("|");
    case "seq":
      return node.items.map(toRE2).join("");
    case "group":
      return `(?${node.ignoreCase === undefined ? "" : node.ignoreCase ? "i" : "-i"}:${
        toRE2(node.body)
      })`;
    case "repeat": {
      const count = node.min === 0 && node.max === Infinity
        ? "*"
        : node.min === 1 && node.max === Infinity
        ? "+"
        : node.min === 0 && node.max === 1
        ? "?"
        : node.max === Infinity
        ? `{${node.min},}`
        : node.min === node.max
        ? `{${node.min}}`
        : `{${node.min},${node.max}}`;
      return `(?:${toRE2(node.body)})${count}${node.lazy ? "?" : ""}`;
    }
    case "assert":
      return node.kind;
    case "atom":
      return node.re2;
  }
}

/** About how many steps a pattern expands to once its repetitions are counted. */
function patternSize(node: PatternNode): number {
  switch (node.type) {
    case "alt":
      return node.alts.reduce((sum, alt) => sum + patternSize(alt) + 1, 0);
    case "seq":
      return node.items.reduce((sum, item) => sum + patternSize(item), 0);
    case "group":
      return patternSize(node.body);
    case "repeat": {
      // RE2 compiles x{2,4} as xx(x(x)?)?: max copies, and a choice for each optional one.
      const body = patternSize(node.body);
      if (node.max === Infinity) return body * Math.max(node.min, 1) + 1;
      return body * node.max + (node.max - node.min) + 1;
    }
    default:
      return 1;
  }
}

/**
 * The tree of an ECMAScript pattern (as `new RegExp(source, "u")` reads it).
 *
 * @throws {PatternError} when the pattern is not valid, or uses what RE2 cannot run.
 */
export function parsePattern(source: string): PatternNode {
  if (source.length > MAX_PATTERN_SOURCE) {
    throw new PatternError(`is longer than ${MAX_PATTERN_SOURCE} characters`);
  }
  try {
    new RegExp(source, "u");
  } catch {
    throw new PatternError("is not a valid regular expression (with the u flag)");
  }
  return new PatternParser(source).parse();
}

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
