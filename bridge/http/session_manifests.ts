/**
 * @module Session manifests over HTTP: each version encoded once, `304` when the agent already
 * has the version, a bounded wait for the next one (`Prefer: wait=N`), and change documents
 * (JSON Patch or JSON Merge Patch) from a version the agent holds.
 */
import type { Context } from "hono";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/sessions.ts";
import { AimError, invalidToken } from "../protocol/errors.ts";
import { DEFAULTS } from "../core/limits.ts";
import { createJsonPatch, type JsonPatchOperation } from "../protocol/json_patch.ts";
import { createMergePatch } from "../protocol/merge_patch.ts";
import type { Manifest } from "../protocol/schemas.ts";
import { BoundedMap } from "../utils/bounded_map.ts";
import type { AppEnv } from "./env.ts";
import { encodeBody, MANIFEST_HEADERS, textResponse } from "./responses.ts";

/** The longest wait a client may ask for, seconds. */
export const MAX_WAIT_SECONDS = 60;

/** The media type of a JSON Merge Patch (RFC 7396). */
export const MERGE_PATCH_TYPE = "application/merge-patch+json";
/** The media type of a JSON Patch (RFC 6902). */
export const JSON_PATCH_TYPE = "application/json-patch+json";

/** The change documents a read may ask for in `Accept`, by media type. */
const CHANGE_FORMATS = [
  { type: JSON_PATCH_TYPE, profile: "json-patch", create: createJsonPatch },
  { type: MERGE_PATCH_TYPE, profile: "merge-patch", create: createMergePatch },
] as const;

interface Encoded {
  manifest: Manifest;
  text: Partial<Record<"json" | "toon", string>>;
}

/** The versions an `If-None-Match` names (`"v12"`, `W/"v12"`), and whether it says `*`. */
function named(header: string | undefined): { versions: number[]; any: boolean } {
  const versions: number[] = [];
  let any = false;
  for (const tag of (header ?? "").split(",")) {
    const t = tag.trim();
    if (t === "*") any = true;
    const match = /^(?:W\/)?"v(\d{1,15})"$/.exec(t);
    if (match) versions.push(Number(match[1]));
  }
  return { versions, any };
}

/** Seconds of `Prefer: wait=N` (RFC 7240), bounded; 0 when not asked. */
function preferredWait(header: string | undefined): number {
  const match = /(?:^|[,;\s])wait=(\d{1,6})(?:$|[,;\s])/i.exec(header ?? "");
  return match ? Math.min(Number(match[1]), MAX_WAIT_SECONDS) : 0;
}

/** The session manifests of one bridge. */
export class SessionManifests {
  readonly #core: BridgeCore;
  /** Per session: its manifests by page, origin and version, the latest few. */
  readonly #seen = new WeakMap<Session, BoundedMap<string, Encoded>>();

  constructor(core: BridgeCore) {
    this.#core = core;
  }

  async #manifest(session: Session, page: string, origin: string): Promise<Encoded> {
    let seen = this.#seen.get(session);
    if (!seen) this.#seen.set(session, seen = new BoundedMap(8));
    const key = `${origin} ${page} v${session.version}`;
    let encoded = seen.get(key);
    if (!encoded) {
      encoded = { manifest: await this.#core.manifest(page, session, origin), text: {} };
      seen.set(`${origin} ${page} v${encoded.manifest.state_version}`, encoded);
    }
    return encoded;
  }

  #earlier(session: Session, page: string, origin: string, version: number): Encoded | undefined {
    return this.#seen.get(session)?.get(`${origin} ${page} v${version}`);
  }

  /**
   * The session's manifest of its own page at its current version, for `origin`, when it is
   * already encoded in `format`: what a repeated read answers without any work.
   */
  encoded(session: Session, origin: string, format: "json" | "toon"): string | undefined {
    return this.#seen.get(session)?.get(`${origin} ${session.page} v${session.version}`)
      ?.text[format];
  }

  /**
   * What changed in the session's manifest since version `base`, as a JSON Patch, and the
   * version it brings the agent to; undefined without a `base`, when the bridge no longer
   * knows it, or when the agent is ahead of it. The manifest now is kept, so that it can be
   * the next base.
   */
  async changesSince(
    session: Session,
    base: number | undefined,
    origin: string,
  ): Promise<{ patch: JsonPatchOperation[]; version: number } | undefined> {
    const page = session.page;
    const now = await this.#manifest(session, page, origin);
    const version = now.manifest.state_version ?? session.version;
    if (base === undefined || base > version) return undefined;
    if (base === version) return { patch: [], version };
    const earlier = this.#earlier(session, page, origin, base);
    return earlier && { patch: createJsonPatch(earlier.manifest, now.manifest), version };
  }

  /**
   * The answer to a session's read of `page`'s manifest.
   *
   * @throws {AimError} 409 `page_mismatch`, 401 when the session ends while it waits.
   */
  async answer(
    c: Context<AppEnv>,
    session: Session,
    page: string,
    format: "json" | "toon",
  ): Promise<Response> {
    const origin = c.get("origin");
    // Refused (409 page_mismatch) before anything is read or waited for.
    if (session.page !== page) await this.#core.manifest(page, session, origin);
    const held = named(c.req.header("If-None-Match"));
    const wait = preferredWait(c.req.header("Prefer"));
    let version = session.version;
    if (held.any || held.versions.includes(version)) {
      // The agent has this version: wait for the next one if it asked to, else 304.
      if (wait > 0) {
        // Held requests are bounded per session, as event streams are: one client cannot
        // pile up waiting requests (and their timers) without end.
        if (session.waiting >= DEFAULTS.maxWaitingRequests) {
          throw new AimError(
            429,
            "too_many_requests",
            `At most ${DEFAULTS.maxWaitingRequests} event streams and long polls may wait at once on one session.`,
            { headers: { "Retry-After": "5" } },
          );
        }
        // And per client address and in all, whatever sessions the client minted.
        const release = this.#core.streams.take(c.get("client"));
        session.waiting++;
        try {
          await session.waitForChange(version, wait * 1000, c.req.raw.signal);
        } finally {
          session.waiting--;
          release();
        }
      }
      if (session.ended) throw invalidToken();
      if (session.version === version) {
        return new Response(null, {
          status: 304,
          headers: {
            ...MANIFEST_HEADERS,
            ETag: `"v${version}"`,
            ...(wait > 0 ? { "Preference-Applied": `wait=${wait}` } : {}),
          },
        });
      }
      if (session.page !== page) await this.#core.manifest(page, session, origin);
    }
    const encoded = await this.#manifest(session, page, origin);
    version = encoded.manifest.state_version ?? session.version;
    const headers = { ...MANIFEST_HEADERS, ETag: `"v${version}"` };
    // A change document from the version the agent holds, when it asked for one and the
    // bridge still knows that version; the whole manifest otherwise.
    const accept = c.req.header("Accept") ?? "";
    const change = CHANGE_FORMATS.find((f) => accept.includes(f.type));
    if (change) {
      for (const old of held.versions) {
        const earlier = old < version ? this.#earlier(session, page, origin, old) : undefined;
        if (!earlier) continue;
        const patch = change.create(earlier.manifest, encoded.manifest);
        if (patch === undefined) break;
        return new Response(encodeBody(patch, format), {
          headers: {
            ...headers,
            "Content-Type": format === "json"
              ? change.type
              : `text/toon; charset=utf-8; profile="${change.profile}"`,
            "Aim-Patch-From": `"v${old}"`,
          },
        });
      }
    }
    const text = encoded.text[format] ??= encodeBody(encoded.manifest, format);
    return textResponse(text, format, headers);
  }
}
