/**
 * The layer check of `deno task check` (.ci/layers.ts): the table allows what the tree does, and
 * an import it does not list (an upward one) fails, naming the file and what it imports.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { checkLayers, layerOf, LAYERS, tableCycles } from "../../.ci/layers.ts";
import { tempDir } from "../helpers/temp.ts";

const SCRIPT = fileURLToPath(new URL("../../.ci/layers.ts", import.meta.url));

Deno.test("the layer table has no cycle, so no two folders may import each other", () => {
  assert.deepEqual(tableCycles(), []);
  assert.deepEqual(tableCycles({ a: ["b"], b: ["a"] }), ["a → b → a"]);
});

Deno.test("a folder is its file's directory, and every test folder is one layer", () => {
  assert.equal(layerOf("bridge/wire/schemas.ts"), "bridge/wire");
  assert.equal(layerOf("main.ts"), ".");
  assert.equal(layerOf("tests/unit/layers_test.ts"), "tests");
});

Deno.test("checkLayers() allows downward imports and reports an upward one", () => {
  const edges = new Map([
    ["bridge/core/bridge.ts", new Set(["bridge/wire/schemas.ts", "bridge/core/tab.ts"])],
    ["bridge/wire/schemas.ts", new Set(["bridge/core/bridge.ts"])],
    ["elements/client.ts", new Set(["bridge/http/app.ts"])],
  ]);
  assert.deepEqual(checkLayers(edges), [
    { from: "bridge/wire/schemas.ts", to: "bridge/core/bridge.ts" },
    { from: "elements/client.ts", to: "bridge/http/app.ts" },
  ]);
  assert.ok(LAYERS["bridge/wire"]?.length === 0, "the wire layer imports nothing of the project");
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
