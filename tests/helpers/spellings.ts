/**
 * Test helper: spellings of request paths in front of an app, each with what aim must make of
 * it (bridge/upstream/routes.ts), over a set of aim's routes. Read by the unit tests of the
 * verdicts and by the tests that send each spelling through a real aim.
 * @module
 */
import type { PathVerdict } from "../../bridge/upstream/routes.ts";

/** aim's routes, as hono lists them (a bare `*` is the catch-all, no route of aim's). */
export const ROUTES: { path: string }[] = [
  { path: "/__aim/session" },
  { path: "/__aim/tab" },
  { path: "/sitemap.json" },
  { path: "/sitemap.toon" },
  { path: "/ping" },
  { path: "/agents" },
  { path: "/agents/:name" },
  { path: "/runs" },
  { path: "/runs/:id/events" },
  { path: "/.well-known/agent-card.json" },
  { path: "*" },
];

/** Each spelling, and what it is. */
export const SPELLINGS: [string, PathVerdict][] = [
  // aim's routes as registered: routed by aim.
  ["/__aim/session", "aim"],
  ["/__aim/tab", "aim"],
  ["/__aim", "aim"],
  ["/__aim/", "aim"],
  ["/__aim/anything/else", "aim"],
  ["/sitemap.json", "aim"],
  ["/ping", "aim"],
  ["/ping/", "aim"],
  ["/agents", "aim"],
  ["/agents/home", "aim"],
  ["/runs/7/events", "aim"],
  ["/.well-known/agent-card.json", "aim"],
  ["/page.toon", "aim"],
  ["/caf%C3%A9.toon", "aim"],
  // The spellings (servlet containers cut `;x` and read aim's paths).
  ["/__aim;x/session", "ambiguous"],
  ["/__aim;/tab", "ambiguous"],
  ["/x/..;/__aim/tab", "ambiguous"],
  ["/agents;x", "ambiguous"],
  ["/runs;x", "ambiguous"],
  ["/ping;x", "ambiguous"],
  ["/sitemap.json;x", "ambiguous"],
  ["/.well-known/agent-card.json;x", "ambiguous"],
  // Parameters, anywhere.
  ["/__aim/tab;jsessionid=1", "ambiguous"],
  ["/;x/__aim/tab", "ambiguous"],
  ["/agents/home;v=1", "ambiguous"],
  ["/page.toon;x", "ambiguous"],
  ["/__aim/..;/tab", "ambiguous"],
  // Case.
  ["/__AIM/session", "ambiguous"],
  ["/__Aim/tab", "ambiguous"],
  ["/PING", "ambiguous"],
  ["/Agents", "ambiguous"],
  ["/SITEMAP.JSON", "ambiguous"],
  ["/page.TOON", "ambiguous"],
  // Percent-encoding: once, twice, of a slash, a dot, a semicolon.
  ["/%5F%5Faim/session", "ambiguous"],
  ["/%5f%5faim/tab", "ambiguous"],
  ["/__aim%2Ftab", "ambiguous"],
  ["/%2F__aim/session", "ambiguous"],
  ["/__aim%2ftab", "ambiguous"],
  ["/%255F%255Faim/tab", "ambiguous"],
  ["/__aim%3Bx/tab", "ambiguous"],
  ["/x/%2E%2E/__aim/tab", "ambiguous"],
  ["/x/%2e%2e%2f__aim/tab", "ambiguous"],
  ["/p%69ng", "ambiguous"],
  ["/__aim%00/tab", "ambiguous"],
  ["/__aim/%74ab", "ambiguous"],
  // Repeated slashes, backslashes, dot segments, trailing dots.
  ["//__aim/session", "ambiguous"],
  ["/agents//home", "ambiguous"],
  ["/__aim//tab", "ambiguous"],
  ["/x/../__aim/tab", "ambiguous"],
  ["/./__aim/tab", "ambiguous"],
  ["/\\__aim\\tab", "ambiguous"],
  ["/__aim./tab", "ambiguous"],
  ["/ping.", "ambiguous"],
  ["/ping%20", "ambiguous"],
  // The app's paths, in any spelling: forwarded as sent.
  ["/", "app"],
  ["/index.php", "app"],
  ["/edit.php", "app"],
  ["/aim/session", "app"],
  ["/__aimx", "app"],
  ["/x__aim/tab", "app"],
  ["/pings", "app"],
  ["/sessions", "app"],
  ["/shop;jsessionid=A1B2", "app"],
  ["/a//b", "app"],
  ["/x/../y", "app"],
  ["/files/a%2Fb", "app"],
  ["/search/100%25", "app"],
  ["/%7Euser/", "app"],
  ["/docs/../__aimx", "app"],
  ["/api/items.json;v=2", "app"],
  ["/x.json.", "app"],
  // A plain `.json` path: a page's manifest, or the app's JSON once the manifest route looked.
  ["/x.json", "manifest"],
  ["/api/items.json", "manifest"],
  ["/caf%C3%A9.json", "manifest"],
];
