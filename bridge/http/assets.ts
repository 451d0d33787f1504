/**
 * Serves the elements: the entry at `/__aim/elements.js`, revalidated by a strong ETag
 * of its content, and at `/__aim/elements.<hash>.js`, the same bytes, cached for good; and each
 * chunk it imports at `/__aim/elements.<name>.js?v=<hash>`, cached for good. Nothing else: only
 * the files elements/build.ts writes, at the URLs their content names (another `v`: 404).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { mountAssets } from "./assets.ts";
 *
 * const app = new Hono();
 * mountAssets(app); // before the static catch-all
 * ```
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Env, Hono } from "hono";
// The build output is part of the module graph, so `deno compile` embeds it; `deno task bundle`
// rebuilds it from elements/ (tests/browser/bundle_test.ts fails when it is stale).
import bundle from "../../elements/elements.bundle.js" with { type: "text" };
import shared from "../../elements/elements.shared.js" with { type: "text" };
import readers from "../../elements/elements.readers.js" with { type: "text" };
import markup from "../../elements/elements.markup.js" with { type: "text" };
import panel from "../../elements/elements.panel.js" with { type: "text" };
import dialog from "../../elements/elements.dialog.js" with { type: "text" };
import webmcp from "../../elements/elements.webmcp.js" with { type: "text" };
import bindings from "../../elements/elements.bindings.js" with { type: "text" };
import state from "../../elements/elements.state.js" with { type: "text" };
import warnings from "../../elements/elements.warnings.js" with { type: "text" };
import webmcpApi from "../../elements/elements.webmcp-api.js" with { type: "text" };
import { namesEtag } from "./if_none_match.ts";

/** The first 16 hex digits of the SHA-256 of `bytes`, as elements/build.ts versions chunks. */
function contentHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex").slice(0, 16);
}

/** The entry's bytes. */
export const ELEMENTS_JS: Uint8Array<ArrayBuffer> = new TextEncoder().encode(bundle);

/** The first 16 hex digits of the entry's SHA-256. */
export const ELEMENTS_HASH: string = contentHash(ELEMENTS_JS);

/** The entry's URL that never changes content: safe to cache for a year. */
export const ELEMENTS_IMMUTABLE_PATH = `/__aim/elements.${ELEMENTS_HASH}.js`;

/**
 * The classic script of `/__aim/webmcp.js` (elements/webmcp_api.ts): WebMCP's API where the
 * browser has none, for pages that register tools of their own, then the elements.
 */
export const WEBMCP_API_JS: Uint8Array<ArrayBuffer> = new TextEncoder().encode(webmcpApi);

/** One chunk of the elements, as the bridge serves it. */
export interface ElementsChunk {
  /** `/__aim/elements.<name>.js` */
  path: string;
  /** The first 16 hex digits of its SHA-256: the `v` it is served under, and its ETag. */
  hash: string;
  bytes: Uint8Array<ArrayBuffer>;
}

/**
 * The chunks, by URL (`/__aim/elements.<name>.js?v=<hash>`, as modules import them): `shared`
 * and `readers` (imported by the entry, so loaded up front), `markup`, `panel`, `dialog`,
 * `webmcp`, `bindings`, `state` and `warnings` (imported on demand).
 */
export const ELEMENTS_CHUNKS: ReadonlyMap<string, ElementsChunk> = new Map(
  Object.entries({ shared, readers, markup, panel, dialog, webmcp, bindings, state, warnings }).map(
    ([name, code]) => {
      const bytes = new TextEncoder().encode(code);
      const chunk = { path: `/__aim/elements.${name}.js`, hash: contentHash(bytes), bytes };
      return [`${chunk.path}?v=${chunk.hash}`, chunk];
    },
  ),
);

const FOREVER = "public, max-age=31536000, immutable";

/** Answers a GET or HEAD of `bytes`, whose ETag is `etag`. */
function answer(
  bytes: Uint8Array<ArrayBuffer>,
  etag: string,
  ifNoneMatch: string | undefined,
  cacheControl: string,
): Response {
  const headers = {
    "Content-Type": "text/javascript; charset=utf-8",
    "Cache-Control": cacheControl,
    "ETag": etag,
  };
  if (namesEtag(ifNoneMatch, etag)) return new Response(null, { status: 304, headers });
  return new Response(bytes, { headers });
}

/** Adds the elements' routes; mount them before the static catch-all. */
export function mountAssets<E extends Env>(app: Hono<E>): void {
  const entry = `"${ELEMENTS_HASH}"`;
  app.on(
    ["GET", "HEAD"],
    "/__aim/elements.js",
    (c) => answer(ELEMENTS_JS, entry, c.req.header("If-None-Match"), "no-cache"),
  );
  app.on(
    ["GET", "HEAD"],
    ELEMENTS_IMMUTABLE_PATH,
    (c) => answer(ELEMENTS_JS, entry, c.req.header("If-None-Match"), FOREVER),
  );
  const api = `"${contentHash(WEBMCP_API_JS)}"`;
  app.on(
    ["GET", "HEAD"],
    "/__aim/webmcp.js",
    (c) => answer(WEBMCP_API_JS, api, c.req.header("If-None-Match"), "no-cache"),
  );
  for (const { path, hash, bytes } of ELEMENTS_CHUNKS.values()) {
    app.on(["GET", "HEAD"], path, (c) => {
      // Only this content's version: another one would be cached for good under this URL.
      if (new URL(c.req.url).search !== `?v=${hash}`) return c.notFound();
      return answer(bytes, `"${hash}"`, c.req.header("If-None-Match"), FOREVER);
    });
  }
}
