/**
 * @module `<aim-state>`: one key of the page's published state, from a property, a `value`
 * attribute, a child JSON script or a source element (`from="#id"`, `items=`, `<aim-field>`).
 * Renders nothing.
 */
import { readJsonChild } from "../bridge/protocol/markup.ts";
import { client, type StateSource, warn } from "./client.ts";
import { Declaration, EVERYTHING } from "./declaration.ts";

function text(el: Element): string {
  return (el.textContent ?? "").replace(/\s+/g, " ").trim();
}

/** A control's value (a checkbox's checkedness), or else the text; undefined for a password. */
function control(el: Element): unknown {
  if (
    !(el instanceof HTMLInputElement || el instanceof HTMLSelectElement ||
      el instanceof HTMLTextAreaElement)
  ) return text(el);
  if (el.type === "password") return undefined;
  return el.type === "checkbox" || el.type === "radio"
    ? (el as HTMLInputElement).checked
    : el.value;
}

/** The structured reader (elements/state_reader.ts), once loaded. */
let structured: typeof import("./state_reader.ts") | undefined;
let loading: Promise<unknown> | undefined;

/**
 * `<aim-state>`: one key of the page's state. Set `el.value` to publish any JSON value; its
 * attributes and what the manifest says for each are in docs/elements.md.
 */
export class AimState extends Declaration implements StateSource {
  static override properties = { value: {} };
  /** The published value (a new object each time, not mutated); wins over the other sources. */
  declare value: unknown;
  protected readonly set = client.states;
  #changed = () => this.changed();
  #sourceWatch = new MutationObserver(this.#changed);
  #source: Element | null = null;

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#watch(null);
  }

  protected override updated(): void {
    this.changed();
  }

  /** Watches the source; with no source, the document, for it to appear. */
  #watch(target: Node | null): void {
    if (target === this.#source) return;
    this.#sourceWatch.disconnect();
    this.#source?.removeEventListener("input", this.#changed);
    this.#source?.removeEventListener("change", this.#changed);
    this.#source = target as Element | null;
    if (!target) return;
    this.#sourceWatch.observe(target, EVERYTHING);
    // Typing changes a control's value without any mutation.
    target.addEventListener("input", this.#changed);
    target.addEventListener("change", this.#changed);
  }

  /** The value to publish now; undefined publishes nothing. */
  read(): unknown {
    const from = this.getAttribute("from");
    try {
      if (this.value !== null && this.value !== undefined) return this.value;
      const items = this.hasAttribute("items");
      if (!from && !items) return readJsonChild(this) ?? null;
      const el = from ? document.querySelector(from) : document.documentElement;
      this.#watch(el ?? document.documentElement);
      if (!el) return null;
      if (
        items || el instanceof HTMLTableElement || this.hasAttribute("invisible") ||
        this.querySelector("aim-field")
      ) {
        // Published once the reader is loaded: until then, nothing.
        loading ??= import("./state_reader.ts").then((m) => structured = m)
          .catch((error) => warn(`the state reader did not load: ${error}`))
          .finally(() => client.changed());
        return structured ? structured.readStructured(this, el, warn) : undefined;
      }
      const value = control(el);
      if (value === undefined) {
        warn(`<aim-state name="${this.name}">: passwords are never published`);
      }
      return value;
    } catch (error) {
      // A bad selector, field or child script: the author's error.
      warn(`<aim-state name="${this.name}">: ${(error as Error).message}`, this);
      return null;
    }
  }
}
