/**
 * The catalog of an app aim stands in front of: every page path may host a session (its tab's
 * registered actions make its manifest), and a page's public catalog is what an anonymous
 * visitor gets from the app (no cookie, no `Authorization`, never a tab's report), read on
 * demand, bounded in size, time and count, cached and revalidated with `ETag`/`Last-Modified`.
 * A list of pages (the site map, the agent card, ACP's agents) is answered within a bound of its
 * own, with what is known: what is still being read is read on in the background, a few at a
 * time, and joins the next answer.
 * @module
 */
import { type PageCatalog, type PageInfo, scanPage } from "../site/catalog.ts";
import { normalizePage } from "../site/paths.ts";
import { pageIdentity, splitPage } from "../site/page_identity.ts";
import { BoundedMap } from "../utils/bounded_map.ts";
import {
  type AnonymousAnswer,
  boundedBytes,
  decompress,
  readAnonymously,
} from "./anonymous_read.ts";
import { DEFAULT_SITEMAP, isSitemapPath, sitemapPaths } from "./sitemap.ts";

export { sitemapPaths } from "./sitemap.ts";

/** Options of {@linkcode UpstreamCatalog}. */
export interface UpstreamCatalogOptions {
  /**
   * Bytes of a page's HTML read at most; a longer page has no public catalog.
   *
   * @default {1048576}
   */
  maxBytes?: number;
  /**
   * How long one anonymous read may take, headers and body, ms.
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
  /**
   * How long a list of pages (the site map, the agent card, ACP's agents) waits for the reads it
   * needs, ms: a page not read by then is left out of that answer, and joins a later one.
   *
   * @default {1000}
   */
  listWaitMs?: number;
  /**
   * Reads of the app the catalog makes at once for lists, in the background.
   *
   * @default {4}
   */
  readers?: number;
  /**
   * The path of the app's site map (`--upstream-sitemap`).
   *
   * @default {"/sitemap.xml"}
   */
  sitemap?: string;
  /**
   * The origin visitors reach the app at through aim (`--public-url`), when the app gets the
   * browser's `Host`: the catalog's reads carry its host, and the site map's entries on it are
   * the app's pages. Without it, the app's own origin.
   */
  publicOrigin?: string | undefined;
  /**
   * Query parameters that are part of a page's identity (`--page-query`).
   *
   * @default {[]}
   */
  pageQuery?: readonly string[] | undefined;
  /** The clock; without it, `Date.now`. */
  now?: () => number;
}

/** The defaults of {@linkcode UpstreamCatalogOptions}. */
export const CATALOG_DEFAULTS: {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly maxPages: number;
  readonly freshMs: number;
  readonly listWaitMs: number;
  readonly readers: number;
  readonly sitemap: string;
  readonly pageQuery: readonly string[];
} = {
  maxBytes: 1 << 20,
  timeoutMs: 5000,
  maxPages: 200,
  freshMs: 30_000,
  listWaitMs: 1000,
  readers: 4,
  sitemap: DEFAULT_SITEMAP,
  pageQuery: [],
};

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

/** A page identity (a path, with declared query parameters or not), normalized; null if none. */
function identity(page: string): string | null {
  const [path, query] = splitPage(page);
  const normal = normalizePage(path);
  return normal && query ? `${normal}?${query}` : normal;
}

/** Resolves after `ms`; `stop()` clears the timer (nothing is left pending). */
function delay(ms: number): { done: Promise<void>; stop: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
  return { done, stop: () => clearTimeout(timer) };
}

/** The public catalog of an app, read as an anonymous visitor. */
export class UpstreamCatalog implements PageCatalog {
  /** The app's origin (and base path) the catalog reads. */
  readonly upstream: URL;
  readonly root: undefined = undefined;
  readonly #scans: BoundedMap<string, Scan>;
  /** Reads under way, by page: one per page at a time, however many ask. */
  readonly #pending = new Map<string, Promise<PageInfo>>();
  /** Pages a list wants read, waiting for a reader; each once. */
  readonly #queue = new Set<string>();
  #reading = 0;
  /** Paths sessions visited (never what they saw there), newest last. */
  readonly #visited: BoundedMap<string, true>;
  readonly #options: Required<Omit<UpstreamCatalogOptions, "now" | "publicOrigin" | "pageQuery">>;
  readonly #pageQuery: readonly string[];
  readonly #now: () => number;
  /** The `Host` of the catalog's reads. */
  readonly #host: string;
  /** The origins whose site map entries are the app's. */
  readonly #origins: string[];
  /** Withdraws every read once the catalog is closed. */
  readonly #closing = new AbortController();
  #sitemap: { at: number; paths: string[] } | null = null;
  /** Lists waiting for pages to be read, each with the pages not read yet. */
  readonly #waiters = new Set<{ pages: Set<string>; resolve: () => void }>();
  /** Who waits for every read to end ({@linkcode UpstreamCatalog.whenIdle}). */
  readonly #idleWaiters: (() => void)[] = [];
  #sitemapRead: Promise<string[]> | null = null;

