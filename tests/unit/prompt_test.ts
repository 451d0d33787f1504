/**
 * Tests of elements/prompt.ts's text rules, in Deno: what could hide or disguise an agent's
 * input is shown as a visible escape, what cannot is left alone, and a long input is cut, saying
 * how much is left out. (The Approve rule is tested in Chromium: tests/security/prompt_test.ts.)
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  cutNote,
  MAX_SHOWN_CHARS,
  readable,
  READABLE_DEFAULTS,
  REPLACED_NOTICE,
  shownInput,
} from "../../elements/prompt.ts";

/** Reads the escapes back: `\u202E` and `\u{E0041}`. */
function unescape(text: string): string {
  return text.replace(
    /\\u\{([0-9A-F]+)\}|\\u([0-9A-F]{4})/g,
    (_, long, short) => String.fromCodePoint(parseInt(long ?? short, 16)),
  );
}

/** A character that renders as nothing, or moves or disguises the text around it. */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]|[^\P{Zs} ]|\p{Cs}/u;

Deno.test("a right-to-left override reads as an escape, not as the word it reverses", () => {
  assert.equal(readable("\u202Eecila\u202C bob").text, "\\u202Eecila\\u202C bob");
  assert.equal(
    shownInput({ to: "\u202Eecila\u202C bob" }).text,
    '{\n  "to": "\\u202Eecila\\u202C bob"\n}',
  );
});

Deno.test("every kind of hidden character is escaped", () => {
  const cases: [string, string][] = [
    ["\u0000", "\\u0000"], // C0 control
    ["\u0085", "\\u0085"], // C1 control (next line)
    ["\u007F", "\\u007F"], // delete
    ["\u202A\u202B\u202D\u202E\u202C", "\\u202A\\u202B\\u202D\\u202E\\u202C"], // embeddings
    ["\u2066\u2067\u2068\u2069", "\\u2066\\u2067\\u2068\\u2069"], // isolates
    ["\u200B\u200C\u200D\u200E\u200F", "\\u200B\\u200C\\u200D\\u200E\\u200F"], // zero-width, marks
    ["\u061C", "\\u061C"], // Arabic letter mark
    ["\u2028\u2029", "\\u2028\\u2029"], // line and paragraph separators
    ["\uFEFF\u2060\u00AD", "\\uFEFF\\u2060\\u00AD"], // BOM, word joiner, soft hyphen
    ["\u00A0\u2007\u3000", "\\u00A0\\u2007\\u3000"], // spaces that look like U+0020 or nothing
    ["\uFE0F\u3164\u115F", "\\uFE0F\\u3164\\u115F"], // variation selector, Hangul fillers
    ["\u{E0041}\u{E007F}", "\\u{E0041}\\u{E007F}"], // tag characters
    ["\uE000\u{F0000}", "\\uE000\\u{F0000}"], // private use
    ["\uD800", "\\uD800"], // a lone surrogate
    ["\n\t\r", "\\u000A\\u0009\\u000D"], // outside JSON, a line feed is escaped too
  ];
  for (const [text, shown] of cases) assert.equal(readable(text).text, shown, JSON.stringify(text));
});

Deno.test("ordinary text of any script is shown as itself", () => {
  for (
    const text of ["alice bob", "Zoë, café, naïve", "请付款", "مرحبا بالعالم", "שלום", "नमस्ते", "💸"]
  ) {
    assert.deepEqual(readable(text), { text, more: 0 });
  }
  // A zero-width joiner is one even inside an emoji sequence: it shows.
  assert.equal(readable("👩\u200D👧").text, "👩\\u200D👧");
});

Deno.test("an input's JSON keeps its lines, and escapes nothing it does not need to", () => {
  assert.deepEqual(shownInput({ to: "bob", amount: "5" }), {
    text: '{\n  "to": "bob",\n  "amount": "5"\n}',
    more: 0,
  });
  assert.deepEqual(shownInput("bill-7"), { text: '"bill-7"', more: 0 });
});

Deno.test("a long input is cut, never inside an escape, and says how many characters are left out", () => {
  const input = "x".repeat(MAX_SHOWN_CHARS + 500);
  const shown = shownInput(input);
  assert.equal(shown.text.length, MAX_SHOWN_CHARS);
  // The JSON quotes count: 2 more than the input.
  assert.equal(shown.more, 502);
  assert.equal(cutNote(shown.more), "… (502 more characters not shown)");
  assert.equal(cutNote(0), "");
  // An escape is shown whole; an emoji (two code units) counts as one character.
  assert.deepEqual(readable("ab\u202Ecd", { max: 3 }), { text: "ab\\u202E", more: 2 });
  assert.deepEqual(readable("a😀😀b", { max: 2 }), { text: "a😀", more: 2 });
});

Deno.test("whatever the text, nothing hidden is shown, and the escapes read back to it", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (text) => {
      const { text: shown, more } = readable(text);
      assert.equal(more, 0);
      assert.ok(!HIDDEN.test(shown), JSON.stringify(shown));
      if (!text.includes("\\")) assert.equal(unescape(shown), text);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("no input at all is shown as null", () => {
  assert.deepEqual(shownInput(undefined), { text: "null", more: 0 });
});

Deno.test("a prompt that replaced a withdrawn one says so, and says how to make Approve work", () => {
  assert.equal(
    REPLACED_NOTICE,
    "This request replaced an earlier one, withdrawn before you answered. Read it again: " +
      "Approve works once you point at or tap this request.",
  );
});

Deno.test("readable()'s documented defaults are what it does without options: escapes a line feed, cuts nothing", () => {
  assert.deepEqual(READABLE_DEFAULTS, { lines: false, max: Infinity });
  const text = `a\n${"b".repeat(5000)}`;
  assert.deepEqual(readable(text), readable(text, READABLE_DEFAULTS));
  assert.deepEqual(readable(text), { text: `a\\u000A${"b".repeat(5000)}`, more: 0 });
});
