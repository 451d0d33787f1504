/**
 * `deno task mutate [FILE…]`: mutation testing with Stryker over the modules that hold a security
 * or consent rule. For each FILE (every module of tests/mutate/targets.ts when none is given),
 * Stryker makes every mutant its mutators know of the file (an operator flipped, a condition made
 * `true`, a string emptied, a block removed…), and its command runner runs the file's test files
 * (targets.ts) once per mutant, with `deno test --no-check`: a mutant that no test fails on
 * survives. A survivor that tests/mutate/equivalents.ts lists is accepted, with the reason it
 * gives; any other one fails the run (exit 1), and the report prints an entry to paste for it.
 *
 * Stryker (`@stryker-mutator/core`, pinned below) runs under Deno's Node compatibility, without
 * the project's deno.json, from its own frozen lockfile (tests/mutate/stryker.lock): every
 * package of its tree is checked against the lockfile's hashes, nothing of it reaches deno.lock
 * or deno.test.lock, and no Node.js is needed (Stryker 10 asks for Node 22). It copies the
 * repository to a sandbox in `.stryker-tmp/` (ignored by git and by fmt, lint and check) and
 * mutates the copy; its reports go to `test-output/mutate/`.
 *
 * Options: `--list` prints the modules and their tests; `--concurrency N` runs N test runs at a
 * time (default 2: the machine's two cores); `--timeout-ms MS` is added to each mutant's time
 * limit (default: the target's `timeoutMs`, else 10000; a run cut off counts as detected, and the
 * report says how many).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { EQUIVALENTS } from "./equivalents.ts";
import {
  describeOutcome,
  entryFor,
  type FileOutcome,
  outcomeOf,
  type ReadMutant,
  readMutants,
  type StrykerReport,
} from "./report.ts";
import { TARGETS } from "./targets.ts";

/** Stryker, pinned; its whole tree is locked in tests/mutate/stryker.lock. */
export const STRYKER = "npm:@stryker-mutator/core@10.1.1/stryker";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const LOCK = fileURLToPath(new URL("./stryker.lock", import.meta.url));
const OUT = join(ROOT, "test-output", "mutate");

/** A module path as TARGETS writes it: relative to the root, with forward slashes. */
export function targetPath(path: string, cwd: string = Deno.cwd()): string {
  return relative(ROOT, join(cwd, path)).replaceAll("\\", "/");
}

/** Single quotes around `text` for a POSIX shell (Stryker's command runs in one). */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Options of {@linkcode strykerConfig}. */
export interface StrykerConfigOptions {
  /** Test runs at a time. */
  concurrency: number;
  /** Added to each mutant's time limit, ms; the target's own, or 10000, when not given. */
  timeoutMs?: number | undefined;
  /** Where Stryker writes its JSON report. */
  reportFile: string;
}

/** Stryker's configuration for mutating `file` with its target's tests. */
export function strykerConfig(
  file: string,
  options: StrykerConfigOptions,
): Record<string, unknown> {
  const target = TARGETS[file];
  if (!target) throw new Error(`${file} is not in tests/mutate/targets.ts`);
  const command = [
    shellQuote(Deno.execPath()),
    "test",
    "--allow-all",
    // Type checking instrumented code would fail, and costs time on every mutant.
    "--no-check",
    "--lock=deno.test.lock",
    "--frozen=false",
    ...target.tests.map(shellQuote),
  ].join(" ");
  return {
    testRunner: "command",
    commandRunner: { command },
    mutate: [file],
    // The command runner is part of Stryker's core: no plugin to look for in node_modules.
    plugins: [],
    reporters: ["json", "progress-append-only"],
    jsonReporter: { fileName: options.reportFile },
    concurrency: options.concurrency,
    tempDirName: ".stryker-tmp",
    cleanTempDir: true,
    ignorePatterns: [".git", "node_modules", "test-output", "dist", ".aim-demo-data"],
    // `--no-check` above: Stryker need not add `// @ts-nocheck` to anything.
    disableTypeChecks: false,
    timeoutMS: options.timeoutMs ?? target.timeoutMs ?? 10000,
    timeoutFactor: 1.5,
    logLevel: "warn",
    fileLogLevel: "off",
    allowConsoleColors: false,
    incremental: false,
    thresholds: { high: 100, low: 90, break: null },
  };
}

