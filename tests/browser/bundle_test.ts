/**
 * Tests of the elements as a build artifact: fresh, self-contained, small up front, the
 * panel, the dialog, WebMCP and `<aim-action>`'s markup reader in chunks loaded on demand, and
 * served with the right cache headers.
 *
 * @module
 */
import assert from "node:assert/strict";
import { BUDGET_GZIP_BYTES, bundleSize, importsOf } from "../../bench/bundle_size.ts";
import {
  ELEMENTS_CHUNKS,
  ELEMENTS_HASH,
  ELEMENTS_IMMUTABLE_PATH,
} from "../../bridge/http/assets.ts";
import { startBridge } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";
import {
  Agent,
  ELEMENTS,
  launchBrowser,
  NO_CHROMIUM,
  panelToken,
  recordChannel,
  Warnings,
} from "./harness.ts";

const ROOT = new URL("../../", import.meta.url);
const ELEMENTS_DIR = new URL("elements/", ROOT);
const BUNDLE = new URL("elements.bundle.js", ELEMENTS_DIR);
/** The files elements/build.ts writes. */
const FILES = [
  "elements.bundle.js",
  "elements.shared.js",
  "elements.readers.js",
  "elements.markup.js",
  "elements.panel.js",
  "elements.dialog.js",
  "elements.webmcp.js",
  "elements.state.js",
  "elements.bindings.js",
  "elements.warnings.js",
  "elements.webmcp-api.js",
];

const read = (file: string) => Deno.readTextFile(new URL(file, ELEMENTS_DIR));

Deno.test("the committed build is exactly what `deno task bundle` builds from elements/", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const task: string[] = config.tasks.bundle.split(/\s+/);
  assert.equal(task[0], "deno");
  await using temp = await tempDir("aim-build-");
  const dir = temp.path;
  // The task's own arguments, writing elsewhere.
  const out = `${dir}/elements.bundle.js`;
  const args = task.slice(1).map((arg) => arg === "elements/elements.bundle.js" ? out : arg);
  assert.ok(args.includes(out), "the bundle task writes elements/elements.bundle.js");
  const built = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
  const written = [];
  for await (const entry of Deno.readDir(dir)) written.push(entry.name);
  assert.deepEqual(written.sort(), [...FILES].sort());
  for (const file of FILES) {
    // A boolean, not a diff of two 20 KB lines.
    const fresh = await Deno.readTextFile(`${dir}/${file}`) === await read(file);
    assert.ok(fresh, `elements/${file} is stale: run \`deno task bundle\``);
  }
});

Deno.test("the build is the same bytes wherever the checkout is", async () => {
  // deno bundle names its chunks by a hash of the absolute path; CI checks out elsewhere.
  await using temp = await tempDir("aim-checkout-");
  const copy = `${temp.path}/a/deeper/checkout/`;
  for (const path of ["deno.json", "deno.lock", "elements/", "bridge/wire/", "bridge/markup/"]) {
    await copyTree(new URL(path, ROOT), `${copy}${path}`);
  }
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["task", "bundle"],
    cwd: copy,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
  for (const file of FILES) {
    const same = await Deno.readTextFile(`${copy}elements/${file}`) === await read(file);
    assert.ok(same, `elements/${file} differs when built at another path`);
  }
});

/** Copies a file, or a folder and everything in it. */
async function copyTree(from: URL, to: string): Promise<void> {
  if ((await Deno.stat(from)).isFile) {
    await Deno.mkdir(to.replace(/[^/]+$/, ""), { recursive: true });
    return await Deno.copyFile(from, to);
  }
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const name = entry.isDirectory ? `${entry.name}/` : entry.name;
    await copyTree(new URL(name, from), `${to.replace(/\/?$/, "/")}${name}`);
  }
}

