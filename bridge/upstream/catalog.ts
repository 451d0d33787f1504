/**
 * The catalog of an app aim stands in front of: every page path may host a session (its tab's
 * registered actions make its manifest), and a page's public catalog is what an anonymous
 * visitor gets from the app (no cookie, no `Authorization`, never a tab's report), fetched on
 * demand, bounded in size, time and count, cached and revalidated with `ETag`/`Last-Modified`.
 * @module
 */
import { type PageCatalog, type PageInfo, scanPage } from "../site/catalog.ts";
import { normalizePage } from "../site/paths.ts";
import { splitPage } from "../site/page_identity.ts";
import { BoundedMap } from "../utils/bounded_map.ts";

/** Options of {@linkcode UpstreamCatalog}. */
export interface UpstreamCatalogOptions {
  /**
   * Bytes of a page's HTML read at most; a longer page has no public catalog.
   *
   * @default {1048576}
   */
  maxBytes?: number;
  /**
   * How long one anonymous fetch may take, ms.
   *
   * @default {5000}
   */
  timeoutMs?: number;
  /**
   * Pages known at most (cached scans, listed paths).
   *
   * @default {200}
   */
  maxPages?: number;
  /**
   * How long a scan is used before it is revalidated, ms.
   *
   * @default {30000}
   */
  freshMs?: number;
  /** The clock; without it, `Date.now`. */
  now?: () => number;
  /** The fetch used for the app (tests count requests through it); without it, `fetch`. */
  fetch?: typeof fetch;
}

/** The defaults of {@linkcode UpstreamCatalogOptions}. */
export const CATALOG_DEFAULTS = {
  maxBytes: 1 << 20,
  timeoutMs: 5000,
  maxPages: 200,
  freshMs: 30_000,
} as const;

/** The `User-Agent` of the catalog's anonymous reads, for the app's logs. */
export const CATALOG_AGENT = "aim-public-catalog";

interface Scan {
  info: PageInfo;
  at: number;
  etag: string | null;
  modified: string | null;
}

/** A page that hosts sessions and declares nothing an anonymous visitor can see. */
function emptyPage(page: string, file: string): PageInfo {
  return {
    page,
    file,
    title: "",
    description: "",
    actions: [],
    stateKeys: [],
    problems: [],
    agentEnabled: false,
    hostsSessions: true,
  };
}

/** Reads at most `max` bytes of a body; null when it is longer. */
async function readBounded(body: ReadableStream<Uint8Array>, max: number): Promise<string | null> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > max) return null;
      parts.push(value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(all);
}

/** A page identity (a path, with declared query parameters or not), normalized; null if none. */
function identity(page: string): string | null {
  const [path, query] = splitPage(page);
  const normal = normalizePage(path);
  return normal && query ? `${normal}?${query}` : normal;
}

/** The paths of a `sitemap.xml`'s `<loc>` entries on `origin`, at most `max`. */
export function sitemapPaths(xml: string, origin: string, max: number): string[] {
  const out: string[] = [];
  for (const match of xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)) {
    const url = URL.parse(match[1]!.replaceAll("&amp;", "&"));
    if (!url || url.origin !== origin) continue;
    const page = normalizePage(url.pathname);
    if (page && !out.includes(page)) out.push(page);
    if (out.length >= max) break;
  }
  return out;
}

/** The public catalog of an app, read as an anonymous visitor. */
export class UpstreamCatalog implements PageCatalog {
  readonly upstream: URL;
  readonly root: undefined = undefined;
  readonly #scans: BoundedMap<string, Scan>;
  readonly #pending = new Map<string, Promise<PageInfo>>();
  /** Paths sessions visited (never what they saw there), newest last. */
  readonly #visited: BoundedMap<string, true>;
  readonly #options: Required<Omit<UpstreamCatalogOptions, "fetch" | "now">>;
  readonly #now: () => number;
  readonly #fetch: typeof fetch;
  readonly #client: Deno.HttpClient;
  #sitemap: { at: number; paths: string[] } | null = null;

