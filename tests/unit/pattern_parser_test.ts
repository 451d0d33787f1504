/**
 * Unit tests of bridge/input/pattern_parser.ts and pattern.ts, how an ECMAScript (`u`) pattern
 * becomes RE2 syntax: a table of every construct the parser reads with the exact RE2 it writes
 * and the size it estimates, each refusal's sentence word for word, and each translation
 * matching as `RegExp` with the `u` flag does on the characters where RE2 and ECMAScript differ.
 * `deno task mutate bridge/input/pattern_parser.ts` runs these first.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parsePattern, patternSize, toRE2 } from "../../bridge/input/pattern_parser.ts";
import { compilePattern } from "../../bridge/input/pattern_cache.ts";
import { MAX_PATTERN_SOURCE, PatternError } from "../../bridge/input/pattern.ts";

const SPACE = "\\x{9}-\\x{d}\\x{20}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}-\\x{2029}" +
  "\\x{202f}\\x{205f}\\x{3000}\\x{feff}";

/** Source, the RE2 it becomes, its estimated size. */
const TRANSLATIONS: [string, string, number][] = [
  ["a", "a", 1],
  ["_Z9", "_Z9", 3],
  [".", "[^\\x{a}\\x{d}\\x{2028}\\x{2029}]", 1],
  ["(?s:.)", "(?:(?s:.))", 1],
  ["[]", "[^\\x{0}-\\x{10ffff}]", 1],
  ["[^]", "(?s:.)", 1],
  ["\\s", `[${SPACE}]`, 1],
  ["\\S", `[^${SPACE}]`, 1],
  ["[\\s]", `[${SPACE}]`, 1],
  [
    "[\\S]",
    "[\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}\\x{1681}-\\x{1fff}" +
    "\\x{200b}-\\x{2027}\\x{202a}-\\x{202e}\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}" +
    "\\x{3001}-\\x{fefe}\\x{ff00}-\\x{10ffff}]",
    1,
  ],
  ["[^\\s]", `[^${SPACE}]`, 1],
  ["\\d\\D\\w\\W", "\\d\\D\\w\\W", 4],
  ["[\\d\\D\\w\\W]", "[\\d\\D\\w\\W]", 1],
  ["a*", "(?:a)*", 2],
  ["a+", "(?:a)+", 2],
  ["a?", "(?:a)?", 3],
  ["a{2}", "(?:a){2}", 3],
  ["a{2,}", "(?:a){2,}", 3],
  ["a{2,5}", "(?:a){2,5}", 9],
  ["a{0,3}", "(?:a){0,3}", 7],
  ["a*?", "(?:a)*?", 2],
  ["a+?", "(?:a)+?", 2],
  ["a??", "(?:a)??", 3],
  ["a{2,5}?", "(?:a){2,5}?", 9],
  ["a{0,}", "(?:a)*", 2],
  ["a{1,}", "(?:a)+", 2],
  ["a{0,1}", "(?:a)?", 3],
  ["(?:ab)", "(?:ab)", 2],
  ["(ab)", "(?:ab)", 2],
  ["(?<n>ab)", "(?:ab)", 2],
  ["(?i:a)", "(?i:a)", 1],
  ["(?-i:a)", "(?-i:a)", 1],
  ["(?i-s:a)", "(?i:a)", 1],
  ["(?s:a.)", "(?:a(?s:.))", 2],
  ["(?si:.)", "(?i:(?s:.))", 1],
  ["(?s:(?-s:.))", "(?:(?:[^\\x{a}\\x{d}\\x{2028}\\x{2029}]))", 1],
  ["a|b", "a|b", 4],
  ["a|b|", "a|b|", 5],
  ["^a$", "^a$", 3],
  ["\\bx\\B", "\\bx\\B", 3],
  ["\\f\\n\\r\\t\\v", "\\x{c}\\x{a}\\x{d}\\x{9}\\x{b}", 5],
  ["[\\f\\n\\r\\t\\v]", "[\\x{c}\\x{a}\\x{d}\\x{9}\\x{b}]", 1],
  ["[\\b]", "[\\x{8}]", 1],
  ["[\\-]", "[\\x{2d}]", 1],
  ["[a-z]", "[\\x{61}-\\x{7a}]", 1],
  ["[a-]", "[\\x{61}\\x{2d}]", 1],
  ["[-a]", "[\\x{2d}\\x{61}]", 1],
  ["[\\w-]", "[\\w\\x{2d}]", 1],
  ["\\cA", "\\x{1}", 1],
  ["\\cz", "\\x{1a}", 1],
  ["[\\cJ]", "[\\x{a}]", 1],
  ["\\0", "\\x{0}", 1],
  ["\\x41", "A", 1],
  ["\\xfF", "\\x{ff}", 1],
  ["\\u0041", "A", 1],
  ["\\u{1F600}", "\\x{1f600}", 1],
  ["\\u{10FFFF}", "\\x{10ffff}", 1],
  ["\\uD83D\\uDE00", "\\x{1f600}", 1],
  ["\\uDBFF\\uDFFF", "\\x{10ffff}", 1],
  ["\\uD83D", "\\x{d83d}", 1],
  ["\\uD83Dx", "\\x{d83d}x", 2],
  ["\\uD83D\\u0041", "\\x{d83d}A", 2],
  ["\\uDE00\\uD83D", "\\x{de00}\\x{d83d}", 2],
  ["[\\uD83D\\uDE00]", "[\\x{1f600}]", 1],
  [
    "\\^\\$\\\\\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/",
    "\\x{5e}\\x{24}\\x{5c}\\x{2e}\\x{2a}\\x{2b}\\x{3f}\\x{28}\\x{29}\\x{5b}\\x{5d}\\x{7b}\\x{7d}" +
    "\\x{7c}\\x{2f}",
    15,
  ],
  ["\\p{L}", "\\p{L}", 1],
  ["\\P{Lu}", "\\P{Lu}", 1],
  ["\\p{Lowercase_Letter}", "\\p{Ll}", 1],
  ["\\p{gc=Lu}", "\\p{Lu}", 1],
  ["\\p{General_Category=Letter}", "\\p{L}", 1],
  ["\\p{Script=Greek}", "\\p{Greek}", 1],
  ["\\p{sc=Latin}", "\\p{Latin}", 1],
  ["\\P{sc=Latin}", "\\P{Latin}", 1],
  ["\\p{Any}", "\\p{Any}", 1],
  ["\\p{Assigned}", "\\P{Cn}", 1],
  ["\\P{Assigned}", "\\p{Cn}", 1],
  ["\\p{ASCII}", "[\\x{0}-\\x{7f}]", 1],
  ["\\P{ASCII}", "[\\x{80}-\\x{10ffff}]", 1],
  ["[\\p{ASCII}]", "[\\x{0}-\\x{7f}]", 1],
  ["[\\P{ASCII}]", "[\\x{80}-\\x{10ffff}]", 1],
  ["[\\p{L}x]", "[\\p{L}\\x{78}]", 1],
  ["[^\\P{L}]", "[^\\P{L}]", 1],
  ["é", "\\x{e9}", 1],
  ["😀", "\\x{1f600}", 1],
  ["😀a", "\\x{1f600}a", 2],
  ["[😀-😂]", "[\\x{1f600}-\\x{1f602}]", 1],
  ["a{1000}", "(?:a){1000}", 1001],
  ["[^a]", "[^\\x{61}]", 1],
  ["(?:ab|c)*", "(?:(?:ab|c))*", 6],
  ["(?:ab|c){2,3}", "(?:(?:ab|c)){2,3}", 17],
  ["(?:a{3}){2,}", "(?:(?:(?:a){3})){2,}", 9],
  ["(?:a{3})+", "(?:(?:(?:a){3}))+", 5],
];

