/**
 * Property tests of the one reading of `<aim-state items= invisible=>` and its
 * `<aim-field>` children (readStateSpec), on the server's htmlparser2 tree and on a DOM-like
 * tree, and of typed(), which turns what a field reads into the type it declares.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseDocument } from "htmlparser2";
import { type AnyNode, type Element, isTag } from "domhandler";
import { textContent } from "domutils";
import type { MarkupElement } from "../../bridge/markup/action.ts";
import {
  readStateSpec,
  type StateSpec,
  type StateSpecResult,
  typed,
} from "../../bridge/markup/state.ts";
import { el, maybe, text, toFake, toHtml } from "../helpers/markup_model.ts";

const RUNS = { numRuns: 300 };

/** One `<aim-field>` of the model: each attribute absent (null) or written as given. */
interface FieldModel {
  name: string | null;
  from: string | null;
  read: string | null;
  attribute: string | null;
  type: string | null;
}

interface StateModel {
  items: string | null;
  invisible: string | null;
  fields: FieldModel[];
  /** Other children, which the reading skips. */
  other: boolean;
}

/** Values an enumerated attribute takes: its words in any case and padding, and others. */
const word = (...words: string[]) =>
  maybe(fc.oneof(
    fc.constantFrom(...words),
    fc.constantFrom(...words).map((w) => ` ${w.toUpperCase()} `),
    fc.constantFrom("", "TEXTS", "int", "hidden", "integer"),
    text(6),
  ));

const fieldModel: fc.Arbitrary<FieldModel> = fc.record({
  name: maybe(fc.oneof(
    fc.constantFrom("title", "done", " id ", "votes", "visible", "x"),
    // Names that look like secrets, or that code might look up in an object.
    fc.constantFrom("password", "apiKey", "session_id", "userPin", "__proto__", "toString"),
    text(8),
  )),
  from: maybe(fc.oneof(fc.constantFrom("label", ".toggle", ""), text(8))),
  read: word("text", "value", "checked"),
  attribute: maybe(fc.oneof(fc.constantFrom("data-id", "href", ""), text(6))),
  type: word("string", "number", "boolean"),
});

const stateModel: fc.Arbitrary<StateModel> = fc.record({
  items: maybe(fc.oneof(fc.constantFrom("li", ".todo-list li", ""), text(8))),
  invisible: word("skip", "mark"),
  fields: fc.array(fieldModel, { maxLength: 4 }),
  other: fc.boolean(),
});

function stateNode(m: StateModel) {
  const fields = m.fields.map((f) =>
    el("aim-field", [
      ["name", f.name],
      ["from", f.from],
      ["read", f.read],
      ["attribute", f.attribute],
      ["type", f.type],
    ])
  );
  const other = m.other ? [el("span", [["name", "ignored"]], ["text"])] : [];
  return el(
    "aim-state",
    [["name", "todos"], ["from", ".list"], ["items", m.items], ["invisible", m.invisible]],
    [...other, ...fields],
  );
}

/** A domhandler element as the MarkupElement that aim check reads. */
function parsed(node: Element): MarkupElement {
  return {
    tagName: node.name.toUpperCase(),
    getAttribute: (name) => node.attribs[name.toLowerCase()] ?? null,
    get children() {
      return node.children.filter(isTag).map(parsed);
    },
    get textContent() {
      return textContent(node);
    },
  };
}

function first(node: AnyNode, name: string): Element | undefined {
  if (isTag(node) && node.name === name) return node;
  for (const child of "children" in node ? node.children : []) {
    const found = first(child, name);
    if (found) return found;
  }
}

/** An enumerated attribute as the model says it reads: its word, or the error naming it. */
function choice(attr: string, raw: string | null, words: string[]): string | null | RegExp {
  if (raw === null) return null;
  const value = raw.trim().toLowerCase();
  return words.includes(value) ? value : new RegExp(`^${attr}="`);
}

