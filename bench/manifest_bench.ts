/**
 * Micro benchmarks of the manifest path (`deno bench --allow-all bench/`): scanning a
 * page's HTML, building a public manifest, encoding it as TOON. Each group has a baseline, so
 * `deno bench` prints how many times slower each step is than the plain operation under it.
 *
 * @module
 */
import { join } from "node:path";
import { parseDocument } from "htmlparser2";
import { encode as encodeToon } from "@toon-format/toon";
import { scanPage } from "../bridge/site/catalog.ts";
import { BridgeCore } from "../bridge/core/bridge.ts";
import { BASIC_SITE } from "../tests/helpers/bridge.ts";

const SMALL = BASIC_SITE["control-panel.html"];
if (SMALL === undefined) throw new Error("BASIC_SITE has no control-panel.html");
// A page closer to a real one: the same declarations under a 200-row table.
const rows = Array.from(
  { length: 200 },
  (_, i) => `<tr><td>req-${i}</td><td>${i * 10}</td><td>pending</td></tr>`,
).join("\n");
const LARGE = SMALL.replace("<body>", `<body><table id="requests">${rows}</table>`);

const root = Deno.makeTempDirSync({ prefix: "aim-bench-" });
for (const [path, content] of Object.entries(BASIC_SITE)) {
  const full = join(root, path);
  Deno.mkdirSync(join(full, ".."), { recursive: true });
  Deno.writeTextFileSync(full, content);
}
// deno bench has no teardown hook; the process's unload event removes the temporary site.
globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));
const core = new BridgeCore({ root });
const ORIGIN = "http://127.0.0.1:8000";
const manifest = await core.manifest("/control-panel", null, ORIGIN);

Deno.bench("htmlparser2 parseDocument, small page", { group: "scan small", baseline: true }, () => {
  parseDocument(SMALL, { withStartIndices: true });
});
Deno.bench("scanPage, small page", { group: "scan small" }, () => {
  scanPage(SMALL, "/control-panel", "control-panel.html");
});

Deno.bench("htmlparser2 parseDocument, 200-row page", {
  group: "scan large",
  baseline: true,
}, () => {
  parseDocument(LARGE, { withStartIndices: true });
});
Deno.bench("scanPage, 200-row page", { group: "scan large" }, () => {
  scanPage(LARGE, "/control-panel", "control-panel.html");
});

// The public manifest is cached per scan, but each lookup still checks the file for changes.
const pageFile = join(root, "control-panel.html");
Deno.bench("one Deno.stat of the page file", { group: "catalog", baseline: true }, async () => {
  await Deno.stat(pageFile);
});
Deno.bench("catalog.agentPage, scan cached", { group: "catalog" }, async () => {
  await core.catalog.agentPage("/control-panel");
});

Deno.bench("JSON.stringify of a built manifest", { group: "manifest", baseline: true }, () => {
  JSON.stringify(manifest);
});
Deno.bench("core.manifest, public (catalog cached)", { group: "manifest" }, async () => {
  await core.manifest("/control-panel", null, ORIGIN);
});
Deno.bench("core.manifest + JSON.stringify", { group: "manifest" }, async () => {
  JSON.stringify(await core.manifest("/control-panel", null, ORIGIN));
});

Deno.bench("JSON.stringify of the manifest", { group: "encode", baseline: true }, () => {
  JSON.stringify(manifest);
});
Deno.bench("TOON encode of the manifest", { group: "encode" }, () => {
  encodeToon(manifest);
});
