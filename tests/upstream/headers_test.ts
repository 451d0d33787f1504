/**
 * Property tests of what crosses the proxy: aim's route paths in any spelling, aim's cookies
 * kept from the app and from the app's answers, and the page identity of a path with a query.
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { aimPaths, isAimPath } from "../../bridge/upstream/routes.ts";
import { appCookies, clientResponseHeaders, isAimCookie } from "../../bridge/upstream/headers.ts";
import { pageIdentity } from "../../bridge/site/page_identity.ts";

const ROUTES = [
  { path: "/__aim/session" },
  { path: "/sitemap.json" },
  { path: "/agents/:name" },
  { path: "/runs/:id/events" },
  { path: "*" },
];
const AIM = ["/__aim/session", "/__aim/tab", "/sitemap.json", "/agents/home", "/runs/7/events"];

/** A spelling a server may read as the same path. */
const respell = fc.constantFrom(
  (p: string) => p,
  (p: string) => p.replace("/", "//"),
  (p: string) => `/x/..${p}`,
  (p: string) => p.replace("_", "%5F").replace("a", "%61"),
  (p: string) => p.replace("/", "/%2F"),
  (p: string) => p.toUpperCase(),
);

Deno.test("every spelling of one of aim's paths is aim's", () => {
  const paths = aimPaths(ROUTES);
  fc.assert(
    fc.property(fc.constantFrom(...AIM), fc.array(respell, { maxLength: 3 }), (path, fs) => {
      const spelled = fs.reduce((p, f) => f(p), path);
      assert.ok(isAimPath(paths, spelled), spelled);
    }),
  );
});

Deno.test("an app's paths are not aim's, and a bare catch-all names nothing", () => {
  const paths = aimPaths(ROUTES);
  for (
    const path of ["/", "/index.php", "/edit.php", "/aim/session", "/__aimx", "/agents", "/x.json"]
  ) {
    assert.ok(!isAimPath(paths, path), path);
  }
  assert.ok(isAimPath(paths, "/page.toon"));
});

const cookieName = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);

Deno.test("the Cookie header the app gets keeps every cookie of its own and none of aim's", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(cookieName, fc.stringMatching(/^[A-Za-z0-9]{0,8}$/)), { maxLength: 6 }),
      fc.array(fc.constantFrom("aim_session", "__Host-aim_session", "AIM_SESSION", "aim_x"), {
        maxLength: 3,
      }),
      (own, aims) => {
        const pairs = [...own, ...aims.map((name) => [name, "tok"] as [string, string])];
        const kept = appCookies(pairs.map(([k, v]) => `${k}=${v}`).join("; "));
        const names = (kept ?? "").split("; ").filter(Boolean).map((c) => c.split("=")[0]!);
        assert.ok(names.every((name) => !isAimCookie(name)));
        assert.deepEqual(names, own.map(([k]) => k).filter((k) => !isAimCookie(k)));
      },
    ),
  );
});

Deno.test("no Set-Cookie of the app that names aim's cookie reaches the client", () => {
  const headers = new Headers();
  for (const name of ["aim_session", "__Secure-aim_session", "__host-AIM_session", "aim_other"]) {
    headers.append("set-cookie", `${name}=x; Path=/`);
  }
  headers.append("set-cookie", "sid=1; Path=/; HttpOnly");
  assert.deepEqual(clientResponseHeaders(headers, false).getSetCookie(), [
    "sid=1; Path=/; HttpOnly",
  ]);
});

Deno.test("a page's identity keeps the declared query parameters only, in the declared order", () => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.constantFrom("id", "do", "utm", "x"), fc.stringMatching(/^[a-z0-9]{0,4}$/)),
      (query) => {
        const raw = `/edit.php?${new URLSearchParams(query)}#frag`;
        const page = pageIdentity(raw, ["do", "id"])!;
        const kept = new URLSearchParams(page.split("?")[1] ?? "");
        assert.deepEqual([...kept.keys()], ["do", "id"].filter((k) => k in query));
        for (const [k, v] of kept) assert.equal(v, query[k]);
        assert.equal(pageIdentity(raw, []), "/edit.php");
      },
    ),
  );
});
