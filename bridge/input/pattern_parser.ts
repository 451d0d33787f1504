/**
 * Reading an ECMAScript (`u`) pattern into a tree and writing it as RE2 syntax, refusing what
 * RE2 cannot run.
 *
 * @module
 */
import {
  DOT,
  type Flags,
  hex,
  LINEAR,
  literal,
  MAX_PATTERN_SOURCE,
  MAX_REPEAT,
  NOT_SPACE,
  NOTHING,
  PatternError,
  type PatternNode,
  SIMPLE_ESCAPES,
  SPACE,
  SYNTAX_CHARS,
  unicodeProperty,
} from "./pattern.ts";

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

export function toRE2(node: PatternNode): string {
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
export function patternSize(node: PatternNode): number {
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
