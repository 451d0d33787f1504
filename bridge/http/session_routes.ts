/**
 * The agent-facing routes of a session: opening one (`POST /__aim/session`), invoking
 * an action (`POST /__aim/invoke`) and reading what it did (`GET /__aim/activity`).
 *
 * @module
 */
import { DEFAULTS } from "../core/limits.ts";
import { type Context, Hono } from "hono";
import { setCookie } from "hono/cookie";
import { streamSSE } from "hono/streaming";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import { AimError, badRequest } from "../errors/aim_error.ts";
import { SessionRequest } from "../wire/schemas.ts";
import type { AuditEntry } from "../audit/log.ts";
import { readSession } from "./token.ts";
import type { AppEnv } from "./env.ts";
import { watchHangUp } from "./hang_up.ts";
import {
  forbiddenOrigin,
  isCrossOrigin,
  readBearer,
  readJson,
  remoteAddress,
  SESSION_COOKIE,
} from "./request.ts";
import { encodeBody, JSON_TYPE, methodNotAllowed, TOON_TYPE } from "./responses.ts";
import { SessionManifests } from "./session_manifests.ts";

/**
 * The `state_version` an `If-Match` names (`"v12"`, as a manifest's ETag); undefined for none or
 * `*`.
 *
 * @throws {AimError} 400 `bad_request` for any other value.
 */
export function readIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === "*") return undefined;
  const match = /^\s*(?:W\/)?"v(\d{1,15})"\s*$/.exec(header);
  if (!match) {
    throw badRequest('If-Match must be a manifest\'s ETag, such as "v12" (its state_version).');
  }
  return Number(match[1]);
}

/** Event streams one session may hold open. */
export const MAX_STREAMS: number = DEFAULTS.maxWaitingRequests;
/** How often an idle event stream says it is alive, ms. */
const KEEP_ALIVE_MS = 25_000;

/** Options of {@linkcode sessionRoutes}. */
export interface SessionRoutesOptions {
  /** The audit entries of one session, newest first. */
  activity?: ((session: Session) => AuditEntry[] | Promise<AuditEntry[]>) | undefined;
  /** The session manifests the invoke answers' change documents are computed from. */
  manifests?: SessionManifests | undefined;
}

/**
 * What an invoke answer holds besides the result (RFC 7240 `Prefer: return=…`): the state
 * (the default), nothing more (`minimal`), or what changed in the manifest since the version
 * the agent decided on (`changes`, with `If-Match`).
 */
function preferredReturn(header: string | undefined): "minimal" | "changes" | undefined {
  const match = /(?:^|[,;\s])return=(minimal|changes)(?:$|[,;\s])/i.exec(header ?? "");
  return match?.[1]?.toLowerCase() as "minimal" | "changes" | undefined;
}