Deno.test("the modules import only each other, by the URLs the bridge serves them at", async () => {
  const imported = new Set<string>();
  for (const file of FILES) {
    const code = await read(file);
    // Every specifier: static imports, re-exports and import().
    const pattern = /(?<![\w$."'])(?:from\s*|import\s*\(\s*|import\s*)(["'])(.*?)\1/g;
    for (const [, , specifier] of code.matchAll(pattern)) {
      const url = new URL(specifier!, "http://x/__aim/elements.js");
      const path = url.pathname + url.search;
      assert.ok(ELEMENTS_CHUNKS.has(path), `${file} imports ${specifier}, which is not served`);
      imported.add(path);
    }
  }
  // And every chunk served is imported by one of them.
  assert.deepEqual([...imported].sort(), [...ELEMENTS_CHUNKS.keys()].sort());
  // The entry and the classic script of /__aim/webmcp.js are no chunks.
  assert.equal(ELEMENTS_CHUNKS.size, FILES.length - 2);
});

Deno.test("up front: the client and the readers of <aim-state>, without zod, lit-html, the panel, the dialog, WebMCP or readAction", async () => {
  const size = await bundleSize();
  assert.deepEqual(size.upFront.map((m) => m.file), [
    "elements.bundle.js",
    "elements.readers.js",
    "elements.shared.js",
  ]);
  assert.deepEqual(size.lazy.map((m) => m.file).sort(), [
    "elements.bindings.js",
    "elements.dialog.js",
    "elements.markup.js",
    "elements.panel.js",
    "elements.state.js",
    "elements.warnings.js",
    "elements.webmcp.js",
  ]);
  const upFront = (await Promise.all(size.upFront.map((m) => read(m.file)))).join("\n");
  // Booleans, not 20 KB of code in a failure.
  assert.ok(!/zod/i.test(upFront), "zod is up front");
  // Messages that only bridge/markup/action.ts's readAction (and the form reader it calls)
  // produces: in the markup reader's chunk, loaded once something reads the page's actions.
  const markup = await read("elements.markup.js");
  for (
    const text of ["is not a whole number", "the JSON schema must be an object", "no named fields"]
  ) {
    assert.ok(!upFront.includes(text), `readAction's "${text}" is up front`);
    assert.ok(markup.includes(text), `readAction's "${text}" is not in the markup chunk`);
  }
  // It shares with the entry only the readers <aim-state> reads with (deep selectors, a child's
  // JSON), which import nothing: not the client, which would load twice.
  const readers = importsOf(markup);
  assert.deepEqual([...readers.static, ...readers.dynamic], ["elements.readers.js"]);
  const own = importsOf(await read("elements.readers.js"));
  assert.deepEqual([...own.static, ...own.dynamic], []);
  assert.ok(/export\s*\{[^}]*\bAimAction\b/.test(await read("elements.bundle.js")));
  // lit-html and LitElement announce themselves; only the panel needs them.
  assert.ok(!/litHtmlVersions|litElementVersions/.test(upFront), "lit-html is up front");
  assert.ok((await read("elements.panel.js")).includes("litHtmlVersions"));
  assert.ok(
    !/Agent access|Allow the agent to run|registerTool/.test(upFront),
    "the panel, the dialog or WebMCP is up front",
  );
  // The entry imports the panel, and the client the dialog and WebMCP, on demand.
  assert.deepEqual(importsOf(await read("elements.bundle.js")).dynamic.sort(), [
    "elements.bindings.js",
    "elements.panel.js",
    "elements.state.js",
  ]);
  // The client loads the bindings' chunk, which runs invocations, with the first one, and the
  // markup reader (elements/load_markup.ts) before it first registers the page's actions.
  assert.deepEqual(importsOf(await read("elements.shared.js")).dynamic.sort(), [
    "elements.bindings.js",
    "elements.dialog.js",
    "elements.markup.js",
    "elements.warnings.js",
    "elements.webmcp.js",
  ]);
  // WebMCP gets the client from the entry: its chunk imports only the warnings' words, on
  // demand, so carries no copy of the client.
  const webmcp = importsOf(await read("elements.webmcp.js"));
  assert.deepEqual([...webmcp.static, ...webmcp.dynamic], ["elements.warnings.js"]);
  // The warnings' words import nothing.
  const words = importsOf(await read("elements.warnings.js"));
  assert.deepEqual([...words.static, ...words.dynamic], []);
  assert.ok((await read("elements.webmcp.js")).includes("registerTool"));
  // The structured state reader imports nothing either, so the shared chunk stays one.
  const state = importsOf(await read("elements.state.js"));
  assert.deepEqual([...state.static, ...state.dynamic], []);
  assert.ok(!upFront.includes("checkVisibility"), "the structured state reader is up front");
  // <aim-action>'s bindings (click=, fill=, form=) and the invocations they run in load with the
  // first one, importing nothing.
  const bindings = importsOf(await read("elements.bindings.js"));
  assert.deepEqual([...bindings.static, ...bindings.dynamic], []);
  assert.ok(!upFront.includes("requestSubmit"), "the bindings are up front");
  assert.ok(!upFront.includes("Asking the person."), "the invocations are up front");
  assert.ok((await read("elements.bindings.js")).includes("Asking the person."));
});

Deno.test("what a page loads up front stays within 12,000 bytes gzip", async () => {
  const size = await bundleSize();
  assert.equal(size.budgetGzipBytes, 12_000);
  assert.ok(
    size.gzipBytes <= BUDGET_GZIP_BYTES,
    `${size.gzipBytes} bytes gzip up front, over the budget of ${BUDGET_GZIP_BYTES}`,
  );
});

Deno.test("the bridge serves the entry revalidated by ETag, and it and every chunk immutable under their hash", async () => {
  await using bridge = await startBridge();
  const bytes = await Deno.readFile(BUNDLE);

  const res = await bridge.fetch("/__aim/elements.js");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("Content-Type")!, /^text\/javascript/);
  assert.equal(res.headers.get("Cache-Control"), "no-cache");
  const etag = res.headers.get("ETag")!;
  assert.equal(etag.replace(/^W\//, ""), `"${ELEMENTS_HASH}"`);
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);

  const again = await bridge.fetch("/__aim/elements.js", { headers: { "If-None-Match": etag } });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), "");

  const head = await bridge.fetch("/__aim/elements.js", { method: "HEAD" });
  assert.equal(head.status, 200);
  await head.body?.cancel();

  const pinned = await bridge.fetch(ELEMENTS_IMMUTABLE_PATH);
  assert.equal(pinned.status, 200);
  assert.equal(pinned.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
  assert.deepEqual(new Uint8Array(await pinned.arrayBuffer()), bytes);

  const api = await bridge.fetch("/__aim/webmcp.js");
  assert.equal(api.status, 200);
  assert.match(api.headers.get("Content-Type")!, /^text\/javascript/);
  assert.equal(api.headers.get("Cache-Control"), "no-cache");
  assert.deepEqual(
    new Uint8Array(await api.arrayBuffer()),
    await Deno.readFile(new URL("elements.webmcp-api.js", ELEMENTS_DIR)),
  );
  const apiAgain = await bridge.fetch("/__aim/webmcp.js", {
    headers: { "If-None-Match": api.headers.get("ETag")! },
  });
  assert.equal(apiAgain.status, 304);
  await apiAgain.body?.cancel();

  for (const file of FILES.slice(1, -1)) {
    const name = file.replace(/\.js$/, "");
    const path = [...ELEMENTS_CHUNKS.keys()].find((p) => p.startsWith(`/__aim/${name}.js?v=`));
    assert.ok(path, `${file} is not served`);
    const chunk = await bridge.fetch(path);
    assert.equal(chunk.status, 200);
    assert.match(chunk.headers.get("Content-Type")!, /^text\/javascript/);
    assert.equal(chunk.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
    assert.deepEqual(
      new Uint8Array(await chunk.arrayBuffer()),
      await Deno.readFile(new URL(file, ELEMENTS_DIR)),
    );
    const cached = await bridge.fetch(path, {
      headers: { "If-None-Match": chunk.headers.get("ETag")! },
    });
    assert.equal(cached.status, 304);
    await cached.body?.cancel();
  }

  // Only the build's output, at the URLs its content names.
  const [panel] = [...ELEMENTS_CHUNKS.values()].filter((c) => c.path.endsWith(".panel.js"));
  assert.ok(panel, "the build has a panel chunk");
  for (
    const path of [
      "/__aim/elements.0123456789abcdef.js",
      "/__aim/elements.panel.js?v=0123456789abcdef",
      `/__aim/elements.panel.js?v=${panel.hash}&v=0123456789abcdef`,
      `/__aim/elements.panel.js?x=1&v=${panel.hash}`,
      "/__aim/elements.panel.js",
      "/__aim/elements.shared.js",
      "/__aim/elements.bundle.js",
      "/__aim/build.ts",
      "/__aim/mod.ts",
      "/__aim/elements/client.ts",
      "/__aim/elements.panel.ts",
    ]
  ) {
    const other = await bridge.fetch(path);
    assert.equal(other.status, 404, path);
    await other.body?.cancel();
  }
});

Deno.test({
  name:
    "a page loads the entry, the shared chunk and the readers up front, the markup reader once its session registers its actions, and the panel's chunk (with the dialog's, which holds the rules of every prompt) once an <aim-panel> is in it",
  ignore: NO_CHROMIUM,
  async fn() {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({
      site: {
        "plain.html": `<!doctype html><title>Plain</title>${ELEMENTS}
<aim-action name="search" description="Search" input-example="x"></aim-action>`,
      },
    });
    await using context = await browser.context();
    const tab = await context.newPage();
    await recordChannel(tab);
    const loaded: string[] = [];
    tab.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      // Each module once, by the URL the build gave it.
      if (path.startsWith("/__aim/elements")) loaded.push(path);
    });
    await tab.goto(`${bridge.origin}/plain`);
    await tab.waitForFunction(async () => {
      const url = "/__aim/elements.js";
      return (await import(url)).client.declarations.length === 1;
    });
    assert.deepEqual(loaded.slice(0, 3).sort(), [
      "/__aim/elements.js",
      "/__aim/elements.readers.js",
      "/__aim/elements.shared.js",
    ]);
    assert.deepEqual(loaded.slice(3), ["/__aim/elements.markup.js"]);
    // The bridge never holds the page without its actions: after `hello`, the first message is
    // the register of the action, read once the reader loaded, and the state follows it.
    const sent = await tab.evaluate(() =>
      (window as unknown as { aimSent: string[] }).aimSent.map((text) => JSON.parse(text))
    );
    assert.deepEqual(sent.slice(0, 3).map((m) => m.type), ["hello", "register", "state"]);
    assert.deepEqual(sent[1].actions.map((a: { id: string }) => a.id), ["search"]);
    assert.ok(
      sent.every((m) => m.type !== "register" || m.actions.length === 1),
      "a register without the action was sent",
    );

    // A panel added later, deep in the page, is found, loaded and rendered.
    await tab.evaluate(() => {
      const box = document.createElement("div");
      box.innerHTML = "<section><aim-panel></aim-panel></section>";
      document.body.append(box);
    });
    await panelToken(tab);
    assert.deepEqual(loaded.slice(3), [
      "/__aim/elements.markup.js",
      "/__aim/elements.panel.js",
      "/__aim/elements.dialog.js",
    ]);
  },
});

