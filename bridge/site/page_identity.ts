/**
 * A page's identity: its normalized path, plus the query parameters the site owner declared part
 * of it (`--page-query id`: `/edit.php?id=1` and `/edit.php?id=2` are two pages; any other
 * parameter, and every parameter when none is declared, is dropped).
 * @module
 */
import { normalizePage } from "./paths.ts";

/** A page identity split into its path and its query (without `?`; empty when none). */
export function splitPage(page: string): [path: string, query: string] {
  const q = page.indexOf("?");
  return q < 0 ? [page, ""] : [page.slice(0, q), page.slice(q + 1)];
}

/**
 * The identity of the page at `raw` (a path, with a query and a fragment or not): null when the
 * path cannot be a page's. Declared parameters are kept in the declared order, the first value of
 * each.
 */
export function pageIdentity(raw: string, params: readonly string[]): string | null {
  const hash = raw.indexOf("#");
  const [path, query] = splitPage(hash < 0 ? raw : raw.slice(0, hash));
  const page = normalizePage(path);
  if (!page || !query || !params.length) return page;
  const given = new URLSearchParams(query);
  const kept = new URLSearchParams();
  for (const name of params) {
    const value = given.get(name);
    if (value !== null) kept.set(name, value);
  }
  const search = kept.toString();
  return search ? `${page}?${search}` : page;
}
