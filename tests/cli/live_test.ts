/**
 * Reading a live app's pages for `aim check URL` and `aim manifest URL` (bridge/cli/live.ts),
 * imported directly against a Deno.serve app on port 0: which targets are URLs, each spelling of
 * `--header` taken or refused, a page read only on 200 and within its bound, a redirect named and
 * not followed, and the pages a sitemap.xml lists on its own origin.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  fetchText,
  headersOf,
  isUrl,
  MAX_LIVE_BYTES,
  MAX_LIVE_PAGES,
  pageUrls,
} from "../../bridge/cli/live.ts";
import { CliError, Exit } from "../../bridge/cli/common.ts";

Deno.test("isUrl() takes http and https URLs in any case, and nothing else", () => {
  const cases: [string, boolean][] = [
    ["http://x", true],
    ["https://x/a.html", true],
    ["HTTPS://X", true],
    ["site/index.html", false],
    ["./http://x", false],
    ["ftp://x", false],
    ["file:///x", false],
    ["http:/x", false],
  ];
  for (const [target, url] of cases) assert.equal(isUrl(target), url, target);
});

Deno.test("headersOf() takes each Name: value and refuses each spelling that is no header", () => {
  const headers = headersOf([
    "Cookie: a=1; b=2",
    "X-Two:v",
    "x-two:  w ",
    "Authorization: Bearer: x",
  ]);
  assert.equal(headers.get("cookie"), "a=1; b=2");
  assert.equal(headers.get("x-two"), "v, w");
  assert.equal(headers.get("authorization"), "Bearer: x", "only the first colon splits");
  assert.equal([...headersOf(undefined)].length, 0);
  const refused: [string, RegExp][] = [
    ["Cookie", /^--header must be "Name: value", got "Cookie"$/],
    [": value", /^--header must be "Name: value"/],
    ["", /^--header must be "Name: value"/],
    ["Bad Name: v", /^--header "Bad Name: v" is not a valid header$/],
    ["X: a\u0000b", /is not a valid header$/],
  ];
  for (const [option, message] of refused) {
    assert.throws(
      () => headersOf([option]),
      (e) => e instanceof CliError && e.exitCode === Exit.Usage && message.test(e.message),
      JSON.stringify(option),
    );
  }
});

/** An app on port 0 that answers by path, and the headers of each request it got. */
function app() {
  const seen: Headers[] = [];
  let origin = "";
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (request): Response => {
      seen.push(request.headers);
      const path = new URL(request.url).pathname;
      if (path === "/page") return new Response("<p>page</p>");
      if (path === "/login") {
        return new Response(null, { status: 302, headers: { location: "/signin" } });
      }
      if (path === "/big") return new Response(new Uint8Array(MAX_LIVE_BYTES + 1));
      if (path === "/exact") return new Response(new Uint8Array(MAX_LIVE_BYTES));
      if (path === "/sitemap.xml") {
        return new Response(`<?xml version="1.0"?><urlset>
<url><loc>${origin}/a</loc></url><url><loc>${origin}/b?x=1</loc></url>
<url><loc>http://elsewhere.example/c</loc></url></urlset>`);
      }
      if (path === "/many/sitemap.xml") {
        const urls = Array.from(
          { length: MAX_LIVE_PAGES + 5 },
          (_, i) => `<url><loc>${origin}/p${i}</loc></url>`,
        );
        return new Response(`<urlset>${urls.join("")}</urlset>`);
      }
      return new Response("no", { status: 404 });
    },
  );
  origin = `http://127.0.0.1:${server.addr.port}`;
  return { origin, seen, [Symbol.asyncDispose]: () => server.shutdown() };
}

Deno.test("fetchText() reads a 200 page with the headers given, up to exactly its bound", async () => {
  await using site = app();
  assert.equal(await fetchText(`${site.origin}/page`, headersOf(["Cookie: s=1"])), "<p>page</p>");
  assert.equal(site.seen[0]?.get("cookie"), "s=1");
  assert.equal((await fetchText(`${site.origin}/exact`, new Headers())).length, MAX_LIVE_BYTES);
  await assert.rejects(
    fetchText(`${site.origin}/big`, new Headers()),
    (e) =>
      e instanceof CliError && e.message === `${site.origin}/big is over ${MAX_LIVE_BYTES} bytes`,
  );
});

Deno.test("fetchText() refuses any status but 200, names a redirect's target without following it, and says what it cannot reach", async () => {
  await using site = app();
  await assert.rejects(
    fetchText(`${site.origin}/login`, new Headers()),
    (e) =>
      e instanceof CliError && e.exitCode === Exit.Failure &&
      e.message ===
        `${site.origin}/login answered 302 (to /signin; a page behind a login needs --header "Cookie: …")`,
  );
  assert.equal(site.seen.length, 1, "the redirect was not followed");
  await assert.rejects(
    fetchText(`${site.origin}/none`, new Headers()),
    (e) => e instanceof CliError && e.message === `${site.origin}/none answered 404`,
  );
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  await assert.rejects(
    fetchText(`http://127.0.0.1:${port}/`, new Headers()),
    (e) => e instanceof CliError && e.message.startsWith(`cannot read http://127.0.0.1:${port}/: `),
  );
});

Deno.test("pageUrls() is the page itself, or the pages (paths) of a sitemap.xml on its own origin, at most 200", async () => {
  await using site = app();
  assert.deepEqual(await pageUrls(`${site.origin}/page`, new Headers()), [`${site.origin}/page`]);
  assert.deepEqual(await pageUrls(`${site.origin}/sitemap.xml`, new Headers()), [
    `${site.origin}/a`,
    `${site.origin}/b`,
  ]);
  assert.equal(
    (await pageUrls(`${site.origin}/many/sitemap.xml`, new Headers())).length,
    MAX_LIVE_PAGES,
  );
  assert.deepEqual(await pageUrls(`${site.origin}/sitemap.xml.bak`, new Headers()), [
    `${site.origin}/sitemap.xml.bak`,
  ]);
});
