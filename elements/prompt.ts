/**
 * How a person is shown what an agent asks, wherever they read it or answer it (the panel's
 * prompt and activity log, the elements' own dialog, a WebMCP run's prompt):
 *
 * - {@linkcode readable} writes the characters that would hide or disguise text (controls,
 *   format and bidirectional controls, zero-width and other invisible characters, line and
 *   paragraph separators, odd spaces) as visible `\u202E`-style escapes, so that
 *   `"\u202Eecila\u202C bob"` never reads as "alice bob"; {@linkcode shownInput} does it for an
 *   agent's input and cuts a very long one, saying how much is left out.
 * - {@linkcode ApproveGate} is the one rule for a prompt's Approve button: it works only once the
 *   prompt has been on screen, unchanged, for {@linkcode READ_DELAY_MS}, and, when the prompt
 *   replaced one withdrawn before the person answered it (or changed while shown), once the
 *   pointer moved onto it again or the keyboard focus came to Approve afresh. A click or a key
 *   meant for the prompt before cannot approve the one after.
 *
 * Only elements/confirm_dialog.ts imports this module: it is part of the dialog's chunk, which
 * the panel loads too (elements/client_controller.ts), and never part of what a page loads up
 * front.
 *
 * @example The panel's use of it
 * ```ts
 * import { ApproveGate, shownInput } from "./prompt.ts";
 *
 * declare function render(): void; // the panel's
 * const gate = new ApproveGate(() => render());
 * const { text, more } = shownInput("\u202Eecila\u202C bob");
 * // text: "\"\\u202Eecila\\u202C bob\"", more: 0
 * gate.watch(document.querySelector(".confirm")!, text);
 * // …later, on Approve: only when gate.armed; then gate.close(true).
 * ```
 *
 * @module
 */
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { InputValue } from "../bridge/wire/schemas.ts";

/**
 * How long, in milliseconds, a prompt must have been on screen and unchanged before its Approve
 * button works: long enough to read a short request, short enough not to be a nuisance.
 */
export const READ_DELAY_MS = 1000;

/** At most this many characters of an agent's input are shown; the prompt says how many more. */
export const MAX_SHOWN_CHARS = 2000;

/**
 * One character that must not be shown as itself: C0 and C1 controls, format characters (bidirectional controls U+202A–202E and
 * U+2066–2069, the marks U+200E, U+200F and U+061C, zero-width characters U+200B–200D, U+2060,
 * U+FEFF, tags), line and paragraph separators, every space but U+0020, private-use,
 * unassigned and lone surrogate code points, and Unicode's default-ignorable code points
 * (variation selectors, Hangul fillers, …), which render as nothing.
 */
const HIDDEN =
  /^(?:[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\p{Default_Ignorable_Code_Point}]|[^\P{Zs} ])$/u;

/** `\u202E`, or `\u{E0041}` beyond the Basic Multilingual Plane. */
function escape(char: string): string {
  const code = char.codePointAt(0)!.toString(16).toUpperCase();
  return code.length > 4 ? `\\u{${code}}` : `\\u${code.padStart(4, "0")}`;
}

/** Options of {@linkcode readable}. */
export interface ReadableOptions {
  /**
   * Show a line feed as a line break (JSON laid out on lines), not as `\u000A`.
   *
   * @default {false}
   */
  lines?: boolean;
  /**
   * Show at most this many characters (escapes count as what they show).
   *
   * @default {Infinity}
   */
  max?: number;
}

/** The defaults of {@linkcode ReadableOptions}, as its `@default` tags say. */
export const READABLE_DEFAULTS: Readonly<Required<ReadableOptions>> = {
  lines: false,
  max: Infinity,
};

/** What a person is shown of a text: the text, and how many of its characters are left out. */
export interface Readable {
  text: string;
  /** Characters (code points) of the original left out: 0 when it is shown whole. */
  more: number;
}

/**
 * `text` as a person may read it: every character that could hide or disguise text written as a
 * visible escape (`\u202E`), cut after `max` characters shown, never inside an escape.
 */
export function readable(text: string, options: ReadableOptions = {}): Readable {
  const { lines, max } = { ...READABLE_DEFAULTS, ...options };
  let shown = "";
  let used = 0;
  for (const char of text) {
    if (shown.length >= max) break;
    shown += HIDDEN.test(char) && !(lines && char === "\n") ? escape(char) : char;
    used += char.length;
  }
  const rest = text.slice(used);
  // A surrogate pair is one character.
  return {
    text: shown,
    more: rest.length - (rest.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0),
  };
}

/**
 * An agent's input as a prompt shows it: JSON laid out on lines, made {@linkcode readable}, and
 * cut after {@linkcode MAX_SHOWN_CHARS} characters.
 */
export function shownInput(input: InputValue | undefined): Readable {
  return readable(JSON.stringify(input, null, 2) ?? "null", { lines: true, max: MAX_SHOWN_CHARS });
}

/** What a prompt says under a cut input. */
export function cutNote(more: number): string {
  return more ? `… (${more} more characters not shown)` : "";
}

