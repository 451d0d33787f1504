/**
 * The public catalog: each page's `<aim-action>` and `<aim-state>` declarations read
 * from its static HTML with htmlparser2, cached until the file changes.
 *
 * @module
 */
import { type FileStamp, sameStamp, stampOf } from "../utils/file_stamp.ts";
import { parseDocument } from "htmlparser2";
import { type AnyNode, type Document, Element, isTag } from "domhandler";
import { textContent } from "domutils";
import { selectAll, selectOne } from "css-select";
import {
  type MarkupDocument,
  type MarkupElement,
  MarkupError,
  type MarkupNode,
  readAction,
} from "../markup/action.ts";
import { type ActionSpec, parseActionSpec } from "../input/action_spec.ts";
import { normalizePage, type SiteRoot } from "./paths.ts";
import { formToolOf } from "../markup/form_tool.ts";
import { actionOfTool, readToolMarkup, type ToolMarkup } from "../wire/webmcp_tools.ts";

/** A declaration that could not be read, with where it is. */
export interface CatalogProblem {
  line: number;
  column: number;
  message: string;
}

/** What a page's static HTML declares. */
export interface PageInfo {
  page: string;
  file: string;
  title: string;
  description: string;
  actions: ActionSpec[];
  stateKeys: string[];
  problems: CatalogProblem[];
  /** Whether the page holds at least one `<aim-action>`, `<aim-state>` or `<form toolname>`. */
  agentEnabled: boolean;
  /**
   * The ids of its `items=` actions: their public example names no real item (the keys are the
   * session's to list), so an invocation of it would be refused.
   */
  itemActions?: string[];
  /**
   * Whether a session may live on the page: it holds an aim element (`<aim-panel>` alone is
   * enough). Its session manifest then lists what its tab registers (actions rendered by a
   * script, WebMCP tools), which no scan of its HTML can see.
   */
  hostsSessions: boolean;
}

/** A CSS selector query; one that is not a selector is the markup's error, as in a browser. */
function select<T>(selectors: string, query: () => T): T {
  try {
    return query();
  } catch {
    throw new MarkupError(`"${selectors}" is not a valid selector`);
  }
}

/** A domhandler element seen through the {@linkcode MarkupElement} interface. */
class ParsedElement implements MarkupElement {
  readonly node: Element | Document;
  readonly #view: ParsedView;
  constructor(node: Element | Document, view: ParsedView) {
    this.node = node;
    this.#view = view;
  }
  get tagName(): string {
    return this.node instanceof Element ? this.node.name.toUpperCase() : "#DOCUMENT";
  }
  getAttribute(name: string): string | null {
    return this.node instanceof Element ? this.node.attribs[name.toLowerCase()] ?? null : null;
  }
  get children(): MarkupElement[] {
    return this.node.children.filter(isTag).map((child) => this.#view.wrap(child));
  }
  get textContent(): string {
    return textContent(this.node);
  }
  /** An element, as the DOM's `nodeType` says. */
  readonly nodeType = 1;
  get childNodes(): MarkupNode[] {
    return this.node.children.map((child) =>
      isTag(child)
        ? this.#view.wrap(child) as ParsedElement
        : { nodeType: child.type === "text" ? 3 : 8, textContent: textContent(child) }
    );
  }
  querySelector(selectors: string): MarkupElement | null {
    const found = select(selectors, () => selectOne<AnyNode, Element>(selectors, this.node));
    return found ? this.#view.wrap(found) : null;
  }
}

/**
 * A parsed document seen through the {@linkcode MarkupDocument} interface, its elements through
 * {@linkcode MarkupElement}: what the shared readings of markup.ts read on the server.
 */
export class ParsedView implements MarkupDocument {
  readonly #wrappers = new WeakMap<AnyNode, ParsedElement>();
  readonly #ids = new Map<string, Element>();
  readonly documentElement: ParsedElement;
  readonly elements: Element[] = [];

