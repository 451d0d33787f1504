/**
 * The hono environment every route of the bridge shares: the app's own routes, ACP,
 * and an embedding app's. A leaf, so that route modules never import the app that mounts them.
 *
 * @module
 */

/**
 * The hono environment of the bridge's app: `c.get("origin")` is the bridge's own origin and
 * `c.get("client")` the address of the client (the proxy's word on it with `trustProxy`).
 */
export type AppEnv = { Variables: { origin: string; client: string } };
