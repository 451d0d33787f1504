/**
 * The HTTP layer assembled: named middleware, then one route group per concern, each
 * a thin hono app that turns requests into calls on the protocol core and its answers (or
 * errors) into responses.
 *
 * @example
 * ```ts
 * import { BridgeCore } from "../core/bridge.ts";
 * import { createApp } from "./app.ts";
 *
 * const core = new BridgeCore({ root: "site" });
 * Deno.serve(createApp(core, { allowedHosts: [] }).fetch);
 * ```
 *
 * @module
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import type { AuditEntry } from "../audit/log.ts";
import { notFound, serverError } from "../errors/aim_error.ts";
import { publishedSchemas } from "../wire/schemas.ts";
import { mountAssets } from "./assets.ts";
import type { AppEnv } from "./env.ts";
import { accessLog, identify, type RequestLogEntry } from "./middleware.ts";
import type { OriginOptions } from "./request.ts";
import { SessionManifests } from "./session_manifests.ts";
import { sessionRoutes } from "./session_routes.ts";
import { PublicManifests, sitemapRoutes, siteRoutes } from "./site_routes.ts";
import { tabRoutes } from "./tab_socket.ts";
import { health } from "./health.ts";

export type { AppEnv, RequestLogEntry };
export { fastReads, type FrontDoorOptions } from "./front_door.ts";
export { PublicManifests, SessionManifests };
export {
  readSession,
  requireSession,
  type RequireSessionOptions,
  TAB_KEY_HEADER,
} from "./token.ts";

/**
 * Adds an embedding app's own routes to the bridge's hono app, before the manifests and static
 * files; they guard themselves with {@linkcode requireSession}, given `core`.
 */
export type AppRoutes = (app: Hono<AppEnv>, core: BridgeCore) => void;

/** Options of {@linkcode createApp}. */
export interface AppOptions extends OriginOptions {
  /** Called once per answered request. */
  log?: ((entry: RequestLogEntry) => void) | undefined;
  /** The audit entries of one session, newest first. */
  activity?: ((session: Session) => AuditEntry[] | Promise<AuditEntry[]>) | undefined;
  /** When set, only loopback names and these host names may be in `Host`. */
  allowedHosts?: readonly string[] | null;
  /** Called for errors that are not protocol errors (bugs), without request data. */
  onError?: ((error: unknown) => void) | undefined;
  /** Adds an embedding app's own routes, before the manifests and static files. */
  routes?: AppRoutes | undefined;
  /**
   * Route groups of the bridge's other protocols (ACP, MCP), mounted at the root after the
   * app's own routes and before the manifests and static files, so that no site file shadows
   * them.
   */
  protocols?: Hono<AppEnv>[];
  /** This instance's id, sent as `X-Aim-Instance` when several share a store. */
  instance?: string | undefined;
  /** The encoded session manifests, when the caller shares them with {@linkcode fastReads}. */
  manifests?: SessionManifests | undefined;
  /** The encoded public manifests, when the caller shares them with {@linkcode fastReads}. */
  publics?: PublicManifests | undefined;
  /** Fields added to `GET /__aim/health`. */
  health?: (() => Record<string, unknown>) | undefined;
  /**
   * Adds the routes that come after every other, catch-alls included (in front of an app, the
   * proxy that forwards what names none of aim's routes: bridge/upstream/proxy.ts).
   */
  last?: ((app: Hono<AppEnv>) => void) | undefined;
}

/** Builds the hono app of a bridge. */
export function createApp(core: BridgeCore, options: AppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  // hono's model: an HTTPException (every AimError) answers as itself, with aim's headers.
  app.onError((error) => {
    if (error instanceof HTTPException) return error.getResponse();
    options.onError?.(error);
    return serverError(error).getResponse();
  });
  app.notFound(() => notFound().getResponse());

  if (options.log) app.use(accessLog(options.log));
  const instance = options.instance;
  if (instance) {
    // Which instance answered: for operators behind a load balancer (docs/scaling.md).
    app.use(async (c, next) => {
      await next();
      try {
        c.res.headers.set("X-Aim-Instance", instance);
      } catch {
        // An upgraded socket's answer cannot change.
      }
    });
  }
  app.use(identify(options));

  app.get("/__aim/schema.json", (c) => c.json(publishedSchemas()));
  app.get("/__aim/health", (c) => {
    c.header("Cache-Control", "no-store");
    return c.json(health(core, options.health?.()));
  });
  mountAssets(app);
  // One cache of encoded session manifests: reads and invoke answers' change documents share it.
  const manifests = options.manifests ?? new SessionManifests(core);
  app.route("/", sessionRoutes(core, { activity: options.activity, manifests }));
  app.route("/", tabRoutes(core));
  app.route("/", sitemapRoutes(core));
  options.routes?.(app, core);
  for (const routes of options.protocols ?? []) app.route("/", routes);
  // Last: the catch-alls, manifests then static files.
  app.route("/", siteRoutes(core, manifests, options.publics));
  options.last?.(app);
  return app;
}
