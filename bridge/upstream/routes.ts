/**
 * Which request paths are aim's own in front of an app: every route the bridge registered
 * (`/__aim/*`, the site map, the agent card, ACP), however the path is spelled (encoded,
 * doubled slashes, dot segments, upper case), plus every `.toon` manifest.
 * @module
 */
import { decodePath } from "../site/paths.ts";
import { BoundedMap } from "../utils/bounded_map.ts";

/** The matchers of aim's routes. */
export interface AimPaths {
  readonly patterns: readonly RegExp[];
  /** The verdicts on the paths seen most, so that a page's path is matched once. */
  readonly verdicts: BoundedMap<string, boolean>;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The matchers of the routes hono lists (`/agents/:name`, `/__aim/*`); a bare `*` (a
 * catch-all) is no route of aim's own.
 */
export function aimPaths(routes: readonly { path: string }[]): AimPaths {
  const patterns: RegExp[] = [/^\/__aim(?:\/.*)?$/i, /\.toon$/i];
  const seen = new Set<string>();
  for (const { path } of routes) {
    if (path === "*" || path === "/*" || seen.has(path)) continue;
    seen.add(path);
    const source = path.split("/").map((part) =>
      part === "*" ? ".*" : part.startsWith(":") ? "[^/]+" : escape(part)
    ).join("/");
    patterns.push(new RegExp(`^${source}/?$`, "i"));
  }
  return { patterns, verdicts: new BoundedMap(1024) };
}

/** The spellings of `raw` a server may read as the same path: as sent, and decoded and resolved. */
function spellings(raw: string): string[] {
  // Nothing to decode or resolve: the one spelling.
  if (!/[%\\]|\/\/|\/\./.test(raw)) return [raw];
  const out = [raw];
  const decoded = decodePath(raw) ?? raw;
  // Doubled slashes and dot segments resolved as a URL parser would.
  const resolved = new URL(decoded.replace(/\/{2,}/g, "/").replace(/\\/g, "/"), "http://x")
    .pathname;
  out.push(decoded, resolved, decodePath(resolved) ?? resolved);
  return out;
}

/** Whether a request path names one of aim's routes, in any of its spellings. */
export function isAimPath(paths: AimPaths, raw: string): boolean {
  return paths.verdicts.getOrSet(raw, () => {
    for (const path of spellings(raw)) {
      if (paths.patterns.some((pattern) => pattern.test(path))) return true;
    }
    return false;
  });
}