Deno.test("each construct becomes the RE2 the table says, of the size it says", () => {
  for (const [source, re2, size] of TRANSLATIONS) {
    const tree = parsePattern(source);
    assert.equal(toRE2(tree), re2, source);
    assert.equal(patternSize(tree), size, source);
  }
});

/** Characters where RE2 and ECMAScript differ, or that the constructs above name. */
const PROBES = [
  "",
  "a",
  "A",
  "ab",
  "aa",
  "aaa",
  "b",
  "c",
  "x",
  "Z",
  "_",
  "9",
  "-",
  "\n",
  "\r",
  "\u2028",
  "\u2029",
  "\t",
  "\v",
  "\f",
  " ",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u200a",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
  "\u200b",
  "\u0085",
  "\x00",
  "\x01",
  "\x08",
  "\x1a",
  "é",
  "É",
  "Ω",
  "ω",
  "😀",
  "😁",
  "\ud83d",
  "\ude00",
  "\u{10ffff}",
  "\u0378",
  "$",
  "^",
  "\\",
  "/",
  "ſ",
  "K",
  "\u212a",
];

Deno.test("each translation matches as RegExp with the u flag does, on the characters where engines differ", () => {
  // a{1000} is more than the matcher's program may hold (pattern_cache.ts refuses it).
  for (const [source] of TRANSLATIONS.filter(([source]) => source !== "a{1000}")) {
    const re2 = compilePattern(source);
    const js = new RegExp(source, "u");
    for (const probe of PROBES) {
      for (const value of [probe, `${probe}${probe}`, `a${probe}b`]) {
        assert.equal(re2.test(value), js.test(value), `${source} on ${JSON.stringify(value)}`);
      }
    }
  }
});

