/**
 * Tests of anchorPattern: a `pattern` attribute becomes JSON Schema's `pattern` anchored
 * as `^(?:…)$`, or as `^…$` when the group cannot change what it means.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { anchorPattern } from "../../bridge/markup/form.ts";
import { compilePattern } from "../../bridge/input/pattern_cache.ts";

Deno.test("anchorPattern() leaves the group out of a whole pattern without alternatives", () => {
  const bare: [string, string][] = [
    ["req-[0-9]+", "^req-[0-9]+$"],
    ["[0-9]+", "^[0-9]+$"],
    ["\\d{3}", "^\\d{3}$"],
    ["[a-z0-9]+(?:-[a-z0-9]+)*", "^[a-z0-9]+(?:-[a-z0-9]+)*$"],
    ["(a+)+", "^(a+)+$"],
    ["[)(]x", "^[)(]x$"],
    ["\\)", "^\\)$"],
    ["a\\\\", "^a\\\\$"],
    ["[\\]]", "^[\\]]$"],
  ];
  for (const [source, anchored] of bare) assert.equal(anchorPattern(source), anchored, source);
});

Deno.test("anchorPattern() keeps the group when the pattern might mean something else without it", () => {
  const grouped = [
    // An alternative, at the top or anywhere: `^a|b$` is not `^(?:a|b)$`.
    "a|b",
    "(a|b)c",
    "[|]",
    "\\|",
    // A `)` that closes the group around it, or a group left open.
    "a)(b",
    ")(a",
    "(a",
    // A `\` that would escape the `)` (or the `$`), a class that would swallow them.
    "a\\",
    "\\\\\\",
    "[a",
    // A quantifier first would repeat `^`.
    "*a",
    "?",
    "{2}",
  ];
  for (const source of grouped) assert.equal(anchorPattern(source), `^(?:${source})$`, source);
});

/** What a pattern compiles to with the `u` flag (as JSON Schema reads it), or null. */
function regExp(source: string): RegExp | null {
  try {
    return new RegExp(source, "u");
  } catch {
    return null;
  }
}

/** What the bridge's matcher makes of a pattern, or null when it refuses it. */
function bridgeMatcher(source: string): ((value: string) => boolean) | null {
  try {
    const pattern = compilePattern(source);
    return (value) => pattern.test(value);
  } catch {
    return null;
  }
}

/** Pieces of patterns, most of them awkward: escapes, classes, groups, quantifiers, anchors. */
const PIECES = [
  "a",
  "b",
  "-",
  ".",
  "0",
  "(",
  ")",
  "[",
  "]",
  "[^",
  "\\",
  "\\\\",
  "\\)",
  "\\(",
  "\\]",
  "\\d",
  "\\b",
  "|",
  "\\|",
  "*",
  "+",
  "?",
  "{2}",
  "{1,}",
  "^",
  "$",
  "(?:",
  "(?=",
  "(?!",
  "(?<=",
];

/** Any sequence of pieces: mostly not valid patterns, which must stay as they were. */
const soup = fc.array(fc.constantFrom(...PIECES), { maxLength: 7 }).map((p) => p.join(""));

/** Valid patterns, nested, with and without alternatives. */
const { pattern: wellFormed } = fc.letrec<{ pattern: string; term: string }>((tie) => ({
  term: fc.tuple(
    fc.oneof(
      { depthSize: "small" },
      fc.constantFrom("a", "b", "-", ".", "\\d", "[ab]", "[^a]", "[)|(]", "\\)", "\\|", "^", "$"),
      tie("pattern").map((p) => `(${p})`),
      tie("pattern").map((p) => `(?:${p})`),
      tie("pattern").map((p) => `(?=${p})`),
    ),
    fc.constantFrom("", "", "*", "+", "?", "{2}", "{0,1}", "*?"),
  ).map(([atom, quantifier]) => atom + quantifier),
  pattern: fc.array(fc.array(tie("term"), { maxLength: 3 }).map((t) => t.join("")), {
    minLength: 1,
    maxLength: 2,
  }).map((alternatives) => alternatives.join("|")),
}));

const values = fc.array(
  fc.string({ unit: fc.constantFrom("a", "b", "-", "0", "(", ")", "|", "$", "^"), maxLength: 5 }),
  { minLength: 1, maxLength: 12 },
);

Deno.test("anchorPattern() without the group accepts exactly what the grouped pattern accepts", () => {
  fc.assert(
    fc.property(fc.oneof(soup, wellFormed), values, (source, inputs) => {
      const grouped = `^(?:${source})$`;
      const anchored = anchorPattern(source);
      if (anchored === grouped) return;
      assert.ok(!source.includes("|"), source);
      assert.equal(anchored, `^${source}$`);
      // Valid (as JSON Schema reads it) both, or neither; and the same language.
      const [a, b] = [regExp(grouped), regExp(anchored)];
      assert.equal(a === null, b === null, `${grouped} and ${anchored} compile alike`);
      for (const value of a && b ? inputs : []) {
        assert.equal(b!.test(value), a!.test(value), `${anchored} on ${JSON.stringify(value)}`);
      }
      // The bridge's matcher refuses both or neither, and matches the same.
      const [c, d] = [bridgeMatcher(grouped), bridgeMatcher(anchored)];
      assert.equal(c === null, d === null, `the bridge runs ${grouped} and ${anchored} alike`);
      for (const value of c && d ? inputs : []) {
        assert.equal(d!(value), c!(value), `${anchored} on ${JSON.stringify(value)} (RE2)`);
      }
    }),
    { numRuns: 3000 },
  );
});