  /** The catalog of the app at `upstream`, read within the options' bounds. */
  constructor(upstream: string | URL, options: UpstreamCatalogOptions = {}) {
    this.upstream = new URL(upstream);
    this.#options = {
      maxBytes: options.maxBytes ?? CATALOG_DEFAULTS.maxBytes,
      timeoutMs: options.timeoutMs ?? CATALOG_DEFAULTS.timeoutMs,
      maxPages: options.maxPages ?? CATALOG_DEFAULTS.maxPages,
      freshMs: options.freshMs ?? CATALOG_DEFAULTS.freshMs,
      listWaitMs: options.listWaitMs ?? CATALOG_DEFAULTS.listWaitMs,
      readers: Math.max(1, options.readers ?? CATALOG_DEFAULTS.readers),
      sitemap: options.sitemap ?? CATALOG_DEFAULTS.sitemap,
    };
    this.#pageQuery = options.pageQuery ?? CATALOG_DEFAULTS.pageQuery;
    if (!isSitemapPath(this.#options.sitemap)) {
      throw new TypeError(`The site map must be a path of the app, got "${options.sitemap}"`);
    }
    this.#now = options.now ?? Date.now;
    this.#scans = new BoundedMap(this.#options.maxPages);
    this.#visited = new BoundedMap(this.#options.maxPages);
    const visible = options.publicOrigin ? new URL(options.publicOrigin) : undefined;
    this.#host = visible?.host ?? this.upstream.host;
    this.#origins = [this.upstream.origin, ...(visible ? [visible.origin] : [])];
  }

