/**
 * @module Checking a page's declarations as a linter would: every problem with the file,
 * line and column it is at, and warnings about what is allowed but risky.
 */
import { parseDocument } from "htmlparser2";
import { type AnyNode, type Document, type Element, isTag } from "domhandler";
import { selectAll, selectOne } from "css-select";
import { textContent } from "domutils";
import { ParsedView, scanPage } from "./catalog.ts";
import { BUILTIN_ACTION_IDS, stringFields } from "../protocol/action_spec.ts";
import { parsePattern, PatternError, type PatternNode } from "../protocol/input.ts";
import type { InputSchema } from "../protocol/schemas.ts";
import {
  anchorPattern,
  INPUT_ATTRIBUTES,
  itemKey,
  type MarkupElement,
  SECRET_KEY,
} from "../protocol/markup.ts";
import { OBJECT_NAMES } from "../protocol/wire.ts";
import { readStateSpec, type StateField, typed } from "../protocol/state_markup.ts";
import { splitDeep } from "../protocol/deep_selector.ts";

/** One problem found by {@linkcode checkPage}. */
export interface CheckProblem {
  file: string;
  line: number;
  column: number;
  message: string;
  /** An error fails `aim check`; a warning only with `--strict`. */
  severity: "error" | "warning";
}

const ELEMENTS_SCRIPT = /(^|\/)__aim\/elements(\.[A-Za-z0-9_-]+)?\.js(\?.*)?$/;

