/**
 * aim's routes by one canonical path (bridge/upstream/routes.ts): every spelling of one of aim's
 * paths a server may read as aim's is either routed by aim (spelled as registered) or refused
 * with 400, never forwarded; the app's paths, spelled any way, are forwarded as sent. A table of
 * spellings and a property over respellings; tests/upstream/spellings_test.ts sends the same
 * table through a real aim.
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { aimPaths, isPlainPath, pathReadings, pathVerdict } from "../../bridge/upstream/routes.ts";
import { ROUTES, SPELLINGS } from "../helpers/spellings.ts";

Deno.test("every spelling of the table has its verdict: aim's routes, ambiguous ones, the app's", () => {
  const paths = aimPaths(ROUTES);
  const wrong = SPELLINGS.filter(([path, verdict]) => pathVerdict(paths, path) !== verdict)
    .map(([path, verdict]) => `${path}: ${pathVerdict(paths, path)}, expected ${verdict}`);
  assert.deepEqual(wrong, []);
});

Deno.test("a verdict is the same when asked again (remembered) as when first judged", () => {
  const paths = aimPaths(ROUTES);
  for (const [path, verdict] of SPELLINGS) {
    assert.equal(pathVerdict(paths, path), verdict, path);
    assert.equal(pathVerdict(paths, path), verdict, `${path}, again`);
  }
});

/** Respellings a server may read as the same path. */
const respell = fc.constantFrom(
  (p: string) => p.replace("/", "//"),
  (p: string) => `/x/..${p}`,
  (p: string) => `/x/..;${p}`,
  (p: string) => p.replace("_", "%5F"),
  (p: string) => p.replace("a", "%61"),
  (p: string) => p.replace("%", "%25"),
  (p: string) => p.replace("/", "/%2F"),
  (p: string) => p.replace(/\/([^/]*)$/, "/$1;x"),
  (p: string) => p.replace(/^\/([^/]+)/, "/$1;x"),
  (p: string) => p.replace(/\//g, "\\"),
  (p: string) => p.toUpperCase(),
  (p: string) => `${p}.`,
);
const AIM = ["/__aim/session", "/__aim/tab", "/sitemap.json", "/agents/home", "/runs/7/events"];

Deno.test("no respelling of one of aim's paths is ever the app's", () => {
  const paths = aimPaths(ROUTES);
  fc.assert(
    fc.property(
      fc.constantFrom(...AIM),
      fc.array(respell, { minLength: 1, maxLength: 4 }),
      (path, fs) => {
        const spelled = fs.reduce((p, f) => f(p), path);
        const verdict = pathVerdict(paths, spelled);
        assert.ok(verdict === "aim" || verdict === "ambiguous", `${spelled}: ${verdict}`);
        // Routed by aim only when spelled as registered.
        if (verdict === "aim") assert.ok(isPlainPath(spelled), spelled);
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("a path's readings are resolved, lowercased and cut at parameters", () => {
  assert.deepEqual(
    new Set(pathReadings("/x/..;/__AIM;v=1/%74ab")),
    new Set(["/x/..;/__aim;v=1/%74ab", "/__aim/%74ab", "/x/..;/__aim;v=1/tab", "/__aim/tab"]),
  );
  assert.deepEqual(pathReadings("/a\\b\\..\\c%00/d"), ["/a/c%00/d", "/a/c"]);
});

Deno.test("a route registered with capitals is aim's in any case, routed only as registered", () => {
  const paths = aimPaths([{ path: "/Admin/Report" }]);
  assert.equal(pathVerdict(paths, "/Admin/Report"), "aim");
  for (const spelled of ["/admin/report", "/ADMIN/REPORT", "/Admin/Report;x", "/Admin//Report"]) {
    assert.equal(pathVerdict(paths, spelled), "ambiguous", spelled);
  }
  assert.equal(pathVerdict(paths, "/Admin/Reports"), "app");
});