/** The routes of sessions and invocations. */
export function sessionRoutes(
  core: BridgeCore,
  options: SessionRoutesOptions = {},
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const manifests = options.manifests ?? new SessionManifests(core);
  const body = (c: Parameters<typeof readJson>[0]) =>
    readJson(c, core.limits.maxBodyBytes, core.limits.bodyTimeoutMs);

  /** Opens the session a page asks for, once it is the address's turn. */
  const openSession = async (c: Context<AppEnv>): Promise<Response> => {
    const parsed = SessionRequest.safeParse(await body(c));
    if (!parsed.success) {
      throw badRequest('The body must be {"page": location.pathname, "resume"?: credential}.');
    }
    const page = core.pageOf(parsed.data.page);
    if (!page) throw badRequest(core.invalidPage(parsed.data.page));
    // Only the page's own tab credential, with its token, re-attaches its session: neither a
    // cookie (another origin or port can plant one) nor an agent's token alone ever does.
    const { resume } = parsed.data;
    const resumeToken = resume === undefined ? undefined : readBearer(c);
    const opened = await core.openSession(page, {
      client: c.get("client"),
      ...(resume !== undefined && resumeToken !== undefined
        ? { resume: { credential: resume, token: resumeToken } }
        : {}),
    });
    const secure = c.get("origin").startsWith("https:");
    setCookie(c, SESSION_COOKIE, opened.token, {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      secure,
      ...(secure ? { prefix: "host" as const } : {}),
    });
    c.header("Cache-Control", "no-store");
    return c.json({
      sessionToken: opened.token,
      expiresAt: new Date(opened.session.expiresAt).toISOString(),
      page: opened.session.page,
      ...(opened.credential ? { tabCredential: opened.credential } : {}),
      resumed: opened.reused,
    });
  };
  app.post("/__aim/session", async (c) => {
    if (isCrossOrigin(c, c.get("origin"))) throw forbiddenOrigin();
    // An address's mints take turns (a burst, then so many a second): one that sends more waits
    // in line, then is refused, before its body is read.
    const turn = [`client:${c.get("client")}`];
    if (!(await core.mints.enter(turn, c.req.raw.signal))) {
      throw new AimError(
        "too_many_requests",
        "This address opened more sessions than its share; retry in a second.",
        { headers: { "Retry-After": "1" } },
      );
    }
    try {
      return await openSession(c);
    } finally {
      core.mints.leave(turn);
    }
  });
  app.all("/__aim/session", () => {
    throw methodNotAllowed("POST");
  });

  app.post("/__aim/invoke", async (c) => {
    c.header("Cache-Control", "no-store");
    if (isCrossOrigin(c, c.get("origin"))) throw forbiddenOrigin();
    const session = await readSession(c, core);
    const key = c.req.header("Idempotency-Key");
    if (key !== undefined && !/^[\x21-\x7e]{1,255}$/.test(key)) {
      throw badRequest("Idempotency-Key must be 1 to 255 visible ASCII characters.");
    }
    const ifMatch = readIfMatch(c.req.header("If-Match"));
    const request = await body(c);
    // An agent that hangs up withdraws its invocation: never run what nobody waits for. Its
    // request's signal alone misses the hang-up once the body was streamed (hang_up.ts).
    const result = await (async () => {
      using hangUp = watchHangUp(c.req.raw, remoteAddress(c));
      return await core.invoke(session, request, {
        ...(key === undefined ? {} : { idempotencyKey: key }),
        signal: hangUp.signal,
        client: c.get("client"),
        ...(ifMatch === undefined ? {} : { ifMatch }),
      });
    })();
    const format = /\btext\/toon\b/i.test(c.req.header("Accept") ?? "") ? "toon" : "json";
    const wanted = preferredReturn(c.req.header("Prefer"));
    // Without a version to start from, the answer holds the state (or, minimal, only its
    // version), and the manifest at its version is kept: the agent's next `If-Match` on it can be
    // answered with changes.
    const changes = wanted
      ? await manifests.changesSince(
        session,
        wanted === "changes" ? ifMatch : undefined,
        c.get("origin"),
        c.get("client"),
      )
      : undefined;
    let answer: Record<string, unknown> = result;
    if (wanted === "minimal" || changes) {
      const { state: _state, ...rest } = result;
      c.header("Preference-Applied", `return=${wanted}`);
      answer = changes ? { ...rest, state_version: changes.version, changes: changes.patch } : rest;
    }
    c.header("Content-Type", format === "toon" ? TOON_TYPE : JSON_TYPE);
    return c.body(encodeBody(answer, format));
  });
  app.all("/__aim/invoke", () => {
    throw methodNotAllowed("POST");
  });

  // The session's changes as server-sent events: each `change` event holds the manifest of the
  // session's page at that version, its id the `state_version`; `Last-Event-ID` resumes.
  app.get("/__aim/events", async (c) => {
    const session = await readSession(c, core);
    if (session.waiting >= MAX_STREAMS) {
      throw new AimError(
        "too_many_requests",
        `At most ${MAX_STREAMS} event streams and long polls may wait at once on one session.`,
        { headers: { "Retry-After": "5" } },
      );
    }
    const resumeFrom = Number(c.req.header("Last-Event-ID") ?? "0");
    const origin = c.get("origin");
    const signal = c.req.raw.signal;
    c.header("Cache-Control", "no-store");
    // Bounded per client address and in all, whatever sessions the client minted.
    return await core.streams.hold(c.get("client"), () =>
      streamSSE(c, async (stream) => {
        session.waiting++;
        try {
          let sent = Number.isSafeInteger(resumeFrom) && resumeFrom > 0 ? resumeFrom : 0;
          // A draining instance hands its sessions off: the stream ends without `ended`, and the
          // agent reconnects (with Last-Event-ID) through another instance.
          while (!stream.aborted && !signal.aborted && !session.ended && !session.handedOff) {
            if (session.version > sent) {
              const manifest = await core.manifest(session.page, session, origin);
              sent = manifest.state_version ?? session.version;
              await stream.writeSSE({
                id: String(sent),
                event: "change",
                data: JSON.stringify(manifest),
              });
            }
            const changed = await session.waitForChange(sent, KEEP_ALIVE_MS, signal);
            if (!changed && !session.ended && !session.handedOff && !signal.aborted) {
              await stream.write(": keep-alive\n\n");
            }
          }
          if (session.ended) {
            await stream.writeSSE({
              event: "ended",
              data: JSON.stringify({ reason: session.ended }),
            });
          }
        } finally {
          session.waiting--;
        }
      }));
  });

  app.get("/__aim/activity", async (c) => {
    c.header("Cache-Control", "private, no-store");
    c.header("Vary", "Cookie, Authorization");
    const session = await readSession(c, core);
    const entries = await options.activity?.(session) ?? [];
    return c.json({ entries, state_version: session.version });
  });

  return app;
}
