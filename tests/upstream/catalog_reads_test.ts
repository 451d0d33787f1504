/**
 * What the public catalog sends the app and what it takes from its site map: only `Accept`,
 * `User-Agent` and the `Host` docs/upstream.md names; only entries on the app's own origin; the
 * site map where the app keeps it.
 * @module
 */
import assert from "node:assert/strict";
import { isSitemapPath, sitemapPaths } from "../../bridge/upstream/sitemap.ts";
import { runAim } from "../helpers/cli.ts";
import { startAim, startApp, type TestApp } from "../helpers/upstream.ts";

const PAGE = `<!doctype html><title>Search</title>
<aim-action name="search" description="Search the catalog" input-example="pens"></aim-action>`;

/** A raw TCP app: records the head of every request it gets, answers `PAGE`, closes. */
function recordingApp(): TestApp & { heads: string[] } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const answer = new TextEncoder().encode(
    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n" +
      `Content-Length: ${PAGE.length}\r\n\r\n${PAGE}`,
  );
  const conns = new Set<Deno.Conn>();
  (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      (async () => {
        let head = "";
        const buffer = new Uint8Array(4096);
        while (!head.includes("\r\n\r\n")) {
          const n = await conn.read(buffer).catch(() => null);
          if (!n) break;
          head += new TextDecoder().decode(buffer.subarray(0, n));
        }
        heads.push(head.split("\r\n\r\n")[0]!);
        await conn.write(answer).catch(() => 0);
        conn.close();
        conns.delete(conn);
      })();
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    seen: [],
    heads,
    [Symbol.asyncDispose]: () => {
      listener.close();
      for (const conn of conns) conn.close();
      return Promise.resolve();
    },
  };
}

/** The header lines of a request head, as `name: value` with the name in lower case. */
function headerLines(head: string): string[] {
  return head.split("\r\n").slice(1).map((line) => {
    const colon = line.indexOf(":");
    return `${line.slice(0, colon).toLowerCase()}: ${line.slice(colon + 1).trim()}`;
  }).sort();
}

