/**
 * Session manifests over HTTP: each version encoded once, `304` when the agent already
 * has the version, a bounded wait for the next one (`Prefer: wait=N`), and change documents
 * (JSON Patch or JSON Merge Patch) from a version the agent holds: each made once, and at most
 * so many made per second for one session and one client (past that, the whole manifest).
 *
 * @module
 */
import type { Context } from "hono";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import { AimError, invalidToken } from "../errors/aim_error.ts";
import { DEFAULTS, MAX_WAIT_SECONDS } from "../core/limits.ts";
import { createJsonPatch, type JsonPatchOperation } from "../wire/json_patch.ts";
import { createMergePatch } from "../wire/merge_patch.ts";
import type { Manifest } from "../wire/schemas.ts";
import { BoundedMap } from "../utils/bounded_map.ts";
import type { AppEnv } from "./env.ts";
import { encodeBody, MANIFEST_HEADERS, textResponse } from "./responses.ts";
import { parseIfNoneMatch } from "./if_none_match.ts";

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

/** Milliseconds of computing: added to a bucket per second, and the most it holds. */
export interface ComputeRate {
  /** Milliseconds of computing earned per second. */
  msPerSecond: number;
  /** Milliseconds that may be spent at once (what the budget holds at most). */
  burstMs: number;
}

/**
 * How much computing of change documents (not found cached) one session and one client address
 * may ask for. Each is charged the time it took: its cost grows with the manifests' size, and a
 * TOON encoding costs more than a JSON one. Past the budget the answer is the whole manifest,
 * encoded once per version.
 */
export interface ChangeBudget {
  /**
   * Per session: 25 ms per second, 250 ms at most.
   *
   * @default {{ msPerSecond: 25, burstMs: 250 }}
   */
  session: ComputeRate;
  /**
   * Per client address, over all its sessions: 100 ms per second, 1000 ms at most.
   * @default {{ msPerSecond: 100, burstMs: 1000 }}
   */
  client: ComputeRate;
}

/** Options of {@linkcode SessionManifests}. */
export interface SessionManifestsOptions {
  /** The computing of change documents allowed; each part defaults as in `DEFAULTS`. */
  changeBudget?: Partial<ChangeBudget> | undefined;
}

/** A budget's milliseconds left (below zero: owed), and when it was last refilled. */
interface Bucket {
  ms: number;
  at: number;
}

/** Client addresses whose buckets are kept. */
const KNOWN_CLIENTS = 4096;

/** Change documents kept per session: a few held versions, formats and kinds. */
const KEPT_CHANGES = 8;

/** The least a change document is charged, ms: however fast, making one is not free. */
const LEAST_CHARGE_MS = 0.1;

/** `bucket` refilled at `rate` up to `now`; whether it has anything left. */
function refill(bucket: Bucket, rate: ComputeRate, now: number): boolean {
  bucket.ms = Math.min(rate.burstMs, bucket.ms + (now - bucket.at) * rate.msPerSecond / 1000);
  bucket.at = now;
  return bucket.ms > 0;
}

/** The versions an `If-None-Match` names (`"v12"`, `W/"v12"`), and whether it says `*`. */
function named(header: string | undefined): { versions: number[]; any: boolean } {
  const { any, tags } = parseIfNoneMatch(header);
  const versions = tags.flatMap((tag) => {
    const match = /^"v(\d{1,15})"$/.exec(tag);
    return match ? [Number(match[1])] : [];
  });
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
  /**
   * Per session: change documents by origin, page, both versions, kind and format, the latest
   * few; `null` when no merge patch can say the change.
   */
  readonly #changes = new WeakMap<Session, BoundedMap<string, unknown>>();
  readonly #budget: ChangeBudget;
  readonly #sessionBuckets = new WeakMap<Session, Bucket>();
  readonly #clientBuckets = new BoundedMap<string, Bucket>(KNOWN_CLIENTS);

  constructor(core: BridgeCore, options: SessionManifestsOptions = {}) {
    this.#core = core;
    this.#budget = { ...DEFAULTS.changeBudget, ...options.changeBudget };
  }

  /**
   * The change document `key` names, made by `make` when it is not kept yet and neither the
   * session's nor the client's budget is spent (then charged to both); undefined when one is.
   */
  #change<T>(session: Session, client: string, key: string, make: () => T): T | undefined {
    let kept = this.#changes.get(session);
    if (!kept) this.#changes.set(session, kept = new BoundedMap(KEPT_CHANGES));
    if (kept.has(key)) return kept.get(key) as T;
    const start = performance.now();
    const mine = this.#sessionBuckets.get(session) ??
      { ms: this.#budget.session.burstMs, at: start };
    const theirs = this.#clientBuckets.get(client) ??
      { ms: this.#budget.client.burstMs, at: start };
    this.#sessionBuckets.set(session, mine);
    this.#clientBuckets.set(client, theirs);
    const sessionLeft = refill(mine, this.#budget.session, start);
    const clientLeft = refill(theirs, this.#budget.client, start);
    if (!sessionLeft || !clientLeft) return undefined;
    const made = make();
    const cost = Math.max(LEAST_CHARGE_MS, performance.now() - start);
    mine.ms -= cost;
    theirs.ms -= cost;
    kept.set(key, made);
    return made;
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
   * knows it, when the agent is ahead of it, or when the session or `client` (its address) has
   * had its change documents for now. The manifest now is kept, so that it can be the next base.
   */
  async changesSince(
    session: Session,
    base: number | undefined,
    origin: string,
    client: string,
  ): Promise<{ patch: JsonPatchOperation[]; version: number } | undefined> {
    const page = session.page;
    const now = await this.#manifest(session, page, origin);
    const version = now.manifest.state_version ?? session.version;
    if (base === undefined || base > version) return undefined;
    if (base === version) return { patch: [], version };
    const earlier = this.#earlier(session, page, origin, base);
    if (!earlier) return undefined;
    const key = `${origin} ${page} v${base} v${version} changes`;
    const patch = this.#change(
      session,
      client,
      key,
      () => createJsonPatch(earlier.manifest, now.manifest),
    );
    return patch && { patch, version };
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
        // Made once per versions, kind and format; past the budget, the whole manifest (an
        // answer the agent takes as well), never an error.
        const key = `${origin} ${page} v${old} v${version} ${change.profile} ${format}`;
        const text = this.#change(session, c.get("client"), key, () => {
          const patch = change.create(earlier.manifest, encoded.manifest);
          return patch === undefined ? null : encodeBody(patch, format);
        });
        if (text === undefined || text === null) break;
        return new Response(text, {
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
