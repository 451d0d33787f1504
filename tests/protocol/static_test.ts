import assert from "node:assert/strict";
import { ONE_PROCESS, startBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { tempDir } from "../helpers/temp.ts";

/** Sends a request with a raw request target, which fetch would normalize. */
async function raw(port: number, target: string, host = `127.0.0.1:${port}`): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(
      `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    ),
  );
  const chunks: string[] = [];
  const buffer = new Uint8Array(65536);
  while (true) {
    const n = await conn.read(buffer);
    if (n === null) break;
    chunks.push(new TextDecoder().decode(buffer.subarray(0, n)));
  }
  conn.close();
  return chunks.join("");
}

Deno.test("static files are served with clean URLs and their content types", async () => {
  await using bridge = await startBridge();
  const cases: [string, string, RegExp][] = [
    ["/", "text/html; charset=utf-8", /Home/],
    ["/index.html", "text/html; charset=utf-8", /Home/],
    ["/control-panel", "text/html; charset=utf-8", /Control panel/],
    ["/control-panel.html", "text/html; charset=utf-8", /Control panel/],
    ["/orders", "text/html; charset=utf-8", /Orders/],
    ["/orders/", "text/html; charset=utf-8", /Orders/],
    ["/style.css", "text/css; charset=utf-8", /color/],
  ];
  for (const [path, type, content] of cases) {
    const res = await bridge.fetch(path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("content-type"), type, path);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.match(await res.text(), content, path);
  }
  const head = await bridge.fetch("/style.css", { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");
});

Deno.test("a path that does not exist answers 404 not_found", async () => {
  await using bridge = await startBridge();
  for (const path of ["/missing", "/missing.css", "/orders/missing.html", "/.hidden"]) {
    await expectError(await bridge.fetch(path), 404, "not_found");
  }
});

Deno.test("paths are confined to the site root: dot segments, encoded dots and symlinks out", async () => {
  await using dir = await tempDir("aim-outside-");
  const outside = dir.path;
  Deno.writeTextFileSync(`${outside}/secret.txt`, "TOP SECRET");
  Deno.writeTextFileSync(
    `${outside}/secret.html`,
    `<aim-action name="steal" description="Outside the root"></aim-action>`,
  );
  await using bridge = await startBridge();
  Deno.symlinkSync(`${outside}/secret.txt`, `${bridge.root}/link.txt`);
  Deno.symlinkSync(`${outside}/secret.html`, `${bridge.root}/linked-page.html`);
  Deno.symlinkSync(outside, `${bridge.root}/linked-dir`);
  Deno.writeTextFileSync(`${bridge.root}/.env`, "TOKEN=1");
  const targets = [
    "/../secret.txt",
    "/%2e%2e/secret.txt",
    "/%2E%2E/%2E%2E/etc/passwd",
    "/orders/%2e%2e/%2e%2e/secret.txt",
    "/..%2fsecret.txt",
    "/%2e%2e%2fsecret.txt",
    "/orders/..%5c..%5csecret.txt",
    "/link.txt",
    "/linked-dir/secret.txt",
    "/linked-page",
    "/linked-page.json",
    "/.env",
    "/%2eenv",
    "/index.html%00.css",
  ];
  for (const target of targets) {
    const response = await raw(bridge.port, target);
    assert.match(response, /^HTTP\/1\.1 (404|400)/, target);
    assert.ok(!response.includes("TOP SECRET"), target);
    assert.ok(!response.includes("TOKEN=1"), target);
  }
  const sitemap = await (await bridge.fetch("/sitemap.json")).text();
  assert.ok(!sitemap.includes("linked-page"));
  assert.equal((await bridge.fetch("/style.css")).status, 200);
});

Deno.test("a loopback bridge refuses a Host that is not a loopback name", async () => {
  await using bridge = await startBridge();
  const { port } = bridge;
  for (const host of ["evil.example", "evil.example:80", "127.0.0.1.nip.io", "10.0.0.1", ""]) {
    const response = await raw(port, "/control-panel.json", host);
    assert.match(response, /^HTTP\/1\.1 (403|400)/, host);
    if (host) assert.match(response, /forbidden_host/);
  }
  for (
    const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `app.localhost:${port}`,
      `[::1]:${port}`,
    ]
  ) {
    assert.match(await raw(port, "/control-panel.json", host), /^HTTP\/1\.1 200/, host);
  }
});

Deno.test("allowedHosts extends the loopback Host check", async () => {
  await using bridge = await startBridge({ allowedHosts: ["aim.test"] });
  const { port } = bridge;
  assert.match(await raw(port, "/", `aim.test:${port}`), /^HTTP\/1\.1 200/);
  assert.match(await raw(port, "/", "other.test"), /^HTTP\/1\.1 403/);
});

Deno.test(
  "an absolute request line naming another host is refused like its Host",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge();
    const { port } = bridge;
    const response = await raw(port, "http://evil.example/control-panel.json");
    assert.match(response, /^HTTP\/1\.1 403/);
    assert.match(response, /forbidden_host/);
  },
);

Deno.test("a folder's page asked for without its slash is redirected to it, and the site map publishes that path", async () => {
  await using bridge = await startBridge({
    site: {
      "docs/index.html": `<title>Docs</title><link rel="stylesheet" href="style.css">
<aim-action name="find" description="Find a page of the docs" input-example="intro"></aim-action>`,
      "docs/style.css": "body { color: navy }",
      "guide.html": `<title>Guide</title>`,
    },
  });
  const cases: [string, string][] = [
    ["/docs", "/docs/"],
    ["/docs?lang=en", "/docs/?lang=en"],
    // Never a protocol-relative Location that would leave the site.
    ["//docs", "/docs/"],
  ];
  for (const [target, location] of cases) {
    const answer = await raw(bridge.port, target);
    assert.match(answer, /^HTTP\/1\.1 301 /, target);
    assert.match(answer, new RegExp(`\\r\\nlocation: ${location.replace("?", "\\?")}\\r\\n`, "i"));
  }
  // At /docs/, the page's relative URL finds its stylesheet.
  const page = await bridge.fetch("/docs/");
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<title>Docs<\/title>/);
  assert.equal(
    (await bridge.fetch(new URL("style.css", `${bridge.origin}/docs/`).pathname)).status,
    200,
  );
  // A page file and a file with an extension are served where they are.
  for (const path of ["/guide", "/docs/index.html", "/docs/style.css"]) {
    const res = await bridge.fetch(path, { redirect: "manual" });
    assert.equal(res.status, 200, path);
    await res.body?.cancel();
  }
  const sitemap = await (await bridge.fetch("/sitemap.json")).json();
  const docs = sitemap.pages.find((p: { title: string }) => p.title === "Docs");
  assert.equal(docs.path, "/docs/");
  assert.equal(docs.manifest_json, `${bridge.origin}/docs.json`);
  assert.equal((await bridge.fetch("/docs.json")).status, 200);
});