  #url(page: string): URL {
    const base = this.upstream.pathname.replace(/\/$/, "");
    return new URL(base + page, this.upstream);
  }

  /** One anonymous read of the app (docs/upstream.md, "The public catalog"). */
  #read(
    path: string,
    accept: string,
    more: Pick<Parameters<typeof readAnonymously>[1], "revalidate" | "wants">,
  ): Promise<AnonymousAnswer> {
    return readAnonymously(this.#url(path), {
      accept,
      userAgent: CATALOG_AGENT,
      host: this.#host,
      maxBytes: this.#options.maxBytes,
      timeoutMs: this.#options.timeoutMs,
      signal: this.#closing.signal,
      ...more,
    });
  }

  /**
   * GETs `page` from the app as nobody. A page that is not 200 HTML within the bounds has no
   * public catalog.
   */
  async #scan(page: string, cached: Scan | undefined): Promise<PageInfo> {
    const revalidate: Record<string, string> = {};
    if (cached?.etag) revalidate["if-none-match"] = cached.etag;
    if (cached?.modified) revalidate["if-modified-since"] = cached.modified;
    let info = emptyPage(page, this.#url(page).href);
    let etag: string | null = null;
    let modified: string | null = null;
    try {
      // Only a page itself: a redirect (a login wall) is not followed, nor its own body read.
      const wants = (status: number, headers: Headers) =>
        status === 200 && /^text\/html\b/i.test(headers.get("content-type") ?? "");
      const answer = await this.#read(page, "text/html", { revalidate, wants });
      if (answer.status === 304 && cached) {
        ({ info, etag, modified } = cached);
      } else if (answer.body) {
        const html = new TextDecoder().decode(answer.body);
        info = { ...scanPage(html, page, info.file), hostsSessions: true };
        etag = answer.headers.get("etag");
        modified = answer.headers.get("last-modified");
      }
    } catch {
      // Down, slow or garbage: no public catalog for now, and sessions still work.
    }
    if (!this.#closing.signal.aborted) {
      this.#scans.set(page, { info, at: this.#now(), etag, modified });
    }
    return info;
  }

  /** The read of `page` under way, or a new one. */
  #reread(page: string): Promise<PageInfo> {
    let pending = this.#pending.get(page);
    if (!pending) {
      pending = this.#scan(page, this.#scans.get(page)).finally(() => {
        this.#pending.delete(page);
        for (const waiter of this.#waiters) {
          waiter.pages.delete(page);
          if (!waiter.pages.size) waiter.resolve();
        }
        this.#checkIdle();
      });
      this.#pending.set(page, pending);
    }
    return pending;
  }

  /** The page at `path` as an anonymous visitor gets it; a fresh scan is reused. */
  async page(path: string): Promise<PageInfo | null> {
    const page = identity(path);
    if (!page) return null;
    const cached = this.#scans.get(page);
    if (cached && this.#now() - cached.at < this.#options.freshMs) return cached.info;
    return await this.#reread(page);
  }

  /**
   * Every page path of the app hosts sessions: what its tab registers makes the session
   * manifest. No read: what the public scan knows is used when it is there.
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

  /** Reads `page` in the background, with at most `readers` reads at once. */
  #refresh(page: string): void {
    if (this.#pending.has(page) || this.#closing.signal.aborted) return;
    this.#queue.add(page);
    this.#pump();
  }

  #pump(): void {
    while (this.#reading < this.#options.readers && this.#queue.size) {
      const page = this.#queue.values().next().value!;
      this.#queue.delete(page);
      if (this.#pending.has(page)) continue;
      this.#reading++;
      this.#reread(page).finally(() => {
        this.#reading--;
        this.#pump();
      });
    }
  }

  /** Resolves once no read of the app is under way or waiting (tests wait for it). */
  whenIdle(): Promise<void> {
    if (this.#idle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #idle(): boolean {
    return this.#pending.size === 0 && this.#queue.size === 0 && this.#sitemapRead === null;
  }

  #checkIdle(): void {
    if (this.#idle()) { for (const resolve of this.#idleWaiters.splice(0)) resolve(); }
  }

  /** Reads the app's site map. */
  async #readSitemap(): Promise<string[]> {
    let paths: string[] = [];
    try {
      const answer = await this.#read(this.#options.sitemap, "application/xml, text/xml, */*", {
        wants: (status) => status === 200,
      });
      let body = answer.body;
      // A site map sent as a file (`sitemap.xml.gz`, as some apps do) is unpacked, within bounds.
      if (body && /^application\/(x-)?gzip\b/i.test(answer.headers.get("content-type") ?? "")) {
        const unpacked = new Blob([body]).stream().pipeThrough(decompress("gzip"));
        body = await boundedBytes(unpacked, this.#options.maxBytes).catch(() => null);
      }
      if (body) {
        paths = sitemapPaths(new TextDecoder().decode(body), {
          origins: this.#origins,
          max: this.#options.maxPages,
          pageOf: (raw) => pageIdentity(raw, this.#pageQuery),
        });
      }
    } catch {
      // No site map: the visited paths are the list.
    }
    if (!this.#closing.signal.aborted) this.#sitemap = { at: this.#now(), paths };
    return paths;
  }

  /**
   * The site map's paths: the known ones at once (a stale list is read again in the
   * background), or the first read's, when it comes before `wait` is over.
   */
  async #sitemapPaths(wait: Promise<void>): Promise<string[]> {
    const known = this.#sitemap;
    if (known && this.#now() - known.at < this.#options.freshMs) return known.paths;
    const read = this.#sitemapRead ??= this.#readSitemap().finally(() => {
      this.#sitemapRead = null;
      this.#checkIdle();
    });
    if (known) return known.paths;
    return await Promise.race([read, wait.then(() => [])]);
  }

  /**
   * The agent-enabled pages among the app's site map entries and the paths sessions visited,
   * at most `maxPages` of them, within `listWaitMs`: a page scanned before is answered with its
   * last scan (read again in the background once stale), one never scanned joins when its read
   * ends in time.
   */
  async agentPages(): Promise<PageInfo[]> {
    const wait = delay(this.#options.listWaitMs);
    try {
      const listed = new Set(await this.#sitemapPaths(wait.done));
      for (const page of this.#visited.keys()) listed.add(page);
      const pages = [...listed].slice(0, this.#options.maxPages);
      const unread: string[] = [];
      for (const page of pages) {
        const cached = this.#scans.get(page);
        if (cached && this.#now() - cached.at < this.#options.freshMs) continue;
        this.#refresh(page);
        // A page scanned before is answered with its last scan; a new one is waited for (in the
        // queue when every reader is busy: it starts when one is free).
        if (!cached) unread.push(page);
      }
      await this.#whenRead(unread, wait.done);
      return pages.map((page) => this.#scans.get(page)?.info).filter((info) =>
        info?.agentEnabled === true
      ) as PageInfo[];
    } finally {
      wait.stop();
    }
  }

  /**
   * Resolves once every page of `pages` has been read (each read that ends tells the waiters),
   * or once `wait` is over: one waiter per list, not one per page, and gone once the list is
   * answered.
   */
  async #whenRead(pages: string[], wait: Promise<void>): Promise<void> {
    if (!pages.length) return;
    const waiter = { pages: new Set(pages), resolve: () => {} };
    const read = new Promise<void>((resolve) => waiter.resolve = resolve);
    this.#waiters.add(waiter);
    try {
      await Promise.race([read, wait]);
    } finally {
      this.#waiters.delete(waiter);
    }
  }

  /** Withdraws every read under way and queued. */
  close(): void {
    this.#queue.clear();
    this.#closing.abort();
    this.#checkIdle();
  }
}
