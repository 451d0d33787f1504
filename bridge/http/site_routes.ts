/**
 * What the site serves: the site map, every page's manifest at `<page>.json` and
 * `<page>.toon` (public ones from a cache), and the site's static files, confined to its root.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { serveStatic } from "hono/deno";
import type { BridgeCore } from "../core/bridge.ts";
import type { PageInfo } from "../site/catalog.ts";
import { badRequest, notFound } from "../errors/aim_error.ts";
import { decodePath, normalizePage, type SiteRoot } from "../site/paths.ts";
import { BoundedMap } from "../utils/bounded_map.ts";
import type { AppEnv } from "./env.ts";
import { readToken, type RequestToken } from "./request.ts";
import { aimCredentials } from "./credentials.ts";
import { isTokenShaped } from "../core/tokens.ts";
import { SessionManifests } from "./session_manifests.ts";
import { bodyResponse, encodeBody, MANIFEST_HEADERS, textResponse } from "./responses.ts";

/**
 * The token of a request's `Authorization: Bearer` header when it is one aim issued (a lookup,
 * bridge/http/credentials.ts): an app's own token of the same shape is the app's.
 */
async function aimBearer(c: Context<AppEnv>, core: BridgeCore): Promise<RequestToken | undefined> {
  const header = c.req.header("Authorization");
  const token = header === undefined ? undefined : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)?.[1];
  if (!isTokenShaped(token)) return undefined;
  const issued = await aimCredentials(core.sessions).issued([token]);
  return issued.has(token) ? { token, via: "bearer" } : undefined;
}

/** The site map's routes. */
export function sitemapRoutes(core: BridgeCore): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const format of ["json", "toon"] as const) {
    app.get(
      `/sitemap.${format}`,
      async (c) =>
        bodyResponse(await core.sitemap(c.get("origin")), format, {
          "Cache-Control": "public, max-age=60",
        }),
    );
  }
  return app;
}

/**
 * The encoded public manifests, per page scan (a new scan, a new entry), then per format and
 * origin: a few origins per page at most, since Host names are the client's to choose.
 */
export class PublicManifests {
  readonly #cache = new WeakMap<PageInfo, BoundedMap<string, string>>();

  /** The encoded manifest of `info` for `origin`, when it is already made. */
  get(info: PageInfo, format: "json" | "toon", origin: string): string | undefined {
    return this.#cache.get(info)?.get(`${format} ${origin}`);
  }

  set(info: PageInfo, format: "json" | "toon", origin: string, text: string): void {
    let cache = this.#cache.get(info);
    if (!cache) this.#cache.set(info, cache = new BoundedMap(8));
    cache.set(`${format} ${origin}`, text);
  }
}

/** Whether `file`, found for `path`, is the folder's `index.html`, asked for without the slash. */
async function isFolderPage(root: SiteRoot, path: string, file: string): Promise<boolean> {
  if (path.endsWith("/") || !file.endsWith("index.html")) return false;
  // Not `path` itself, nor `path.html` (which may be a link to an index.html elsewhere).
  return !(await root.file(path, { cleanUrls: false })) &&
    !(await root.file(`${path}.html`, { cleanUrls: false }));
}

/** The manifests at `<page>.json` and `<page>.toon`, then the static files. */
export function siteRoutes(
  core: BridgeCore,
  sessions: SessionManifests = new SessionManifests(core),
  publics: PublicManifests = new PublicManifests(),
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.on(["GET", "HEAD"], "*", async (c, next) => {
    const match = /^(.*)\.(json|toon)$/.exec(c.req.path);
    if (!match) return next();
    const format = match[2] as "json" | "toon";
    const decoded = decodePath(match[1]!);
    const path = decoded === null
      ? null
      : normalizePage(decoded === "/index" || decoded === "" ? "/" : decoded);
    // Declared query parameters name one page among several at one path.
    const query = c.req.url.indexOf("?");
    const page = path && core.pageQuery.length && query >= 0
      ? core.pageOf(path + c.req.url.slice(query))
      : path;
    // In front of an app, `/x.json` is often the app's own (its scripts fetch it with the
    // person's cookies): only an aim token in `Authorization` makes it a session manifest there.
    const token = core.catalog.root || format === "toon" ? readToken(c) : await aimBearer(c, core);
    if (path && !page) {
      // A declared parameter given twice names no one page: never a manifest for either.
      const raw = path + c.req.url.slice(query);
      if (token || format === "toon" || core.catalog.root) throw badRequest(core.invalidPage(raw));
      return next();
    }
    // With a token, a page whose actions only its tab registers has a (session) manifest too.
    const info = page
      ? await core.catalog.agentPage(page) ?? (token ? await core.catalog.sessionPage(page) : null)
      : null;
    if (!info) {
      const root = core.catalog.root;
      // In front of an app (no root), a path that is no page's manifest is the app's to answer.
      if (!root || await root.file(decodePath(c.req.path) ?? "/", { cleanUrls: false })) {
        return next();
      }
      throw notFound(`No agent-enabled page has its manifest at ${c.req.path}; see /sitemap.json.`);
    }
    const origin = c.get("origin");
    if (token) {
      return await sessions.answer(c, await core.authenticate(token.token), info.page, format);
    }
    let text = publics.get(info, format, origin);
    if (text === undefined) {
      text = encodeBody(await core.manifest(info.page, null, origin), format);
      publics.set(info, format, origin, text);
    }
    return textResponse(text, format, MANIFEST_HEADERS);
  });

  app.on(["GET", "HEAD"], "*", async (c, next) => {
    const root = core.catalog.root;
    if (!root) return next();
    const decoded = decodePath(c.req.path);
    const file = decoded === null ? null : await root.file(decoded);
    if (!file) throw notFound(`Nothing is served at ${c.req.path}.`);
    // A folder's page at /docs: its relative URLs (style.css) would resolve against /, so it
    // is sent to /docs/, as static servers do. One leading slash: never `//host/`.
    if (decoded !== null && await isFolderPage(core.catalog.root, decoded, file)) {
      const query = new URL(c.req.url).search;
      return c.redirect(`${c.req.path.replace(/^\/+/, "/")}/${query}`, 301);
    }
    return serveStatic({ root: "/", path: file })(c, next);
  });

  return app;
}