/** What the rules say a model reads as: the spec, or a pattern of the error's message. */
function expected(m: StateModel): StateSpec | RegExp {
  const fields: StateSpec["fields"] = [];
  for (const f of m.fields) {
    const read = choice("read", f.read, ["text", "value", "checked"]);
    if (read instanceof RegExp) return read;
    const type = choice("type", f.type, ["string", "number", "boolean"]);
    if (type instanceof RegExp) return type;
    const name = (f.name ?? "").trim();
    if (!name) return /has no name/;
    if (f.attribute !== null && (read !== null || f.attribute === "")) return /attribute=/;
    if (read === "checked" && type === "number") return /does not fit/;
    fields.push({
      name,
      from: f.from || null,
      read: read as StateSpec["fields"][number]["read"],
      attribute: f.attribute,
      type: type as StateSpec["fields"][number]["type"],
    });
  }
  const invisible = choice("invisible", m.invisible, ["skip", "mark"]);
  if (invisible instanceof RegExp) return invisible;
  return { items: m.items, invisible: (invisible ?? "skip") as "skip" | "mark", fields };
}

Deno.test("readStateSpec() reads the same spec on the server and in a DOM-like tree, as the rules say", () => {
  fc.assert(
    fc.property(stateModel, (m) => {
      const node = stateNode(m);
      const fake: StateSpecResult = readStateSpec(toFake(node));
      const server = readStateSpec(parsed(first(parseDocument(toHtml(node)), "aim-state")!));
      const want = expected(m);
      assert.deepEqual(server, fake, "the two trees read differently");
      if (want instanceof RegExp) {
        assert.ok(!fake.ok, `expected ${want}, read ${JSON.stringify(fake)}`);
        assert.match(fake.problem, want);
      } else {
        assert.deepEqual(fake, { ok: true, spec: want });
      }
    }),
    RUNS,
  );
});

Deno.test("readStateSpec() names the field and the attribute at fault", () => {
  const problem = (...fields: [string, string | null][][]) => {
    const node = el(
      "aim-state",
      [["name", "s"], ["items", "li"]],
      fields.map((attrs) => el("aim-field", attrs)),
    );
    const read = readStateSpec(toFake(node));
    return read.ok ? "" : read.problem;
  };
  assert.equal(
    problem([["name", "t"], ["read", "html"]]),
    'read="html" is not one of text, value, checked',
  );
  assert.equal(problem([["name", " "]]), '<aim-field name=""> has no name');
  assert.equal(
    problem([["name", "t"], ["read", "text"], ["attribute", "x"]]),
    '<aim-field name="t"> needs attribute="NAME", without read=',
  );
  assert.equal(
    problem([["name", "n"], ["read", "checked"], ["type", "number"]]),
    '<aim-field name="n"> reads checked, a boolean: type="number" does not fit',
  );
  // Secrets are the client's to remove and aim check's to report: the spec keeps the name.
  assert.equal(problem([["name", "api_key"]], [["name", "title"], ["from", "label"]]), "");
});

Deno.test("typed() makes numbers of numeric text only, and never throws", () => {
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
      // Number's own spelling of any finite number reads back as that number (-0 is "0").
      assert.equal(typed(String(n), "number"), n + 0);
      assert.equal(typed(` ${n}\n`, "number"), n + 0);
      assert.equal(typed(String(n), null), String(n));
      assert.equal(typed(String(n), "string"), String(n));
    }),
    RUNS,
  );
  fc.assert(
    fc.property(fc.string(), (s) => {
      const number = typed(s, "number");
      const numeric = /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(s);
      assert.equal(number, numeric ? Number(s) : null);
      const boolean = typed(s, "boolean");
      assert.equal(
        boolean,
        /^\s*true\s*$/i.test(s) ? true : /^\s*false\s*$/i.test(s) ? false : null,
      );
    }),
    RUNS,
  );
  for (const s of ["", " ", "1,000", "$5", "0x10", "Infinity", "NaN", "1e", ".", "- 1", "12abc"]) {
    assert.equal(typed(s, "number"), null, s);
  }
  assert.equal(typed("007", "number"), 7);
  assert.equal(typed("-.5", "number"), -0.5);
  assert.equal(typed(null, "number"), null);
  assert.equal(typed(true, "boolean"), true);
  assert.equal(typed(false, "string"), "false");
  assert.equal(typed(true, "number"), null);
});