Deno.test("case folding in (?i:…) matches as RegExp with the u and i flags does", () => {
  for (
    const source of [
      "(?i:a)",
      "(?i:k)",
      "(?i:s)",
      "(?i:é)",
      "(?i:ω)",
      "(?i:[a-z])",
      "(?i:a(?-i:b))",
    ]
  ) {
    const re2 = compilePattern(source);
    const js = new RegExp(source, "u");
    for (
      const value of [
        "a",
        "A",
        "k",
        "K",
        "\u212a",
        "s",
        "S",
        "ſ",
        "é",
        "É",
        "Ω",
        "ω",
        "ab",
        "AB",
        "Ab",
      ]
    ) {
      assert.equal(re2.test(value), js.test(value), `${source} on ${value}`);
    }
  }
});

/** Source, why it is refused. */
const REFUSALS: [string, string][] = [
  [
    "(?=a)",
    'uses a lookahead "(?=…)", and the bridge matches patterns with RE2, in linear time, which has no lookaround',
  ],
  [
    "(?!a)",
    'uses a lookahead "(?!…)", and the bridge matches patterns with RE2, in linear time, which has no lookaround',
  ],
  [
    "(?<=a)",
    'uses a lookbehind "(?<=…)", and the bridge matches patterns with RE2, in linear time, which has no lookaround',
  ],
  [
    "(?<!a)",
    'uses a lookbehind "(?<!…)", and the bridge matches patterns with RE2, in linear time, which has no lookaround',
  ],
  [
    "(a)\\1",
    'uses a backreference "\\1", and the bridge matches patterns with RE2, in linear time, which has no backreferences',
  ],
  [
    "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10",
    'uses a backreference "\\10", and the bridge matches patterns with RE2, in linear time, which has no backreferences',
  ],
  [
    "(?<x>a)\\k<x>",
    'uses a backreference "\\k<x>", and the bridge matches patterns with RE2, in linear time, which has no backreferences',
  ],
  ["(?m:a)", `uses the modifier "(?m:", which the bridge's matcher does not support`],
  ["(?im:a)", `uses the modifier "(?m:", which the bridge's matcher does not support`],
  [
    "a{1001}",
    "repeats a part more than 1000 times ({1001}), which the bridge's matcher (RE2) does not allow",
  ],
  [
    "a{1,1001}",
    "repeats a part more than 1000 times ({1,1001}), which the bridge's matcher (RE2) does not allow",
  ],
  [
    "a{1001,}",
    "repeats a part more than 1000 times ({1001,}), which the bridge's matcher (RE2) does not allow",
  ],
  [
    "\\p{Emoji}",
    "uses \\p{Emoji}, a property the bridge's matcher does not support (use a general category such as \\p{L}, or a script such as \\p{Script=Greek})",
  ],
  [
    "\\P{Script_Extensions=Greek}",
    "uses \\P{Script_Extensions=Greek}, which the bridge's matcher does not support",
  ],
  ["[\\p{scx=Greek}]", "uses \\p{scx=Greek}, which the bridge's matcher does not support"],
  ["(", "is not a valid regular expression (with the u flag)"],
  ["\\q", "is not a valid regular expression (with the u flag)"],
  ["x".repeat(MAX_PATTERN_SOURCE + 1), `is longer than ${MAX_PATTERN_SOURCE} characters`],
];

