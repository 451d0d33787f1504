/**
 * What markup is read through (a DOM element or a parsed tree), the error a bad declaration
 * throws, and an element's JSON child: what `<aim-state>` reads with too, so the elements load
 * it up front. The rest of reading a declaration (flags, whole numbers, labels, `<aim-field>`
 * children) is in bridge/markup/reading.ts, loaded with `<aim-action>`'s markup reader.
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

/** An element's tag name, upper case. */
export function tagOf(el: MarkupElement): string {
  return el.tagName.toUpperCase();
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
