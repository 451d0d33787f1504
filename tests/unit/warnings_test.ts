/**
 * The warnings to page authors (elements/warnings.ts, elements/warning_text.ts): each of a kind,
 * with its section of docs/elements.md, once per sentence, and at most `MAX_WARNINGS` in all.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { WarningCode } from "../../elements/warnings.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TEXT = new URL("../../elements/warning_text.ts", import.meta.url).href;

type WarningText = typeof import("../../elements/warning_text.ts");

/** A module of its own (its given warnings start empty), and what it writes to the console. */
async function fresh(): Promise<
  { text: WarningText; lines: unknown[][]; [Symbol.dispose](): void }
> {
  const text = await import(`${TEXT}?fresh=${crypto.randomUUID()}`) as WarningText;
  const lines: unknown[][] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => void lines.push(args);
  return { text, lines, [Symbol.dispose]: () => void (console.warn = original) };
}

/** The anchors of docs/elements.md's headings, as GitHub makes them. */
function anchors(): Set<string> {
  const md = Deno.readTextFileSync(`${ROOT}docs/elements.md`);
  return new Set(
    [...md.matchAll(/^#{2,4} (.+)$/gm)].map((m) =>
      m[1]!.toLowerCase().replace(/[^\w\- ]/g, "").replace(/ /g, "-")
    ),
  );
}

Deno.test("every warning says its code and the section of docs/elements.md that explains it", async () => {
  using console = await fresh();
  const docs = anchors();
  assert.ok(docs.has("author-warnings"));
  const codes = Object.keys(console.text.SENTENCES) as WarningCode[];
  assert.ok(codes.length >= 10);
  for (const code of codes) {
    assert.ok(docs.has(code), `docs/elements.md has no section #${code}`);
    console.text.issue(code, ["first", "second"]);
    const [line] = console.lines.at(-1)!;
    assert.match(String(line), new RegExp(`^\\[aim\\] .+ \\(docs/elements\\.md#${code}\\)$`));
  }
  assert.equal(console.lines.length, codes.length);
});

Deno.test("a warning is given once per sentence, with the element at fault", async () => {
  using console = await fresh();
  const el = { tagName: "AIM-ACTION" } as unknown as Element;
  console.text.issue("action-markup", ["pay", "input-min-length is not a whole number"], el);
  console.text.issue("action-markup", ["pay", "input-min-length is not a whole number"], el);
  console.text.issue("action-markup", ["refund", "input-min-length is not a whole number"], el);
  assert.deepEqual(console.lines, [
    [
      '[aim] <aim-action name="pay">: input-min-length is not a whole number (docs/elements.md#action-markup)',
      el,
    ],
    [
      '[aim] <aim-action name="refund">: input-min-length is not a whole number (docs/elements.md#action-markup)',
      el,
    ],
  ]);
});

Deno.test("past MAX_WARNINGS, one last warning says more were left out, and the set stops growing", async () => {
  using console = await fresh();
  const { MAX_WARNINGS } = console.text;
  for (let i = 0; i < MAX_WARNINGS * 3; i++) console.text.issue("channel-closed", [`reason ${i}`]);
  assert.equal(console.lines.length, MAX_WARNINGS + 1);
  assert.match(String(console.lines.at(-2)![0]), new RegExp(`reason ${MAX_WARNINGS - 1} `));
  assert.match(
    String(console.lines.at(-1)![0]),
    /more warnings were left out .*#author-warnings\)$/,
  );
  assert.equal(console.text.givenWarnings().length, MAX_WARNINGS + 1);
});

Deno.test("every warning the elements give names a code with words", () => {
  const uses: string[] = [];
  for (const entry of Deno.readDirSync(`${ROOT}elements`)) {
    if (!entry.name.endsWith(".ts")) continue;
    const text = Deno.readTextFileSync(`${ROOT}elements/${entry.name}`);
    // No warning bypasses the rules: only warning_text.ts writes to the console.
    if (entry.name !== "warning_text.ts") {
      assert.doesNotMatch(text, /console\.warn\(/, `elements/${entry.name} warns by itself`);
    }
    for (const m of text.matchAll(/\bwarn\("([a-z-]+)"/g)) uses.push(m[1]!);
  }
  assert.ok(uses.length >= 10, `only ${uses.length} warnings found`);
});
