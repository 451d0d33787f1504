/**
 * `deno task mutants [NAME…]`: applies each named mutant (tests/mutants/*.ts) in turn to a scratch
 * copy of the repository, runs the test files it names, and reports the mutants no test killed.
 * Exits 1 when one survives, 2 when the list itself is wrong (a `find` that is not in its file
 * exactly once, a name used twice, a test file that does not exist).
 *
 * A mutant of the elements' source (elements/*.ts) rebuilds the elements in the scratch copy
 * (`deno task bundle`) before its tests run, since browsers load the build.
 *
 * Options: `--list` prints the mutants and exits; `--timeout SECONDS` bounds each test run
 * (default 300; a run cut off counts as killed, and says so); `--no-baseline` skips the first
 * run of every test file without a mutant (which must pass for a kill to mean anything).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Mutant } from "./mutant.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const HERE = fileURLToPath(new URL("./", import.meta.url));

/** Every mutant of every list in this folder, in file order. */
export async function loadMutants(): Promise<Mutant[]> {
  const files = [...Deno.readDirSync(HERE)]
    .map((entry) => entry.name)
    .filter((name) => name.endsWith(".ts") && !["mutant.ts", "run.ts"].includes(name))
    .filter((name) => !name.endsWith("_test.ts"))
    .sort();
  const all: Mutant[] = [];
  for (const file of files) {
    const module = await import(join(HERE, file)) as { mutants?: Mutant[] };
    if (!Array.isArray(module.mutants)) throw new Error(`tests/mutants/${file} exports no mutants`);
    all.push(...module.mutants);
  }
  return all;
}

/** What is wrong with a list of mutants read against the files under `root`; empty when none. */
export function problemsOf(mutants: readonly Mutant[], root: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const mutant of mutants) {
    if (seen.has(mutant.name)) problems.push(`${mutant.name}: the name is used twice`);
    seen.add(mutant.name);
    let text: string;
    try {
      text = Deno.readTextFileSync(join(root, mutant.file));
    } catch {
      problems.push(`${mutant.name}: ${mutant.file} does not exist`);
      continue;
    }
    const count = text.split(mutant.find).length - 1;
    if (count !== 1) {
      problems.push(`${mutant.name}: its text is in ${mutant.file} ${count} times, not once`);
    }
    if (mutant.find === mutant.replace) problems.push(`${mutant.name}: it changes nothing`);
    if (mutant.tests.length === 0) problems.push(`${mutant.name}: it names no test file`);
    for (const test of mutant.tests) {
      try {
        Deno.statSync(join(root, test));
      } catch {
        problems.push(`${mutant.name}: the test file ${test} does not exist`);
      }
    }
  }
  return problems;
}

/** The files git tracks or would track (untracked, not ignored), relative to `root`. */
async function repositoryFiles(root: string): Promise<string[]> {
  const { stdout } = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    cwd: root,
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(stdout).split("\0").filter((path) => path !== "");
}

/** Copies the repository's files into a new scratch folder; returns it. */
async function scratchCopy(root: string): Promise<string> {
  const scratch = await Deno.makeTempDir({ prefix: "aim-mutants-" });
  for (const path of await repositoryFiles(root)) {
    const to = join(scratch, path);
    Deno.mkdirSync(dirname(to), { recursive: true });
    try {
      Deno.copyFileSync(join(root, path), to);
    } catch (error) {
      // A file deleted in the work tree but still tracked: nothing to copy.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return scratch;
}

/** The elements' sources, which `deno task bundle` builds into what browsers load. */
const ELEMENTS_SOURCE = /^elements\/[^/]+\.ts$/;

/** The built elements under `root` (elements/elements.*.js), by path, to put back after. */
function builtElements(root: string): Map<string, string> {
  const dir = join(root, "elements");
  return new Map(
    [...Deno.readDirSync(dir)]
      .filter((entry) => /^elements\.\w+\.js$/.test(entry.name))
      .map((entry) => [join(dir, entry.name), Deno.readTextFileSync(join(dir, entry.name))]),
  );
}

/** Runs `deno task bundle` in `cwd`; false when it fails. */
async function rebuildElements(cwd: string): Promise<boolean> {
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["task", "bundle"],
    cwd,
    stdout: "null",
    stderr: "null",
  }).output();
  return built.success;
}

/** The outcome of one test run. */
interface RunOutcome {
  passed: boolean;
  timedOut: boolean;
  seconds: number;
  tail: string;
}