  constructor(upstream: string | URL, options: UpstreamCatalogOptions = {}) {
    this.upstream = new URL(upstream);
    this.#options = {
      maxBytes: options.maxBytes ?? CATALOG_DEFAULTS.maxBytes,
      timeoutMs: options.timeoutMs ?? CATALOG_DEFAULTS.timeoutMs,
      maxPages: options.maxPages ?? CATALOG_DEFAULTS.maxPages,
      freshMs: options.freshMs ?? CATALOG_DEFAULTS.freshMs,
    };
    this.#now = options.now ?? Date.now;
    this.#fetch = options.fetch ?? fetch;
    this.#scans = new BoundedMap(this.#options.maxPages);
    this.#visited = new BoundedMap(this.#options.maxPages);
    this.#client = Deno.createHttpClient({});
  }

  #url(page: string): URL {
    const base = this.upstream.pathname.replace(/\/$/, "");
    return new URL(base + page, this.upstream);
  }

  /**
   * GETs `page` from the app as nobody: only `Accept` and the revalidators are sent. A page
   * that is not 200 HTML within the bounds has no public catalog.
   */
  async #scan(page: string, cached: Scan | undefined): Promise<PageInfo> {
    const url = this.#url(page);
    const headers: Record<string, string> = { accept: "text/html", "user-agent": CATALOG_AGENT };
    if (cached?.etag) headers["if-none-match"] = cached.etag;
    if (cached?.modified) headers["if-modified-since"] = cached.modified;
    let info = emptyPage(page, url.href);
    let etag: string | null = null;
    let modified: string | null = null;
    try {
      const answer = await this.#fetch(url, {
        headers,
        redirect: "manual",
        signal: AbortSignal.timeout(this.#options.timeoutMs),
        client: this.#client,
      } as RequestInit);
      if (answer.status === 304 && cached) {
        answer.body?.cancel();
        info = cached.info;
        etag = cached.etag;
        modified = cached.modified;
      } else if (
        answer.status === 200 && answer.body &&
        /^text\/html\b/i.test(answer.headers.get("content-type") ?? "")
      ) {
        const html = await readBounded(answer.body, this.#options.maxBytes);
        if (html !== null) {
          info = { ...scanPage(html, page, url.href), hostsSessions: true };
          etag = answer.headers.get("etag");
          modified = answer.headers.get("last-modified");
        }
      } else {
        await answer.body?.cancel();
      }
    } catch {
      // Down, slow or garbage: no public catalog for now, and sessions still work.
    }
    this.#scans.set(page, { info, at: this.#now(), etag, modified });
    return info;
  }

  /** The page at `path` as an anonymous visitor gets it; a fresh scan is reused. */
  async page(path: string): Promise<PageInfo | null> {
    const page = identity(path);
    if (!page) return null;
    const cached = this.#scans.get(page);
    if (cached && this.#now() - cached.at < this.#options.freshMs) return cached.info;
    // One fetch per page at a time, however many ask.
    let pending = this.#pending.get(page);
    if (!pending) {
      pending = this.#scan(page, cached).finally(() => this.#pending.delete(page));
      this.#pending.set(page, pending);
    }
    return await pending;
  }

  /**
   * Every page path of the app hosts sessions: what its tab registers makes the session
   * manifest. No fetch: what the public scan knows is used when it is there.
   */
  sessionPage(path: string): Promise<PageInfo | null> {
    const page = identity(path);
    if (!page) return Promise.resolve(null);
    this.#visited.delete(page);
    this.#visited.set(page, true);
    return Promise.resolve(this.#scans.get(page)?.info ?? emptyPage(page, this.#url(page).href));
  }

  async agentPage(path: string): Promise<PageInfo | null> {
    const info = await this.page(path);
    return info?.agentEnabled ? info : null;
  }

  knownAgentPage(): undefined {
    return undefined;
  }

  /** The app's `sitemap.xml` paths, read at most once per `freshMs`. */
  async #sitemapPaths(): Promise<string[]> {
    if (this.#sitemap && this.#now() - this.#sitemap.at < this.#options.freshMs) {
      return this.#sitemap.paths;
    }
    let paths: string[] = [];
    try {
      const answer = await this.#fetch(this.#url("/sitemap.xml"), {
        headers: { "user-agent": CATALOG_AGENT },
        redirect: "manual",
        signal: AbortSignal.timeout(this.#options.timeoutMs),
        client: this.#client,
      } as RequestInit);
      if (answer.status === 200 && answer.body) {
        const xml = await readBounded(answer.body, this.#options.maxBytes);
        if (xml !== null) paths = sitemapPaths(xml, this.upstream.origin, this.#options.maxPages);
      } else {
        await answer.body?.cancel();
      }
    } catch {
      // No sitemap: the visited paths are the list.
    }
    this.#sitemap = { at: this.#now(), paths };
    return paths;
  }

  /**
   * The agent-enabled pages among the app's `sitemap.xml` entries and the paths sessions
   * visited, at most `maxPages` of them.
   */
  async agentPages(): Promise<PageInfo[]> {
    const listed = new Set(await this.#sitemapPaths());
    for (const page of this.#visited.keys()) listed.add(page);
    const out: PageInfo[] = [];
    for (const page of [...listed].slice(0, this.#options.maxPages)) {
      const info = await this.agentPage(page);
      if (info) out.push(info);
    }
    return out;
  }

  close(): void {
    this.#client.close();
  }
}
