/**
 * Structured state: `<aim-state>`'s tables, `items=` and `<aim-field>`s read into
 * arrays of objects. A chunk of its own, loaded the first time a page's state needs it.
 *
 * @module
 */
// Nothing the entry imports at run time: a chunk with its own imports would split the shared one.
import { readStateSpec, type StateField, type StateSpec, typed } from "../bridge/markup/state.ts";
import type { WarningCode } from "./warnings.ts";

/** The client's console warning (elements/warnings.ts), given by the element. */
let warn: (code: WarningCode, parts: readonly unknown[], el?: Element) => void = () => {};
/** Every element a selector matches in a root, across `>>>` (deep_selector.ts's `deepAll`). */
let all: (root: ParentNode, selector: string) => Element[] = () => [];

/** The text a node shows (declaration.ts's `shownText`), given by the element. */
let shownText: (node: Node) => string = () => "";

function text(el: Element): string {
  return shownText(el).replace(/\s+/g, " ").trim();
}

/** Whether an item or row is shown: not `hidden`, and rendered. */
function shown(el: Element): boolean {
  return !el.hasAttribute("hidden") && (el.checkVisibility?.() ?? el.getClientRects().length > 0);
}

/** One field of an item: null when its `from` matches nothing. A password is never read. */
function field(item: Element, f: StateField): unknown {
  const el = f.from ? all(item, f.from)[0] : item;
  if (!el) return null;
  if (el instanceof HTMLInputElement && el.type === "password") {
    warn("password-field", ["aim-field", f.name], el);
    return null;
  }
  if (f.attribute) {
    const a = el.getAttribute(f.attribute);
    // As HTML's boolean attributes: present (and not "false") is true.
    return f.type === "boolean" ? a !== null && !/^\s*false\s*$/i.test(a) : typed(a, f.type);
  }
  const box = el instanceof HTMLInputElement && /^(checkbox|radio)$/.test(el.type);
  const control = box || el instanceof HTMLInputElement || el instanceof HTMLSelectElement ||
    el instanceof HTMLTextAreaElement;
  // Without read=, as from= reads a source: a control's value or checkedness, or the text.
  const read = f.read ?? (box ? "checked" : control ? "value" : "text");
  const value = read === "text" ? text(el) : (el as HTMLInputElement)[read];
  return typed(value ?? null, f.type);
}

/** An item as an object of its fields, or its text when no field is declared. */
function item(el: Element, fields: StateField[]): unknown {
  return fields.length ? Object.fromEntries(fields.map((f) => [f.name, field(el, f)])) : text(el);
}

/**
 * Items or rows that are shown, or (`invisible="mark"`) all of them with `visible` added;
 * `read` makes each one's object.
 */
function visible(els: Iterable<Element>, spec: StateSpec, read: (el: Element) => unknown) {
  const out: unknown[] = [];
  for (const el of els) {
    const shows = shown(el);
    if (spec.invisible === "mark") {
      const value = read(el);
      out.push({
        ...typeof value === "string" ? { text: value } : value as object,
        visible: shows,
      });
    } else if (shows) out.push(read(el));
  }
  return out;
}

/**
 * A table as an array of row objects keyed by its header cells. A field named as a column
 * reads inside its cell; any other field reads inside the row.
 */
function readTable(table: HTMLTableElement, spec: StateSpec): unknown[] {
  const [first, ...rest] = table.rows;
  const head = table.tHead?.rows[0] ??
    ([...first?.cells ?? []].every((c) => c.tagName === "TH") ? first : undefined);
  const keys = [...head?.cells ?? []].map((c, i) => text(c) || String(i));
  const rows = [first, ...rest]
    .filter((row) => row && row !== head && row.parentElement !== table.tHead) as Element[];
  return visible(rows, spec, (row) => {
    const out: Record<string, unknown> = {};
    [...(row as HTMLTableRowElement).cells].forEach((c, i) => {
      const key = keys[i] ?? String(i);
      const f = spec.fields.find((f) => f.name === key);
      out[key] = f ? field(c, f) : text(c);
    });
    for (const f of spec.fields) if (!keys.includes(f.name)) out[f.name] = field(row, f);
    return out;
  });
}

/**
 * What an `<aim-state>` publishes of its source element: its items, a table's rows, or one
 * object of its fields (a source with none reads as a field would). `warn` tells the
 * author what is never read; `all` resolves selectors, across shadow roots with `>>>`; `text`
 * reads the text a node shows.
 *
 * @throws {SyntaxError} for a declaration that cannot be read, or a selector that is not one.
 */
export function readStructured(
  state: Element,
  source: Element,
  options: {
    warn: typeof warn;
    all: typeof all;
    text: typeof shownText;
  },
): unknown {
  const read = readStateSpec(state);
  if (!read.ok) throw new SyntaxError(read.problem);
  const spec = read.spec;
  ({ warn, all, text: shownText } = options);
  if (spec.items !== null) {
    return visible(all(source, spec.items), spec, (i) => item(i, spec.fields));
  }
  if (source instanceof HTMLTableElement) return readTable(source, spec);
  return spec.fields.length
    ? item(source, spec.fields)
    : field(source, { name: "", from: null, read: null, attribute: null, type: null });
}
