/**
 * @module The HTTP layer: hono routes that turn requests into calls on the protocol core
 * and its answers (or errors) into responses. Thin by design.
 */
import { type Context, Hono } from "hono";
import { setCookie } from "hono/cookie";
import { serveStatic } from "hono/deno";
import { encode as encodeToon } from "@toon-format/toon";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/sessions.ts";
import type { AuditEntry } from "../store/audit.ts";
import { AimError, badRequest, notFound } from "../protocol/errors.ts";
import { publishedSchemas, SessionRequest } from "../protocol/schemas.ts";
import { CREDENTIAL_PROTOCOL_PREFIX, TAB_PROTOCOL } from "../protocol/channel.ts";
import { decodePath, normalizePage } from "../site/paths.ts";
import { mountAssets } from "./assets.ts";
import {
  clientAddress,
  forbiddenOrigin,
  isAllowedHost,
  isCrossOrigin,
  type OriginOptions,
  readBearer,
  readJson,
  readToken,
  requestOrigin,
  SESSION_COOKIE,
} from "./request.ts";

/** One answered request, for the log: never a token, cookie, body or query string. */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  ms: number;
}

import type { AppEnv } from "./env.ts";
export type { AppEnv };
type Env = AppEnv;

/** Options of {@linkcode createApp}. */
export interface AppOptions extends OriginOptions {
  /** Called once per answered request. */
  log?: (entry: RequestLogEntry) => void;
  /** The audit entries of one session, newest first. */
  activity?: (session: Session) => AuditEntry[];
  /** When set, only loopback names and these host names may be in `Host`. */
  allowedHosts?: readonly string[] | null;
  /** Called for errors that are not protocol errors (bugs), without request data. */
  onError?: (error: unknown) => void;
  /** Adds an embedding app's own routes, before the manifests and static files. */
  routes?: (app: Hono<AppEnv>, core: BridgeCore) => void;
  /**
   * Route groups of the bridge's other protocols (ACP), mounted at the root after the app's own
   * routes and before the manifests and static files, so that no site file shadows them.
   */
  protocols?: Hono<AppEnv>[];
}

/** Options of {@linkcode requireSession}. */
export interface RequireSessionOptions {
  /** Also require a signed-in identity (403 `login_required` otherwise). */
  signedIn?: boolean;
  /**
   * Also require the `X-Aim-Tab` header with the key only the tab that holds the lease gets
   * (403 `tab_required` otherwise): the route answers the page, not an agent with the token.
   */
  tab?: boolean;
}

/** The header a page sends its session's tab key in. */
export const TAB_KEY_HEADER = "X-Aim-Tab";

/**
 * The session of a request: the tab key when the page sends one (`X-Aim-Tab`), else the token
 * (Bearer, else the cookie).
 *
 * @throws {AimError} 401 without a valid token, 403 `tab_required` for a stale tab key.
 */
export function readSession(c: Context<AppEnv>, core: BridgeCore): Session {
  const tabKey = c.req.header(TAB_KEY_HEADER);
  if (tabKey !== undefined) return core.authenticateTab(tabKey);
  return core.authenticate(readToken(c)?.token);
}

/**
 * The session of a request to an app's own route: token from the Bearer header or the cookie,
 * Origin checked for anything but GET and HEAD.
 *
 * @throws {AimError} 401, 403 `forbidden_origin`, 403 `login_required`.
 */
export function requireSession(
  c: Context<AppEnv>,
  core: BridgeCore,
  options: RequireSessionOptions = {},
): Session {
  if (c.req.method !== "GET" && c.req.method !== "HEAD" && isCrossOrigin(c, c.var.origin)) {
    throw forbiddenOrigin();
  }
  // The tab key alone names the page's session: a cookie planted by another origin cannot
  // point the page's own requests at someone else's session. Without one, a request is
  // still told first whether its token is any good (401).
  const tabKey = c.req.header(TAB_KEY_HEADER);
  if (options.tab && tabKey === undefined) {
    core.authenticate(readToken(c)?.token);
    core.authenticateTab(undefined);
  }
  const session = options.tab ? core.authenticateTab(tabKey) : readSession(c, core);
  if (options.signedIn && !session.identity) {
    throw new AimError(
      403,
      "login_required",
      "Sign in first: invoke login with your username and password.",
    );
  }
  return session;
}

const MANIFEST_HEADERS = {
  "Cache-Control": "private, no-store",
  "Vary": "Cookie, Authorization",
  "X-Content-Type-Options": "nosniff",
};
const TOON_TYPE = "text/toon; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";

function errorResponse(error: AimError, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.toJSON()), {
    status: error.status,
    headers: { "Content-Type": JSON_TYPE, ...extra, ...error.headers },
  });
}

