/**
 * How `<aim-state items= invisible=>` and its `<aim-field>` children read as a plain
 * spec, shared by the element and `aim check`. Import-free (types only), so that the browser's
 * state chunk carries nothing of the rest.
 *
 * @module
 */
import type { MarkupElement } from "./action.ts";

/** One `<aim-field>` of an `<aim-state>`: a property of each item (or a table column's type). */
export interface StateField {
  name: string;
  /** A selector inside the item; null: the item itself. */
  from: string | null;
  /** `read=`; null: a control's value (a checkbox's checkedness), or else the text. */
  read: "text" | "value" | "checked" | null;
  /** `attribute=`: that attribute is read instead (null when absent). */
  attribute: string | null;
  /** `type=`; null: as read (strings, and booleans for `checked`). */
  type: "string" | "number" | "boolean" | null;
}

/** What an `<aim-state>` declares about the shape of its value. */
export interface StateSpec {
  /** `items=`: the selector of the repeated items inside the source (even ""), or null. */
  items: string | null;
  /**
   * `invisible=`: leave out (`skip`, when the attribute is absent) or `mark` hidden and
   * unrendered items.
   */
  invisible: "skip" | "mark";
  fields: StateField[];
}

/** The spec of a declaration, or the problem that stops it, naming the attribute at fault. */
export type StateSpecResult = { ok: true; spec: StateSpec } | { ok: false; problem: string };

function oneOf<T extends string>(el: MarkupElement, attr: string, values: T[]): T | null {
  const raw = el.getAttribute(attr);
  if (raw === null) return null;
  const value = raw.trim().toLowerCase() as T;
  if (!values.includes(value)) {
    throw new Error(`${attr}="${raw}" is not one of ${values.join(", ")}`);
  }
  return value;
}

function read(el: MarkupElement): StateSpec {
  const fields: StateField[] = [];
  for (const child of Array.from(el.children)) {
    if (child.tagName.toUpperCase() !== "AIM-FIELD") continue;
    const name = (child.getAttribute("name") ?? "").trim();
    const read = oneOf(child, "read", ["text", "value", "checked"]);
    const attribute = child.getAttribute("attribute");
    const type = oneOf(child, "type", ["string", "number", "boolean"]);
    const problem = !name
      ? "has no name"
      : attribute !== null && (read || !attribute)
      ? 'needs attribute="NAME", without read='
      : read === "checked" && type === "number"
      ? 'reads checked, a boolean: type="number" does not fit'
      : "";
    if (problem) throw new Error(`<aim-field name="${name}"> ${problem}`);
    fields.push({ name, from: child.getAttribute("from") || null, read, attribute, type });
  }
  return {
    items: el.getAttribute("items"),
    invisible: oneOf(el, "invisible", ["skip", "mark"]) ?? "skip",
    fields,
  };
}

/**
 * Reads the `items=`, `invisible=` and `<aim-field>` declarations of one `<aim-state>`. Names
 * that look like secrets are not refused here: the client removes such keys from every state,
 * and `aim check` reports them, with duplicated names and selectors that match nothing.
 */
export function readStateSpec(el: MarkupElement): StateSpecResult {
  try {
    return { ok: true, spec: read(el) };
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
}

/**
 * A value read for a field, turned into its declared type: a number from numeric text (else
 * null), a boolean from `true`/`false` text (else null), a string from anything.
 */
export function typed(value: unknown, type: StateField["type"]): unknown {
  if (value === null || !type) return value;
  if (type === "string") return String(value);
  if (typeof value !== "string") return type === "boolean" ? value : null;
  const text = value.trim();
  if (type === "number") {
    return /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text) ? Number(text) : null;
  }
  return /^(true|false)$/i.test(text) ? text.toLowerCase() === "true" : null;
}
