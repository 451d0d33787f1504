/**
 * @module `<aim-state>`: one key of the page's published state, from a property, a `value`
 * attribute, a child JSON script or a source element (`from="#id"`). Renders nothing.
 */
import { readJsonChild } from "../bridge/protocol/markup.ts";
import { client, type StateSource, warn } from "./client.ts";
import { Declaration, EVERYTHING } from "./declaration.ts";

function text(el: Element): string {
  return (el.textContent ?? "").replace(/\s+/g, " ").trim();
}

/** A cell's text, or its number when it is written as one. */
function cell(el: Element): unknown {
  const value = text(el);
  return /^-?(0|[1-9]\d*)(\.\d+)?$/.test(value) ? Number(value) : value;
}

/** A table as an array of row objects keyed by its header cells. */
function readTable(table: HTMLTableElement): Record<string, unknown>[] {
  const [first, ...rest] = table.rows;
  const head = table.tHead?.rows[0] ??
    ([...first?.cells ?? []].every((c) => c.tagName === "TH") ? first : undefined);
  const keys = [...head?.cells ?? []].map((c, i) => text(c) || i);
  return [first, ...rest]
    .filter((row) => row && row !== head && row.parentElement !== table.tHead)
    .map((row) => {
      const out: Record<string, unknown> = {};
      // The filter above dropped the missing first row of an empty table.
      [...row!.cells].forEach((c, i) => out[keys[i] ?? i] = cell(c));
      return out;
    });
}

/**
 * What a source holds: a table's rows, a control's value (a checkbox's checkedness), or its
 * text. Undefined for a password field, which is never published.
 */
function readSource(el: Element): unknown {
  if (el instanceof HTMLTableElement) return readTable(el);
  if (
    !(el instanceof HTMLInputElement || el instanceof HTMLSelectElement ||
      el instanceof HTMLTextAreaElement)
  ) return text(el);
  if (el.type === "password") return undefined;
  return el.type === "checkbox" || el.type === "radio"
    ? (el as HTMLInputElement).checked
    : el.value;
}

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
      if (!from) return readJsonChild(this) ?? null;
      const el = document.querySelector(from);
      this.#watch(el ?? document.documentElement);
      const value = el ? readSource(el) : null;
      if (value === undefined) {
        warn(`<aim-state name="${this.name}">: passwords are never published`);
      }
      return value;
    } catch (error) {
      // A bad selector or a bad child script: the author's error.
      warn(`<aim-state name="${this.name}">: ${(error as Error).message}`, this);
      return null;
    }
  }
}
