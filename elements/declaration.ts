/**
 * @module The base of `<aim-action>` and `<aim-state>`: a light-DOM element that renders
 * nothing, joins the client while connected, and reports any change inside it.
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

/** A declaration element: `set` is the client's set it joins while connected. */
export abstract class Declaration extends ReactiveElement {
  static override properties: PropertyDeclarations = { name: { reflect: true } };
  /** The action id or the state key. */
  declare name: string;
  protected abstract readonly set: Set<Element>;
  #self = new MutationObserver(() => this.changed());

  /** Tells the client that what this element declares may have changed. */
  protected changed(): void {
    client.changed();
  }

  // Light DOM, nothing rendered: the element is a declaration.
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#self.observe(this, EVERYTHING);
    this.set.add(this);
    this.changed();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#self.disconnect();
    this.set.delete(this);
    this.changed();
  }
}
