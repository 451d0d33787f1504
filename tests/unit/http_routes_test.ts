/**
 * Two parts of the bridge's HTTP routes imported directly, without a whole bridge: the
 * `If-Match` a session's invocation may carry (bridge/http/session_routes.ts `readIfMatch`), each
 * spelling taken or refused 400; and the site's routes (bridge/http/site_routes.ts) on a hono app
 * over a real core: the site map in both formats with its cache header, and the public manifests'
 * cache, per page, format and origin, at most 8 origins. The routes over HTTP are
 * tests/protocol/'s.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { decode } from "@toon-format/toon";
import { MAX_STREAMS, readIfMatch } from "../../bridge/http/session_routes.ts";
import { PublicManifests, sitemapRoutes } from "../../bridge/http/site_routes.ts";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import { DEFAULTS } from "../../bridge/core/limits.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import type { AppEnv } from "../../bridge/http/env.ts";
import type { PageInfo } from "../../bridge/site/catalog.ts";
import { writeSite } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test("readIfMatch() takes a manifest's ETag, weak or strong, and * or none as no condition", () => {
  const cases: [string | undefined, number | undefined][] = [
    ['"v12"', 12],
    ['W/"v12"', 12],
    ['  "v3"  ', 3],
    ['"v0"', 0],
    [`"v${"9".repeat(15)}"`, 999_999_999_999_999],
    ["*", undefined],
    [" * ", undefined],
    [undefined, undefined],
  ];
  for (const [header, version] of cases) assert.equal(readIfMatch(header), version, String(header));
});

Deno.test("readIfMatch() refuses every other spelling with 400 bad_request, saying what an ETag looks like", () => {
  for (
    const header of [
      "v12",
      '"12"',
      '"v"',
      '"V12"',
      'w/"v12"',
      '"v12", "v13"',
      `"v${"1".repeat(16)}"`,
      '"v-1"',
      '"v1.5"',
      "",
    ]
  ) {
    assert.throws(
      () => readIfMatch(header),
      (e) =>
        e instanceof AimError && e.status === 400 && e.code === "bad_request" &&
        e.message === 'If-Match must be a manifest\'s ETag, such as "v12" (its state_version).',
      JSON.stringify(header),
    );
  }
  assert.equal(MAX_STREAMS, DEFAULTS.maxWaitingRequests);
});

Deno.test("sitemapRoutes() serves the site map in JSON and TOON on the request's origin, cached a minute", async () => {
  await using dir = await tempDir();
  writeSite(dir.path);
  const core = new BridgeCore({ root: dir.path });
  try {
    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      c.set("origin", "https://shop.example");
      await next();
    });
    app.route("/", sitemapRoutes(core));
    const json = await app.request("/sitemap.json");
    assert.equal(json.status, 200);
    assert.equal(json.headers.get("Cache-Control"), "public, max-age=60");
    const map = await json.json();
    assert.ok(
      JSON.stringify(map).includes("https://shop.example/control-panel"),
      "URLs on the origin",
    );
    const toon = await app.request("/sitemap.toon");
    assert.equal(toon.status, 200);
    assert.equal(toon.headers.get("Cache-Control"), "public, max-age=60");
    assert.deepEqual(decode(await toon.text()), map);
    assert.equal((await app.request("/sitemap.xml")).status, 404);
  } finally {
    core.close();
  }
});

Deno.test("PublicManifests keeps a text per page scan, format and origin, and at most 8 of them per scan", () => {
  const cache = new PublicManifests();
  const a = { page: "/a" } as PageInfo;
  const rescanned = { page: "/a" } as PageInfo;
  cache.set(a, "json", "http://x", "json-x");
  cache.set(a, "toon", "http://x", "toon-x");
  assert.equal(cache.get(a, "json", "http://x"), "json-x");
  assert.equal(cache.get(a, "toon", "http://x"), "toon-x");
  assert.equal(cache.get(a, "json", "http://y"), undefined, "another origin");
  assert.equal(cache.get(rescanned, "json", "http://x"), undefined, "a new scan, a new entry");
  for (let i = 0; i < 8; i++) cache.set(a, "json", `http://h${i}`, `t${i}`);
  assert.equal(cache.get(a, "json", "http://h7"), "t7");
  assert.equal(cache.get(a, "json", "http://x"), undefined, "the oldest gave way");
});
