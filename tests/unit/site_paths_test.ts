/**
 * Site paths (bridge/site/paths.ts): page paths in every spelling a link or an agent may use, and
 * files resolved inside the site root only: `..`, dot segments, dotfiles, NUL, backslashes and
 * symlinks out of the root are refused, whatever the spelling.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  decodePath,
  normalizePage,
  pageLocation,
  segments,
  SiteRoot,
} from "../../bridge/site/paths.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test("normalizePage() gives one page path for each spelling of it", () => {
  const table: [string, string][] = [
    ["/", "/"],
    ["/index", "/"],
    ["/index.html", "/"],
    ["/index.htm", "/"],
    ["/control-panel", "/control-panel"],
    ["/control-panel.html", "/control-panel"],
    ["/control-panel.htm", "/control-panel"],
    ["/control-panel/", "/control-panel"],
    ["/control-panel//", "/control-panel"],
    ["/docs/index.html", "/docs"],
    ["/docs/index", "/docs"],
    ["/docs/intro.html", "/docs/intro"],
    ["/docs/", "/docs"],
    ["//", "/"],
  ];
  for (const [path, page] of table) assert.equal(normalizePage(path), page, path);
  // Twice: the second answer comes from what it remembered.
  for (const [path, page] of table) assert.equal(normalizePage(path), page, `${path} again`);
});

Deno.test("normalizePage() refuses what cannot be a page: relative, dot segments, dotfiles, NUL, backslashes", () => {
  for (
    const path of [
      "",
      "control-panel",
      "/.",
      "/..",
      "/../etc/passwd",
      "/docs/../secret",
      "/.git",
      "/.env.html",
      "/docs/.hidden/page",
      "/a\0b",
      "/a\\b",
      "\\a",
    ]
  ) {
    assert.equal(normalizePage(path), null, JSON.stringify(path));
  }
});

Deno.test("normalizePage() takes a path of exactly 2048 characters and refuses one of 2049", () => {
  const at = "/" + "a".repeat(2047);
  assert.equal(normalizePage(at), at);
  assert.equal(normalizePage(at + "a"), null);
});

Deno.test("segments() are a path's parts, or null for a dot segment, a dotfile, NUL or a backslash", () => {
  assert.deepEqual(segments("/"), []);
  assert.deepEqual(segments("/a//b/"), ["a", "b"]);
  assert.deepEqual(segments("a/b.html"), ["a", "b.html"]);
  for (const path of ["/.", "/..", "/a/./b", "/a/../b", "/.git/config", "/a\0", "/a\\b"]) {
    assert.equal(segments(path), null, JSON.stringify(path));
  }
});

Deno.test("decodePath() decodes percent escapes, and refuses an invalid one", () => {
  assert.equal(decodePath("/a%20b"), "/a b");
  assert.equal(decodePath("/%2e%2e/x"), "/../x", "decoded first, refused by segments() after");
  assert.equal(segments(decodePath("/%2e%2e/x")!), null);
  for (const raw of ["/%", "/%zz", "/%E0%A4%A"]) assert.equal(decodePath(raw), null, raw);
});

Deno.test("pageLocation() puts a folder's page at its folder with a slash", () => {
  assert.equal(pageLocation("/docs", "/site/docs/index.html"), "/docs/");
  assert.equal(pageLocation("/docs", "/site/docs/index.htm"), "/docs/");
  assert.equal(pageLocation("/docs", "C:\\site\\docs\\index.html"), "/docs/");
  assert.equal(pageLocation("/docs", "/site/docs.html"), "/docs");
  assert.equal(pageLocation("/", "/site/index.html"), "/", "the root has its slash");
  assert.equal(pageLocation("/a", "/site/a/myindex.html"), "/a");
});

/** A site with pages, a dotfile, a folder page, and symlinks in and out of the root. */
async function site(dir: string) {
  const root = join(dir, "site");
  const files: Record<string, string> = {
    "index.html": "home",
    "about.html": "about",
    "docs/index.html": "docs",
    "docs/intro.html": "intro",
    "style.css": "css",
    ".env": "SECRET=1",
    ".hidden/page.html": "hidden",
    "plain": "no extension",
  };
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(join(root, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, path), content);
  }
  await Deno.writeTextFile(join(dir, "outside.html"), "outside");
  await Deno.mkdir(join(dir, "outside-folder"));
  await Deno.writeTextFile(join(dir, "outside-folder", "page.html"), "outside");
  await Deno.symlink(join(dir, "outside.html"), join(root, "escape.html"));
  await Deno.symlink(join(dir, "outside-folder"), join(root, "escape-folder"));
  await Deno.symlink(join(root, "about.html"), join(root, "alias.html"));
  // A sibling folder whose name starts with the root's: outside, though its path shares a prefix.
  await Deno.mkdir(join(dir, "site-private"));
  await Deno.writeTextFile(join(dir, "site-private", "secret.html"), "secret");
  await Deno.symlink(join(dir, "site-private", "secret.html"), join(root, "sibling.html"));
  await Deno.symlink(join(dir, "site-private"), join(root, "sibling-folder"));
  return new SiteRoot(root);
}