  constructor(doc: Document) {
    const walk = (node: AnyNode) => {
      if (isTag(node)) {
        this.elements.push(node);
        const id = node.attribs.id;
        if (id && !this.#ids.has(id)) this.#ids.set(id, node);
      }
      if ("children" in node) { for (const child of node.children) walk(child); }
    };
    walk(doc);
    this.documentElement = new ParsedElement(doc, this);
  }
  /** `node` as a {@linkcode MarkupElement}, the same object each time. */
  wrap(node: Element): MarkupElement {
    let wrapper = this.#wrappers.get(node);
    if (!wrapper) this.#wrappers.set(node, wrapper = new ParsedElement(node, this));
    return wrapper;
  }
  getElementById(id: string): MarkupElement | null {
    const node = this.#ids.get(id);
    return node ? this.wrap(node) : null;
  }
  querySelectorAll(selectors: string): MarkupElement[] {
    return select(
      selectors,
      () => selectAll<AnyNode, Element>(selectors, this.documentElement.node),
    )
      .map((node) => this.wrap(node));
  }
}

function position(html: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < html.length; i++) {
    if (html.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return { line, column: offset - last };
}

/** Reads the declarations of one page's HTML. */
export function scanPage(html: string, page: string, file: string): PageInfo {
  const doc = parseDocument(html, { withStartIndices: true });
  const view = new ParsedView(doc);
  const actions: ActionSpec[] = [];
  const itemActions: string[] = [];
  const stateKeys: string[] = [];
  const problems: CatalogProblem[] = [];
  let title = "";
  let description = "";
  let agentEnabled = false;
  let hostsSessions = false;
  /** What the page's `<aim-tool>` elements say, read at its first `<form toolname>`. */
  let markup: Map<string, ToolMarkup> | undefined;
  for (const node of view.elements) {
    const name = node.name.toLowerCase();
    if (name.startsWith("aim-")) hostsSessions = true;
    if (name === "title" && !title) title = textContent(node).replace(/\s+/g, " ").trim();
    else if (name === "meta" && node.attribs.name?.toLowerCase() === "description") {
      description ||= (node.attribs.content ?? "").trim();
    } else if (name === "aim-state") {
      agentEnabled = true;
      const key = node.attribs.name?.trim();
      if (key && !stateKeys.includes(key)) stateKeys.push(key);
      else if (!key) {
        problems.push({
          ...position(html, node.startIndex ?? 0),
          message: "<aim-state> has no name",
        });
      }
    } else if (name === "form" && node.attribs.toolname !== undefined) {
      // A declarative WebMCP tool: an action of the page as the browser reads it, with what
      // the site owner's <aim-tool> says of it, as the page reads it too.
      const where = position(html, node.startIndex ?? 0);
      const tool = formToolOf(view.wrap(node));
      markup ??= readToolMarkup(
        view.elements.filter((n) => n.name.toLowerCase() === "aim-tool").map((n) => view.wrap(n)),
      );
      const owner = markup.get(String(tool.name));
      if (owner?.hidden) continue;
      const mapped = actionOfTool(tool, owner);
      try {
        if (!mapped.ok) throw new MarkupError(mapped.problem);
        const spec = parseActionSpec(mapped.action);
        if (actions.some((a) => a.id === spec.id)) {
          problems.push({ ...where, message: `action "${spec.id}" is declared twice` });
        } else {
          actions.push(spec);
          agentEnabled = true;
        }
      } catch (error) {
        if (!(error instanceof MarkupError)) throw error;
        problems.push({ ...where, message: error.message });
      }
    } else if (name === "aim-action") {
      agentEnabled = true;
      const where = position(html, node.startIndex ?? 0);
      try {
        const spec = parseActionSpec(readAction(view.wrap(node), view));
        if (actions.some((a) => a.id === spec.id)) {
          problems.push({ ...where, message: `action "${spec.id}" is declared twice` });
        } else {
          actions.push(spec);
          if (node.attribs.items) itemActions.push(spec.id);
        }
      } catch (error) {
        if (!(error instanceof MarkupError)) throw error;
        problems.push({ ...where, message: error.message });
      }
    }
  }
  hostsSessions ||= agentEnabled;
  return {
    page,
    file,
    title,
    description,
    actions,
    stateKeys,
    problems,
    agentEnabled,
    itemActions,
    hostsSessions,
  };
}

/**
 * Where the bridge reads pages from: a folder ({@linkcode SiteCatalog}) or an app it stands in
 * front of (bridge/upstream/catalog.ts). One interface, so that sessions, manifests and the tab
 * channel do not know which.
 */
export interface PageCatalog {
  /** The site's folder; undefined in front of an app, which serves its own files. */
  readonly root?: SiteRoot | undefined;
  /** The page at `path`, or null when there is none. */
  page(path: string): Promise<PageInfo | null>;
  /** The page at `path` when a session may live on it, else null. */
  sessionPage(path: string): Promise<PageInfo | null>;
  /** The agent-enabled page at `path` (its public catalog is not empty), or null. */
  agentPage(path: string): Promise<PageInfo | null>;
  /** Every agent-enabled page the catalog lists. */
  agentPages(): Promise<PageInfo[]>;
  /** The agent-enabled page at `page` when known without any I/O, else undefined. */
  knownAgentPage(page: string): PageInfo | undefined;
  close(): void;
}

interface CacheEntry {
  stamp: FileStamp;
  info: PageInfo;
}

/** Options of {@linkcode SiteCatalog}. */
export interface SiteCatalogOptions {
  /**
   * Watch the root so that a page's file is looked up again after files move.
   *
   * @default {true}
   */
  watch?: boolean;
}

/** The defaults of {@linkcode SiteCatalogOptions}, as its `@default` tags say. */
export const SITE_CATALOG_DEFAULTS: { readonly watch: boolean } = { watch: true };

/**
 * The catalog of a site: pages scanned once per file change. A watcher on the root says when a
 * file changes (its scan is dropped) or files come and go (which file serves a page is looked
 * up again), so a cached page costs no system call. Without a watcher, each request `stat`s the
 * page's file instead.
 */
export class SiteCatalog implements PageCatalog, Disposable {
  readonly root: SiteRoot;
  #cache = new Map<string, CacheEntry>();
  #files = new Map<string, string>();
  /** The site's page paths, listed again only after files come or go. */
  #pages: Promise<string[]> | null = null;
  #watcher: Deno.FsWatcher | null = null;
  /** Counts watcher events, so a scan that raced an edit is not kept. */
  #generation = 0;

  constructor(root: SiteRoot, options: SiteCatalogOptions = {}) {
    this.root = root;
    if (options.watch ?? SITE_CATALOG_DEFAULTS.watch) this.#watch();
  }

  #watch(): void {
    try {
      this.#watcher = Deno.watchFs(this.root.path, { recursive: true });
    } catch {
      // Without a watcher (no inotify here), every request resolves the page's file again.
      return;
    }
    (async () => {
      try {
        for await (const event of this.#watcher!) {
          if (event.kind === "access") continue;
          this.#generation++;
          for (const path of event.paths) this.#cache.delete(path);
          if (event.kind !== "modify") {
            // Created, removed, renamed, or the watcher lost track: resolve pages again.
            this.#files.clear();
            this.#pages = null;
            if (event.kind === "other") this.#cache.clear();
          }
        }
      } catch {
        this.#watcher = null;
      }
      this.#files.clear();
      this.#pages = null;
    })();
  }

  /** Stops watching the root. */
  close(): void {
    const watcher = this.#watcher;
    this.#watcher = null;
    this.#files.clear();
    try {
      watcher?.close();
    } catch {
      // Already closed.
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  async #file(page: string): Promise<{ file: string; stat: Deno.FileInfo } | null> {
    const file = await this.root.pageFile(page);
    if (!file) return null;
    try {
      const stat = await Deno.stat(file);
      if (this.#watcher) this.#files.set(page, file);
      return { file, stat };
    } catch (error) {
      // Gone between the lookup and now: no page. Anything else is a bug to hear about.
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        return null;
      }
      throw error;
    }
  }

  /** The page at `path` (any spelling: `/a`, `/a.html`, `/a/`), or null when there is none. */
  async page(path: string): Promise<PageInfo | null> {
    const page = normalizePage(path);
    if (!page) return null;
    const known = this.#watcher ? this.#files.get(page) : undefined;
    const hit = known && this.#cache.get(known);
    if (hit) return hit.info.page === page ? hit.info : { ...hit.info, page };
    const found = await this.#file(page);
    if (!found) return null;
    const { file, stat } = found;
    const stamp = stampOf(stat);
    const cached = this.#cache.get(file);
    if (cached && sameStamp(cached.stamp, stamp)) {
      return cached.info.page === page ? cached.info : { ...cached.info, page };
    }
    const generation = this.#generation;
    const info = scanPage(await Deno.readTextFile(file), page, file);
    if (generation === this.#generation) this.#cache.set(file, { stamp, info });
    return info;
  }

  /**
   * The agent-enabled page at `page` when the catalog knows it without a system call: watched,
   * scanned, unchanged since, and `page` its own spelling (as {@linkcode normalizePage} gives
   * it). Undefined otherwise: then {@linkcode agentPage} answers.
   */
  knownAgentPage(page: string): PageInfo | undefined {
    const known = this.#watcher ? this.#files.get(page) : undefined;
    const info = known ? this.#cache.get(known)?.info : undefined;
    return info?.agentEnabled ? info : undefined;
  }

  /**
   * The page at `path` when a session may live on it (see {@linkcode PageInfo.hostsSessions}),
   * or null: its public catalog may be empty.
   */
  async sessionPage(path: string): Promise<PageInfo | null> {
    const info = await this.page(path);
    return info?.hostsSessions ? info : null;
  }

  /** The agent-enabled page at `path`, or null. */
  async agentPage(path: string): Promise<PageInfo | null> {
    const info = await this.page(path);
    return info?.agentEnabled ? info : null;
  }

  #listPages(): Promise<string[]> {
    return this.root.pages().catch((error) => {
      this.#pages = null;
      throw error;
    });
  }

  /** Every agent-enabled page of the site. */
  async agentPages(): Promise<PageInfo[]> {
    const out: PageInfo[] = [];
    const pages = this.#watcher ? (this.#pages ??= this.#listPages()) : this.root.pages();
    for (const page of await pages) {
      const info = await this.agentPage(page);
      if (info && !out.some((p) => p.file === info.file)) out.push(info);
    }
    return out;
  }
}
