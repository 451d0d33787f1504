/**
 * Who a request speaks for: an agent's token (Bearer or cookie), or the page's own tab
 * (its tab key in `X-Aim-Tab`); and the guard an embedding app puts on its own routes.
 *
 * @example
 * ```ts
 * import { createBridge } from "../mod.ts";
 * import { requireSession } from "./token.ts";
 *
 * // In an embedding app's routes:
 * const bridge = createBridge({
 *   root: "site",
 *   routes: (app, core) => {
 *     app.post("/api/orders/:id/cancel", async (c) => {
 *       const session = await requireSession(c, core, { signedIn: true, tab: true });
 *       return c.json({ cancelledBy: session.identity!.username });
 *     });
 *   },
 * });
 * ```
 *
 * @module
 */
import type { Context } from "hono";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import { AimError } from "../errors/aim_error.ts";
import type { AppEnv } from "./env.ts";
import { forbiddenOrigin, isCrossOrigin, readToken } from "./request.ts";

/** Options of {@linkcode requireSession}. */
export interface RequireSessionOptions {
  /**
   * Also require a signed-in identity (403 `login_required` otherwise).
   *
   * @default {false}
   */
  signedIn?: boolean;
  /**
   * Answer the page's own tab only: the session is the one of the `X-Aim-Tab` key, which only
   * the tab holding the lease gets (403 `tab_required` otherwise), never an agent's token.
   * @default {false}
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
export function readSession(c: Context<AppEnv>, core: BridgeCore): Promise<Session> {
  const tabKey = c.req.header(TAB_KEY_HEADER);
  if (tabKey !== undefined) return core.authenticateTab(tabKey);
  return core.authenticate(readToken(c)?.token);
}

/**
 * The session of a request to an app's own route, Origin checked for anything but GET and
 * HEAD.
 *
 * @throws {AimError} 401 `missing_token`/`invalid_token`, 403 `forbidden_origin`,
 * `tab_required` or `login_required`.
 */
export async function requireSession(
  c: Context<AppEnv>,
  core: BridgeCore,
  options: RequireSessionOptions = {},
): Promise<Session> {
  if (c.req.method !== "GET" && c.req.method !== "HEAD" && isCrossOrigin(c, c.get("origin"))) {
    throw forbiddenOrigin();
  }
  // The tab key alone names the page's session: a cookie planted by another origin cannot
  // point the page's own requests at someone else's session. Without one, a request is
  // still told first whether its token is any good (401).
  const tabKey = c.req.header(TAB_KEY_HEADER);
  if (options.tab && tabKey === undefined) {
    await core.authenticate(readToken(c)?.token);
    await core.authenticateTab(undefined);
  }
  const session = options.tab ? await core.authenticateTab(tabKey) : await readSession(c, core);
  if (options.signedIn && !session.identity) {
    throw new AimError(
      "login_required",
      "Sign in first: invoke login with your username and password.",
    );
  }
  return session;
}