Deno.test("SiteRoot.file() finds the file, then .html, then index.html, inside the root", async () => {
  await using dir = await tempDir();
  const root = await site(dir.path);
  const at = (path: string) => join(root.path, path);
  assert.equal(await root.file("/about.html"), at("about.html"));
  assert.equal(await root.file("/about"), at("about.html"));
  assert.equal(await root.file("/docs"), at("docs/index.html"));
  assert.equal(await root.file("/docs/"), at("docs/index.html"));
  assert.equal(await root.file("/style.css"), at("style.css"));
  assert.equal(await root.file("/plain"), at("plain"), "the file itself comes first");
  assert.equal(await root.file("/alias.html"), at("about.html"), "a symlink inside the root");
  assert.equal(await root.file("/"), at("index.html"));
});

Deno.test("SiteRoot.file() without clean URLs finds only the file itself", async () => {
  await using dir = await tempDir();
  const root = await site(dir.path);
  assert.equal(await root.file("/about", { cleanUrls: false }), null);
  assert.equal(await root.file("/docs", { cleanUrls: false }), null, "a folder is not a file");
  assert.equal(await root.file("/about.html", { cleanUrls: false }), join(root.path, "about.html"));
  assert.equal(await root.file("/style.css.html"), null, "a name with an extension gets none");
});

Deno.test("SiteRoot.file() refuses dotfiles, dot segments and symlinks out of the root", async () => {
  await using dir = await tempDir();
  const root = await site(dir.path);
  for (
    const path of [
      "/.env",
      "/.hidden/page.html",
      "/../outside.html",
      "/docs/../../outside.html",
      "/escape.html",
      "/escape",
      "/escape-folder/page.html",
      "/sibling.html",
      "/sibling-folder/secret.html",
      "/missing.html",
      "/a\0.html",
    ]
  ) {
    assert.equal(await root.file(path), null, path);
  }
});

Deno.test("SiteRoot.pageFile() finds a page's HTML file, as a file or as its folder's index", async () => {
  await using dir = await tempDir();
  const root = await site(dir.path);
  assert.equal(await root.pageFile("/"), join(root.path, "index.html"));
  assert.equal(await root.pageFile("/about"), join(root.path, "about.html"));
  assert.equal(await root.pageFile("/docs"), join(root.path, "docs/index.html"));
  assert.equal(await root.pageFile("/docs/intro"), join(root.path, "docs/intro.html"));
  assert.equal(await root.pageFile("/style"), null);
  assert.equal(await root.pageFile("/escape"), null, "a symlink out of the root");
});

Deno.test("SiteRoot.pages() lists the HTML pages inside the root, without dotfiles or symlinks out", async () => {
  await using dir = await tempDir();
  const root = await site(dir.path);
  assert.deepEqual(await root.pages(), ["/", "/about", "/alias", "/docs", "/docs/intro"]);
});

Deno.test("SiteRoot.pages() walks folders 16 deep and no deeper", async () => {
  await using dir = await tempDir();
  const deep = (levels: number) => Array.from({ length: levels }, () => "d").join("/");
  for (const levels of [16, 17]) {
    await Deno.mkdir(join(dir.path, deep(levels)), { recursive: true });
    await Deno.writeTextFile(join(dir.path, deep(levels), `page${levels}.html`), "x");
  }
  const pages = await new SiteRoot(dir.path).pages();
  assert.deepEqual(pages, [`/${deep(16)}/page16`]);
});
