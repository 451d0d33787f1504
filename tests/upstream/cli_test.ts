/**
 * `aim check URL` and `aim manifest URL` on a live app, and `aim serve --upstream`'s flags.
 * @module
 */
import assert from "node:assert/strict";
import { runAim } from "../helpers/cli.ts";
import { startApp } from "../helpers/upstream.ts";

const GOOD = `<!doctype html><title>Search</title>
<script type="module" src="/__aim/elements.js"></script>
<aim-action name="search" description="Search the catalog" input-example="pens"></aim-action>`;
const BAD = `<!doctype html><title>Bad</title>
<script type="module" src="/__aim/elements.js"></script>
<aim-action name="search" description="Search" input-pattern="[0-9]+" input-example="pens"></aim-action>`;

function app() {
  return startApp((request) => {
    const url = new URL(request.url);
    if (url.pathname === "/good") {
      return new Response(GOOD, { headers: { "Content-Type": "text/html" } });
    }
    if (url.pathname === "/bad") {
      return new Response(BAD, { headers: { "Content-Type": "text/html" } });
    }
    if (url.pathname === "/private") {
      return request.headers.get("cookie") === "sid=1"
        ? new Response(GOOD, { headers: { "Content-Type": "text/html" } })
        : new Response(null, { status: 302, headers: { Location: "/login" } });
    }
    if (url.pathname === "/sitemap.xml") {
      return new Response(
        `<urlset><url><loc>${url.origin}/good</loc></url><url><loc>${url.origin}/bad</loc></url></urlset>`,
      );
    }
    return new Response("no", { status: 404 });
  });
}

Deno.test("aim check URL checks a live page with the same checks as a file", async () => {
  await using live = app();
  const good = await runAim(["check", `${live.url}/good`]);
  assert.equal(good.code, 0, good.stderr);
  const bad = await runAim(["check", `${live.url}/bad`]);
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, new RegExp(`^${live.url}/bad:3:1: .*input_example does not match`, "m"));
});

Deno.test("aim check on a sitemap.xml URL checks every page it lists", async () => {
  await using live = app();
  const result = await runAim(["check", `${live.url}/sitemap.xml`, "--format", "json"]);
  assert.equal(result.code, 1);
  const report = JSON.parse(result.stdout);
  assert.equal(report.files, 2);
  assert.ok(report.problems.every((p: { file: string }) => p.file === `${live.url}/bad`));
});

Deno.test("aim check URL of a page behind a login says so, and --header reaches it", async () => {
  await using live = app();
  const refused = await runAim(["check", `${live.url}/private`]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /answered 302 \(to \/login; a page behind a login needs --header/);
  const signed = await runAim(["check", `${live.url}/private`, "--header", "Cookie: sid=1"]);
  assert.equal(signed.code, 0, signed.stderr);
});

Deno.test("aim manifest URL prints a live page's public manifest with its origin", async () => {
  await using live = app();
  const result = await runAim(["manifest", `${live.url}/good`]);
  assert.equal(result.code, 0, result.stderr);
  const manifest = JSON.parse(result.stdout);
  assert.equal(manifest.page, "/good");
  assert.equal(manifest.state_scope, "public_schema_only");
  assert.equal(manifest.invoke_url, `${live.url}/__aim/invoke`);
  assert.ok(manifest.actions.some((a: { id: string }) => a.id === "search"));
});

Deno.test("aim serve refuses --upstream that is not an http(s) URL, and ROOT beside it", async () => {
  const bad = await runAim(["serve", "--upstream", "ftp://x"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--upstream must be an http\(s\) URL/);
  const both = await runAim(["serve", ".", "--upstream", "http://127.0.0.1:1"]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /give either ROOT, --demo or --upstream/);
});
