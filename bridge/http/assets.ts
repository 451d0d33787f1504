/**
 * @module Serves the elements bundle: `/__aim/elements.js`, revalidated by a strong ETag of
 * its content, and `/__aim/elements.<hash>.js`, the same bytes, cached for good.
 */
import { createHash } from "node:crypto";
import type { Env, Hono } from "hono";
// The bundle is part of the module graph, so `deno compile` embeds it; `deno task bundle`
// rebuilds it from elements/ (tests/browser/bundle_test.ts fails when it is stale).
import bundle from "../../elements/elements.bundle.js" with { type: "text" };

/** The bundle's bytes. */
export const ELEMENTS_JS: Uint8Array<ArrayBuffer> = new TextEncoder().encode(bundle);

/** The first 16 hex digits of the bundle's SHA-256. */
export const ELEMENTS_HASH: string = createHash("sha256").update(ELEMENTS_JS).digest("hex")
  .slice(0, 16);

/** The bundle's URL that never changes content: safe to cache for a year. */
export const ELEMENTS_IMMUTABLE_PATH = `/__aim/elements.${ELEMENTS_HASH}.js`;

const ETAG = `"${ELEMENTS_HASH}"`;

/** Whether `If-None-Match` names our ETag (weak comparison: a compressed copy is weak). */
function notModified(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const value = tag.trim();
    return value === "*" || value.replace(/^W\//, "") === ETAG;
  });
}

function answer(ifNoneMatch: string | undefined, cacheControl: string): Response {
  const headers = {
    "Content-Type": "text/javascript; charset=utf-8",
    "Cache-Control": cacheControl,
    "ETag": ETAG,
  };
  if (notModified(ifNoneMatch)) return new Response(null, { status: 304, headers });
  return new Response(ELEMENTS_JS, { headers });
}

/** Adds the bundle's routes; mount them before the static catch-all. */
export function mountAssets<E extends Env>(app: Hono<E>): void {
  app.on(
    ["GET", "HEAD"],
    "/__aim/elements.js",
    (c) => answer(c.req.header("If-None-Match"), "no-cache"),
  );
  app.on(
    ["GET", "HEAD"],
    ELEMENTS_IMMUTABLE_PATH,
    (c) => answer(c.req.header("If-None-Match"), "public, max-age=31536000, immutable"),
  );
}