function position(html: string, offset: number): { line: number; column: number } {
  const before = html.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/** An empty tree, to check a selector's syntax on. */
const EMPTY = parseDocument("");

/**
 * What the static HTML can check of a selector with the deep combinator `>>>`: the part before
 * the first one ("" for a leading `>>>`, which starts in an item's shadow root); the rest is
 * inside shadow roots that a script attaches. Null when a part is not a valid selector;
 * undefined for a plain selector.
 */
function deepPrefix(selector: string): string | null | undefined {
  if (!selector.includes(">>>")) return undefined;
  try {
    const parts = splitDeep(selector);
    if (parts.length === 1) return undefined;
    for (const part of parts) if (part) selectAll(part, EMPTY);
    return parts[0]!;
  } catch {
    return null;
  }
}

/** The warning about a deep selector: what `aim check` cannot see, and what it checked. */
function deepWarning(attr: string, selector: string, prefix: string): string {
  return `${attr}="${selector}" reaches into shadow roots (>>>), which a script attaches: ` +
    (prefix ? `only "${prefix}" is checked in the static page` : "it is not checked statically");
}

function elements(node: AnyNode, out: Element[] = []): Element[] {
  if (isTag(node)) out.push(node);
  if ("children" in node) { for (const child of node.children) elements(child, out); }
  return out;
}

function flag(value: string | undefined): boolean {
  return value !== undefined && value.trim().toLowerCase() !== "false";
}

// ---------------------------------------------------------------------------------------------
// Catastrophic backtracking. The bridge runs patterns with RE2, in linear time; but browsers
// check form fields' patterns, and agents validate input against the published input_schema,
// with backtracking engines. A pattern is reported when such an engine can take exponential
// time on it: when its Glushkov automaton is exponentially ambiguous (two different paths
// from one position back to itself read the same text: (a+)+, (a|a)*, (\w|\d)+, (a|b|ab)*),
// at a position after which the pattern still needs something that can fail (`$`, another
// part), so that the engine tries every path before giving up. Polynomial ambiguity (\d+\d+)
// is not reported. Packages weighed for this: safe-regex2 misses (a|a)* and flags safe
// patterns such as [a-z0-9]+(?:-[a-z0-9]+)*; redos-detector is precise on some patterns but
// takes seconds on others and answers "too many steps" for safe ones such as a{1,30}a{1,30}.

/** Code points every position is tried on, beside those the pattern itself names. */
const SAMPLE_CODE_POINTS = [
  0x2028,
  0x2029,
  0x1680,
  0x2000,
  0x200a,
  0x202f,
  0x205f,
  0x3000,
  0xfeff,
  0x391,
  0x3b1,
  0x410,
  0x430,
  0x5d0,
  0x627,
  0x660,
  0x905,
  0x966,
  0xe01,
  0x3042,
  0x30a2,
  0x4e00,
  0x9fff,
  0xac00,
  0xd800,
  0xdc00,
  0xe000,
  0xfffd,
  0xff10,
  0xff21,
  0x2160,
  0x10000,
  0x1f600,
  0x10ffff,
];
/** Product-automaton edges examined at most, so that a huge pattern cannot stall the check. */
const MAX_EDGES = 2_000_000;

interface Automaton {
  /** Per position: the regular expression of what it reads, or null for the end of input. */
  atoms: ({ source: string; flags: string } | null)[];
  /**
   * Per position: the positions that may come next, each with how many ways the pattern's
   * structure leads there: `(a+)+` goes from `a` back to `a` by the inner and by the outer
   * repetition, which a backtracking engine tries both.
   */
  follow: Map<number, number>[];
  first: Set<number>;
  last: Set<number>;
}

function glushkov(tree: PatternNode): Automaton {
  const atoms: Automaton["atoms"] = [];
  const follow: Map<number, number>[] = [];
  const link = (from: Set<number>, to: Set<number>) => {
    for (const l of from) {
      // Positions are indices that `add` gave out, so each has its map.
      const next = follow[l]!;
      for (const f of to) next.set(f, (next.get(f) ?? 0) + 1);
    }
  };
  const add = (atom: Automaton["atoms"][number]) => {
    atoms.push(atom);
    follow.push(new Map());
    return atoms.length - 1;
  };
  type Part = { nullable: boolean; first: Set<number>; last: Set<number> };
  const empty = (): Part => ({ nullable: true, first: new Set(), last: new Set() });
  const walk = (node: PatternNode): Part => {
    switch (node.type) {
      case "atom": {
        const flags = "u" + (node.ignoreCase ? "i" : "") + (node.dotAll ? "s" : "");
        const p = add({ source: node.source, flags });
        return { nullable: false, first: new Set([p]), last: new Set([p]) };
      }
      case "assert": {
        if (node.kind !== "$") return empty();
        const p = add(null);
        return { nullable: false, first: new Set([p]), last: new Set([p]) };
      }
      case "group":
        return walk(node.body);
      case "alt": {
        const out: Part = { nullable: false, first: new Set(), last: new Set() };
        for (const alt of node.alts) {
          const part = walk(alt);
          out.nullable ||= part.nullable;
          for (const p of part.first) out.first.add(p);
          for (const p of part.last) out.last.add(p);
        }
        return out;
      }
      case "seq": {
        let out = empty();
        for (const item of node.items) {
          const part = walk(item);
          link(out.last, part.first);
          out = {
            nullable: out.nullable && part.nullable,
            first: out.nullable ? new Set([...out.first, ...part.first]) : out.first,
            last: part.nullable ? new Set([...part.last, ...out.last]) : part.last,
          };
        }
        return out;
      }
      case "repeat": {
        if (node.max === 0) return empty();
        const part = walk(node.body);
        // Any count above one is a loop: bounded repetitions are treated as unbounded.
        if (node.max > 1) link(part.last, part.first);
        return { ...part, nullable: part.nullable || node.min === 0 };
      }
    }
  };
  const root = walk(tree);
  return { atoms, follow, first: root.first, last: root.last };
}

/** Which of `candidates` each position reads, as bit sets (one more bit: the end of input). */
function readSets(automaton: Automaton, candidates: number[]): Uint32Array[] {
  const words = Math.ceil((candidates.length + 1) / 32);
  const endBit = candidates.length;
  return automaton.atoms.map((atom) => {
    const bits = new Uint32Array(words);
    if (atom === null) {
      // `words` has room for bit `endBit`, and for each candidate's below.
      bits[endBit >> 5]! |= 1 << (endBit & 31);
      return bits;
    }
    const re = new RegExp(`^(?:${atom.source})$`, atom.flags);
    candidates.forEach((cp, i) => {
      if (re.test(String.fromCodePoint(cp))) bits[i >> 5]! |= 1 << (i & 31);
    });
    return bits;
  });
}

/** What {@linkcode backtrackingRisk} found. */
export type BacktrackingRisk =
  /** A backtracking engine can take exponential time; `atom` is where the paths meet. */
  | { kind: "catastrophic"; atom: string }
  /** The pattern is too large to tell within the analysis budget. */
  | { kind: "unknown" };

/**
 * Whether `pattern` can backtrack catastrophically in a backtracking engine; undefined when it
 * cannot, or does not parse (the bridge reports such patterns itself).
 */
export function backtrackingRisk(pattern: string): BacktrackingRisk | undefined {
  let tree: PatternNode;
  try {
    tree = parsePattern(pattern);
  } catch (error) {
    if (error instanceof PatternError) return undefined;
    throw error;
  }
  const automaton = glushkov(tree);
  const n = automaton.atoms.length;
  if (n === 0) return undefined;
  const named = new Set<number>();
  for (const atom of automaton.atoms) {
    for (const m of atom?.source.matchAll(/\\u\{([0-9a-fA-F]+)\}|\\x([0-9a-fA-F]{2})/g) ?? []) {
      // One of the two alternatives matched, so one of the groups took part.
      const cp = parseInt((m[1] ?? m[2])!, 16);
      named.add(cp).add(Math.max(0, cp - 1)).add(Math.min(0x10ffff, cp + 1));
    }
    for (const ch of atom?.source ?? "") {
      const cp = ch.codePointAt(0)!;
      named.add(cp).add(Math.max(0, cp - 1)).add(Math.min(0x10ffff, cp + 1));
    }
  }
  const candidates = [
    ...new Set([
      ...Array.from({ length: 0x250 }, (_, i) => i),
      ...SAMPLE_CODE_POINTS,
      ...named,
    ]),
  ];
  const sets = readSets(automaton, candidates);
  const meets = (a: number, b: number) => {
    // Positions index `sets`, whose bit sets all have the same length.
    const x = sets[a]!;
    const y = sets[b]!;
    for (let i = 0; i < x.length; i++) if (x[i]! & y[i]!) return true;
    return false;
  };
  // The product automaton: pairs of positions that read the same text, START being n. A pair
  // of equal positions is "diverged" when the two paths reached it by different ways.
  const START = n;
  const startFollow = new Map([...automaton.first].map((p) => [p, 1]));
  const followOf = (p: number) => (p === START ? startFollow : automaton.follow[p]!);
  const key = (p: number, q: number, diverged: boolean) =>
    (p * (n + 1) + q) * 2 + (diverged ? 1 : 0);
  const unkey = (node: number) => {
    const pair = Math.floor(node / 2);
    return { p: Math.floor(pair / (n + 1)), q: pair % (n + 1), diverged: node % 2 === 1 };
  };
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  let counter = 0;
  let edges = 0;
  let found: string | undefined;
  const successors = (node: number): number[] => {
    const { p, q } = unkey(node);
    const out: number[] = [];
    for (const [p2, ways] of followOf(p)) {
      for (const q2 of followOf(q).keys()) {
        if (++edges > MAX_EDGES) throw new RangeError("too large");
        if (!meets(p2, q2)) continue;
        out.push(key(p2, q2, false));
        if (p === q && p2 === q2 && ways > 1) out.push(key(p2, q2, true));
      }
    }
    return out;
  };
  // Tarjan's strongly connected components, without recursion.
  const visit = (root: number) => {
    const work: { node: number; next: number[]; i: number }[] = [];
    const open = (node: number) => {
      index.set(node, counter);
      low.set(node, counter++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, next: successors(node), i: 0 });
    };
    open(root);
    while (work.length && found === undefined) {
      const frame = work[work.length - 1]!;
      if (frame.i < frame.next.length) {
        const next = frame.next[frame.i++]!;
        if (!index.has(next)) open(next);
        else if (onStack.has(next)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(next)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: number[] = [];
      let member: number;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const pairs = component.map(unkey);
      const differing = new Set<number>();
      for (const { p, q, diverged } of pairs) if (p !== q || diverged) differing.add(p).add(q);
      if (differing.size === 0) continue;
      const loops = pairs.filter(({ p, q, diverged }) =>
        p === q && !diverged && p !== START && !automaton.last.has(p)
      );
      const loop = loops.find(({ p }) => differing.has(p)) ?? loops[0];
      if (loop) found = automaton.atoms[loop.p]?.source ?? "$";
    }
  };
  try {
    visit(key(START, START, false));
  } catch (error) {
    if (error instanceof RangeError) return { kind: "unknown" };
    throw error;
  }
  return found === undefined ? undefined : { kind: "catastrophic", atom: found };
}

/** Every pattern of an input schema, with where it is. */
function patternsOf(schema: InputSchema): [string, string][] {
  return stringFields(schema).flatMap(([where, field]) =>
    field.pattern === undefined ? [] : [[`${where}.pattern`, field.pattern] as [string, string]]
  );
}

// ---------------------------------------------------------------------------------------------
// <aim-state>: its items= and <aim-field> children, read against the static HTML as the
// element would read the page (a script may render more, so what matches nothing only warns).

/** Reports a problem at an element: an error unless said otherwise. */
type AddProblem = (el: Element, message: string, severity?: CheckProblem["severity"]) => void;

/** Attributes of an `<aim-action>`'s `<aim-field>`, which mean nothing in an `<aim-state>`. */
const ACTION_FIELD_ATTRIBUTES = ["fill", "required", "minimum", "maximum"];

/** The parsed view of each document checked: the shared readings of markup.ts read it. */
const views = new WeakMap<Document, ParsedView>();

/** An element of `doc` seen through the MarkupElement interface of the shared readings. */
function markupOf(el: Element, doc: Document): MarkupElement {
  let view = views.get(doc);
  if (!view) views.set(doc, view = new ParsedView(doc));
  return view.wrap(el);
}

/** What `root.querySelectorAll(selector)` finds in a browser; throws on a bad selector. */
function inside(selector: string, root: AnyNode, doc: Document): Element[] {
  if (!selector.trim()) throw new SyntaxError("empty selector");
  return selectAll<AnyNode, Element>(selector, doc).filter((el) => {
    for (let up = el.parent; up; up = up.parent) if (up === root) return true;
    return false;
  });
}

const CONTROLS = ["input", "select", "textarea"];

/** What a field reads from one element in the static HTML, or undefined when that is unknown. */
function staticReading(el: Element, field: StateField): string | null | undefined {
  if (field.attribute) return el.attribs[field.attribute.toLowerCase()] ?? null;
  const box = el.name === "input" && /^(checkbox|radio)$/i.test(el.attribs.type ?? "");
  const read = field.read ?? (box ? "checked" : CONTROLS.includes(el.name) ? "value" : "text");
  if (read === "text") return textContent(el).replace(/\s+/g, " ").trim();
  // A select's value depends on its options, and checkedness is no text.
  if (read === "checked" || el.name === "select") return undefined;
  return el.name === "input" ? el.attribs.value ?? "" : textContent(el);
}

/** Warnings about one field, read in each of `items` (rows, cells or list items). */
function checkField(field: StateField, items: Element[], doc: Document): string[] {
  const targets = field.from
    ? items.flatMap((item) => inside(field.from!, item, doc).slice(0, 1))
    : items;
  if (!targets.length) return [`from="${field.from}" matches nothing in the static items`];
  const out: string[] = [];
  const target = targets[0]!;
  const type = (target.attribs.type ?? "").toLowerCase();
  if (target.name === "input" && type === "password") {
    out.push("reads a password field, which is never published");
  } else if (field.read === "checked" && !/^(checkbox|radio)$/.test(type)) {
    out.push(`read="checked" reads a <${target.name}>, which has no checkedness`);
  } else if (field.read === "value" && !CONTROLS.includes(target.name)) {
    out.push(`read="value" reads a <${target.name}>, which has no value`);
  }
  // A boolean attribute is true when present, whatever its text.
  for (const el of field.attribute && field.type === "boolean" ? [] : targets) {
    const value = staticReading(el, field);
    if (value && field.type && field.type !== "string" && typed(value, field.type) === null) {
      out.push(`type="${field.type}" does not fit what it reads here, ${JSON.stringify(value)}`);
      break;
    }
  }
  return out;
}

/** A table's rows and header texts as the element reads them (`<thead>`, or a first row of `<th>`). */
function tableOf(table: Element): { rows: Element[]; keys: string[] } {
  const all = selectAll<AnyNode, Element>("tr", table).filter((tr) => {
    // Rows of this table, not of a table nested in a cell.
    for (let up = tr.parent; up; up = up.parent) {
      if (isTag(up) && up.name === "table") return up === table;
    }
    return false;
  });
  const cells = (tr: Element) => tr.children.filter(isTag).filter((c) => /^t[dh]$/.test(c.name));
  const first = all[0];
  const inHead = (tr: Element) => isTag(tr.parent!) && (tr.parent as Element).name === "thead";
  const head = all.find(inHead) ??
    (first && cells(first).every((c) => c.name === "th") ? first : undefined);
  const keys = head
    ? cells(head).map((c, i) => textContent(c).replace(/\s+/g, " ").trim() || String(i))
    : [];
  return { rows: all.filter((tr) => tr !== head && !inHead(tr)), keys };
}

/** Problems with one `<aim-state>`'s items= and fields; its from= is checked with the rest. */
function checkState(el: Element, doc: Document, add: AddProblem, label: string): void {
  const read = readStateSpec(markupOf(el, doc));
  if (!read.ok) return add(el, `${label}: ${read.problem}`);
  const spec = read.spec;
  const fieldEls = el.children.filter((c): c is Element => isTag(c) && c.name === "aim-field");
  /** Whether a selector can be checked in the static page; a deep one is only warned about. */
  const valid = (selector: string, at: Element, attr: string) => {
    const prefix = deepPrefix(selector);
    try {
      if (prefix === null) throw new SyntaxError(selector);
      if (prefix !== undefined) {
        if (attr !== "items") {
          add(at, `${label}: ${deepWarning(attr, selector, prefix)}`, "warning");
        }
        return false;
      }
      inside(selector, doc, doc);
      return true;
    } catch {
      add(at, `${label}: ${attr}="${selector}" is not a valid selector`);
      return false;
    }
  };
  const fields = spec.fields.map((field, i) => {
    const at = fieldEls[i]!;
    const named = `${label}: <aim-field name="${field.name}">`;
    // The client removes such keys from the state: the field would never be published.
    if (SECRET_KEY.test(field.name) || OBJECT_NAMES.has(field.name.toLowerCase())) {
      add(at, `${named} has a name that looks like a secret or is reserved: it is never published`);
    }
    if (spec.fields.findIndex((f) => f.name === field.name) < i) {
      add(at, `${named} is declared twice`);
    }
    if (spec.invisible === "mark" && field.name === "visible") {
      add(at, `${named}: invisible="mark" adds "visible" itself`);
    }
    for (const attr of ACTION_FIELD_ATTRIBUTES) {
      if (at.attribs[attr] !== undefined) {
        add(at, `${named}: ${attr}= belongs to <aim-action> and does nothing here`, "warning");
      }
    }
    return { field, at, named, ok: !field.from || valid(field.from, at, "from") };
  });
  const from = el.attribs.from;
  if (spec.fields.length && spec.items === null && from === undefined) {
    add(el, `${label}: its <aim-field> children need from= or items=`);
  }
  if (spec.items !== null && !valid(spec.items, el, "items")) {
    // Items in shadow roots: their fields cannot be read statically either.
    const prefix = deepPrefix(spec.items);
    if (typeof prefix === "string") {
      add(el, `${label}: ${deepWarning("items", spec.items, prefix)}`, "warning");
    }
    return;
  }
  let source: AnyNode | null = doc;
  try {
    // A deep from= is warned about with the rest.
    if (from !== undefined) {
      source = deepPrefix(from) === undefined ? selectOne<AnyNode, Element>(from, doc) : null;
    }
  } catch {
    source = null;
  }
  // A from= that matches nothing, or is not a selector, is reported with the rest.
  if (!source) return;
  const report = (field: StateField, at: Element, named: string, items: Element[]) => {
    for (const message of checkField(field, items, doc)) add(at, `${named} ${message}`, "warning");
  };
  if (spec.items !== null) {
    const items = inside(spec.items, source, doc);
    if (!items.length) {
      return add(
        el,
        `${label}: items="${spec.items}" matches nothing in the static page (fine if a script ` +
          "renders the items)",
        "warning",
      );
    }
    for (const f of fields) if (f.ok) report(f.field, f.at, f.named, items);
  } else if (isTag(source) && source.name === "table") {
    const { rows, keys } = tableOf(source);
    for (const { field, at, named, ok } of fields) {
      const column = keys.indexOf(field.name);
      if (column < 0 && !field.from && !field.attribute) {
        add(at, `${named} names no column of the table, so it reads each whole row`, "warning");
        continue;
      }
      const items = column < 0
        ? rows
        : rows.flatMap((tr) =>
          tr.children.filter(isTag).filter((c) => /^t[dh]$/.test(c.name)).slice(column, column + 1)
        );
      if (ok && items.length) report(field, at, named, items);
    }
  } else if (isTag(source)) {
    for (const f of fields) if (f.ok) report(f.field, f.at, f.named, [source]);
  }
}

// ---------------------------------------------------------------------------------------------
// <aim-action>: its bindings (items=, key=, click=, check=, fill=, commit=, <aim-field>) read
// against the static HTML. What a script may render (items, their parts, filled controls) only
// warns when it matches nothing; what can never work is an error.

/** The types a field may declare. */
const FIELD_TYPES = ["string", "number", "integer", "boolean"];
/** The attributes of a field's schema, by the types they fit. */
const FIELD_FITS: [string[], string[]][] = [
  [["minlength", "min-length", "maxlength", "max-length", "pattern"], ["string"]],
  [["minimum", "maximum"], ["number", "integer"]],
];

/** The elements matching `selector` inside `root` (the document: anywhere); null if invalid. */
function findAll(selector: string, root: AnyNode): Element[] | null {
  try {
    return selector.trim() ? selectAll<AnyNode, Element>(selector, root) : null;
  } catch {
    return null;
  }
}

/** Whether `type` fits the control a field is filled into; the message says why not. */
function typeMisfit(type: string, control: Element | undefined): string | undefined {
  if (!control) return undefined;
  const kind = control.name === "select"
    ? "select"
    : control.name === "input"
    ? (control.attribs.type ?? "text").toLowerCase()
    : control.name;
  if (kind === "checkbox") return type === "boolean" ? undefined : "a checkbox takes a boolean";
  if (kind === "select" || kind === "radio") {
    return type === "string" ? undefined : `a <select> or radio buttons take one of their values`;
  }
  return type === "boolean"
    ? `a <${control.name}> takes text; only a checkbox takes a boolean`
    : undefined;
}

/**
 * Problems with one field's type and constraints: an `<aim-field>` (prefix "") or an action's
 * single input (prefix "input-"), filled into `control` when it is known.
 */
function checkFieldType(
  el: Element,
  prefix: string,
  control: Element | undefined,
  say: (message: string, severity?: CheckProblem["severity"]) => void,
): void {
  const declared = el.attribs[`${prefix}type`]?.trim().toLowerCase();
  // Strings stay the default, but a number control fed "example" keeps nothing: say so.
  const numeric = control?.name === "input" && /^(number|range)$/i.test(control.attribs.type ?? "");
  if (numeric && !declared) {
    say(
      `it fills an <input type="${control!.attribs.type}"> as a string: declare ` +
        `${prefix}type="number" or "integer" so that the agent sends a number`,
      "warning",
    );
  }
  const isBox = control?.name === "input" && control.attribs.type?.toLowerCase() === "checkbox";
  const type = declared || (isBox ? "boolean" : "string");
  // A type that is none of these is refused by the wire schema, reported with the catalog's.
  if (!FIELD_TYPES.includes(type)) return;
  const misfit = typeMisfit(type, control);
  if (misfit) say(`${prefix}type="${type}" does not fit its control: ${misfit}`);
  for (const [names, types] of FIELD_FITS) {
    for (const name of names.map((n) => prefix + n)) {
      if (el.attribs[name] !== undefined && !types.includes(type)) {
        say(`${name} does not fit ${prefix}type="${type}" (it is for ${types.join(" and ")})`);
      }
    }
  }
  for (const name of ["minimum", "maximum"].map((n) => prefix + n)) {
    const raw = el.attribs[name];
    if (raw !== undefined && (raw.trim() === "" || !Number.isFinite(Number(raw)))) {
      say(`${name}="${raw}" is not a number`);
    }
  }
}

/** Problems with an `items=` action's items, keys and targets in the static HTML. */
function checkItems(
  el: Element,
  doc: Document,
  binding: string | undefined,
  say: AddProblem,
  label: string,
): Element | undefined {
  const deep = deepPrefix(el.attribs.items!);
  const items = deep === undefined ? findAll(el.attribs.items!, doc) : deep === null ? null : [];
  if (!items) {
    return say(el, `${label}: items="${el.attribs.items}" is not a valid selector`), undefined;
  }
  if (!binding || binding === "form") {
    say(el, `${label}: items= needs click=, check=, uncheck= or fill= to act on the item`);
  }
  // What items= makes of the input: the key (and, with fill=, the value).
  const ignored = [
    ...(el.attribs["input-example"] !== undefined && binding !== "fill"
      ? ["input-example (the example is a key)"]
      : []),
    ...(binding === "fill"
      ? []
      : INPUT_ATTRIBUTES.filter((n) =>
        n !== "input-description" && n !== "input-example" && el.attribs[n] !== undefined
      )),
    ...(el.children.some((c) => isTag(c) && c.name === "aim-field")
      ? ["<aim-field> children"]
      : []),
  ];
  for (const what of ignored) {
    say(el, `${label}: ${what} is ignored: an items= action takes the item's key`, "warning");
  }
  if (deep !== undefined) {
    say(el, `${label}: ${deepWarning("items", el.attribs.items!, deep!)}`, "warning");
    return undefined;
  }
  if (!items.length) {
    say(
      el,
      `${label}: items="${el.attribs.items}" matches nothing in the static page (fine if a script renders the items)`,
      "warning",
    );
    return undefined;
  }
  const key = el.attribs.key ?? "";
  const keyDeep = deepPrefix(key);
  if (keyDeep !== undefined) {
    if (keyDeep === null) say(el, `${label}: key="${key}" is not a valid selector`);
    else say(el, `${label}: ${deepWarning("key", key, keyDeep)}`, "warning");
    return items[0];
  }
  const attribute = el.attribs["key-attribute"];
  const keyEls = key ? items.map((item) => findAll(key, item)) : items.map((item) => [item]);
  if (keyEls.some((found) => found === null)) {
    say(el, `${label}: key="${key}" is not a valid selector`);
    return items[0];
  }
  // Keys as the elements read them (markup.ts's itemKey): a password never counts as one.
  const action = markupOf(el, doc);
  const keys = items.map((item) => itemKey(action, markupOf(item, doc)) || null);
  const missing = keys.filter((k) => k === null).length;
  if (missing) {
    const what = attribute
      ? `key-attribute="${attribute}"`
      : key
      ? `key="${key}"`
      : "the item's own text";
    say(
      el,
      `${label}: ${what} finds no key in ${missing} of the ${items.length} static items, which an agent then cannot name`,
      "warning",
    );
  }
  const seen = new Set<string>();
  for (const k of keys) {
    if (k === null) continue;
    if (seen.has(k)) {
      say(
        el,
        `${label}: several static items have the key ${
          JSON.stringify(k)
        }; naming it acts on the first`,
        "warning",
      );
      break;
    }
    seen.add(k);
  }
  return items[0];
}

/** Problems with one `<aim-action>`'s bindings, fields and types, beyond what readAction says. */
function checkActionBindings(
  el: Element,
  doc: Document,
  say: AddProblem,
  label: string,
): void {
  const attr = (name: string) => el.attribs[name] || undefined;
  const bound = ["click", "check", "uncheck", "fill", "form"].filter(attr);
  const binding = bound[0];
  const clicks = ["click", "check", "uncheck"].includes(binding ?? "");
  // readAction refuses a click= (check=, uncheck=) with more, unless on an item.
  if (bound.length > 1 && (!clicks || attr("items"))) {
    say(el, `${label}: ${bound.map((b) => `${b}=`).join(" and ")} bind one action twice; keep one`);
  }
  const item = attr("items") ? checkItems(el, doc, binding, say, label) : undefined;
  /** The first control a selector names: in the first static item, else in the page. */
  const target = (name: string, selector: string, at: Element): Element | undefined => {
    const scope = attr("items") ? item : doc;
    const deep = deepPrefix(selector);
    if (deep !== undefined) {
      if (deep === null) say(at, `${label}: ${name}="${selector}" is not a valid selector`);
      else say(at, `${label}: ${deepWarning(name, selector, deep)}`, "warning");
      return undefined;
    }
    const found = selector === ":scope" && item ? [item] : findAll(selector, scope ?? doc);
    if (!found) {
      return say(at, `${label}: ${name}="${selector}" is not a valid selector`), undefined;
    }
    if (scope && !found.length) {
      const where = attr("items") ? "in the first static item" : "in the static page";
      say(
        at,
        `${label}: ${name}="${selector}" matches nothing ${where} (fine if a script renders it)`,
        "warning",
      );
    }
    return found[0];
  };
  // click= without items= is checked with from= above.
  for (const name of attr("items") ? ["click", "check", "uncheck"] : ["check", "uncheck"]) {
    const selector = attr(name);
    if (selector) target(name, selector, el);
  }
  const fields = el.children.filter((c): c is Element => isTag(c) && c.name === "aim-field");
  const filled = fields.filter((f) => f.attribs.fill !== undefined);
  let last: Element | undefined;
  if (binding === "fill") {
    last = target("fill", attr("fill")!, el);
    checkFieldType(
      el,
      "input-",
      last,
      (message, severity) => say(el, `${label}: ${message}`, severity),
    );
  } else if (!clicks && !attr("form") && !fields.length) {
    // A handler's string input: its type is checked all the same.
    checkFieldType(el, "input-", undefined, (message) => say(el, `${label}: ${message}`));
  }
  const formId = attr("form")?.replace(/^#/, "");
  // A form= that matches nothing is readAction's error, reported with the catalog's.
  const form = formId === undefined
    ? undefined
    : findAll("form", doc)?.find((f) => f.attribs.id === formId) ?? null;
  const names = new Set<string>();
  for (const field of fields) {
    const name = (field.attribs.name ?? "").trim();
    const named = `${label}: <aim-field name="${name}">`;
    const say2 = (message: string, severity?: CheckProblem["severity"]) =>
      say(field, `${named} ${message}`, severity);
    if (names.has(name)) say2("is declared twice");
    names.add(name);
    if (name && SECRET_KEY.test(name)) {
      say2(
        "looks like a secret, which an agent should never be asked for; it is also kept out of logs",
        "warning",
      );
    }
    let control: Element | undefined;
    if (form !== undefined) {
      control = findAll("input, select, textarea", form ?? doc)?.find((c) =>
        c.attribs.name === name
      );
      if (form && !control) say2("names no field of the form");
      if (field.attribs.fill !== undefined) {
        say2(
          "has fill=, which a form= action ignores: it fills the form's field of that name",
          "warning",
        );
      }
    } else if (field.attribs.fill !== undefined) {
      control = target("fill", field.attribs.fill, field);
      last = control ?? last;
    } else if (filled.length || binding) {
      say2(`is never filled: it has no fill=`, "warning");
    }
    checkFieldType(field, "", control, (message, severity) => say2(message, severity));
  }
  const commit = el.attribs.commit;
  if (commit !== undefined) {
    if (binding !== "fill" && !filled.length) {
      say(el, `${label}: commit= does nothing without fill= or <aim-field fill>`, "warning");
    } else if (!/^(enter|change|blur|submit|click:.+)$/.test(commit)) {
      say(
        el,
        `${label}: commit="${commit}" is not enter, change, blur, submit or click:<selector>`,
      );
    } else if (commit.startsWith("click:")) {
      target("commit", commit.slice(6), el);
    } else if (commit === "submit" && last && !hasForm(last)) {
      say(el, `${label}: commit="submit" but the filled control is in no form`, "warning");
    }
  }
}

/** Whether a control is inside a form (or names one with form=). */
function hasForm(control: Element): boolean {
  if (control.attribs.form) return true;
  for (let up = control.parent; up; up = up.parent) {
    if (isTag(up) && up.name === "form") return true;
  }
  return false;
}

/** Every problem with the declarations of one page's HTML. */
export function checkPage(html: string, file: string): CheckProblem[] {
  const info = scanPage(html, "/", file);
  const problems: CheckProblem[] = info.problems.map((p) =>
    // A form a script renders (React, Lit) is not in the static HTML: the public manifest
    // leaves its action out until then, and the page's tab registers it once it renders.
    /^form="[^"]*" matches no element$/.test(p.message)
      ? {
        file,
        ...p,
        message: `${p.message} in the static page (fine if a script renders the form; the ` +
          "public manifest leaves the action out)",
        severity: "warning",
      }
      : { file, ...p, severity: "error" }
  );
  const doc = parseDocument(html, { withStartIndices: true });
  const all = elements(doc);
  const at = (el: Element) => position(html, el.startIndex ?? 0);
  const add = (el: Element, message: string, severity: CheckProblem["severity"] = "error") =>
    problems.push({ file, ...at(el), message, severity });
  const matches = (selector: string): boolean | "invalid" => {
    try {
      return selectOne(selector, doc) !== null;
    } catch {
      return "invalid";
    }
  };
  const declarations = all.filter((el) => el.name === "aim-action" || el.name === "aim-state");
  const analyzed = new Set<string>();
  for (const el of declarations) {
    const label = `<${el.name}${el.attribs.name ? ` name="${el.attribs.name}"` : ""}>`;
    // form= is checked by readAction itself, through the catalog scan above, and so are a
    // click= with a declared input and patterns the bridge cannot run.
    for (const attr of ["click", "from"]) {
      const selector = el.attribs[attr];
      // With items=, click= names a part of the item: checkActionBindings reads it there.
      if (selector === undefined || (attr === "click" && el.attribs.items)) continue;
      const deep = deepPrefix(selector);
      const found = deep === undefined
        ? matches(selector)
        : deep === null
        ? "invalid"
        : deep
        ? matches(deep)
        : true;
      if (typeof deep === "string" && found === true) {
        add(el, `${label}: ${deepWarning(attr, selector, deep)}`, "warning");
      }
      if (found === "invalid") add(el, `${label}: ${attr}="${selector}" is not a valid selector`);
      // Apps that render with a script (React, Lit, innerHTML) draw it later: a warning.
      else if (!found) {
        add(
          el,
          `${label}: ${attr}="${selector}" matches nothing in the page (fine if a script renders it)`,
          "warning",
        );
      }
    }
    if (el.name === "aim-state") checkState(el, doc, add, label);
    if (el.name !== "aim-action") continue;
    checkActionBindings(el, doc, add, label);
    const id = (el.attribs.name ?? "").trim();
    const consequential = flag(el.attribs.consequential);
    if (consequential) {
      const description = (el.attribs.description ?? "").trim();
      if (description && description.split(/\s+/).length < 3) {
        add(el, `${label} is consequential: describe what it changes in a full sentence`);
      }
    }
    if (consequential && flag(el.attribs["no-confirm"])) {
      add(
        el,
        `${label} has no-confirm: the person is not asked before this consequential action runs`,
        "warning",
      );
    }
    if (BUILTIN_ACTION_IDS.includes(id)) {
      add(el, `${label}: "${id}" is a server action of the bridge, which never lists this one`);
    }
    // The first declaration of an id is the catalog's; a second is reported as declared twice.
    const spec = analyzed.has(id) ? undefined : info.actions.find((a) => a.id === id);
    analyzed.add(id);
    for (const [where, pattern] of spec ? patternsOf(spec.input_schema) : []) {
      const risk = backtrackingRisk(pattern);
      if (risk?.kind === "catastrophic") {
        add(
          el,
          `${label}: ${where} ${JSON.stringify(pattern)} can backtrack catastrophically in a ` +
            "backtracking regex engine (a browser checking a form field, an agent's " +
            `validator): text that ${JSON.stringify(risk.atom)} matches can be split among ` +
            "its repetitions in exponentially many ways; rewrite it so that each character " +
            "can be matched one way only (a+ rather than (a+)+, a rather than (a|a))",
        );
      } else if (risk?.kind === "unknown") {
        add(
          el,
          `${label}: ${where} ${JSON.stringify(pattern)} is too large for aim check to tell ` +
            "whether it can backtrack catastrophically in a backtracking regex engine",
          "warning",
        );
      }
    }
  }
  const hasScript = all.some((el) =>
    el.name === "script" && ELEMENTS_SCRIPT.test(el.attribs.src ?? "")
  );
  const first = declarations[0];
  if (first && !hasScript) {
    add(
      first,
      'the page uses the aim elements but lacks <script type="module" src="/__aim/elements.js"></script>',
    );
  }
  const written = patternsAsWritten(all);
  return problems
    .map((p) => ({ ...p, message: written(p.message) }))
    .sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * Messages with each pattern as the page writes it: the manifest anchors a `pattern` or
 * `input-pattern` attribute (`^\d+$` becomes `^^\d+$$`), and the messages made from the
 * manifest's schema show that form, JSON-escaped or not, which is not what the author wrote.
 */
function patternsAsWritten(all: Element[]): (message: string) => string {
  const sources = new Set<string>();
  for (const el of all) {
    for (const [name, value] of Object.entries(el.attribs)) {
      if ((name === "pattern" || name.endsWith("-pattern")) && value !== "") sources.add(value);
    }
  }
  const forms = new Map<string, string>();
  for (const source of sources) {
    const anchored = anchorPattern(source);
    forms.set(JSON.stringify(anchored), `"${source}"`);
    forms.set(anchored, source);
  }
  if (forms.size === 0) return (message) => message;
  // One pass, longest first: one anchored pattern may hold another, and a pattern put back
  // must not be read again.
  const any = new RegExp(
    [...forms.keys()].sort((a, b) => b.length - a.length)
      .map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"),
    "g",
  );
  return (message) => message.replace(any, (form) => forms.get(form)!);
}