/** Runs `deno test` on `tests` in `cwd`, without type checking (a type error is no kill). */
async function runTests(
  cwd: string,
  tests: readonly string[],
  options: { env?: Record<string, string> | undefined; timeoutSeconds: number },
): Promise<RunOutcome> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "test",
      "--allow-all",
      "--no-check",
      "--lock=deno.test.lock",
      "--frozen=false",
      ...tests,
    ],
    cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, options.timeoutSeconds * 1000);
  const output = await child.output();
  clearTimeout(timer);
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  const failures = text.split("\n").filter((line) => /FAILED|error:/.test(line));
  return {
    passed: output.success && !timedOut,
    timedOut,
    seconds: (performance.now() - started) / 1000,
    tail: failures.slice(0, 3).join(" | ").slice(0, 300),
  };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    allowNegative: true,
    options: {
      list: { type: "boolean", default: false },
      timeout: { type: "string", default: "300" },
      baseline: { type: "boolean", default: true },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(
      "Usage: deno task mutants [--list] [--timeout SECONDS] [--no-baseline] [NAME…]\n" +
        "Applies each named mutant to a scratch copy and runs its test files; exits 1 when one survives.",
    );
    return 0;
  }
  const timeoutSeconds = Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    console.error(`--timeout takes a number of seconds, got "${values.timeout}"`);
    return 2;
  }
  const all = await loadMutants();
  const unknown = positionals.filter((name) => !all.some((mutant) => mutant.name === name));
  if (unknown.length > 0) {
    console.error(`No mutant is named ${unknown.join(", ")}; --list shows them.`);
    return 2;
  }
  const chosen = positionals.length > 0
    ? all.filter((mutant) => positionals.includes(mutant.name))
    : all;
  if (values.list) {
    for (const mutant of chosen) {
      console.log(`${mutant.name}\t${mutant.file}\t${mutant.guarantee}`);
    }
    console.log(`${chosen.length} mutants`);
    return 0;
  }
  const problems = problemsOf(all, ROOT);
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem);
    return 2;
  }
  const scratch = await scratchCopy(ROOT);
  const survivors: Mutant[] = [];
  try {
    // A kill means something only when the same tests pass without the mutant: run each set
    // of test files (by environment) once, unmutated, first.
    if (values.baseline) {
      const groups = new Map<string, Set<string>>();
      for (const mutant of chosen) {
        const env = JSON.stringify(mutant.env ?? {});
        const files = groups.get(env) ?? new Set<string>();
        for (const test of mutant.tests) files.add(test);
        groups.set(env, files);
      }
      for (const [env, files] of groups) {
        const run = () =>
          runTests(scratch, [...files], {
            env: JSON.parse(env),
            timeoutSeconds: timeoutSeconds * 4,
          });
        let outcome = await run();
        if (!outcome.passed) {
          // Said, and tried once more: one flaky test must not hide every mutant's verdict.
          console.log(`baseline ${env}: FAILED once — ${outcome.tail}; running it again`);
          outcome = await run();
        }
        console.log(
          `baseline ${env}: ${outcome.passed ? "passed" : "FAILED"} in ${
            outcome.seconds.toFixed(0)
          } s${outcome.passed ? "" : ` — ${outcome.tail}`}`,
        );
        if (!outcome.passed) {
          console.error("The tests fail without any mutant: fix them first.");
          return 2;
        }
      }
    }
    for (const [index, mutant] of chosen.entries()) {
      const path = join(scratch, mutant.file);
      const original = Deno.readTextFileSync(path);
      // The browser loads the committed build, not elements/*.ts: rebuild it with the mutant.
      const build = ELEMENTS_SOURCE.test(mutant.file) ? builtElements(scratch) : null;
      Deno.writeTextFileSync(path, original.replace(mutant.find, () => mutant.replace));
      let outcome: RunOutcome;
      try {
        if (build && !await rebuildElements(scratch)) {
          // A mutant that does not build proves nothing about the tests.
          console.error(`${mutant.name}: the elements do not build with it; change the mutant.`);
          return 2;
        }
        outcome = await runTests(scratch, mutant.tests, { env: mutant.env, timeoutSeconds });
      } finally {
        Deno.writeTextFileSync(path, original);
        for (const [file, code] of build ?? []) Deno.writeTextFileSync(file, code);
      }
      const verdict = outcome.passed
        ? "SURVIVED"
        : outcome.timedOut
        ? "killed (timed out)"
        : "killed";
      console.log(
        `[${index + 1}/${chosen.length}] ${mutant.name}: ${verdict} in ${
          outcome.seconds.toFixed(0)
        } s${outcome.passed ? "" : ` — ${outcome.tail}`}`,
      );
      if (outcome.passed) survivors.push(mutant);
    }
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
  console.log(
    `mutants: ${chosen.length - survivors.length} killed, ${survivors.length} survived`,
  );
  for (const mutant of survivors) {
    console.log(`survivor: ${mutant.name} (${mutant.file}): ${mutant.guarantee}`);
  }
  return survivors.length > 0 ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main());
