/**
 * The public catalog in front of an app: manifests and the site map read from the app as an
 * anonymous visitor, bounded, cached and revalidated; every page path hosts sessions.
 * @module
 */
import assert from "node:assert/strict";
import { startAim, startApp } from "../helpers/upstream.ts";

const PUBLIC_PAGE = `<!doctype html><title>Search</title>
<meta name="description" content="Find things">
<aim-action name="search" description="Search the catalog" input-example="pens"></aim-action>`;

/** `POST /__aim/session` for `page`, from the bridge's own origin, as a page does. */
function openSession(origin: string, page: string): Promise<Response> {
  return fetch(`${origin}/__aim/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: origin },
    body: JSON.stringify({ page }),
  });
}

/** An app with a public agent-enabled page, a page behind a login and a sitemap. */
function app(options: { etag?: string; seen?: Headers[] } = {}) {
  return startApp((request) => {
    const url = new URL(request.url);
    options.seen?.push(request.headers);
    if (url.pathname === "/search") {
      if (options.etag && request.headers.get("if-none-match") === options.etag) {
        return new Response(null, { status: 304, headers: { ETag: options.etag } });
      }
      return new Response(PUBLIC_PAGE, {
        headers: {
          "Content-Type": "text/html; charset=utf-8",
          ...(options.etag ? { ETag: options.etag } : {}),
        },
      });
    }
    if (url.pathname === "/account") {
      // Signed-in users only: visitors go to the login page, which is agent-enabled itself.
      if (request.headers.get("cookie")?.includes("sid=person")) {
        return new Response(PUBLIC_PAGE.replace("search", "close_account"), {
          headers: { "Content-Type": "text/html" },
        });
      }
      return new Response(null, { status: 302, headers: { Location: "/search" } });
    }
    if (url.pathname === "/unlisted") {
      return new Response(PUBLIC_PAGE.replace("search", "find_unlisted"), {
        headers: { "Content-Type": "text/html" },
      });
    }
    if (url.pathname === "/big") {
      return new Response(PUBLIC_PAGE + " ".repeat(2 << 20), {
        headers: { "Content-Type": "text/html" },
      });
    }
    if (url.pathname === "/sitemap.xml") {
      return new Response(
        `<?xml version="1.0"?><urlset><url><loc>${url.origin}/search</loc></url>` +
          `<url><loc>${url.origin}/account</loc></url>` +
          `<url><loc>https://elsewhere.example/search</loc></url></urlset>`,
        { headers: { "Content-Type": "application/xml" } },
      );
    }
    return new Response("not found", { status: 404 });
  });
}

Deno.test("a page the app shows every visitor has a public manifest read from its HTML", async () => {
  await using upstream = app();
  await using aim = startAim(upstream.url);
  const res = await fetch(`${aim.url}/search.json`);
  assert.equal(res.status, 200);
  const manifest = await res.json();
  assert.equal(manifest.state_scope, "public_schema_only");
  assert.ok(manifest.actions.some((a: { id: string }) => a.id === "search"));
  const toon = await fetch(`${aim.url}/search.toon`);
  assert.equal(toon.status, 200);
  assert.match(toon.headers.get("content-type") ?? "", /^text\/toon/);
  await toon.body?.cancel();
});

Deno.test("the catalog reads the app as nobody: no cookie and no Authorization, whatever the agent sent", async () => {
  const seen: Headers[] = [];
  await using upstream = app({ seen });
  await using aim = startAim(upstream.url);
  const res = await fetch(`${aim.url}/account.toon`, {
    headers: { Cookie: "sid=person" },
  });
  await res.body?.cancel();
  // Nobody sees the signed-in page: it has no public manifest, and the redirect is not followed.
  assert.equal(res.status, 404);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.get("cookie"), null);
  assert.equal(seen[0]!.get("authorization"), null);
  assert.equal(seen[0]!.get("user-agent"), "aim-public-catalog");
});

Deno.test("a page over the size bound has no public manifest", async () => {
  await using upstream = app();
  await using aim = startAim(upstream.url);
  const res = await fetch(`${aim.url}/big.toon`);
  await res.body?.cancel();
  assert.equal(res.status, 404);
});

