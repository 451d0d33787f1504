/**
 * Reading one declaration element: its flags, integers and text, its JSON child and its
 * `<aim-field>` children.
 *
 * @module
 */
import { parseUntrustedJson } from "../wire/json.ts";

/** A node of an element's content, as the DOM has it: an element (1), text (3), or another. */
export interface MarkupNode {
  /** 1 for an element, 3 for text (the DOM's `Node.nodeType`). */
  readonly nodeType: number;
  /** The text of the node and its descendants. */
  readonly textContent: string | null;
  /** An element's tag name. */
  readonly tagName?: string;
  /** An element's child nodes. */
  readonly childNodes?: ArrayLike<MarkupNode>;
}

/** The part of a DOM element markup is read through; a browser `Element` is one. */
export interface MarkupElement {
  /** Its tag name, in any case. */
  readonly tagName: string;
  /**
   * Its child nodes, text among them; a tree without them reads a label's words from its text
   * alone (see labelText).
   */
  readonly childNodes?: ArrayLike<MarkupNode>;
  /** An attribute's value, or null when it has none. */
  getAttribute(name: string): string | null;
  /** Its element children. */
  readonly children: ArrayLike<MarkupElement>;
  /** The text of its descendants. */
  readonly textContent: string | null;
  /** The first descendant matching a CSS selector; a tree without it has no item keys. */
  querySelector?(selectors: string): MarkupElement | null;
}

/** The part of a document markup is read through; a browser `Document` is one. */
export interface MarkupDocument {
  /** The element of an `id`, or null. */
  getElementById(id: string): MarkupElement | null;
  /** Its root element. */
  readonly documentElement: MarkupElement | null;
  /**
   * Every element matching a CSS selector, in document order; a tree without it finds no
   * controls for `fill=` (its inputs stay strings) and no items.
   */
  querySelectorAll?(selectors: string): ArrayLike<MarkupElement>;
}

/** A declaration that cannot become an action; the message names the attribute at fault. */
export class MarkupError extends Error {
  /** An error saying `message`. */
  constructor(message: string) {
    super(message);
    this.name = "MarkupError";
  }
}

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

/** An element's tag name, upper case. */
export function tagOf(el: MarkupElement): string {
  return el.tagName.toUpperCase();
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

/** The child JSON script of an element, when it has one. */
export function jsonScript(el: MarkupElement): MarkupElement | undefined {
  return Array.from(el.children).find((child) =>
    tagOf(child) === "SCRIPT" &&
    (child.getAttribute("type") ?? "").trim().toLowerCase() === "application/json"
  );
}

/** The child `<script type="application/json">` of an element, parsed, or undefined. */
export function readJsonChild(el: MarkupElement): unknown {
  const child = jsonScript(el);
  if (!child) return undefined;
  const parsed = parseUntrustedJson(child.textContent ?? "");
  if (parsed.ok) return parsed.value;
  // A "__proto__" key would silently vanish from the schema; say so instead.
  if (parsed.problem === "proto") {
    throw new MarkupError('the child JSON may not use the key "__proto__"');
  }
  throw new MarkupError(
    parsed.problem === "depth"
      ? 'the child <script type="application/json"> nests too deep'
      : 'the child <script type="application/json"> is not valid JSON',
  );
}

/** The `<aim-field>` children of an element. */
export function fieldsOf(el: MarkupElement): MarkupElement[] {
  return Array.from(el.children).filter((child) => tagOf(child) === "AIM-FIELD");
}
