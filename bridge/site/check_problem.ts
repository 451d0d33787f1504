/**
 * What `aim check` reports and how (a problem at a place, its severity), and its reading of
 * selectors with the deep combinator `>>>`: shared by the page check (`check.ts`) and its parts
 * (`check_state.ts`, `check_bindings.ts`), which import it and nothing of each other's callers.
 *
 * @module
 */
import { parseDocument } from "htmlparser2";
import type { Element } from "domhandler";
import { selectAll } from "css-select";
import { splitDeep } from "../markup/deep_selector.ts";

/** One problem found by {@linkcode checkPage}. */
export interface CheckProblem {
  /** The page's file. */
  file: string;
  /** Where in it, 1-based. */
  line: number;
  /** Where in the line, 1-based. */
  column: number;
  /** What is wrong, and what to do. */
  message: string;
  /** An error fails `aim check`; a warning only with `--strict`. */
  severity: "error" | "warning";
}

/** Reports a problem at an element: an error unless said otherwise. */
export type AddProblem = (
  el: Element,
  message: string,
  severity?: CheckProblem["severity"],
) => void;

/** An empty tree, to check a selector's syntax on. */
const EMPTY = parseDocument("");

/**
 * What the static HTML can check of a selector with the deep combinator `>>>`: the part before
 * the first one ("" for a leading `>>>`, which starts in an item's shadow root); the rest is
 * inside shadow roots that a script attaches. Null when a part is not a valid selector;
 * undefined for a plain selector.
 */
export function deepPrefix(selector: string): string | null | undefined {
  if (!selector.includes(">>>")) return undefined;
  try {
    const parts = splitDeep(selector);
    if (parts.length === 1) return undefined;
    for (const part of parts) if (part) selectAll(part, EMPTY);
    return parts[0]!;
  } catch {
    return null;
  }
}

/** The warning about a deep selector: what `aim check` cannot see, and what it checked. */
export function deepWarning(attr: string, selector: string, prefix: string): string {
  return `${attr}="${selector}" reaches into shadow roots (>>>), which a script attaches: ` +
    (prefix ? `only "${prefix}" is checked in the static page` : "it is not checked statically");
}
