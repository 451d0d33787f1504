/**
 * Which request paths are aim's own in front of an app, decided on one canonical form: every
 * route the bridge registered (`/__aim/*`, the site map, the agent card, ACP), plus every
 * `.toon` manifest. A path is read as the servers behind a proxy may read it (percent-decoded,
 * once or more; `;` parameters cut, as servlet containers do; backslashes as slashes; repeated
 * slashes collapsed; dot segments resolved; trailing dots dropped; any case): when none of its
 * readings is one of aim's paths it is the app's, and is forwarded as sent; when one is, aim
 * routes it only if it is spelled plainly, as registered, and refuses any other spelling (400),
 * so that no spelling is aim's for one check and the app's for another.
 *
 * Other code that must know which paths are aim's (a generator of an nginx or HAProxy
 * configuration) reads {@linkcode AimPaths.pattern} (aim's paths, tested against a reading) and
 * {@linkcode pathReadings}, or asks {@linkcode pathVerdict}.
 *
 * @example
 * ```ts
 * import { aimPaths, pathVerdict } from "./routes.ts";
 *
 * const paths = aimPaths([{ path: "/__aim/tab" }, { path: "/agents" }]);
 * pathVerdict(paths, "/__aim/tab"); // "aim"
 * pathVerdict(paths, "/__aim;x/tab"); // "ambiguous"
 * pathVerdict(paths, "/shop;jsessionid=1"); // "app"
 * ```
 *
 * @module
 */
import { BoundedMap } from "../utils/bounded_map.ts";

/**
 * What a request path is in front of an app: one of aim's routes spelled plainly (`aim`), a
 * plain `.json` path (`manifest`: a page's manifest, or the app's own JSON once the manifest
 * route has looked), a spelling of one of aim's routes that servers may read differently
 * (`ambiguous`: refused), or the app's (`app`).
 */
export type PathVerdict = "aim" | "manifest" | "ambiguous" | "app";

/** The matchers of aim's routes. */
export interface AimPaths {
  /** aim's paths in lower case: tested against each reading of a path (lowercased). */
  readonly pattern: RegExp;
  /** aim's paths as registered, case-sensitive: the plain spellings aim routes. */
  readonly exact: RegExp;
  /** The verdicts on the paths seen most, so that a page's path is read once. */
  readonly verdicts: BoundedMap<string, PathVerdict>;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Paths whose verdicts are remembered. */
const KEPT_VERDICTS = 1024;

/**
 * The matchers of the routes hono lists (`/agents/:name`, `/__aim/*`); a bare `*` (a
 * catch-all) is no route of aim's own.
 */
export function aimPaths(routes: readonly { path: string }[]): AimPaths {
  const sources = ["/__aim(?:/.*)?", ".*\\.toon"];
  const seen = new Set<string>();
  for (const { path } of routes) {
    if (path === "*" || path === "/*" || seen.has(path)) continue;
    seen.add(path);
    sources.push(
      path.split("/").map((part) =>
        part === "*" ? ".*" : part.startsWith(":") ? "[^/]+" : escape(part)
      ).join("/") + "/?",
    );
  }
  const source = (parts: string[]) => `^(?:${parts.join("|")})$`;
  return {
    // Readings are lowercased: so are the routes they are tested against.
    pattern: new RegExp(source(sources.map((part) => part.toLowerCase()))),
    exact: new RegExp(source(sources)),
    verdicts: new BoundedMap(KEPT_VERDICTS),
  };
}

/**
 * What makes a spelling other than plain: a `;` parameter, a backslash, a repeated slash, a dot
 * segment, or a percent-escape of an ASCII character that servers decode differently (a
 * letter, digit, `-._~`, `/`, `\`, `;`, `%`, or a control character). Escapes of other
 * characters (a space, non-ASCII text) are how a plain path spells them.
 */
const NOT_PLAIN =
  /;|\\|\/\/|\/\.\.?(?:\/|$)|%(?:[01][0-9a-f]|2[5def]|3[0-9b]|[46][1-9a-f]|[57][0-9a]|5[cf]|7[ef])/i;

/** Whether a path is spelled plainly: every server reads it as it is. */
export function isPlainPath(raw: string): boolean {
  return !NOT_PLAIN.test(raw);
}

/** Percent-escapes of ASCII characters decoded, again and again (double encoding), at most 4 times. */
function decodeAscii(raw: string): string {
  let path = raw;
  for (let round = 0; round < 4 && path.includes("%"); round++) {
    const next = path.replace(
      /%([0-7][0-9a-f])/gi,
      (_, hex: string) => String.fromCharCode(parseInt(hex, 16)),
    );
    if (next === path) break;
    path = next;
  }
  return path;
}

/** One reading of a path: lower case, cut at a NUL, `\` as `/`, resolved; `;` parameters cut when asked. */
function resolve(path: string, cutParameters: boolean): string {
  let text = path.toLowerCase();
  const nul = text.indexOf("\0");
  if (nul >= 0) text = text.slice(0, nul);
  const out: string[] = [];
  for (let segment of text.replaceAll("\\", "/").split("/")) {
    if (cutParameters) {
      const semicolon = segment.indexOf(";");
      if (semicolon >= 0) segment = segment.slice(0, semicolon);
    }
    // Windows drops a segment's trailing dots and spaces: `__aim.` is `__aim` there.
    if (segment !== "." && segment !== "..") segment = segment.replace(/[. ]+$/, "");
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return `/${out.join("/")}`;
}

/**
 * The ways servers may read a path, each lowercased and resolved: as sent and percent-decoded,
 * each with and without its `;` parameters.
 */
export function pathReadings(raw: string): string[] {
  const readings = new Set<string>();
  for (const path of [raw, decodeAscii(raw)]) {
    readings.add(resolve(path, false));
    readings.add(resolve(path, true));
  }
  return [...readings];
}

/** What a request path is in front of an app; remembered for the paths seen most. */
export function pathVerdict(paths: AimPaths, raw: string): PathVerdict {
  let verdict = paths.verdicts.get(raw);
  if (verdict === undefined) {
    verdict = judge(paths, raw);
    paths.verdicts.set(raw, verdict);
  }
  return verdict;
}

function judge(paths: AimPaths, raw: string): PathVerdict {
  const plain = isPlainPath(raw);
  if (plain && paths.exact.test(raw)) return "aim";
  // A plain path without escapes differs from its readings only by case and trailing dots.
  const readings = plain && !raw.includes("%") ? [resolve(raw, false)] : pathReadings(raw);
  if (readings.some((reading) => paths.pattern.test(reading))) return "ambiguous";
  return plain && raw.endsWith(".json") ? "manifest" : "app";
}

/** Whether any reading of a request path is one of aim's routes (so it is never forwarded). */
export function isAimPath(paths: AimPaths, raw: string): boolean {
  const verdict = pathVerdict(paths, raw);
  return verdict === "aim" || verdict === "ambiguous";
}