/** What a prompt says when it replaced one withdrawn before the person answered it. */
export const REPLACED_NOTICE = "This request replaced an earlier one, withdrawn before you " +
  "answered. Read it again: Approve works once you point at or tap this request.";

/** Whether the last prompt went away without the person's answer (see `ApproveGate.close`). */
let withdrawn = false;
/** Where the pointer last was, on screen; null before it moved since this module loaded. */
let pointer: { x: number; y: number } | null = null;

const track = (e: PointerEvent) => pointer = { x: e.screenX, y: e.screenY };
addEventListener("pointermove", track, { capture: true, passive: true });
addEventListener("pointerdown", track, { capture: true, passive: true });

/**
 * The arming of one prompt's Approve button. The prompt creates one per request, gives it the
 * element it shows with {@linkcode ApproveGate.watch}, renders Approve as disabled until
 * {@linkcode ApproveGate.armed}, refuses an approval before then, and calls
 * {@linkcode ApproveGate.close} when the prompt goes.
 */
export class ApproveGate {
  /** Whether Approve works now. */
  armed = false;
  /** This prompt came after one withdrawn before the person answered it: it says so. */
  readonly replaced: boolean = withdrawn;
  readonly #onChange: () => void;
  /** A pointer movement on the prompt (or the focus coming to Approve) since it last changed. */
  #moved = !this.replaced;
  /** Where the pointer was when the prompt last changed: a movement must leave it. */
  #from = pointer;
  #read = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #box: Element | null = null;
  #text: string | undefined;
  #onScreen = false;
  #observer: IntersectionObserver | null = null;
  #closed = false;

  /** `onChange` is called when {@linkcode ApproveGate.armed} changes. */
  constructor(onChange: () => void) {
    this.#onChange = onChange;
  }

  /**
   * Watches `box`, the element that shows the prompt now, whose content reads `text`: a new
   * text is a changed prompt, read again from the start (and pointed at again).
   */
  watch(box: Element, text: string): void {
    if (this.#closed) return;
    if (this.#text !== undefined && text !== this.#text) {
      this.#moved = false;
      this.#from = pointer;
      this.#restart();
    }
    this.#text = text;
    if (box === this.#box) return;
    this.#unwatch();
    this.#box = box;
    box.addEventListener("pointermove", this.#onMove);
    box.addEventListener("pointerdown", this.#onMove);
    box.addEventListener("focusin", this.#onFocus);
    document.addEventListener("visibilitychange", this.#restart);
    this.#observer = new IntersectionObserver((entries) => {
      const onScreen = entries.at(-1)!.isIntersecting;
      if (onScreen !== this.#onScreen) {
        this.#onScreen = onScreen;
        this.#restart();
      }
    });
    this.#observer.observe(box);
  }

  /**
   * The prompt goes: `answered` when the person answered it (Approve or Decline), false when it
   * was withdrawn (the agent stopped waiting, a newer request, the prompt taken off the page):
   * the next prompt then says that it replaced one.
   */
  close(answered: boolean): void {
    if (this.#closed) return;
    this.#closed = true;
    withdrawn = !answered;
    this.#unwatch();
    clearTimeout(this.#timer);
    this.armed = false;
  }

  /** A pointer movement on the prompt, or a touch on it (not on Approve: that is the click). */
  #onMove = (e: Event) => {
    const { screenX: x, screenY: y, type, target } = e as PointerEvent;
    if (this.#moved || (this.#from && this.#from.x === x && this.#from.y === y)) return;
    if (type === "pointerdown" && (target as Element).closest?.(".approve")) return;
    this.#moved = true;
    this.#update();
  };

  #onFocus = (e: Event) => {
    // The keyboard's way of coming onto it again: Tab to Approve, after the prompt showed. Not a
    // click's or a tap's focus (not `:focus-visible`): that is the press to be refused.
    if (this.#moved || !(e.target as Element).matches?.(".approve:focus-visible")) return;
    this.#moved = true;
    this.#update();
  };

  /** Starts reading over: the prompt must be on screen, unchanged, for the whole delay. */
  #restart = () => {
    clearTimeout(this.#timer);
    this.#read = false;
    if (this.#onScreen && document.visibilityState === "visible" && !this.#closed) {
      this.#timer = setTimeout(() => {
        this.#read = true;
        this.#update();
      }, READ_DELAY_MS);
    }
    this.#update();
  };

  #update(): void {
    const armed = this.#read && this.#moved && !this.#closed;
    if (armed === this.armed) return;
    this.armed = armed;
    this.#onChange();
  }

  #unwatch(): void {
    this.#box?.removeEventListener("pointermove", this.#onMove);
    this.#box?.removeEventListener("pointerdown", this.#onMove);
    this.#box?.removeEventListener("focusin", this.#onFocus);
    document.removeEventListener("visibilitychange", this.#restart);
    this.#observer?.disconnect();
    this.#observer = null;
    this.#box = null;
    this.#onScreen = false;
  }
}
