/**
 * Reading a declaration element: its flags, whole numbers, text and labels, its descendants and
 * its `<aim-field>` children. Apart from bridge/markup/element.ts, which `<aim-state>` reads with,
 * so that the elements load this only with `<aim-action>`'s markup reader.
 *
 * @module
 */
import { type MarkupElement, MarkupError, type MarkupNode, tagOf } from "./element.ts";

/** The tags of a form's controls. */
export const FIELD_TAGS: ReadonlySet<string> = new Set(["INPUT", "SELECT", "TEXTAREA"]);
/** The `<input>` types that hold no value a person types (not fields of a form's input). */
export const SKIPPED_INPUT_TYPES: ReadonlySet<string> = new Set([
  "submit",
  "button",
  "reset",
  "image",
  "file",
  "hidden",
]);
/** The most keys an `items=` action lists as its key's enum. */
export const MAX_KEYS = 100;
/** The longest key an `items=` action lists. */
export const MAX_KEY_LENGTH = 200;

/** Whether a boolean attribute is on: present, and not `"false"`. */
export function flag(el: MarkupElement, name: string): boolean {
  const value = el.getAttribute(name);
  return value !== null && value.trim().toLowerCase() !== "false";
}

/** An element's text, whitespace collapsed: what a key, a label or an item reads as. */
export function textOf(el: MarkupElement | null): string {
  return (el?.textContent ?? "").replace(/\s+/g, " ").trim();
}

/**
 * A whole-number attribute, or undefined when absent.
 *
 * @throws {MarkupError} when it is not a whole number of at most 7 digits.
 */
export function integer(el: MarkupElement, name: string): number | undefined {
  const raw = el.getAttribute(name);
  if (raw === null) return undefined;
  if (!/^\s*\d{1,7}\s*$/.test(raw)) {
    throw new MarkupError(`${name}="${raw}" is not a whole number`);
  }
  return Number(raw);
}

/** The controls whose own text (a select's options, a textarea's value) is no label's words. */
const TEXT_CONTROLS: ReadonlySet<string> = new Set(["SELECT", "TEXTAREA"]);

/**
 * A label's own words, whitespace collapsed: its text without that of the controls inside it
 * (`<label>Resolution <select>…</select></label>` is "Resolution", not "Resolution fixed
 * wontfix"). Read node by node where the tree has them; else the controls' text is taken out
 * of the label's.
 */
export function labelText(label: MarkupElement): string {
  if (!label.childNodes) {
    let text = label.textContent ?? "";
    for (const el of descendants(label)) {
      if (TEXT_CONTROLS.has(tagOf(el)) && el.textContent) text = text.replace(el.textContent, " ");
    }
    return text.replace(/\s+/g, " ").trim();
  }
  let text = "";
  const stack: MarkupNode[] = Array.from(label.childNodes).reverse();
  for (let node; (node = stack.pop());) {
    if (node.nodeType === 3) text += node.textContent ?? "";
    else if (node.nodeType === 1 && !TEXT_CONTROLS.has((node.tagName ?? "").toUpperCase())) {
      stack.push(...Array.from(node.childNodes ?? []).reverse());
    }
  }
  return text.replace(/\s+/g, " ").trim();
}

/** Every element below `el`, in document order. */
export function* descendants(el: MarkupElement): Generator<MarkupElement> {
  // A stack, not nested generators: each element is yielded once, whatever its depth (a
  // delegating generator costs every level it crosses, for every element below it).
  const stack = Array.from(el.children).reverse();
  for (let node; (node = stack.pop());) {
    yield node;
    stack.push(...Array.from(node.children).reverse());
  }
}

/** The `<aim-field>` children of an element. */
export function fieldsOf(el: MarkupElement): MarkupElement[] {
  return Array.from(el.children).filter((child) => tagOf(child) === "AIM-FIELD");
}
