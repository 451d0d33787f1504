import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * What runs outside the tests: `aim` (main.ts), the demo that `deno task start` serves, and the
 * elements with their build. Every package in deno.lock must be one of theirs, because Deno
 * downloads every package of the lockfile (and every npm import of deno.json) before it runs
 * anything, `deno task start` included.
 */
const ENTRIES = ["main.ts", "demo/app.ts", "elements/mod.ts", "elements/build.ts"];

interface Info {
  modules: { npmPackage?: string }[];
  npmPackages: Record<string, { name: string; dependencies?: string[] }>;
}

/** The npm packages `entry` loads, with what they depend on, as `name@version` ids. */
async function packagesOf(entry: string): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  assert.ok(out.success, `deno info ${entry}: ${new TextDecoder().decode(out.stderr)}`);
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as Info;
  const seen = new Set<string>();
  const stack = info.modules.flatMap((m) => m.npmPackage ? [m.npmPackage] : []);
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...info.npmPackages[id]?.dependencies ?? []);
  }
  return seen;
}

async function needed(): Promise<Set<string>> {
  const all = new Set<string>();
  for (const entry of ENTRIES) for (const id of await packagesOf(entry)) all.add(id);
  return all;
}

const HOW =
  "A package that only tests (or benchmarks) use is mapped in deno.json to a module in tests/deps/ " +
  "that imports it from npm (see tests/deps/fast_check.ts): tests resolve it through their own " +
  "lockfile, deno.test.lock (`deno task test [FILE...]`), and the start command never sees it.";

Deno.test("deno.lock holds only packages that aim, the demo or the elements build load, so the start command downloads nothing that only tests use", async () => {
  const want = await needed();
  const lock = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.lock`));
  const extra = Object.keys(lock.npm ?? {}).filter((id) => !want.has(id)).sort();
  assert.deepEqual(
    extra,
    [],
    `deno.lock holds ${extra.join(", ")}, which nothing outside the tests loads; ` +
      `\`deno task start\` would download them. ${HOW} ` +
      "`deno install` or a test run outside `deno task test` with --frozen=false puts them there: " +
      "restore deno.lock from git.",
  );
});

Deno.test("deno.json maps no test-only package to npm, since deno task installs every npm import first", async () => {
  const loaded = new Set([...await needed()].map((id) => id.replace(/^(@?[^@]+)@.*$/, "$1")));
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  const unneeded = [
    ...new Set(
      Object.values(config.imports as Record<string, string>)
        .filter((target) => target.startsWith("npm:"))
        .map((target) => target.replace(/^npm:\/?(@?[^@]+)@.*$/, "$1"))
        .filter((name) => !loaded.has(name)),
    ),
  ].sort();
  assert.deepEqual(
    unneeded,
    [],
    `deno.json imports ${
      unneeded.join(", ")
    } from npm, which nothing outside the tests loads. ${HOW}`,
  );
});
