/**
 * @module Tests of the elements bundle as a build artifact: fresh, self-contained, small, and
 * served with the right cache headers.
 */
import assert from "node:assert/strict";
import { bundleSize } from "../../bench/bundle_size.ts";
import { ELEMENTS_HASH, ELEMENTS_IMMUTABLE_PATH } from "../../bridge/http/assets.ts";
import { startBridge } from "../helpers/bridge.ts";

const ROOT = new URL("../../", import.meta.url);
const BUNDLE = new URL("elements/elements.bundle.js", ROOT);

Deno.test("the committed bundle is exactly what `deno task bundle` builds from elements/", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const task: string[] = config.tasks.bundle.split(/\s+/);
  assert.equal(task[0], "deno");
  const out = await Deno.makeTempFile({ suffix: ".js" });
  try {
    // The task's own arguments, writing elsewhere.
    const args = task.slice(1).map((arg) => arg === "elements/elements.bundle.js" ? out : arg);
    assert.ok(args.includes(out), "the bundle task writes elements/elements.bundle.js");
    const built = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
    // A boolean, not a diff of two 30 KB lines.
    const fresh = await Deno.readTextFile(out) === await Deno.readTextFile(BUNDLE);
    assert.ok(fresh, "elements/elements.bundle.js is stale: run `deno task bundle`");
  } finally {
    await Deno.remove(out);
  }
});

Deno.test("the bundle is one ES module with no imports, no zod, and the shared readAction", async () => {
  const code = await Deno.readTextFile(BUNDLE);
  assert.doesNotMatch(code, /\bimport\s*[^(;]*?\bfrom\s*["']/, "a static import");
  assert.doesNotMatch(code, /\bimport\s*\(/, "a dynamic import");
  assert.doesNotMatch(code, /zod/i);
  // Messages that only bridge/protocol/markup.ts's readAction produces.
  for (const text of ["is not a whole number", "needs an input-example", "no named fields"]) {
    assert.ok(code.includes(text), `readAction's "${text}" is missing`);
  }
  assert.match(code, /export\s*\{[^}]*\bAimAction\b/);
});

Deno.test("the bundle stays under 12 KiB gzip", async () => {
  const size = await bundleSize();
  assert.ok(
    size.gzipBytes < size.budgetGzipBytes,
    `${size.gzipBytes} bytes gzip, over the budget of ${size.budgetGzipBytes}`,
  );
});

Deno.test("the bridge serves the bundle revalidated by ETag, and an immutable copy under its hash", async () => {
  await using bridge = startBridge();
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

  const other = await bridge.fetch("/__aim/elements.0123456789abcdef.js");
  assert.equal(other.status, 404);
  await other.body?.cancel();
});
