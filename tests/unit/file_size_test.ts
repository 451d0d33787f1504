/**
 * The module size check of `deno task check` (.ci/file_size.ts): no TypeScript module of the
 * tree, test files included, has more than 500 lines, and the check names each one that does.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { lineCount, MAX_LINES, oversized } from "../../.ci/file_size.ts";
import { tempDir } from "../helpers/temp.ts";

const SCRIPT = fileURLToPath(new URL("../../.ci/file_size.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The paths `deno task check` holds to the bound (deno.json's `check` task): the whole tree. */
const CHECKED = ["bridge", "elements", "tests", "bench", ".ci", "main.ts", "demo"];

/** `n` lines of code, each ended by a line break. */
const lines = (n: number) => "const x = 1;\n".repeat(n);

/** Runs the check as `deno task check` does, in `cwd`, over `paths`. */
async function runCheck(cwd: string, paths: string[]): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", SCRIPT, ...paths],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("lineCount() counts the lines of a text, with or without a last line break", () => {
  const cases: [string, number][] = [
    ["", 0],
    ["a", 1],
    ["a\n", 1],
    ["a\nb", 2],
    ["a\nb\n", 2],
    ["\n", 1],
    ["a\n\n", 2],
  ];
  for (const [text, count] of cases) assert.equal(lineCount(text), count, JSON.stringify(text));
});

Deno.test("oversized() names the modules over the bound, and only TypeScript ones", async () => {
  await using temp = await tempDir("aim-file-size-");
  await Deno.mkdir(`${temp.path}/lib/deep`, { recursive: true });
  await Deno.writeTextFile(`${temp.path}/lib/at.ts`, lines(MAX_LINES));
  await Deno.writeTextFile(`${temp.path}/lib/deep/over.ts`, lines(MAX_LINES + 1));
  await Deno.writeTextFile(`${temp.path}/lib/deep/over.tsx`, lines(MAX_LINES + 3));
  await Deno.writeTextFile(`${temp.path}/lib/bundle.js`, lines(MAX_LINES * 2));
  await Deno.writeTextFile(`${temp.path}/one.ts`, lines(MAX_LINES + 2));
  assert.deepEqual(await oversized([`${temp.path}/lib`, `${temp.path}/one.ts`]), [
    `${temp.path}/lib/deep/over.ts: ${MAX_LINES + 1} lines`,
    `${temp.path}/lib/deep/over.tsx: ${MAX_LINES + 3} lines`,
    `${temp.path}/one.ts: ${MAX_LINES + 2} lines`,
  ]);
  assert.deepEqual(await oversized([`${temp.path}/lib/at.ts`]), []);
});

Deno.test("no module of the tree deno task check bounds has more than 500 lines", async () => {
  const { code, stderr } = await runCheck(ROOT, CHECKED);
  assert.equal(code, 0, stderr);
});

Deno.test("deno task check bounds the whole tree", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const task: string = config.tasks.check;
  assert.ok(
    task.includes(`deno run --allow-read .ci/file_size.ts ${CHECKED.join(" ")}`),
    `the check task does not run .ci/file_size.ts over ${CHECKED.join(" ")}: ${task}`,
  );
  // Every TypeScript file of the repository (not what .gitignore leaves out) is under one of them.
  const ignored = (await Deno.readTextFile(`${ROOT}.gitignore`)).split("\n")
    .map((line) => line.trim().replace(/\/$/, "")).filter(Boolean);
  let seen = 0;
  for (const entry of Deno.readDirSync(ROOT)) {
    if (entry.name.startsWith(".git") || ignored.includes(entry.name)) continue;
    const modules = await oversized([`${ROOT}${entry.name}`], -1);
    seen += modules.length;
    if (modules.length) {
      assert.ok(CHECKED.includes(entry.name), `${entry.name} is not under the paths bounded`);
    }
  }
  assert.ok(seen > 400, `only ${seen} modules found`);
});

Deno.test("the check run over a folder with a long module exits 1 and names it", async () => {
  await using temp = await tempDir("aim-file-size-");
  await Deno.mkdir(`${temp.path}/lib`);
  await Deno.writeTextFile(`${temp.path}/lib/long.ts`, lines(MAX_LINES + 1));
  const bad = await runCheck(temp.path, ["lib"]);
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(bad.stderr, /over 500 lines: lib\/long\.ts: 501 lines/);
  await Deno.writeTextFile(`${temp.path}/lib/long.ts`, lines(MAX_LINES));
  const good = await runCheck(temp.path, ["lib"]);
  assert.equal(good.code, 0, good.stderr);
});
