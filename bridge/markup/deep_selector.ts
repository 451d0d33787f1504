/**
 * Selectors with a deep combinator, `>>>`: `todo-app >>> li` matches `todo-app`, then
 * `li` inside each match's open shadow root; a leading `>>>` starts in the root's own shadow
 * root. Plain CSS stays plain. Import-free: the elements, markup.ts and `aim check` share it.
 *
 * @module
 */

/** What a selector is resolved in: a document, an element or a shadow root (or a parsed tree). */
export interface DeepRoot {
  querySelector?(selectors: string): unknown;
  querySelectorAll?(selectors: string): ArrayLike<unknown>;
}

/** The shadow roots crossed by the resolutions of {@linkcode collectRoots}'s `read`. */
let crossed: Set<unknown> | undefined;

/**
 * The parts of a selector between its `>>>` combinators, trimmed (`>>>` inside quotes,
 * brackets, parentheses or after a backslash is not one). A selector without one is one part;
 * a leading `>>>` makes the first part empty.
 *
 * @throws {SyntaxError} when a `>>>` has nothing after it, or nothing before it but another.
 */
export function splitDeep(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = "";
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === "\\") i++;
    else if (quote) quote = c === quote ? "" : quote;
    else if (c === '"' || c === "'") quote = c;
    else if (c === "[" || c === "(") depth++;
    else if (c === "]" || c === ")") depth--;
    else if (depth <= 0 && selector.startsWith(">>>", i)) {
      parts.push(selector.slice(start, i).trim());
      start = i + 3;
      i += 2;
    }
  }
  parts.push(selector.slice(start).trim());
  if (parts.some((part, i) => !part && i > 0)) {
    throw new SyntaxError(`"${selector}" has a >>> with no selector after it`);
  }
  return parts;
}

/**
 * Every element that `selector` matches in `root`, in document order within each shadow root
 * and by host order across them (a plain selector: `root.querySelectorAll`). Closed shadow
 * roots are out of reach: their hosts have no `shadowRoot`, so nothing inside matches.
 *
 * @throws {SyntaxError} (a DOMException in browsers) for a selector that is not one.
 */
export function deepAll<E = unknown>(root: DeepRoot, selector: string): E[] {
  if (!selector.includes(">>>")) return Array.from(root.querySelectorAll?.(selector) ?? []) as E[];
  let found: unknown[] = [root];
  for (const [i, part] of splitDeep(selector).entries()) {
    const scopes = i
      ? found.flatMap((el) => {
        const shadow = (el as { shadowRoot?: DeepRoot | null }).shadowRoot;
        if (shadow) crossed?.add(shadow);
        return shadow ? [shadow] : [];
      })
      : [root];
    found = part
      ? scopes.flatMap((scope) => Array.from((scope as DeepRoot).querySelectorAll?.(part) ?? []))
      : scopes;
  }
  return found as E[];
}

/** The first element that `selector` matches in `root` (see {@linkcode deepAll}), or null. */
export function deepFirst<E = unknown>(root: DeepRoot, selector: string): E | null {
  if (selector.includes(">>>") || !root.querySelector) return deepAll<E>(root, selector)[0] ?? null;
  return (root.querySelector(selector) ?? null) as E | null;
}

/**
 * Runs `read`, adding to `roots` every shadow root its deep selectors crossed: what a watcher
 * must observe, besides the document, to see the page change.
 */
export function collectRoots<T>(roots: Set<unknown>, read: () => T): T {
  const outer = crossed;
  crossed = roots;
  try {
    return read();
  } finally {
    crossed = outer;
  }
}
