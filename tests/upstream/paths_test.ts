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

Deno.test("a percent-escape makes a spelling other than plain exactly when it spells a character servers decode differently", () => {
  // Letters, digits, `-._~`, `/`, `\`, `;`, `%` and the control characters: every byte, both cases.
  const decodedDifferently = (byte: number) =>
    byte < 0x20 || byte === 0x7f || /[A-Za-z0-9\-._~/\\;%]/.test(String.fromCharCode(byte));
  const wrong: string[] = [];
  for (let byte = 0; byte < 256; byte++) {
    const hex = byte.toString(16).padStart(2, "0");
    for (const escape of [`%${hex.toUpperCase()}`, `%${hex.toLowerCase()}`]) {
      const plain = byte > 0x7f || !decodedDifferently(byte);
      if (isPlainPath(`/a${escape}b`) !== plain) wrong.push(`${escape}: expected ${plain}`);
    }
  }
  assert.deepEqual(wrong, []);
  // No escape at all: as plain as the text around it.
  for (const path of ["/a%1g", "/a%g1", "/a%", "/a%0", "/a%%"]) assert.ok(isPlainPath(path), path);
});

Deno.test("a dot segment makes a spelling other than plain, between slashes or at the end", () => {
  const table: [string, boolean][] = [
    ["/a/./b", false],
    ["/a/../b", false],
    ["/a/.", false],
    ["/a/..", false],
    ["/./a", false],
    ["/a.b", true],
    ["/a/.b", true],
    ["/a/..b", true],
    ["/a/...", true],
    ["/a.", true],
  ];
  for (const [path, plain] of table) assert.equal(isPlainPath(path), plain, path);
  // aim's routes spelled with them are refused, not routed.
  const paths = aimPaths(ROUTES);
  for (const path of ["/__aim/./session", "/__aim/.", "/__aim/x/../tab"]) {
    assert.equal(pathVerdict(paths, path), "ambiguous", path);
  }
  // `/__aim/..` is the root for every server that resolves it: the app's, as sent.
  assert.equal(pathVerdict(paths, "/__aim/.."), "app");
  // Escapes that servers all read alike keep one of aim's routes plain: routed by aim.
  for (
    const path of ["/__aim/a%20b", "/__aim/a%3Fb", "/__aim/%40x", "/__aim/%5Bx%5D", "/__aim/%7B"]
  ) {
    assert.equal(pathVerdict(paths, path), "aim", path);
  }
});

Deno.test("a path is percent-decoded four times at most: a fifth encoding is read no further", () => {
  const encoded = (times: number) => {
    let path = "/__aim/tab".replace(/_/g, "%5F");
    for (let i = 1; i < times; i++) path = path.replaceAll("%", "%25");
    return path;
  };
  for (let times = 1; times <= 4; times++) {
    assert.ok(pathReadings(encoded(times)).includes("/__aim/tab"), `${times} times`);
    assert.equal(pathVerdict(aimPaths(ROUTES), encoded(times)), "ambiguous", `${times} times`);
  }
  assert.ok(!pathReadings(encoded(5)).includes("/__aim/tab"));
  assert.deepEqual(pathReadings(encoded(5)), ["/%252525255f%252525255faim/tab", "/%5f%5faim/tab"]);
});

Deno.test("a route's wildcard matches any rest of the path; a parameter one segment", () => {
  const paths = aimPaths([{ path: "/files/*" }, { path: "/users/:id" }, { path: "/files/*" }]);
  const table: [string, string][] = [
    ["/files/a", "aim"],
    ["/files/a/b.txt", "aim"],
    ["/files/*", "aim"],
    ["/users/7", "aim"],
    ["/users/7/", "aim"],
    ["/users/7/posts", "app"],
    ["/users", "app"],
    ["/filesx", "app"],
  ];
  for (const [path, verdict] of table) assert.equal(pathVerdict(paths, path), verdict, path);
  // A catch-all, as hono lists middleware and the proxy's route, names no path of aim's.
  const catchAll = aimPaths([{ path: "*" }, { path: "/*" }, { path: "/__aim/tab" }]);
  for (const path of ["/", "/page", "/a/b", "/x.json"]) {
    assert.notEqual(pathVerdict(catchAll, path), "aim", path);
    assert.notEqual(pathVerdict(catchAll, path), "ambiguous", path);
  }
});

Deno.test("pathVerdict() remembers each path's verdict and answers from it", () => {
  const paths = aimPaths(ROUTES);
  assert.equal(pathVerdict(paths, "/page"), "app");
  assert.equal(paths.verdicts.get("/page"), "app");
  // What is remembered is what is answered: the path is not judged again.
  paths.verdicts.set("/other", "ambiguous");
  assert.equal(pathVerdict(paths, "/other"), "ambiguous");
});
