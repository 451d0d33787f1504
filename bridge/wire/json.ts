/**
 * Parsing untrusted JSON: nesting is bounded before anything recursive (the parser's
 * reviver, zod, the secret filter) walks the value, and a `__proto__` key, which would vanish
 * into an object's prototype when a validator copies the object, is refused outright.
 *
 * @module
 */

/** Deepest nesting of arrays and objects accepted from outside. */
export const MAX_JSON_DEPTH = 64;

/** Why a text was refused. */
export type JsonProblem = "syntax" | "proto" | "depth";

/**
 * The deepest nesting of `[` and `{` in a JSON text, outside strings; counted in one pass
 * with no recursion, and stopping as soon as it passes `limit`. A string is skipped with
 * `indexOf` to its closing quote (one not escaped by an odd run of backslashes), so that a long
 * string value costs a search, not a step per character.
 */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let end = i;
      do {
        end = text.indexOf('"', end + 1);
        // Unterminated: nothing deeper follows (and the parser refuses the text).
        if (end < 0) return deepest;
      } while (escaped(text, end));
      i = end;
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
    }
  }
  return deepest;
}

/**
 * Whether the character at `at` is escaped: preceded by an odd number of backslashes. Each run of
 * backslashes is walked once, by the quote after it.
 */
function escaped(text: string, at: number): boolean {
  let before = at - 1;
  while (before >= 0 && text.charCodeAt(before) === 92 /* \ */) before--;
  return (at - 1 - before) % 2 === 1;
}

/** Options of {@linkcode parseUntrustedJson}. */
export interface ParseJsonOptions {
  /**
   * Deepest nesting accepted ({@linkcode MAX_JSON_DEPTH}).
   *
   * @default {MAX_JSON_DEPTH}
   */
  maxDepth?: number;
}

/** The defaults of {@linkcode ParseJsonOptions}, as its `@default` tags say. */
export const PARSE_JSON_DEFAULTS: { readonly maxDepth: number } = { maxDepth: MAX_JSON_DEPTH };

/** The parsed value, or the problem with the text. */
export function parseUntrustedJson(
  text: string,
  options: ParseJsonOptions = {},
): { ok: true; value: unknown } | { ok: false; problem: JsonProblem } {
  const maxDepth = options.maxDepth ?? PARSE_JSON_DEFAULTS.maxDepth;
  if (jsonDepth(text, maxDepth) > maxDepth) {
    return { ok: false, problem: "depth" };
  }
  let proto = false;
  let value: unknown;
  try {
    // A reviver is called for every value, at four times the parse's own cost (a tab's whole
    // state, each time it changes): only a text that may spell a `__proto__` key, plainly or
    // with `\u` escapes, gets one. Two plain searches: a regular expression with a choice walks
    // a megabyte several times slower.
    value = JSON.parse(
      text,
      text.includes("__proto__") || text.includes("\\u")
        ? (key, v) => {
          if (key === "__proto__") proto = true;
          return v;
        }
        : undefined,
    );
  } catch {
    return { ok: false, problem: "syntax" };
  }
  return proto ? { ok: false, problem: "proto" } : { ok: true, value };
}

/** A sentence for people about a refused JSON text. */
export function jsonProblemMessage(problem: JsonProblem, what = "The body"): string {
  switch (problem) {
    case "proto":
      return 'Keys named "__proto__" are not accepted.';
    case "depth":
      return `${what} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`;
    case "syntax":
      return `${what} is not valid JSON.`;
  }
}
