/**
 * The cycle check of `deno task check` (.ci/cycles.ts): no two files import each other, directly
 * or through others, and the check names the files of each cycle.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { fileCycles } from "../../.ci/cycles.ts";
import type { Graph } from "../../.ci/graph.ts";
import { tempDir } from "../helpers/temp.ts";

const SCRIPT = fileURLToPath(new URL("../../.ci/cycles.ts", import.meta.url));

/** A graph of files importing files. */
function graphOf(edges: Record<string, string[]>): Graph {
  return new Map(
    Object.entries(edges).map(([from, to]) => [from, { files: new Set(to), packages: new Set() }]),
  );
}

Deno.test("fileCycles() finds none in a tree that only imports downward", () => {
  assert.deepEqual(
    fileCycles(graphOf({ "a.ts": ["b.ts", "c.ts"], "b.ts": ["c.ts"], "c.ts": [] })),
    [],
  );
});

Deno.test("fileCycles() names each cycle by its files, from the first in order, once per group", () => {
  const cases: [Record<string, string[]>, string[]][] = [
    // Two files importing each other, as markup/action.ts and element.ts did.
    [{ "x/b.ts": ["x/a.ts"], "x/a.ts": ["x/b.ts"] }, ["x/a.ts → x/b.ts → x/a.ts"]],
    // Through a third file.
    [{ "a.ts": ["b.ts"], "b.ts": ["c.ts"], "c.ts": ["a.ts"] }, ["a.ts → b.ts → c.ts → a.ts"]],
    // A file importing itself.
    [{ "a.ts": ["a.ts"] }, ["a.ts → a.ts"]],
    // Two separate cycles, and a file that only imports into one.
    [
      { "a.ts": ["b.ts"], "b.ts": ["a.ts"], "c.ts": ["d.ts", "a.ts"], "d.ts": ["c.ts"] },
      ["a.ts → b.ts → a.ts", "c.ts → d.ts → c.ts"],
    ],
    // The shortest way back when a group holds several.
    [
      { "a.ts": ["b.ts", "c.ts"], "b.ts": ["c.ts"], "c.ts": ["a.ts"] },
      ["a.ts → c.ts → a.ts"],
    ],
  ];
  for (const [edges, cycles] of cases) assert.deepEqual(fileCycles(graphOf(edges)), cycles);
});

Deno.test("fileCycles() walks a long chain without overflowing the stack", () => {
  const edges: Record<string, string[]> = {};
  const size = 20_000;
  for (let i = 0; i < size; i++) edges[`f${i}.ts`] = [`f${(i + 1) % size}.ts`];
  const [cycle] = fileCycles(graphOf(edges));
  assert.equal(cycle?.split(" → ").length, size + 1);
});

Deno.test("the project's modules import one another without a cycle", async () => {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-run",
      "--allow-read",
      SCRIPT,
      "main.ts",
      "demo/app.ts",
      "elements/mod.ts",
    ],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
});

Deno.test("the check run over a tree with a cycle exits 1 and names its files", async () => {
  await using temp = await tempDir("aim-cycles-");
  await Deno.mkdir(`${temp.path}/lib`);
  await Deno.writeTextFile(
    `${temp.path}/lib/a.ts`,
    'import type { B } from "./b.ts";\nexport type A = { b?: B };\n',
  );
  await Deno.writeTextFile(
    `${temp.path}/lib/b.ts`,
    'import type { A } from "./a.ts";\nexport type B = { a?: A };\n',
  );
  const run = async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-run", "--allow-read", SCRIPT, "lib/a.ts"],
      cwd: temp.path,
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
  };
  const bad = await run();
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(bad.stderr, /import cycle: lib\/a\.ts → lib\/b\.ts → lib\/a\.ts/);
  await Deno.writeTextFile(`${temp.path}/lib/b.ts`, "export type B = { n: number };\n");
  const good = await run();
  assert.equal(good.code, 0, good.stderr);
});
