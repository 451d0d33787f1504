/**
 * A page's identity: its normalized path, plus the query parameters the site owner declared part
 * of it (`--page-query id`: `/edit.php?id=1` and `/edit.php?id=2` are two pages; any other
 * parameter, and every parameter when none is declared, is dropped).
 *
 * A query that gives a declared parameter more than once, in any spelling, names no page: the
 * stacks read it differently (PHP, Django and Rails the last value, Java servlets, Go and Flask
 * the first, Express a list, ASP.NET both joined with a comma), so aim cannot know which page the
 * app shows there. Spellings that count as the parameter: its name percent-encoded, in another
 * case (ASP.NET and IIS ignore case), with brackets (`id[]`, `id[0]`: PHP, Rails and `qs` read a
 * list), with PHP's mangling of `.` and spaces into `_` and of leading spaces away, and a `;`
 * as separator (CGI stacks split on it). A declared value holding `;` is refused for the same
 * reason.
 * @module
 */
import { normalizePage } from "./paths.ts";

/** A page identity split into its path and its query (without `?`; empty when none). */
export function splitPage(page: string): [path: string, query: string] {
  const q = page.indexOf("?");
  return q < 0 ? [page, ""] : [page.slice(0, q), page.slice(q + 1)];
}

/**
 * A parameter name as the stacks that read it most loosely would: ` I.d` → `i_d`; with `list`,
 * without what follows a `[` or a NUL too (`id[]` → `id`). Case is folded both ways, as .NET's
 * case-insensitive comparison upper-cases: `ıd` (a dotless ı) is `ID` there, so `id` here.
 */
function looseName(name: string, list: boolean): string {
  const cut = list ? name.search(/[[\0]/) : -1;
  return (cut < 0 ? name : name.slice(0, cut)).replace(/^ +/, "").replace(/[. ]/g, "_")
    .toUpperCase().toLowerCase();
}

/**
 * What is wrong with a list of declared page parameters (`--page-query`): a name that is not a
 * parameter name, or two that name one parameter in two spellings (`id` and `ID`). Null when
 * nothing is.
 */
export function pageQueryProblem(names: readonly string[]): string | null {
  const seen = new Map<string, string>();
  for (const name of names) {
    if (!/^[A-Za-z0-9_.\-[\]]{1,64}$/.test(name)) return `"${name}" is not a parameter name`;
    const loose = looseName(name, !name.includes("["));
    const twin = seen.get(loose);
    if (twin !== undefined) return `"${twin}" and "${name}" name one parameter`;
    seen.set(loose, name);
  }
  return null;
}

/** A query's parts, split on `&` and `;`, as decoded `[name, value]` pairs. */
function parts(query: string): [name: string, value: string][] {
  const out: [string, string][] = [];
  for (const part of query.split(/[&;]/)) {
    if (!part) continue;
    out.push([...new URLSearchParams(part).entries()][0] ?? ["", ""]);
  }
  return out;
}

/**
 * The declared parameter that `raw`'s query gives ambiguously: more than once, in a spelling
 * other than its own, or with a `;` in its value. Null when every declared parameter is given at
 * most once, exactly as declared.
 */
export function repeatedParameter(raw: string, params: readonly string[]): string | null {
  if (!params.length) return null;
  const hash = raw.indexOf("#");
  const query = splitPage(hash < 0 ? raw : raw.slice(0, hash))[1];
  if (!query) return null;
  // A declared `page[id]` is one key of a list; `page[name]` beside it is another.
  const loose = new Map(params.map((name) => [looseName(name, !name.includes("[")), name]));
  const seen = new Set<string>();
  for (const [name, value] of parts(query)) {
    const declared = loose.get(looseName(name, false)) ?? loose.get(looseName(name, true));
    if (declared === undefined) continue;
    if (name !== declared || seen.has(declared) || value.includes(";")) return declared;
    seen.add(declared);
  }
  // `id=1;x`: CGI stacks read `1`, the others (and the identity) `1;x`.
  for (const name of params) {
    if (new URLSearchParams(query).getAll(name).some((value) => value.includes(";"))) return name;
  }
  return null;
}

/**
 * The identity of the page at `raw` (a path, with a query and a fragment or not): null when the
 * path cannot be a page's, or when the query gives a declared parameter ambiguously
 * ({@linkcode repeatedParameter}). Declared parameters are kept in the declared order.
 */
export function pageIdentity(raw: string, params: readonly string[]): string | null {
  const hash = raw.indexOf("#");
  const [path, query] = splitPage(hash < 0 ? raw : raw.slice(0, hash));
  const page = normalizePage(path);
  if (!page || !query || !params.length) return page;
  if (repeatedParameter(raw, params) !== null) return null;
  const given = new URLSearchParams(query);
  const kept = new URLSearchParams();
  for (const name of params) {
    const value = given.get(name);
    if (value !== null) kept.set(name, value);
  }
  const search = kept.toString();
  return search ? `${page}?${search}` : page;
}