Deno.test("the catalog's read of a page carries only Accept, User-Agent and Host, whatever the visitor sent", async () => {
  await using app = recordingApp();
  await using aim = startAim(app.url);
  const res = await fetch(`${aim.url}/search.toon`, {
    headers: {
      Cookie: "sid=person",
      "Accept-Language": "fr",
      "Accept-Encoding": "gzip",
    },
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal(app.heads.length, 1);
  assert.match(app.heads[0]!, /^GET \/search HTTP\/1\.1\r\n/);
  assert.deepEqual(headerLines(app.heads[0]!), [
    "accept: text/html",
    "connection: close",
    `host: ${new URL(app.url).host}`,
    "user-agent: aim-public-catalog",
  ]);
});

Deno.test("the catalog reads with the public URL's host when the app gets the browser's Host, else with the app's own", async () => {
  const cases = [
    { options: { publicUrl: "https://shop.example" }, host: "shop.example" },
    { options: { publicUrl: "https://shop.example:8443" }, host: "shop.example:8443" },
    { options: { publicUrl: "https://shop.example", proxy: { preserveHost: false } }, host: "" },
    { options: {}, host: "" },
  ];
  for (const { options, host } of cases) {
    await using app = recordingApp();
    await using aim = startAim(app.url, options);
    const res = await fetch(`${aim.url}/search.toon`);
    await res.body?.cancel();
    const sent = headerLines(app.heads[0]!).find((line) => line.startsWith("host: "));
    assert.equal(sent, `host: ${host || new URL(app.url).host}`, JSON.stringify(options));
  }
});

Deno.test("only site map entries on the app's own origin are its pages", () => {
  const origin = "http://127.0.0.1:8080";
  const table: [entry: string, page: string | null][] = [
    [`${origin}/own`, "/own"],
    ["HTTP://127.0.0.1:8080/upper", "/upper"],
    ["http://127.0.0.1:08080/zero-port", "/zero-port"],
    ["http://127.0.0.1.:8080/trailing-dot", "/trailing-dot"],
    ["http://elsewhere.example/other-host", null],
    ["http://localhost:8080/other-name", null],
    ["http://127.0.0.2:8080/other-address", null],
    ["http://127.0.0.1:8081/other-port", null],
    ["http://127.0.0.1/default-port", null],
    ["https://127.0.0.1:8080/other-scheme", null],
    ["ws://127.0.0.1:8080/websocket-scheme", null],
    ["ftp://127.0.0.1:8080/ftp", null],
    ["file:///etc/passwd", null],
    ["javascript:alert(1)", null],
    ["http://user@127.0.0.1:8080/user", null],
    ["http://user:secret@127.0.0.1:8080/password", null],
    ["http://127.0.0.1:8080@elsewhere.example/userinfo-host", null],
    ["//127.0.0.1:8080/protocol-relative", null],
    ["//elsewhere.example/protocol-relative-other", null],
    ["/relative", null],
    ["http:\\\\elsewhere.example\\backslashes", null],
    ["http://elsewhere.example\\@127.0.0.1:8080/backslash-at", null],
  ];
  for (const [entry, page] of table) {
    const xml = `<urlset><url><loc> ${entry.replaceAll("&", "&amp;")} </loc></url></urlset>`;
    assert.deepEqual(sitemapPaths(xml, { origins: [origin], max: 10 }), page ? [page] : [], entry);
  }
  // The public origin counts too when the app is reached there (--public-url).
  const both = [origin, "https://shop.example"];
  const xml = "<loc>https://shop.example/a</loc><loc>http://shop.example/b</loc>";
  assert.deepEqual(sitemapPaths(xml, { origins: both, max: 10 }), ["/a"]);
});

Deno.test("the public site map lists no page of another origin an app's sitemap.xml names", async () => {
  await using app = startApp((request) => {
    const url = new URL(request.url);
    if (url.pathname !== "/sitemap.xml") {
      return new Response(PAGE, { headers: { "Content-Type": "text/html" } });
    }
    const port = Number(url.port);
    return new Response(
      `<urlset><loc>${url.origin}/own</loc><loc>http://127.0.0.1:${port + 1}/port</loc>` +
        `<loc>https://127.0.0.1:${port}/scheme</loc><loc>http://x@127.0.0.1:${port}/user</loc>` +
        `<loc>//127.0.0.1:${port}/relative</loc><loc>http://elsewhere.example/host</loc></urlset>`,
    );
  });
  await using aim = startAim(app.url);
  const sitemap = await (await fetch(`${aim.url}/sitemap.json`)).json();
  assert.deepEqual(sitemap.pages.map((p: { path: string }) => p.path), ["/own"]);
  assert.deepEqual(app.seen.filter((s) => s !== "GET /sitemap.xml"), ["GET /own"]);
});

/** `text` gzipped, as a site map file (`sitemap.xml.gz`) is. */
async function gzip(text: string): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test("an app whose site map is elsewhere names it, as a file or gzipped, its entries with their declared query", async () => {
  for (const packed of [false, true]) {
    await using app = startApp(async (request) => {
      const url = new URL(request.url);
      if (url.pathname === "/doku.php" && url.searchParams.get("do") === "sitemap") {
        const xml = `<urlset><url><loc>${url.origin}/doku.php?id=start&amp;rev=2</loc></url>` +
          `<url><loc>${url.origin}/doku.php?id=wiki:syntax</loc></url></urlset>`;
        return packed
          ? new Response(await gzip(xml), { headers: { "Content-Type": "application/x-gzip" } })
          : new Response(xml, { headers: { "Content-Type": "application/xml" } });
      }
      const id = url.searchParams.get("id") ?? "none";
      return new Response(PAGE.replace("Search", `Page ${id}`), {
        headers: { "Content-Type": "text/html" },
      });
    });
    await using aim = startAim(app.url, {
      pageQuery: ["id"],
      upstreamCatalog: { sitemap: "/doku.php?do=sitemap" },
    });
    const sitemap = await (await fetch(`${aim.url}/sitemap.json`)).json();
    assert.deepEqual(
      sitemap.pages.map((p: { path: string; title: string }) => [p.path, p.title]),
      [["/doku.php?id=start", "Page start"], ["/doku.php?id=wiki%3Asyntax", "Page wiki:syntax"]],
    );
    assert.ok(!app.seen.includes("GET /sitemap.xml"));
  }
});

Deno.test("a page the app gzips unasked is read decoded, and a gzip bomb no further than the size bound", async () => {
  const bomb = await gzip(PAGE + " ".repeat(48 << 20));
  const small = await gzip(PAGE);
  await using app = startApp((request) => {
    const body = new URL(request.url).pathname === "/bomb" ? bomb : small;
    return new Response(body, {
      headers: { "Content-Type": "text/html", "Content-Encoding": "gzip" },
    });
  });
  await using aim = startAim(app.url);
  const page = await fetch(`${aim.url}/search.toon`);
  await page.body?.cancel();
  assert.equal(page.status, 200);
  const started = performance.now();
  const res = await fetch(`${aim.url}/bomb.toon`);
  assert.equal(res.status, 404);
  assert.equal((await res.json()).error, "not_found");
  assert.ok(performance.now() - started < 2000, "the bomb was read further than the bound");
});

Deno.test("a redirect is not followed, and its own HTML is no public page", async () => {
  const login = PAGE.replace("search", "sign_in");
  await using app = startApp((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/login") return new Response(login, { headers: { "Content-Type": "text/html" } });
    // A login wall that says where it sends the visitor in a page of its own, as many apps do.
    return new Response(login, {
      status: path === "/moved" ? 301 : 302,
      headers: { Location: "/login", "Content-Type": "text/html" },
    });
  });
  await using aim = startAim(app.url);
  for (const path of ["/account", "/moved"]) {
    const res = await fetch(`${aim.url}${path}.toon`);
    assert.equal(res.status, 404, path);
    await res.body?.cancel();
  }
  assert.deepEqual(app.seen, ["GET /account", "GET /moved"]);
});

Deno.test("aim serve takes --upstream-sitemap as a path of the app only, and only with --upstream", async () => {
  for (
    const path of [
      "https://elsewhere.example/sitemap.xml",
      "//elsewhere.example/x",
      "sitemap.xml",
      "/a#b",
    ]
  ) {
    const bad = await runAim([
      "serve",
      "--upstream",
      "http://127.0.0.1:9",
      "--upstream-sitemap",
      path,
    ]);
    assert.equal(bad.code, 2, path);
    assert.match(bad.stderr, /--upstream-sitemap must be a path of the app/, path);
  }
  const alone = await runAim(["serve", "--upstream-sitemap", "/sitemap_index.xml"]);
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /--upstream-sitemap goes with --upstream/);
});

Deno.test("site map entries are read in order, each page once, at most max, with their query dropped", () => {
  const origin = "http://127.0.0.1:8080";
  const table: [xml: string, max: number, pages: string[]][] = [
    [`<loc>${origin}/a</loc><loc>${origin}/b</loc><loc>${origin}/c</loc>`, 2, ["/a", "/b"]],
    [`<loc>${origin}/a</loc><loc>${origin}/b</loc>`, 2, ["/a", "/b"]],
    [`<loc>${origin}/a</loc>`, 0, []],
    [`<loc>${origin}/a</loc><loc>${origin}/a</loc><loc>${origin}/b</loc>`, 10, ["/a", "/b"]],
    [`<loc>${origin}/a?x=1</loc><loc>${origin}/a?x=2</loc>`, 10, ["/a"]],
    [`<loc>${origin}/a.html#top</loc>`, 10, ["/a"]],
    [`<LOC>${origin}/upper</LOC><Loc>${origin}/mixed</lOC>`, 10, ["/upper", "/mixed"]],
    [`<loc>\n\t${origin}/spaced\n</loc>`, 10, ["/spaced"]],
    [`<loc>${origin}/one two</loc>`, 10, []],
    [`<loc></loc><loc>${origin}/after-empty</loc>`, 10, ["/after-empty"]],
    [`<loc>${origin}/.env</loc><loc>${origin}/good</loc>`, 10, ["/good"]],
  ];
  for (const [xml, max, pages] of table) {
    assert.deepEqual(sitemapPaths(xml, { origins: [origin], max }), pages, `${xml} (max ${max})`);
  }
  // With pageOf, the query reaches it, decoded from the XML's `&amp;`; a null from it is no page.
  const seen: string[] = [];
  const pageOf = (raw: string) => {
    seen.push(raw);
    return raw.includes("skip") ? null : raw;
  };
  const xml = `<loc>${origin}/e?id=1&amp;x=2#f</loc><loc>${origin}/skip</loc>`;
  assert.deepEqual(sitemapPaths(xml, { origins: [origin], max: 10, pageOf }), ["/e?id=1&x=2"]);
  assert.deepEqual(seen, ["/e?id=1&x=2", "/skip"]);
});

Deno.test("isSitemapPath() takes an absolute path with a query, never another host, a fragment or a control", () => {
  const table: [path: string, ok: boolean][] = [
    ["/sitemap.xml", true],
    ["/", true],
    ["/maps/sitemap.xml?lang=en", true],
    [`/${"a".repeat(2047)}`, true],
    [`/${"a".repeat(2048)}`, false],
    ["", false],
    ["sitemap.xml", false],
    ["//elsewhere.example/sitemap.xml", false],
    ["/sitemap.xml#top", false],
    ["/site map.xml", false],
    ["/sitemap.xml\n", false],
    ["/sitemap\u0000.xml", false],
    ["/sitemap\u007f.xml", false],
    ["/\\elsewhere.example", false],
    ["x/sitemap.xml", false],
    ["https://elsewhere.example/sitemap.xml", false],
  ];
  for (const [path, ok] of table) assert.equal(isSitemapPath(path), ok, JSON.stringify(path));
});
