/**
 * The layer check of `deno task check` (.ci/layers.ts): the table allows what the tree does, and
 * an import it does not list (an upward one, a package the folder does not list) fails, naming the
 * file and what it imports; the folders the page shares may list only what runs in a browser.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  BROWSER_PACKAGES,
  browserProblems,
  checkLayers,
  type Layer,
  layerOf,
  LAYERS,
  tableCycles,
} from "../../.ci/layers.ts";
import { type Graph, packageOf } from "../../.ci/graph.ts";
import { tempDir } from "../helpers/temp.ts";

const SCRIPT = fileURLToPath(new URL("../../.ci/layers.ts", import.meta.url));

Deno.test("the layer table has no cycle, so no two folders may import each other", () => {
  assert.deepEqual(tableCycles(), []);
  const layer = (imports: string[]): Layer => ({ imports, packages: [] });
  assert.deepEqual(tableCycles({ a: layer(["b"]), b: layer(["a"]) }), ["a → b → a"]);
});

Deno.test("a folder is its file's directory, and every test folder is one layer", () => {
  assert.equal(layerOf("bridge/wire/schemas.ts"), "bridge/wire");
  assert.equal(layerOf("main.ts"), ".");
  assert.equal(layerOf("tests/unit/layers_test.ts"), "tests");
});

/** A graph of files importing files, and packages when given. */
function graphOf(entries: [string, string[], string[]?][]): Graph {
  return new Map(
    entries.map(([from, files, packages]) => [from, {
      files: new Set(files),
      packages: new Set(packages ?? []),
    }]),
  );
}

Deno.test("checkLayers() allows downward imports and reports an upward one", () => {
  const graph = graphOf([
    ["bridge/core/bridge.ts", ["bridge/wire/schemas.ts", "bridge/core/tab.ts"]],
    ["bridge/wire/schemas.ts", ["bridge/core/bridge.ts"]],
    ["elements/client.ts", ["bridge/http/app.ts"]],
  ]);
  assert.deepEqual(checkLayers(graph), [
    { from: "bridge/wire/schemas.ts", to: "bridge/core/bridge.ts", package: false },
    { from: "elements/client.ts", to: "bridge/http/app.ts", package: false },
  ]);
  assert.ok(LAYERS["bridge/wire"]?.imports.length === 0, "the wire layer imports nothing of ours");
});

Deno.test("checkLayers() reports every package a folder does not list, each server package from the page's folders", () => {
  const server = ["hono", "@redis/client", "@toon-format/toon", "node:crypto", "node:fs", "re2js"];
  for (const folder of ["elements", "bridge/wire", "bridge/markup"]) {
    for (const name of server) {
      const graph = graphOf([[`${folder}/x.ts`, [], [name]]]);
      assert.deepEqual(checkLayers(graph), [{ from: `${folder}/x.ts`, to: name, package: true }]);
    }
  }
  // What a folder lists passes; tests and benchmarks may import any package.
  assert.deepEqual(
    checkLayers(graphOf([
      ["elements/client.ts", [], ["lit", "zod"]],
      ["bridge/share/redis.ts", [], ["@redis/client"]],
      ["bridge/errors/aim_error.ts", [], ["hono"]],
      ["tests/unit/x_test.ts", [], ["node:fs", "hono"]],
      ["bench/run.ts", [], ["@redis/client"]],
    ])),
    [],
  );
  // A package listed for another folder is still refused here.
  assert.deepEqual(checkLayers(graphOf([["bridge/core/x.ts", [], ["@redis/client"]]])), [
    { from: "bridge/core/x.ts", to: "@redis/client", package: true },
  ]);
});

Deno.test("packageOf() names the package of each kind of specifier, and none for a file", () => {
  const cases: [string, string | undefined][] = [
    ["npm:/hono@4.13.19/http-exception", "hono"],
    ["npm:hono@4.13.19", "hono"],
    ["npm:/@redis/client@6.3.1/dist/index.js", "@redis/client"],
    ["npm:@lit/reactive-element@2.1.2", "@lit/reactive-element"],
    ["node:assert/strict", "node:assert"],
    ["node:crypto", "node:crypto"],
    ["jsr:@std/path@1.0.0/join", "jsr:@std/path"],
    ["https://esm.sh/preact@10", "https://esm.sh"],
    ["file:///work/bridge/wire/errors.ts", undefined],
  ];
  for (const [specifier, name] of cases) assert.equal(packageOf(specifier), name, specifier);
});

Deno.test("the page's folders may list only browser folders and browser-safe packages", () => {
  assert.deepEqual(browserProblems(), []);
  for (const folder of ["elements", "bridge/wire", "bridge/markup"]) {
    assert.equal(LAYERS[folder]?.browser, true, folder);
  }
  assert.deepEqual(
    browserProblems({
      "bridge/wire": { imports: [], packages: ["zod", "hono"], browser: true },
      "bridge/core": { imports: [], packages: [] },
      "elements": { imports: ["bridge/wire", "bridge/core"], packages: ["*"], browser: true },
    }),
    [
      "bridge/wire (browser) may import hono",
      "elements (browser) may import bridge/core",
      "elements (browser) may import *",
    ],
  );
  assert.ok(!BROWSER_PACKAGES.includes("hono"));
});

async function runCheck(cwd: string, root: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-run", "--allow-read", SCRIPT, root],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("the check run over a tree where the wire layer imports the core exits 1 and names both files", async () => {
  await using temp = await tempDir("aim-layers-");
  await Deno.mkdir(`${temp.path}/bridge/wire`, { recursive: true });
  await Deno.mkdir(`${temp.path}/bridge/core`, { recursive: true });
  await Deno.writeTextFile(`${temp.path}/bridge/core/bridge.ts`, "export const core = 1;\n");
  await Deno.writeTextFile(
    `${temp.path}/bridge/wire/schemas.ts`,
    'import { core } from "../core/bridge.ts";\nexport const wire = core;\n',
  );
  const bad = await runCheck(temp.path, "bridge/wire/schemas.ts");
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(
    bad.stderr,
    /bridge\/wire\/schemas\.ts imports bridge\/core\/bridge\.ts: bridge\/wire may not import bridge\/core/,
  );
  // The same import downward passes.
  await Deno.writeTextFile(`${temp.path}/bridge/wire/schemas.ts`, "export const wire = 1;\n");
  await Deno.writeTextFile(
    `${temp.path}/bridge/core/bridge.ts`,
    'import { wire } from "../wire/schemas.ts";\nexport const core = wire;\n',
  );
  const good = await runCheck(temp.path, "bridge/core/bridge.ts");
  assert.equal(good.code, 0, good.stderr);
});

Deno.test("the check run over a tree where the elements import hono exits 1 and names the package", async () => {
  await using temp = await tempDir("aim-layers-");
  await Deno.mkdir(`${temp.path}/elements`, { recursive: true });
  await Deno.writeTextFile(
    `${temp.path}/deno.json`,
    JSON.stringify({ imports: { "hono": "npm:hono@4.13.19" } }),
  );
  await Deno.writeTextFile(
    `${temp.path}/elements/client.ts`,
    'import type { Hono } from "hono";\nexport type App = Hono;\nexport const client = 1;\n',
  );
  const bad = await runCheck(temp.path, "elements/client.ts");
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(
    bad.stderr,
    /elements\/client\.ts imports hono: elements may not import package hono/,
  );
  await Deno.writeTextFile(`${temp.path}/elements/client.ts`, "export const client = 1;\n");
  const good = await runCheck(temp.path, "elements/client.ts");
  assert.equal(good.code, 0, good.stderr);
});
