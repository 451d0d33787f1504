/**
 * `open=` of an `<aim-action>`: the gesture that opens what its `fill=` writes into, before it is
 * filled (`open="dblclick:label"`: TodoMVC edits a todo once its label is double-clicked). The one
 * reading of it, shared by the markup reader (the action is registered only when it reads) and
 * the bindings that run it (elements/bindings.ts, handed this reading), and `aim check`.
 * Import-free but for the error it throws.
 *
 * @module
 */
import { type MarkupElement, MarkupError } from "./element.ts";

/** The gestures `open=` may name: a click, or a person's double-click. */
export const OPEN_GESTURES: readonly ["click", "dblclick"] = ["click", "dblclick"];

/** What `open=` says: a gesture on the element a selector names (inside the item, with `items=`). */
export interface OpenGesture {
  /** `click` (the element's `click()`) or `dblclick` (two presses, then `dblclick`). */
  gesture: (typeof OPEN_GESTURES)[number];
  /** The element pressed: a CSS selector (`>>>` crosses shadow roots; `:scope` is the item). */
  selector: string;
}

/**
 * The `open=` of an `<aim-action>`, or undefined when it has none.
 *
 * @throws {MarkupError} when it is not `click:<selector>` or `dblclick:<selector>`, or the action
 * fills nothing (open= opens what fill= or an `<aim-field fill>` writes into), or another binding
 * (click=, check=, uncheck=, form=) runs instead.
 */
export function readOpen(el: MarkupElement): OpenGesture | undefined {
  const raw = el.getAttribute("open");
  if (raw === null) return undefined;
  const match = /^\s*([a-z]+):(.*)$/.exec(raw);
  const gesture = OPEN_GESTURES.find((g) => g === match?.[1]);
  const selector = match?.[2]?.trim() ?? "";
  if (!gesture || !selector) {
    throw new MarkupError(
      `open="${raw}" is not click:<selector> or dblclick:<selector> (for example ` +
        'open="dblclick:label")',
    );
  }
  const fills = el.getAttribute("fill") ||
    Array.from(el.children).some((c) =>
      c.tagName.toUpperCase() === "AIM-FIELD" && c.getAttribute("fill")
    );
  // click=, check=, uncheck= and form= run instead of fill=: what open= opens is never filled.
  const other = ["click", "check", "uncheck", "form"].find((name) => el.getAttribute(name));
  if (!fills || other) {
    throw new MarkupError(
      "open= opens what fill= (or an <aim-field fill>) writes into: " +
        (other ? `remove ${other}=, or remove open=` : "add fill=, or remove open="),
    );
  }
  return { gesture, selector };
}