Deno.test("a cached page is revalidated with its ETag once stale, and a 304 keeps its catalog", async () => {
  const seen: Headers[] = [];
  await using upstream = app({ etag: '"v1"', seen });
  let clock = 0;
  await using aim = startAim(upstream.url, {
    upstreamCatalog: { freshMs: 1000, now: () => clock },
  });
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${aim.url}/search.toon`);
    await res.body?.cancel();
    assert.equal(res.status, 200);
    clock += 1001;
  }
  assert.equal(seen.length, 2);
  assert.equal(seen[0]!.get("if-none-match"), null);
  assert.equal(seen[1]!.get("if-none-match"), '"v1"');
});

Deno.test("a fresh page is read from the app once, however many ask", async () => {
  const seen: Headers[] = [];
  await using upstream = app({ seen });
  await using aim = startAim(upstream.url);
  await Promise.all(
    Array.from({ length: 5 }, async () => (await fetch(`${aim.url}/search.toon`)).body?.cancel()),
  );
  assert.equal(seen.length, 1);
});

Deno.test("the site map lists the app's sitemap.xml pages on its own origin that are agent-enabled", async () => {
  await using upstream = app();
  await using aim = startAim(upstream.url);
  const sitemap = await (await fetch(`${aim.url}/sitemap.json`)).json();
  assert.deepEqual(sitemap.pages.map((p: { path: string }) => p.path), ["/search"]);
  assert.equal(sitemap.pages[0].title, "Search");
  assert.equal(sitemap.pages[0].description, "Find things");
});

Deno.test("any page path of the app hosts a session, with no public manifest", async () => {
  await using upstream = app();
  await using aim = startAim(upstream.url);
  const res = await openSession(aim.url, "/app/dashboard");
  assert.equal(res.status, 200);
  const grant = await res.json();
  assert.equal(grant.page, "/app/dashboard");
  const manifest = await fetch(`${aim.url}/app/dashboard.json`, {
    headers: { Authorization: `Bearer ${grant.sessionToken}` },
  });
  assert.equal(manifest.status, 200);
  const body = await manifest.json();
  assert.equal(body.state_scope, "session");
  assert.equal(body.browser_connected, false);
  const other = await fetch(`${aim.url}/app/settings.json`, {
    headers: { Authorization: `Bearer ${grant.sessionToken}` },
  });
  assert.equal(other.status, 409);
  assert.equal((await other.json()).error, "page_mismatch");
});

Deno.test("declared query parameters make pages of one path different pages; others are dropped", async () => {
  await using upstream = app();
  await using aim = startAim(upstream.url, { pageQuery: ["id", "do"] });
  const res = await openSession(aim.url, "/edit.php?utm=x&do=edit&id=1#top");
  const grant = await res.json();
  assert.equal(grant.page, "/edit.php?id=1&do=edit");
  const auth = { headers: { Authorization: `Bearer ${grant.sessionToken}` } };
  const own = await fetch(`${aim.url}/edit.php.json?do=edit&id=1&utm=y`, auth);
  assert.equal(own.status, 200);
  assert.equal((await own.json()).page, "/edit.php?id=1&do=edit");
  const other = await fetch(`${aim.url}/edit.php.json?id=2&do=edit`, auth);
  assert.equal(other.status, 409);
  const body = await other.json();
  assert.equal(body.error, "page_mismatch");
  assert.equal(body.connected_page, "/edit.php?id=1&do=edit");
  assert.equal(body.manifest_url, `${aim.url}/edit.php.json?id=1&do=edit`);
  const bare = await fetch(`${aim.url}/edit.php.json`, auth);
  assert.equal(bare.status, 409);
  await bare.body?.cancel();
});

Deno.test("without declared query parameters a page is its path alone", async () => {
  await using upstream = app();
  await using aim = startAim(upstream.url);
  const res = await openSession(aim.url, "/edit.php?id=1");
  assert.equal((await res.json()).page, "/edit.php");
});

Deno.test("a page a session visited joins the site map when it is agent-enabled, one that is not does not", async () => {
  await using upstream = app();
  await using aim = startAim(upstream.url);
  for (const page of ["/unlisted", "/account"]) {
    const res = await openSession(aim.url, page);
    await res.body?.cancel();
  }
  const sitemap = await (await fetch(`${aim.url}/sitemap.json`)).json();
  assert.deepEqual(sitemap.pages.map((p: { path: string }) => p.path), ["/search", "/unlisted"]);
});
