/**
 * Checking an `<aim-state>` declaration (items=, fields, tables) against a page's static HTML.
 *
 * @module
 */
import { type AnyNode, type Document, type Element, isTag } from "domhandler";
import { selectAll, selectOne } from "css-select";
import { textContent } from "domutils";
import { ParsedView } from "./catalog.ts";
import { stringFields } from "../input/action_spec.ts";
import type { InputSchema } from "../wire/schemas.ts";
import type { MarkupElement } from "../markup/action.ts";
import { SECRET_KEY } from "../markup/secrets.ts";
import { OBJECT_NAMES } from "../wire/object_names.ts";
import { readStateSpec, type StateField, typed } from "../markup/state.ts";
import { type AddProblem, deepPrefix, deepWarning } from "./check_problem.ts";

export type { AddProblem } from "./check_problem.ts";

export function patternsOf(schema: InputSchema): [string, string][] {
  return stringFields(schema).flatMap(([where, field]) =>
    field.pattern === undefined ? [] : [[`${where}.pattern`, field.pattern] as [string, string]]
  );
}

// ---------------------------------------------------------------------------------------------
// <aim-state>: its items= and <aim-field> children, read against the static HTML as the
// element would read the page (a script may render more, so what matches nothing only warns).

/** Attributes of an `<aim-action>`'s `<aim-field>`, which mean nothing in an `<aim-state>`. */
const ACTION_FIELD_ATTRIBUTES = ["fill", "required", "minimum", "maximum"];

/** The parsed view of each document checked: the shared readings of markup.ts read it. */
const views = new WeakMap<Document, ParsedView>();

/** An element of `doc` seen through the MarkupElement interface of the shared readings. */
export function markupOf(el: Element, doc: Document): MarkupElement {
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
export function checkState(el: Element, doc: Document, add: AddProblem, label: string): void {
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
