/**
 * The base of `<aim-action>` and `<aim-state>`: a light-DOM element that renders
 * nothing, joins the client while connected, and reports any change inside it.
 *
 * @module
 */
// Lit's base class alone: importing `lit` would load lit-html and LitElement up front, which
// only the panel (loaded on demand) needs.
import { type PropertyDeclarations, ReactiveElement } from "@lit/reactive-element";
import { client } from "./client.ts";

/** MutationObserver options that see every change inside an element. */
export const EVERYTHING: MutationObserverInit = {
  attributes: true,
  childList: true,
  subtree: true,
  characterData: true,
};

/**
 * The text a node shows: a shadow host's is its shadow root's, a slot's what it shows. Given to
 * the lazy chunks (bindings.ts, state_reader.ts), which import nothing.
 */
export function shownText(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return (node as Text).data;
  const el = node as Element;
  if (/^(style|script|template)$/.test(el.localName ?? "")) return "";
  const slotted = el instanceof HTMLSlotElement ? el.assignedNodes() : [];
  const kids = slotted.length ? slotted : (el.shadowRoot ?? el).childNodes;
  return Array.from(kids, shownText).join("");
}

/**
 * A MutationObserver on a set of nodes: a source, or the document, and the shadow roots that a
 * read crossed with `>>>` (whose mutations the document's observer never sees). It attaches
 * again only when the nodes or the options change, so a page without `>>>` pays nothing more.
 * With `listener`, it also hears `input` and `change` in each node: typing mutates nothing,
 * and `change` does not leave a shadow root.
 */
export class Watch {
  #nodes: Node[] = [];
  #options = "";
  readonly #observer: MutationObserver;
  readonly #listener: (() => void) | undefined;

  constructor(changed: () => void, listen = false) {
    this.#observer = new MutationObserver(changed);
    this.#listener = listen ? changed : undefined;
  }

  /** Observes `nodes` (none: stops) with `options`. */
  set(nodes: Node[], options: MutationObserverInit = EVERYTHING): void {
    const key = JSON.stringify(options);
    if (
      key === this.#options && nodes.length === this.#nodes.length &&
      nodes.every((n, i) => n === this.#nodes[i])
    ) return;
    this.#observer.disconnect();
    for (const type of this.#listener ? ["input", "change"] : []) {
      for (const n of this.#nodes) n.removeEventListener(type, this.#listener!);
      for (const n of nodes) n.addEventListener(type, this.#listener!);
    }
    for (const n of nodes) this.#observer.observe(n, options);
    this.#nodes = nodes;
    this.#options = key;
  }
}

/** A declaration element: `set` is the client's set it joins while connected. */
export abstract class Declaration extends ReactiveElement {
  /** Lit's reactive properties: `name`, reflected to its attribute. */
  static override properties: PropertyDeclarations = { name: { reflect: true } };
  /** The action id or the state key. */
  declare name: string;
  /**
   * The client's set (of actions or of states) the element joins while connected.
   *
   * @internal
   */
  protected abstract readonly set: Set<Element>;
  #self = new MutationObserver(() => this.changed());

  /**
   * Tells the client that what this element declares may have changed: an action's, that the
   * actions are to be read again before the next answer; a state's, in the next frame.
   */
  protected changed(): void {
    client.changed(this.set === client.actions);
  }

  /** The element itself (light DOM): nothing is rendered, the element is a declaration. */
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  /** Joins the client's set and watches its own attributes and children. */
  override connectedCallback(): void {
    super.connectedCallback();
    this.#self.observe(this, EVERYTHING);
    this.set.add(this);
    this.changed();
  }

  /** Leaves the client's set and stops watching itself. */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#self.disconnect();
    this.set.delete(this);
    this.changed();
  }
}