function body(
  value: unknown,
  format: "json" | "toon",
  headers: Record<string, string> = {},
): Response {
  const text = format === "toon" ? encodeToon(value) : JSON.stringify(value);
  return new Response(text, {
    headers: { "Content-Type": format === "toon" ? TOON_TYPE : JSON_TYPE, ...headers },
  });
}

function closeReason(reason: string): string {
  const bytes = new TextEncoder().encode(reason);
  return bytes.length <= 120
    ? reason
    : new TextDecoder().decode(bytes.slice(0, 116)).replace(/\uFFFD$/, "") + "…";
}

function methodNotAllowed(allow: string): AimError {
  return new AimError(405, "method_not_allowed", `Use ${allow} here.`, {
    headers: { Allow: allow },
  });
}

/** Builds the hono app of a bridge. */
export function createApp(core: BridgeCore, options: AppOptions = {}): Hono<Env> {
  const app = new Hono<Env>();
  const allowed = options.allowedHosts;
  // Serialized public manifests, per page scan, origin and format.
  const publicCache = new WeakMap<object, Map<string, string>>();

  app.onError((error) => {
    if (error instanceof AimError) return errorResponse(error, MANIFEST_HEADERS);
    options.onError?.(error);
    return errorResponse(
      new AimError(
        500,
        "server_error",
        "The bridge failed to answer; the error was logged. Retry later.",
      ),
      MANIFEST_HEADERS,
    );
  });
  app.notFound(() => errorResponse(notFound(), MANIFEST_HEADERS));

  app.use(async (c, next) => {
    const started = options.log ? performance.now() : 0;
    const log = () =>
      options.log?.({
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      });
    // A Host that is no host (`127.0.0.1:P.evil`, `a b`) is refused before any URL is made.
    const origin = requestOrigin(c, options);
    if (origin === null) {
      c.res = errorResponse(
        badRequest("The Host header is not a valid host name and port."),
        MANIFEST_HEADERS,
      );
      log();
      return c.res;
    }
    c.set("origin", origin);
    c.set("client", clientAddress(c, options));
    // HTTP/2 carries the host in :authority, which only the URL shows; an absolute request
    // line names a host of its own, which the origin (and so every URL in a manifest) comes from.
    if (
      allowed &&
      !(isAllowedHost(c.req.header("Host") ?? origin.slice(origin.indexOf("//") + 2), allowed) &&
        isAllowedHost(origin.slice(origin.indexOf("//") + 2), allowed))
    ) {
      c.res = errorResponse(
        new AimError(403, "forbidden_host", "This bridge answers only to its own host names."),
        MANIFEST_HEADERS,
      );
      log();
      return c.res;
    }
    await next();
    const headers = c.res.headers;
    if (!headers.has("X-Content-Type-Options")) headers.set("X-Content-Type-Options", "nosniff");
    if (options.log) log();
  });

  app.get("/__aim/schema.json", (c) => c.json(publishedSchemas()));
  mountAssets(app);

  app.post("/__aim/session", async (c) => {
    if (isCrossOrigin(c, c.var.origin)) throw forbiddenOrigin();
    const parsed = SessionRequest.safeParse(
      await readJson(c, core.limits.maxBodyBytes, core.limits.bodyTimeoutMs),
    );
    if (!parsed.success) {
      throw badRequest('The body must be {"page": location.pathname, "resume"?: credential}.');
    }
    const page = normalizePage(parsed.data.page);
    if (!page) throw badRequest(`"${parsed.data.page}" is not a valid page path.`);
    // Only the page's own tab credential, with its token, re-attaches its session: neither a
    // cookie (another origin or port can plant one) nor an agent's token alone ever does.
    const resumeToken = parsed.data.resume === undefined ? undefined : readBearer(c);
    const opened = await core.openSession(page, {
      client: c.var.client,
      resume: parsed.data.resume !== undefined && resumeToken !== undefined
        ? { credential: parsed.data.resume, token: resumeToken }
        : undefined,
    });
    const secure = c.var.origin.startsWith("https:");
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
  });
  app.all("/__aim/session", () => {
    throw methodNotAllowed("POST");
  });

  app.post("/__aim/invoke", async (c) => {
    c.header("Cache-Control", "no-store");
    if (isCrossOrigin(c, c.var.origin)) throw forbiddenOrigin();
    const session = readSession(c, core);
    const key = c.req.header("Idempotency-Key");
    if (key !== undefined && !/^[\x21-\x7e]{1,255}$/.test(key)) {
      throw badRequest("Idempotency-Key must be 1 to 255 visible ASCII characters.");
    }
    const request = await readJson(c, core.limits.maxBodyBytes, core.limits.bodyTimeoutMs);
    // An agent that hangs up withdraws its invocation: never run what nobody waits for.
    const result = await core.invoke(session, request, {
      idempotencyKey: key,
      signal: c.req.raw.signal,
      client: c.var.client,
    });
    return c.json(result);
  });
  app.all("/__aim/invoke", () => {
    throw methodNotAllowed("POST");
  });

  app.get("/__aim/activity", (c) => {
    c.header("Cache-Control", "private, no-store");
    c.header("Vary", "Cookie, Authorization");
    const session = readSession(c, core);
    return c.json({ entries: options.activity?.(session) ?? [] });
  });

  app.get("/__aim/tab", (c) => {
    if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
      throw new AimError(
        426,
        "upgrade_required",
        "This is the tab channel; open it as a WebSocket.",
        {
          headers: { Upgrade: "websocket" },
        },
      );
    }
    if (isCrossOrigin(c, c.var.origin)) throw forbiddenOrigin();
    // Only the tab credential opens the channel: never the agent's token, nor a cookie.
    const offered = (c.req.header("Sec-WebSocket-Protocol") ?? "").split(",").map((p) => p.trim());
    const credential = offered.find((p) => p.startsWith(CREDENTIAL_PROTOCOL_PREFIX))
      ?.slice(CREDENTIAL_PROTOCOL_PREFIX.length);
    const session = core.sessions.findByCredential(credential);
    if (!offered.includes(TAB_PROTOCOL) || !session) {
      throw new AimError(
        403,
        "tab_credential_required",
        "The tab channel opens only with the tab credential the page received; an agent's token never opens it.",
      );
    }
    return tabSocket(c.req.raw, core, session);
  });

  const sitemap = async (c: Context<Env>, format: "json" | "toon") =>
    body(await core.sitemap(c.var.origin), format, { "Cache-Control": "public, max-age=60" });
  app.get("/sitemap.json", (c) => sitemap(c, "json"));
  app.get("/sitemap.toon", (c) => sitemap(c, "toon"));

  options.routes?.(app, core);

  for (const routes of options.protocols ?? []) app.route("/", routes);

  app.on(["GET", "HEAD"], "*", async (c, next) => {
    const match = /^(.*)\.(json|toon)$/.exec(c.req.path);
    if (!match) return next();
    const format = match[2] as "json" | "toon";
    const decoded = decodePath(match[1]);
    const page = decoded === null
      ? null
      : normalizePage(decoded === "/index" || decoded === "" ? "/" : decoded);
    const info = page ? await core.catalog.agentPage(page) : null;
    if (!info) {
      if (await core.catalog.root.file(decodePath(c.req.path) ?? "/", { cleanUrls: false })) {
        return next();
      }
      throw notFound(`No agent-enabled page has its manifest at ${c.req.path}; see /sitemap.json.`);
    }
    const origin = c.var.origin;
    const token = readToken(c);
    if (!token) {
      let cache = publicCache.get(info);
      // A few origins per page at most: Host names are the client's to choose.
      if (!cache || cache.size >= 8) publicCache.set(info, cache = new Map());
      const key = `${format} ${origin}`;
      let text = cache.get(key);
      if (text === undefined) {
        const manifest = await core.manifest(info.page, null, origin);
        text = format === "toon" ? encodeToon(manifest) : JSON.stringify(manifest);
        cache.set(key, text);
      }
      return new Response(text, {
        headers: { "Content-Type": format === "toon" ? TOON_TYPE : JSON_TYPE, ...MANIFEST_HEADERS },
      });
    }
    const session = core.authenticate(token.token);
    return body(await core.manifest(info.page, session, origin), format, MANIFEST_HEADERS);
  });

  app.on(["GET", "HEAD"], "*", async (c, next) => {
    const decoded = decodePath(c.req.path);
    const file = decoded === null ? null : await core.catalog.root.file(decoded);
    if (!file) throw notFound(`Nothing is served at ${c.req.path}.`);
    return serveStatic({ root: "/", path: file })(c, next);
  });

  return app;
}

/**
 * Upgrades a request to the tab channel. The handlers hold the socket, the session and the
 * tab, never the request: 10,000 idle tabs should not keep 10,000 requests alive.
 */
function tabSocket(request: Request, core: BridgeCore, session: Session): Response {
  const { socket, response } = Deno.upgradeWebSocket(request, { protocol: TAB_PROTOCOL });
  openChannel(socket, core, session);
  return response;
}

function openChannel(socket: WebSocket, core: BridgeCore, session: Session): void {
  const state = { hello: false };
  const tab = core.connectTab(session, {
    send(message) {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    },
    close(code, reason) {
      if (socket.readyState === WebSocket.OPEN) socket.close(code, closeReason(reason));
      else if (socket.readyState === WebSocket.CONNECTING) {
        socket.addEventListener("open", () => socket.close(code, closeReason(reason)), {
          once: true,
        });
      }
    },
  });
  socket.onmessage = (event) => core.tabMessage(session, tab, event.data, state);
  socket.onclose = () => session.tab.detach(tab);
  socket.onerror = () => session.tab.detach(tab);
}
