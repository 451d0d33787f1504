/**
 * Warnings to page authors, in the console, as Lit's `issueWarning(code, …)`: each of a kind (its
 * code), with the section of docs/elements.md that explains it (`#<code>`), given once per
 * message and at most `MAX_WARNINGS` in all. The words are in elements/warning_text.ts, a chunk
 * loaded the first time a page has something to be warned of: most pages never load it.
 *
 * @module
 */

import type { WarningCode } from "./warning_text.ts";

export type { WarningCode };

/**
 * Warns a page author of `code`, with the parts its sentence names (an element's name, the
 * problem), and the element at fault when there is one.
 */
export function warn(code: WarningCode, parts: readonly unknown[], el?: Element): void {
  // A warning that cannot load its words is dropped: it must never break the page.
  import("./warning_text.ts").then((text) => text.issue(code, parts, el), () => {});
}
