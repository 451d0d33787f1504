/**
 * `<aim-state>`: one key of the page's published state, from a property, a `value`
 * attribute, a child JSON script or a source element (`from="#id"`, `items=`, `<aim-field>`).
 * Renders nothing.
 *
 * @module
 */
import { collectRoots, deepAll, deepFirst } from "../bridge/markup/deep_selector.ts";
import { readJsonChild } from "../bridge/markup/element.ts";
import { client, type StateSource } from "./client.ts";
import { warn } from "./warnings.ts";
import { Declaration, shownText, Watch } from "./declaration.ts";

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
  /** Lit's reactive properties: `value`. */
  static override properties = { value: {} };
  /** The published value (a new object each time, not mutated); wins over the other sources. */
  declare value: unknown;
  /**
   * The client's set of states, which the element joins while connected.
   *
   * @internal
   */
  protected readonly set: Set<StateSource> = client.states;
  /** The source (or the document, for it to appear) and the shadow roots its reading crossed. */
  #watch = new Watch(() => this.changed(), true);

  /** Leaves the client's states and stops watching its source. */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#watch.set([]);
  }

  /** A new `value`: the state is read again. */
  protected override updated(): void {
    this.changed();
  }

  /** The value to publish now; undefined publishes nothing. */
  read(): unknown {
    // What to watch: the source, or the document until it appears, and the shadow roots crossed.
    const watched = new Set<Node>();
    try {
      return collectRoots(watched, () => this.#read(watched));
    } catch (error) {
      // A bad selector, field or child script: the author's error.
      warn("state-markup", [this.name, (error as Error).message], this);
      return null;
    } finally {
      // Typing changes a control's value without any mutation: the watch hears input events.
      this.#watch.set([...watched]);
    }
  }

  #read(watched: Set<Node>): unknown {
    const from = this.getAttribute("from");
    if (this.value !== null && this.value !== undefined) return this.value;
    const items = this.hasAttribute("items");
    if (!from && !items) return readJsonChild(this) ?? null;
    const el = from ? deepFirst<Element>(document, from) : document.documentElement;
    watched.add(el ?? document.documentElement);
    if (!el) return null;
    if (
      items || el instanceof HTMLTableElement || this.hasAttribute("invisible") ||
      this.querySelector("aim-field")
    ) {
      // Published once the reader is loaded: until then, nothing.
      loading ??= import("./state_reader.ts").then((m) => structured = m)
        .catch((error) => warn("chunk-not-loaded", ["state reader", error]))
        .finally(() => client.changed());
      return structured
        ? structured.readStructured(this, el, { warn, all: deepAll, text: shownText })
        : undefined;
    }
    const value = control(el);
    if (value === undefined) {
      warn("password-field", ["aim-state", this.name]);
    }
    return value;
  }
}
