/**
 * The route families a request is counted under: a small fixed set of names read from the
 * path's shape alone, so that no raw path (which may name a person's page, or hold an app's
 * identifiers) ever becomes a label value.
 *
 * @module
 */

/**
 * Every route family, in a fixed order: the values of the `family` label.
 *
 * - `manifest`: `<page>.json`, `<page>.toon` (in front of an app, also the app's own JSON that the
 *   manifest route passed on);
 * - `sitemap`, `session`, `invoke`, `tab` (the tab channel), `events`, `activity`, `mcp`, `a2a`
 *   (with the agent card), `acp` (`/ping`, `/agents`, `/runs`, `/sessions`), `assets` (the
 *   elements' scripts), `health` (failed health checks only: passed ones are not logged);
 * - `aim_other`: any other `/__aim/` path (the schema, unknown ones);
 * - `static`: the site's files and an embedding app's own routes;
 * - `upstream`: what the proxy forwards to the app (`--upstream`).
 */
export const ROUTE_FAMILIES = [
  "manifest",
  "sitemap",
  "session",
  "invoke",
  "tab",
  "events",
  "activity",
  "mcp",
  "a2a",
  "acp",
  "assets",
  "health",
  "aim_other",
  "static",
  "upstream",
] as const;

/** One of {@linkcode ROUTE_FAMILIES}. */
export type RouteFamily = typeof ROUTE_FAMILIES[number];

/** aim's own routes under `/__aim/`, by the segment after it. */
const AIM_ROUTES: readonly (readonly [string, RouteFamily])[] = [
  ["invoke", "invoke"],
  ["session", "session"],
  ["tab", "tab"],
  ["events", "events"],
  ["mcp", "mcp"],
  ["a2a", "a2a"],
  ["activity", "activity"],
  ["health", "health"],
];

/** ACP's routes: the first segment of the path. */
const ACP_ROUTES = ["agents", "runs", "ping", "sessions"] as const;

/** Whether `path` holds the segment `name` at `start` (followed by its end or a slash). */
function segmentAt(path: string, start: number, name: string): boolean {
  if (!path.startsWith(name, start)) return false;
  const after = start + name.length;
  return after === path.length || path.charCodeAt(after) === 47; // "/"
}

/**
 * The family of a request path (no query string), as the access log gives it. `upstream`: the
 * bridge stands in front of an app, so a path none of aim's routes claim went to the app. It
 * reads the path in place: nothing is allocated per request.
 */
export function routeFamily(path: string, upstream: boolean): RouteFamily {
  if (path.startsWith("/__aim/")) {
    for (const [segment, family] of AIM_ROUTES) if (segmentAt(path, 7, segment)) return family;
    return path.endsWith(".js") ? "assets" : "aim_other";
  }
  if (path.endsWith(".json") || path.endsWith(".toon")) {
    if (path === "/sitemap.json" || path === "/sitemap.toon") return "sitemap";
    return path === "/.well-known/agent-card.json" ? "a2a" : "manifest";
  }
  for (const segment of ACP_ROUTES) if (segmentAt(path, 1, segment)) return "acp";
  return upstream ? "upstream" : "static";
}
