/**
 * `deno task compile` (bridge/cli/compile.ts), imported directly: its arguments (with the module
 * graph) embed every bundle the elements are served from and the demo site, each path they name
 * exists, and the hint for a runtime that could not be had names DENORT_BIN and this Deno's
 * version for each kind of failure. The compile itself is tests/cli/compile_test.ts's
 * (`test:packaging`).
 *
 * @module
 */
import assert from "node:assert/strict";
import { COMPILE_ARGS, runtimeHint } from "../../bridge/cli/compile.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("COMPILE_ARGS embed every elements bundle and the demo site, and each path named exists", () => {
  const included = COMPILE_ARGS.flatMap((arg, i) =>
    COMPILE_ARGS[i - 1] === "--include" ? [arg] : []
  );
  const bundles = [...Deno.readDirSync(new URL("elements/", ROOT))]
    .map((entry) => `elements/${entry.name}`)
    .filter((path) => /^elements\/elements\.[a-z]+\.js$/.test(path))
    .sort();
  assert.ok(bundles.length >= 5, "the bundles are built");
  // The module graph embeds what bridge/http/assets.ts imports as text; --include the rest.
  const assets = Deno.readTextFileSync(new URL("bridge/http/assets.ts", ROOT));
  const imported = [
    ...assets.matchAll(/from "\.\.\/\.\.\/(elements\/[^"]+\.js)" with \{ type: "text" \}/g),
  ]
    .map((m) => m[1]!);
  for (const bundle of bundles) {
    assert.ok(included.includes(bundle) || imported.includes(bundle), `${bundle} is embedded`);
  }
  assert.ok(included.includes("demo/site"));
  for (const path of [...included, "main.ts"]) Deno.statSync(new URL(path, ROOT));
  assert.deepEqual(COMPILE_ARGS.slice(-3), ["--output", "dist/aim", "main.ts"]);
  assert.equal(COMPILE_ARGS[0], "compile");
  // Only what the binary needs: no --allow-all, no --allow-run.
  assert.ok(!COMPILE_ARGS.some((arg) => /^--allow-(all|run|ffi|sys)/.test(arg) || arg === "-A"));
});

Deno.test("runtimeHint() explains a runtime that could not be downloaded, or a DENORT_BIN that did not work, and nothing else", () => {
  const version = Deno.version.deno;
  const download = runtimeHint("error: Failed downloading denort-x.zip", undefined);
  assert.match(download!, /^aim compile: deno compile could not download Deno's runtime/);
  assert.ok(download!.includes(`denort-${Deno.build.target}.zip, Deno ${version}`));
  assert.ok(download!.includes(`https://dl.deno.land/release/v${version}/`));
  assert.match(download!, /DENORT_BIN/);
  assert.match(download!, /\n$/);
  for (const stderr of ["Failed to read base binary", "DENORT download failed"]) {
    assert.ok(runtimeHint(stderr, undefined), stderr);
  }
  assert.equal(runtimeHint("error: Module not found main.ts", undefined), undefined);
  const given = runtimeHint("error: /opt/denort is not executable", "/opt/denort");
  assert.equal(
    given,
    `aim compile: DENORT_BIN=/opt/denort did not work as Deno's runtime: it must be the denort binary of Deno ${version} for ${Deno.build.target}\n`,
  );
  assert.ok(runtimeHint("base binary mismatch", "/opt/d"));
  assert.equal(runtimeHint("error: Module not found main.ts", "/opt/denort"), undefined);
});
