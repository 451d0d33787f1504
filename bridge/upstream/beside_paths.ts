/**
 * Which requests the site's web server sends to aim when aim runs beside it (`aim proxy-config`),
 * as regular expressions nginx and HAProxy both read (PCRE), made from the routes the bridge
 * registered: whatever aim's routes become, the configuration follows.
 *
 * The web server cannot decide the way aim does (bridge/upstream/routes.ts: one canonical path,
 * ambiguous spellings refused), so it sends aim a superset: every path that some server could
 * read as one of aim's routes (any case; a segment's `;` parameter, trailing dots and spaces; empty,
 * `.` and `;x` segments; `..;`; a backslash; an escape left after one decoding). aim then answers
 * its own, refuses the ambiguous ones, and hands back the rest (bridge/upstream/beside.ts). A path
 * only nginx or HAProxy match is one that aim forwards or hands back: matching too much costs a
 * round trip through aim, matching too little would send one of aim's routes to the app.
 *
 * @example
 * ```ts
 * import { besidePatterns } from "./beside_paths.ts";
 *
 * const patterns = besidePatterns([{ path: "/__aim/tab" }, { path: "/agents/:name" }]);
 * new RegExp(patterns.path, "i").test("/agents;x/home"); // true
 * new RegExp(patterns.path, "i").exec("/notes.json")?.groups?.aim_manifest; // "json"
 * new RegExp(patterns.path, "i").test("/about"); // false
 * ```
 *
 * @module
 */
import { newToken } from "../core/tokens.ts";

/** The regular expressions of {@linkcode besidePatterns}, as source text. */
export interface BesidePatterns {
  /**
   * The paths the web server sends to aim, tested case-insensitively against a path decoded once
   * (nginx's `$uri`, or HAProxy's `path,url_dec`): aim's routes (`/__aim` and everything under
   * it, the site map, the agent card, ACP, every `.toon`); the paths no pattern of them can vouch
   * for (a backslash, a `%` or NUL left after one decoding, a `..` segment: nginx resolves the
   * plain one, and `..;` pops a segment once its parameter is cut); and `<page>.json`, a page's
   * manifest or the app's own JSON, which alone sets the group {@linkcode MANIFEST_GROUP} (to
   * `json`). One expression, so that a page's path is matched once.
   */
  readonly path: string;
  /**
   * A header value holding a credential aim may have issued (a session token, a tab credential or
   * key: a run of base64url characters as long as a token), case-sensitive.
   */
  readonly credential: string;
  /**
   * A `Cookie` header with at most one of aim's cookies (`aim_session`, `__Host-aim_session`, any
   * `aim_*`, any case: one is what a browser sends), matched so that the header without it is
   * `$aim_before$aim_after$aim_rest` (`\\1\\2\\3`): the whole header when it has none; those
   * before and after it; or, when it comes first, those after it. A header with two or more does
   * not match.
   */
  readonly aimCookie: string;
  /** A `Cookie` header holding two or more of aim's cookies, case-insensitive. */
  readonly aimCookies: string;
}

/** The group of {@linkcode BesidePatterns.path} that a `<page>.json` sets. */
export const MANIFEST_GROUP = "aim_manifest";

/** What may follow a segment's name and still be read as it: trailing dots or spaces, a `;` parameter. */
const TAIL = "[. ]*(?:;[^/]*)?";
/** Segments some server reads as nothing: empty, `.`, dots or spaces, a bare `;` parameter. */
const SKIP = `(?:/${TAIL})*`;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * One route of hono's (`/agents/:name`, `/runs/:id/events`, `/.well-known/agent-card.json`) as a
 * pattern of every path read as it. A parameter matches anything, slashes included: `%2F` in a
 * name is a slash once decoded.
 */
function routePattern(path: string): string {
  const parts = path.split("/").filter((part) => part !== "");
  return parts.map((part) =>
    part === "*" ? "(?:/.*)?" : part.startsWith(":") ? "/.+" : `/${escape(part)}${TAIL}`
  ).join(SKIP) + SKIP;
}

/**
 * The patterns of the requests the web server sends to aim, from the routes the bridge registered
 * (`Bridge.routes`, as hono lists them; middleware and the catch-all `*` included, duplicates
 * allowed).
 */
export function besidePatterns(routes: readonly { path: string }[]): BesidePatterns {
  // `/__aim` and all under it are aim's, routes or not (routes.ts): one prefix stands for them.
  const bodies = [`/__aim${TAIL}(?:/.*)?`];
  const seen = new Set<string>();
  for (const { path } of routes) {
    if (path === "*" || path === "/*" || /^\/__aim(?:\/|$)/.test(path) || seen.has(path)) continue;
    seen.add(path);
    bodies.push(routePattern(path));
  }
  const suffix = (extension: string) => `\\.${extension}${TAIL}${SKIP}$`;
  // `.json` in lower case only, as aim reads a manifest's path; `.JSON` is the app's.
  const manifest = suffix(`(?<${MANIFEST_GROUP}>(?-i:json))`);
  const odd = "[\\\\%\\x00]|/\\.\\.(?:;|/|$)";
  const name = "(?:__host-|__secure-)?aim_";
  // A part of a Cookie header that is not one of aim's cookies, and one that is.
  const other = `(?![ \\t]*${name})[^;]*`;
  const others = `${other}(?:;${other})*`;
  const aim = `[ \\t]*${name}[^;]*`;
  return {
    path: `^${SKIP}(?:${bodies.join("|")})$|${suffix("toon")}|${odd}|${manifest}`,
    credential: `[A-Za-z0-9_-]{${newToken().length}}`,
    // One pass over the header in each case: the parts before aim's cookie (all of them when it
    // has none), then aim's and the parts after it; or aim's first, then the rest.
    aimCookie: `^(?:(?<aim_before>${others})(?:;${aim}(?<aim_after>(?:;${other})*))?|` +
      `${aim}(?:;[ \\t]*(?<aim_rest>${others}))?)$`,
    aimCookies: `(?:^|;)[ \\t]*${name}.*;[ \\t]*${name}`,
  };
}