/** Runs Stryker on `file`; its report, and the wall time in seconds. */
async function mutateFile(
  file: string,
  options: Omit<StrykerConfigOptions, "reportFile">,
): Promise<{ report: StrykerReport | undefined; seconds: number; success: boolean }> {
  const slug = file.replace(/[^A-Za-z0-9]+/g, "_");
  const reportFile = join(OUT, `${slug}.json`);
  const configFile = join(OUT, `${slug}.config.json`);
  await Deno.mkdir(OUT, { recursive: true });
  await Deno.remove(reportFile).catch(() => {});
  const config = strykerConfig(file, { ...options, reportFile });
  await Deno.writeTextFile(configFile, JSON.stringify(config, null, 2));
  const started = performance.now();
  const { success } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--no-config",
      `--lock=${LOCK}`,
      "--frozen",
      STRYKER,
      "run",
      configFile,
    ],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...TARGETS[file]!.env },
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  const seconds = (performance.now() - started) / 1000;
  let report: StrykerReport | undefined;
  try {
    report = JSON.parse(await Deno.readTextFile(reportFile)) as StrykerReport;
  } catch {
    report = undefined;
  }
  return { report, seconds, success };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      list: { type: "boolean", default: false },
      concurrency: { type: "string", default: "2" },
      "timeout-ms": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(
      "Usage: deno task mutate [--list] [--concurrency N] [--timeout-ms MS] [FILE…]\n" +
        "Mutates each FILE (every module of tests/mutate/targets.ts when none is given) with " +
        "Stryker and runs its tests per mutant;\nexits 1 when a survivor is not listed in " +
        "tests/mutate/equivalents.ts.",
    );
    return 0;
  }
  if (values.list) {
    for (const [file, target] of Object.entries(TARGETS)) {
      console.log(`${file}\t${target.tests.join(" ")}`);
    }
    return 0;
  }
  const concurrency = Number(values.concurrency);
  const timeoutMs = values["timeout-ms"] === undefined ? undefined : Number(values["timeout-ms"]);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    console.error(`--concurrency takes a whole number of test runs, got "${values.concurrency}"`);
    return 2;
  }
  if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
    console.error(`--timeout-ms takes a number of milliseconds, got "${values["timeout-ms"]}"`);
    return 2;
  }
  const files = positionals.length
    ? positionals.map((path) => targetPath(path))
    : Object.keys(TARGETS);
  const unknown = files.filter((file) => !TARGETS[file]);
  if (unknown.length) {
    console.error(
      `No tests are mapped for ${unknown.join(", ")}: add the module and the test files that ` +
        "must kill its mutants to tests/mutate/targets.ts (--list shows the mapping).",
    );
    return 2;
  }
  const outcomes: [FileOutcome, number, ReadMutant[]][] = [];
  let failed = false;
  for (const file of files) {
    console.log(`\n== ${file}: mutants checked by ${TARGETS[file]!.tests.join(", ")}`);
    const { report, seconds, success } = await mutateFile(file, { concurrency, timeoutMs });
    if (!report || !success) {
      console.error(
        `Stryker did not finish on ${file} (its initial test run must pass; see its output above).`,
      );
      failed = true;
      continue;
    }
    const mutants = readMutants(report, file);
    const outcome = outcomeOf(file, mutants, EQUIVALENTS);
    outcomes.push([outcome, seconds, mutants]);
    for (const line of describeOutcome(outcome, seconds)) console.log(line);
  }
  const unlisted = outcomes.flatMap(([outcome]) => outcome.unlisted);
  if (unlisted.length) {
    console.log(
      `\n${unlisted.length} survivors are neither killed nor listed. Kill each with a test, or, ` +
        "when no test can tell it from the original, add it to tests/mutate/equivalents.ts " +
        "with the reason:\n",
    );
    for (const [outcome, , mutants] of outcomes) {
      for (const mutant of outcome.unlisted) console.log(entryFor(mutant, mutants));
    }
  }
  console.log("\nScore per file (detected: killed or timed out):");
  for (const [outcome, seconds] of outcomes) {
    console.log(
      `  ${outcome.file}: ${outcome.mutants} mutants, ${outcome.killed} killed, ` +
        `${outcome.timeouts} timeouts, ${outcome.listed.length} listed, ` +
        `${outcome.unlisted.length} unlisted; ${outcome.score}% ` +
        `(${outcome.scoreWithoutEquivalents}% without the listed); ${seconds.toFixed(0)} s`,
    );
  }
  if (failed) return 2;
  return unlisted.length ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main());
