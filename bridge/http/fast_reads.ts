/**
 * The hot path of manifest reads (`GET <page>.json`, `.toon`): a page's public
 * manifest, and an agent re-reading its session's, answered before any routing when the
 * answer is already known (a `304`, or a body encoded once). Anything else takes the full
 * route, which answers every case, errors included. The front door (bridge/http/front_door.ts)
 * checks the Host and logs; this module only reads.
 *
 * @module
 */
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import { JSON_TYPE, MANIFEST_HEADERS, TOON_TYPE } from "./responses.ts";
import type { SessionManifests } from "./session_manifests.ts";
import type { PublicManifests } from "./site_routes.ts";
import { namesEtag } from "./if_none_match.ts";

/** Options of {@linkcode manifestReads}. */
export interface ManifestReadsOptions {
  /** The encoded session manifests the full route makes. */
  manifests: SessionManifests;
  /** The encoded public manifests the full route makes. */
  publics: PublicManifests;
  /** This instance's id, sent as `X-Aim-Instance` when several share a store. */
  instance?: string | undefined;
}

/**
 * Answers a repeated manifest read of a request whose Host the front door checked
 * (bridge/http/front_door.ts), at `origin`; `pathStart` is where its path starts in `url`.
 */
export type ManifestRead = (
  request: Request,
  url: string,
  pathStart: number,
  origin: string,
) => Response | undefined;

/**
 * What answers repeated manifest reads, or returns undefined for the full route to answer. It
 * takes only a plain `GET` without a query:
 *
 * - without a token (no `Authorization`, no cookie), a page's public manifest, once the full
 *   route has encoded it for this page scan;
 * - with a Bearer token of a live session of this process (no shared store), the session's
 *   own page: `304` when `If-None-Match` names the current version (or is `*`) and no
 *   `Prefer` (a wait) is sent; without `If-None-Match`, the body once this version is encoded.
 *
 * The answer is the full route's, byte for byte and header for header.
 */
export function manifestReads(core: BridgeCore, options: ManifestReadsOptions): ManifestRead {
  const { manifests, publics } = options;
  const instance: Record<string, string> = options.instance
    ? { "X-Aim-Instance": options.instance }
    : {};
  const publicHeaders: Record<"json" | "toon", Record<string, string>> = {
    json: { "Content-Type": JSON_TYPE, ...MANIFEST_HEADERS, ...instance },
    toon: { "Content-Type": TOON_TYPE, ...MANIFEST_HEADERS, ...instance },
  };
  // Per session, the answers' headers at its current version, made once per version.
  const headersOf = new WeakMap<Session, VersionHeaders>();

  return (request, url, pathStart, origin) => {
    if (request.method !== "GET" || url.includes("?", pathStart)) return undefined;
    const format = url.endsWith(".json") ? "json" : url.endsWith(".toon") ? "toon" : undefined;
    if (!format) return undefined;
    const headers = request.headers;
    const authorization = headers.get("Authorization");
    if (authorization !== null && !authorization.startsWith("Bearer ")) return undefined;
    // No token at all (a cookie is one): the public manifest.
    if (authorization === null) {
      if (headers.has("Cookie")) return undefined;
      // The catalog knows pages by their own spelling only: `/index`, `/a.html` or an escaped
      // one are the full route's to read.
      const info = core.catalog.knownAgentPage(url.slice(pathStart, -5));
      const text = info && publics.get(info, format, origin);
      return text ? new Response(text, { headers: publicHeaders[format] }) : undefined;
    }

    // Found without hashing the token again when it was seen before (SessionStore).
    const session = core.sessions.findHere(authorization.slice(7));
    if (!session) return undefined;
    // The session's own page, as the catalog knows it without a look at the disk.
    const page = session.page;
    if (url.length !== pathStart + page.length + 5 || !url.startsWith(page, pathStart)) {
      return undefined;
    }
    if (!core.catalog.knownAgentPage(page)) return undefined;

    const version = session.version;
    let made = headersOf.get(session);
    if (made?.version !== version) headersOf.set(session, made = versionHeaders(version));
    // `Accept` (a change document) and `Prefer` (a wait) matter only to an `If-None-Match`
    // naming an older version, and `Prefer` to one naming this version: the full route's.
    const held = headers.get("If-None-Match");
    if (namesEtag(held, made.etag)) {
      if (headers.has("Prefer")) return undefined;
      if (!core.sessions.reuse(session)) return undefined;
      return new Response(null, { status: 304, headers: made.notModified });
    }
    if (held !== null) return undefined;
    const text = manifests.encoded(session, origin, format);
    if (text === undefined) return undefined;
    if (!core.sessions.reuse(session)) return undefined;
    return new Response(text, { headers: made[format] });
  };
}

/** The headers of a session's answers at one version. */
interface VersionHeaders {
  version: number;
  etag: string;
  notModified: Record<string, string>;
  json: Record<string, string>;
  toon: Record<string, string>;
}

function versionHeaders(version: number): VersionHeaders {
  const etag = `"v${version}"`;
  return {
    version,
    etag,
    notModified: { ...MANIFEST_HEADERS, ETag: etag },
    json: { "Content-Type": JSON_TYPE, ...MANIFEST_HEADERS, ETag: etag },
    toon: { "Content-Type": TOON_TYPE, ...MANIFEST_HEADERS, ETag: etag },
  };
}