Deno.test({
  name:
    "a page that declares no <aim-action> never loads the markup reader, its session registered all the same",
  ignore: NO_CHROMIUM,
  async fn() {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({
      site: {
        "state.html": `<!doctype html><title>State</title>${ELEMENTS}
<aim-state name="count" value="3"></aim-state>`,
      },
    });
    await using context = await browser.context();
    const tab = await context.newPage();
    const loaded: string[] = [];
    tab.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith("/__aim/elements")) loaded.push(path);
    });
    await tab.goto(`${bridge.origin}/state`);
    const agent = new Agent(
      bridge,
      await tab.waitForFunction(async () => {
        const url = "/__aim/elements.js";
        const { client } = await import(url);
        return client.status === "connected" && client.token;
      }).then((handle) => handle.jsonValue() as Promise<string>),
    );
    // Its state is in: the session was registered, without the markup reader.
    const manifest = await agent.manifestWhen("/state.json", (m) => m.state?.count === "3");
    // The bridge's own actions only.
    for (const { id } of manifest.body.actions) assert.match(id, /^(disconnect|login)$/);
    assert.ok(!loaded.includes("/__aim/elements.markup.js"), loaded.join(", "));
  },
});

Deno.test({
  name:
    "a page whose markup reader cannot be fetched says so once, and registers its state without its <aim-action>s",
  ignore: NO_CHROMIUM,
  async fn() {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({
      site: {
        "blocked.html": `<!doctype html><title>Blocked</title>${ELEMENTS}
<aim-action name="search" description="Search" input-example="x"></aim-action>
<aim-state name="count" value="3"></aim-state>`,
      },
    });
    await using context = await browser.context();
    const tab = await context.newPage();
    const warnings = new Warnings(tab);
    // A proxy that blocks the chunk.
    await tab.setRequestInterception(true);
    tab.on("request", (request) => {
      if (new URL(request.url()).pathname === "/__aim/elements.markup.js") request.abort();
      else request.continue();
    });
    await tab.goto(`${bridge.origin}/blocked`);
    await warnings.waitFor(/the action markup did not load: .*#chunk-not-loaded/);
    const token = await tab.waitForFunction(async () => {
      const url = "/__aim/elements.js";
      const { client } = await import(url);
      return client.status === "connected" && client.token;
    }).then((handle) => handle.jsonValue() as Promise<string>);
    const agent = new Agent(bridge, token);
    const manifest = await agent.manifestWhen("/blocked.json", (m) => m.state?.count === "3");
    for (const { id } of manifest.body.actions) assert.match(id, /^(disconnect|login)$/);
    assert.equal(warnings.lines.filter((line) => /did not load/.test(line)).length, 1);
  },
});
