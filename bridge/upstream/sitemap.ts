/**
 * The pages an app's site map lists: the `<loc>` entries of a `sitemap.xml` that are pages of the
 * app itself (on an origin the app answers at), as page identities.
 * @module
 */
import { normalizePage } from "../site/paths.ts";

/** Options of {@linkcode sitemapPaths}. */
export interface SitemapPathsOptions {
  /** The origins whose entries are the app's (`http://127.0.0.1:8080`); any other is left out. */
  origins: readonly string[];
  /** Entries kept at most. */
  max: number;
  /** The page identity of an entry's path and query; without it, the normalized path. */
  pageOf?: ((raw: string) => string | null) | undefined;
}

/** The default site map of an app. */
export const DEFAULT_SITEMAP = "/sitemap.xml";

/**
 * Whether `path` can name an app's site map: an absolute path (a query allowed), never another
 * host (`//x`), a fragment or a control character.
 */
export function isSitemapPath(path: string): boolean {
  return /^\/(?!\/)[^#\s\\\p{Cc}]{0,2047}$/u.test(path);
}

/**
 * The pages of a `sitemap.xml`'s `<loc>` entries on one of `origins`, in order, each once. An
 * entry that is not an absolute URL (relative, protocol-relative), names another scheme, host or
 * port, or carries credentials (`http://user@host/`) is not the app's page.
 */
export function sitemapPaths(xml: string, options: SitemapPathsOptions): string[] {
  const pageOf = options.pageOf ?? ((raw: string) => normalizePage(raw.replace(/[?#].*$/s, "")));
  const out: string[] = [];
  for (const match of xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)) {
    if (out.length >= options.max) break;
    const url = URL.parse(match[1]!.replaceAll("&amp;", "&"));
    if (!url || url.username || url.password || !options.origins.includes(url.origin)) continue;
    const page = pageOf(url.pathname + url.search);
    if (page && !out.includes(page)) out.push(page);
  }
  return out;
}