Deno.test("each pattern RE2 cannot run is refused with a sentence that names what it uses", () => {
  for (const [source, message] of REFUSALS) {
    assert.throws(
      () => parsePattern(source),
      (error) => error instanceof PatternError && error.message === message,
      source.slice(0, 40),
    );
  }
  assert.equal(toRE2(parsePattern("x".repeat(MAX_PATTERN_SOURCE))), "x".repeat(MAX_PATTERN_SOURCE));
  assert.equal(toRE2(parsePattern("a{1000,}")), "(?:a){1000,}");
  assert.equal(toRE2(parsePattern("a{0,1000}")), "(?:a){0,1000}");
});

Deno.test("a PatternError is an Error named PatternError", () => {
  const error = new PatternError("is odd");
  assert.ok(error instanceof Error);
  assert.equal(error.name, "PatternError");
  assert.equal(error.message, "is odd");
});

/** Every general category by each name ECMAScript accepts, and the short name RE2 knows. */
const CATEGORIES: [string, string][] = [
  ["Letter", "L"],
  ["Cased_Letter", "LC"],
  ["Uppercase_Letter", "Lu"],
  ["Lowercase_Letter", "Ll"],
  ["Titlecase_Letter", "Lt"],
  ["Modifier_Letter", "Lm"],
  ["Other_Letter", "Lo"],
  ["Mark", "M"],
  ["Combining_Mark", "M"],
  ["Nonspacing_Mark", "Mn"],
  ["Spacing_Mark", "Mc"],
  ["Enclosing_Mark", "Me"],
  ["Number", "N"],
  ["Decimal_Number", "Nd"],
  ["digit", "Nd"],
  ["Letter_Number", "Nl"],
  ["Other_Number", "No"],
  ["Punctuation", "P"],
  ["punct", "P"],
  ["Connector_Punctuation", "Pc"],
  ["Dash_Punctuation", "Pd"],
  ["Open_Punctuation", "Ps"],
  ["Close_Punctuation", "Pe"],
  ["Initial_Punctuation", "Pi"],
  ["Final_Punctuation", "Pf"],
  ["Other_Punctuation", "Po"],
  ["Symbol", "S"],
  ["Math_Symbol", "Sm"],
  ["Currency_Symbol", "Sc"],
  ["Modifier_Symbol", "Sk"],
  ["Other_Symbol", "So"],
  ["Separator", "Z"],
  ["Space_Separator", "Zs"],
  ["Line_Separator", "Zl"],
  ["Paragraph_Separator", "Zp"],
  ["Other", "C"],
  ["Control", "Cc"],
  ["cntrl", "Cc"],
  ["Format", "Cf"],
  ["Surrogate", "Cs"],
  ["Private_Use", "Co"],
  ["Unassigned", "Cn"],
];

Deno.test("every general category is read by each of its names, alone, as gc= and as General_Category=", () => {
  for (const [long, short] of CATEGORIES) {
    for (const name of [long, short]) {
      for (const body of [name, `gc=${name}`, `General_Category=${name}`]) {
        for (const [escape, negated] of [["p", false], ["P", true]] as const) {
          const source = `\\${escape}{${body}}`;
          assert.equal(toRE2(parsePattern(source)), `\\${negated ? "P" : "p"}{${short}}`, source);
          assert.equal(
            toRE2(parsePattern(`[${source}]`)),
            `[\\${negated ? "P" : "p"}{${short}}]`,
            source,
          );
        }
      }
    }
  }
});

Deno.test("a category's value is not a name of Object.prototype, nor is a property's", () => {
  for (const body of ["toString", "gc=toString", "constructor", "__proto__", "sc=__proto__"]) {
    assert.throws(() => parsePattern(`\\p{${body}}`), PatternError, body);
  }
});
