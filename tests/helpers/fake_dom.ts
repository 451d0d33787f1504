/**
 * Test helper: a DOM-like tree for readAction (bridge/markup/action.ts) with the selectors the
 * markup tests use (compound selectors, tag, .class, #id, [attr], [attr=value], joined by
 * descendant combinators), a page of it with the same as HTML, and reading its action.
 *
 * @module
 */
import {
  type MarkupDocument,
  type MarkupElement,
  MarkupError,
  type MarkupNode,
  readAction,
  type ReadActionOptions,
} from "../../bridge/markup/action.ts";
import { parseActionSpec } from "../../bridge/input/action_spec.ts";
import { escapeAttr, escapeText } from "../helpers/markup_model.ts";

/** An element of the tree, with its attributes and children. */
export class Fake implements MarkupElement {
  parent: Fake | null = null;
  readonly tagName: string;
  constructor(
    tag: string,
    readonly attrs: Record<string, string>,
    readonly kids: (Fake | string)[] = [],
  ) {
    this.tagName = tag.toUpperCase();
    for (const kid of kids) if (kid instanceof Fake) kid.parent = this;
  }
  getAttribute(name: string): string | null {
    return Object.hasOwn(this.attrs, name) ? this.attrs[name]! : null;
  }
  get children(): Fake[] {
    return this.kids.filter((k): k is Fake => k instanceof Fake);
  }
  get textContent(): string {
    return this.kids.map((k) => (typeof k === "string" ? k : k.textContent)).join("");
  }
  readonly nodeType = 1;
  get childNodes(): MarkupNode[] {
    return this.kids.map((k) => typeof k === "string" ? { nodeType: 3, textContent: k } : k);
  }
  *descendants(): Generator<Fake> {
    for (const child of this.children) {
      yield child;
      yield* child.descendants();
    }
  }
  querySelector(selector: string): Fake | null {
    for (const el of this.descendants()) if (matches(el, selector)) return el;
    return null;
  }
  html(): string {
    const tag = this.tagName.toLowerCase();
    const attrs = Object.entries(this.attrs).map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join("");
    if (tag === "input") return `<input${attrs}>`;
    const inner = this.kids.map((k) => (typeof k === "string" ? escapeText(k) : k.html())).join("");
    return `<${tag}${attrs}>${inner}</${tag}>`;
  }
}

function matchesCompound(el: Fake, compound: string): boolean {
  const parts = compound.match(/^[a-z-]+|\.[\w-]+|#[\w-]+|\[[\w-]+(?:=[^\]]+)?\]/g) ?? [];
  if (parts.join("") !== compound) throw new Error(`the fake cannot read ${compound}`);
  return parts.every((part) => {
    if (part.startsWith(".")) {
      return (el.getAttribute("class") ?? "").split(/\s+/).includes(part.slice(1));
    }
    if (part.startsWith("#")) return el.getAttribute("id") === part.slice(1);
    if (part.startsWith("[")) {
      const [name, value] = part.slice(1, -1).split("=") as [string, string | undefined];
      const actual = el.getAttribute(name);
      return value === undefined ? actual !== null : actual === value.replace(/^"|"$/g, "");
    }
    return el.tagName === part.toUpperCase();
  });
}

function matches(el: Fake, selector: string): boolean {
  const compounds = selector.trim().split(/\s+/);
  if (!matchesCompound(el, compounds.at(-1)!)) return false;
  let up = el.parent;
  for (const compound of compounds.slice(0, -1).reverse()) {
    while (up && !matchesCompound(up, compound)) up = up.parent;
    if (!up) return false;
    up = up.parent;
  }
  return true;
}

/** The document of a tree: by id, and by selector. */
export class FakeDoc implements MarkupDocument {
  constructor(readonly documentElement: Fake) {}
  getElementById(id: string): Fake | null {
    for (const el of this.documentElement.descendants()) {
      if (el.getAttribute("id") === id) return el;
    }
    return null;
  }
  querySelectorAll(selector: string): Fake[] {
    return [...this.documentElement.descendants()].filter((el) => matches(el, selector));
  }
}

/** An element `tag` with `attrs` (a null one left out) and `kids`. */
export const h = (
  tag: string,
  attrs: Record<string, string | null> = {},
  kids: (Fake | string)[] = [],
) =>
  new Fake(
    tag,
    Object.fromEntries(Object.entries(attrs).filter((a): a is [string, string] => a[1] !== null)),
    kids,
  );

/** A page of `body` children: the action found in it, the tree, and the same as HTML. */
export function page(...body: Fake[]) {
  const root = h("#document", {}, [h("html", {}, [h("body", {}, body)])]);
  const doc = new FakeDoc(root);
  const action = doc.querySelectorAll("aim-action")[0]!;
  const html = "<!doctype html>" + root.children.map((c) => c.html()).join("");
  return { action, doc, html };
}

/** readAction, then parseActionSpec, or the MarkupError either throws. */
export function read(action: Fake, doc: FakeDoc, options?: ReadActionOptions) {
  try {
    return parseActionSpec(readAction(action, doc, options));
  } catch (error) {
    if (error instanceof MarkupError) return error;
    throw error;
  }
}
