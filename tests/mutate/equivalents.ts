/**
 * Mutants accepted as equivalent, each with its reason (see tests/mutate/equivalent.ts for how one
 * is matched). `deno task mutate FILE` prints, for each survivor that no entry matches, an entry
 * to paste here once it is clear that no test can kill it; a survivor that a test can kill gets
 * the test instead. Grouped by file, in the order of the file.
 *
 * @module
 */
import type { Equivalent } from "./equivalent.ts";
import { HTTP_EQUIVALENTS } from "./equivalents/http.ts";
import { UPSTREAM_EQUIVALENTS } from "./equivalents/upstream.ts";

/** Every mutant accepted as equivalent. */
export const EQUIVALENTS: readonly Equivalent[] = [
  // bridge/wire/webmcp_tools.ts
  {
    file: "bridge/wire/webmcp_tools.ts",
    mutator: "MethodExpression",
    in: "schemaOf",
    original: "name.slice(0, 80)",
    replacement: "name",
    near: 'const mapped = schemaOf(field, `field "${name.slice(0, 80)}"`, depth + 1);',
    reason:
      "A field's schema is mapped only once its name passed FIELD_NAME, which takes at most " +
      "64 characters: the cut at 80 never cuts there (the refusal of a longer name, a line " +
      "above, is cut, and killed).",
  },
  {
    file: "bridge/wire/webmcp_tools.ts",
    mutator: "ObjectLiteral",
    in: "inputSchemaOfTool",
    original: '{ type: "object", properties: {} }',
    replacement: "{}",
    reason: 'A schema without type or properties is read as one with `type: "object"` and no ' +
      "properties (an absent type is allowed, absent properties are none), so the default " +
      "`{}` maps to the same action.",
  },
  {
    file: "bridge/wire/webmcp_tools.ts",
    mutator: "BlockStatement",
    in: "resultOfTool",
    original: "{ value = answer; }",
    replacement: "{}",
    reason: "`value` already holds the answer (it starts as it, and JSON.parse threw before " +
      "assigning), so the assignment in the catch block changes nothing.",
  },
  // bridge/site/page_identity.ts
  {
    file: "bridge/site/page_identity.ts",
    mutator: "EqualityOperator",
    in: "looseName",
    original: "cut < 0",
    replacement: "cut <= 0",
    reason:
      'A cut at 0 (a name that starts with `[` or NUL) makes the listed spelling `""`, which no declared name\'s is; the mutant makes it the unlisted spelling, which repeatedParameter() looked up just before: either way the lookup adds nothing.',
  },
  {
    file: "bridge/site/page_identity.ts",
    mutator: "StringLiteral",
    in: "pageQueryProblem",
    original: '"["',
    replacement: '""',
    reason:
      "Declared names pass pageQueryProblem() (letters, digits, `_.-[]`, never a NUL), so a declared name without `[` has neither `[` nor NUL: looseName() cuts nothing from it, listed or not.",
  },
  {
    file: "bridge/site/page_identity.ts",
    mutator: "ConditionalExpression",
    in: "parts",
    original: "!part",
    replacement: "false",
    reason:
      'An empty part gives URLSearchParams no entry, so the fallback `["", ""]` is pushed, and the empty name is no declared parameter\'s: it is skipped either way.',
  },
  {
    file: "bridge/site/page_identity.ts",
    mutator: "StringLiteral",
    in: "parts",
    original: '""',
    replacement: '"Stryker was here!"',
    reason:
      "The fallback of a part with no entry (`?`): a name holding `!` (or, for the value, a pair whose name is empty) matches no declared name, which pageQueryProblem() keeps to `[A-Za-z0-9_.\\-[\\]]`: the part is skipped either way.",
  },
  {
    file: "bridge/site/page_identity.ts",
    mutator: "ConditionalExpression",
    in: "repeatedParameter",
    original: "!params.length",
    replacement: "false",
    reason:
      "With no declared parameter, the loop finds none declared and the last loop runs over none: null either way (the test is a shortcut).",
  },
  {
    file: "bridge/site/page_identity.ts",
    mutator: "ConditionalExpression",
    in: "repeatedParameter",
    original: "!query",
    replacement: "false",
    reason:
      "An empty query has no part and no parameter: both loops find nothing, null either way.",
  },
  {
    file: "bridge/site/page_identity.ts",
    mutator: "StringLiteral",
    in: "repeatedParameter",
    original: '"["',
    replacement: '""',
    reason:
      "Declared names pass pageQueryProblem() (letters, digits, `_.-[]`, never a NUL), so a declared name without `[` has neither `[` nor NUL: looseName() cuts nothing from it, listed or not.",
  },
  {
    file: "bridge/site/page_identity.ts",
    mutator: "EqualityOperator",
    in: "pageIdentity",
    original: "hash < 0",
    replacement: "hash <= 0",
    reason:
      'A fragment at 0 makes the path `""` in the original and one that starts with `#` in the mutant: normalizePage() refuses both (a page\'s path starts with `/`), so null either way.',
  },
  // bridge/core/address_budget.ts
  {
    file: "bridge/core/address_budget.ts",
    mutator: "ConditionalExpression",
    in: "AddressBudgets.#heavy",
    original: "mine === 0",
    replacement: "false",
    reason:
      "Recent counts are kept only at 1024 characters or more, so a session with none is absent and, when any session is present, the mean is positive and 0 is under it; with none, 0 >= 0 / 0 (NaN) is false: not heavy either way.",
  },
  {
    file: "bridge/core/address_budget.ts",
    mutator: "EqualityOperator",
    in: "AddressBudgets.reconnectWait",
    original: "entry.tokens >= half",
    replacement: "entry.tokens > half",
    reason:
      "At exactly half a burst the wait computed below is Math.ceil(0 / perSecond), 0: the same answer as the early return.",
  },
  // bridge/input/pattern.ts
  {
    file: "bridge/input/pattern.ts",
    mutator: "ConditionalExpression",
    in: "complement",
    original: "a > next",
    replacement: "true",
    reason: "`complement()` is called on SPACE_RANGES only, whose ranges neither start at 0 nor " +
      "touch one another: each range starts above the end of the one before, so the test " +
      "is true for every range it sees.",
  },
  {
    file: "bridge/input/pattern.ts",
    mutator: "EqualityOperator",
    in: "complement",
    original: "a > next",
    replacement: "a >= next",
    reason: "`complement()` is called on SPACE_RANGES only, whose ranges neither start at 0 nor " +
      "touch one another: each range starts above the end of the one before, so the test " +
      "is true for every range it sees.",
  },
  {
    file: "bridge/input/pattern.ts",
    mutator: "ConditionalExpression",
    in: "complement",
    original: "next <= 0x10ffff",
    replacement: "true",
    reason: "`complement()` is called on SPACE_RANGES only, which end at U+FEFF: the last gap " +
      "always starts below U+10FFFF, so the test is true whatever its operator.",
  },
  {
    file: "bridge/input/pattern.ts",
    mutator: "EqualityOperator",
    in: "complement",
    original: "next <= 0x10ffff",
    replacement: "next < 0x10ffff",
    reason: "`complement()` is called on SPACE_RANGES only, which end at U+FEFF: the last gap " +
      "always starts below U+10FFFF, so the test is true whatever its operator.",
  },
  {
    file: "bridge/input/pattern.ts",
    mutator: "ConditionalExpression",
    in: "unicodeProperty",
    original: "eq < 0",
    replacement: "false",
    near: "const name = eq < 0 ? body : body.slice(0, eq);",
    reason:
      "`name` is read only when the body has a `=` (a value), where `eq` is above 0 and the " +
      "test is false either way; a body that starts with `=` is no pattern RegExp takes " +
      "(parsePattern refuses it first).",
  },
  {
    file: "bridge/input/pattern.ts",
    mutator: "EqualityOperator",
    in: "unicodeProperty",
    original: "eq < 0",
    replacement: "eq <= 0",
    near: "const name = eq < 0 ? body : body.slice(0, eq);",
    reason:
      "`name` is read only when the body has a `=` (a value), where `eq` is above 0 and the " +
      "test is false either way; a body that starts with `=` is no pattern RegExp takes " +
      "(parsePattern refuses it first).",
  },
  {
    file: "bridge/input/pattern.ts",
    mutator: "EqualityOperator",
    in: "unicodeProperty",
    original: "eq < 0",
    replacement: "eq <= 0",
    near: "const value = eq < 0 ? undefined : body.slice(eq + 1);",
    reason: "`eq` is 0 only for a body that starts with `=`, which no pattern RegExp takes has " +
      "(parsePattern refuses it first).",
  },
  {
    file: "bridge/input/pattern.ts",
    mutator: "LogicalOperator",
    in: "unicodeProperty",
    original: '(name === "General_Category" || name === "gc") && CATEGORIES[value]',
    replacement: 'name === "General_Category" || name === "gc" || CATEGORIES[value]',
    reason: "Of the patterns RegExp takes, a `gc=` value is always a general category (all in " +
      "CATEGORIES), and a `Script=` or `scx=` value never is one (no script is named as a " +
      "category), so the condition has the same value for every pattern that reaches it.",
  },
  {
    file: "bridge/input/pattern.ts",
    mutator: "ConditionalExpression",
    in: "unicodeProperty",
    original: 'name === "General_Category" || name === "gc"',
    replacement: "true",
    reason: "Of the patterns RegExp takes, a `gc=` value is always a general category (all in " +
      "CATEGORIES), and a `Script=` or `scx=` value never is one (no script is named as a " +
      "category), so the condition has the same value for every pattern that reaches it.",
  },
  {
    file: "bridge/input/pattern.ts",
    mutator: "Regex",
    in: "unicodeProperty",
    original: "/^[A-Za-z_]+$/",
    replacement: "/[A-Za-z_]+$/",
    reason: "Every script value RegExp takes is made of letters and underscores only, so the " +
      "pattern matches it whole with or without the anchor.",
  },
  {
    file: "bridge/input/pattern.ts",
    mutator: "Regex",
    in: "unicodeProperty",
    original: "/^[A-Za-z_]+$/",
    replacement: "/^[A-Za-z_]+/",
    reason: "Every script value RegExp takes is made of letters and underscores only, so the " +
      "pattern matches it whole with or without the anchor.",
  },
  // bridge/input/validate.ts
  {
    file: "bridge/input/validate.ts",
    mutator: "BooleanLiteral",
    in: "inputProblem",
    original: "false",
    replacement: "true",
    near: "ok: false,",
    reason: "`inputHint()` reads a result's failure, tooLong and exhausted, never its ok: the " +
      "result made for a missing input names its failure either way.",
  },
  // bridge/input/action_spec.ts
  {
    file: "bridge/input/action_spec.ts",
    mutator: "ConditionalExpression",
    in: "parseActionSpec",
    original: "!(error instanceof PatternError)",
    replacement: "false",
    reason: "`compilePattern()` throws nothing but PatternError (RE2's own refusals become one), " +
      "so the branch that throws anything else on never runs.",
  },
  // elements/prompt.ts
  {
    file: "elements/prompt.ts",
    mutator: "Regex",
    in: "(top level)",
    original:
      "/^(?:[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Co}\\p{Cn}\\p{Cs}\\p{Default_Ignorable_Code_Point}]|[^\\P{Zs} ])$/u",
    replacement:
      "/^(?:[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Co}\\p{Cn}\\p{Cs}\\p{Default_Ignorable_Code_Point}]|[^\\P{Zs} ])/u",
    reason: "HIDDEN is only ever tested against one character (a code point of a for…of over " +
      "the text), and every alternative matches exactly one: the anchors change nothing.",
  },
  {
    file: "elements/prompt.ts",
    mutator: "Regex",
    in: "(top level)",
    original:
      "/^(?:[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Co}\\p{Cn}\\p{Cs}\\p{Default_Ignorable_Code_Point}]|[^\\P{Zs} ])$/u",
    replacement:
      "/(?:[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Co}\\p{Cn}\\p{Cs}\\p{Default_Ignorable_Code_Point}]|[^\\P{Zs} ])$/u",
    reason: "HIDDEN is only ever tested against one character (a code point of a for…of over " +
      "the text), and every alternative matches exactly one: the anchors change nothing.",
  },
  {
    file: "elements/prompt.ts",
    mutator: "BooleanLiteral",
    in: "ApproveGate.#onScreen",
    original: "false",
    replacement: "true",
    reason: "`watch()` calls `#unwatch()`, which sets `#onScreen` to false, before it observes " +
      "anything: the initial value is never read.",
  },
  {
    file: "elements/prompt.ts",
    mutator: "ObjectLiteral",
    in: "(top level)",
    original: "{ capture: true, passive: true }",
    replacement: "{}",
    near: 'addEventListener("pointermove", track, { capture: true, passive: true });',
    reason: "`capture` and `passive` act only in a DOM tree (the window hears a pointer event " +
      "before any element can stop it; a passive listener never delays scrolling); Deno's " +
      "EventTarget has no tree, so no Deno test, which is all mutant switching reaches, can " +
      "tell; the prompt's browser tests run it in Chromium (tests/security/prompt_test.ts).",
  },
  {
    file: "elements/prompt.ts",
    mutator: "BooleanLiteral",
    in: "(top level)",
    original: "true",
    replacement: "false",
    near: 'addEventListener("pointermove", track, { capture: true, passive: true });',
    reason: "`capture` and `passive` act only in a DOM tree (the window hears a pointer event " +
      "before any element can stop it; a passive listener never delays scrolling); Deno's " +
      "EventTarget has no tree, so no Deno test, which is all mutant switching reaches, can " +
      "tell; the prompt's browser tests run it in Chromium (tests/security/prompt_test.ts).",
  },
  {
    file: "elements/prompt.ts",
    mutator: "ObjectLiteral",
    in: "(top level)",
    original: "{ capture: true, passive: true }",
    replacement: "{}",
    near: 'addEventListener("pointerdown", track, { capture: true, passive: true });',
    reason: "`capture` and `passive` act only in a DOM tree (the window hears a pointer event " +
      "before any element can stop it; a passive listener never delays scrolling); Deno's " +
      "EventTarget has no tree, so no Deno test, which is all mutant switching reaches, can " +
      "tell; the prompt's browser tests run it in Chromium (tests/security/prompt_test.ts).",
  },
  {
    file: "elements/prompt.ts",
    mutator: "BooleanLiteral",
    in: "(top level)",
    original: "true",
    replacement: "false",
    near: 'addEventListener("pointerdown", track, { capture: true, passive: true });',
    reason: "`capture` and `passive` act only in a DOM tree (the window hears a pointer event " +
      "before any element can stop it; a passive listener never delays scrolling); Deno's " +
      "EventTarget has no tree, so no Deno test, which is all mutant switching reaches, can " +
      "tell; the prompt's browser tests run it in Chromium (tests/security/prompt_test.ts).",
  },
  // elements/page_tools.ts
  {
    file: "elements/page_tools.ts",
    mutator: "ArrayDeclaration",
    in: "PageTools.#read",
    original: "[]",
    replacement: '["Stryker was here"]',
    near: ": [];",
    reason: "A context that cannot list its tools then lists one string instead of nothing; a " +
      "string has no name, and the loop skips every listed value without a string name.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "ArrayDeclaration",
    in: "PageTools.#read",
    original: "[]",
    replacement: '["Stryker was here"]',
    near: "const sorted = (Array.isArray(listed) ? [...listed] : []).sort((a, b) =>",
    reason: "`listed` is always an array (made as one a few lines above), so the branch that " +
      "would give the empty array never runs.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "EqualityOperator",
    in: "PageTools.#read",
    original: "String(a?.name) < String(b?.name)",
    replacement: "String(a?.name) <= String(b?.name)",
    reason: "It differs only when two listed tools have one name, which WebMCP's registerTool " +
      "refuses (a name is registered once, and aim's registry is by name); for distinct names " +
      "`<=` is `<`.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "ConditionalExpression",
    in: "PageTools.#read",
    original: "String(a?.name) > String(b?.name)",
    replacement: "false",
    reason: "It changes only whether the comparator answers 0 or 1 where a's name is not before " +
      "b's; V8's sort (binary insertion and TimSort's merges alike) acts only on whether the " +
      "answer is below 0, so the tools come in the same order.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "ConditionalExpression",
    in: "PageTools.#read",
    original: "String(a?.name) > String(b?.name)",
    replacement: "true",
    reason: "It changes only whether the comparator answers 0 or 1 where a's name is not before " +
      "b's; V8's sort (binary insertion and TimSort's merges alike) acts only on whether the " +
      "answer is below 0, so the tools come in the same order.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "EqualityOperator",
    in: "PageTools.#read",
    original: "String(a?.name) > String(b?.name)",
    replacement: "String(a?.name) >= String(b?.name)",
    reason: "It changes only whether the comparator answers 0 or 1 where a's name is not before " +
      "b's; V8's sort (binary insertion and TimSort's merges alike) acts only on whether the " +
      "answer is below 0, so the tools come in the same order.",
  },
  {
    file: "elements/page_tools.ts",
    mutator: "EqualityOperator",
    in: "PageTools.#read",
    original: "String(a?.name) > String(b?.name)",
    replacement: "String(a?.name) <= String(b?.name)",
    reason: "It changes only whether the comparator answers 0 or 1 where a's name is not before " +
      "b's; V8's sort (binary insertion and TimSort's merges alike) acts only on whether the " +
      "answer is below 0, so the tools come in the same order.",
  },
  ...HTTP_EQUIVALENTS,
  ...UPSTREAM_EQUIVALENTS,
];
