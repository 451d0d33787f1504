/**
 * Fails when a TypeScript module under the paths given has more than {@linkcode MAX_LINES}
 * lines: a module that grows past it holds more than one concern, and is split along them (each
 * with its one-line `@module` description). Paths are relative to the working directory;
 * generated files (the elements' bundles are JavaScript) are not TypeScript and not counted.
 * The only exceptions are the test files of {@linkcode WAITING}, written before the bound; the
 * list may only shrink: a file listed that is gone, or no longer over the bound, fails too.
 *
 * @example
 * ```sh
 * deno run --allow-read .ci/file_size.ts bridge elements tests bench .ci main.ts demo
 * ```
 *
 * @module
 */
import { join, relative } from "node:path";

/** The most lines a module may have. */
export const MAX_LINES = 500;

/**
 * Test files over {@linkcode MAX_LINES} that wait to be split along what they test. Only test
 * files (`*_test.ts`) may wait: every other module is held to the bound.
 */
export const WAITING: readonly string[] = [
  "tests/browser/item_actions_test.ts",
  "tests/browser/webmcp_pages_test.ts",
  "tests/browser/webmcp_test.ts",
];

/** How many lines `text` has: its line breaks, plus a last line that has none. */
export function lineCount(text: string): number {
  if (text === "") return 0;
  const breaks = text.split("\n").length - 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}

/** The TypeScript files at `path` (a file, or a folder walked whole), sorted. */
export async function modulesAt(path: string): Promise<string[]> {
  const info = await Deno.stat(path);
  if (info.isFile) return /\.(ts|tsx|mts)$/.test(path) ? [path] : [];
  const found: string[] = [];
  for await (const entry of Deno.readDir(path)) {
    if (entry.name === "node_modules") continue;
    found.push(...await modulesAt(join(path, entry.name)));
  }
  return found.sort();
}

/** The modules of `paths` over `max` lines, each as `path: N lines`, in path order. */
export async function oversized(paths: readonly string[], max = MAX_LINES): Promise<string[]> {
  const over: string[] = [];
  for (const path of paths) {
    for (const file of await modulesAt(path)) {
      const lines = lineCount(await Deno.readTextFile(file));
      if (lines > max) over.push(`${file}: ${lines} lines`);
    }
  }
  return over;
}

/** Options of {@linkcode sizeProblems}. */
export interface SizeProblemsOptions {
  /** Test files that may still be over the bound; without it, {@linkcode WAITING}. */
  waiting?: readonly string[];
  /** The most lines a module may have; without it, {@linkcode MAX_LINES}. */
  max?: number;
  /** The folder that `paths` and the waiting files are relative to; without it, the working one. */
  root?: string;
}

/** Whether `file` is a test file, which alone may wait to be split. */
function isTestFile(file: string): boolean {
  return /_test\.tsx?$/.test(file);
}

/** Whether `file` is `path` or lies under it (`.` holds everything relative). */
function under(file: string, path: string): boolean {
  const folder = path.replace(/\/+$/, "");
  return folder === "." || file === folder || file.startsWith(`${folder}/`);
}

/**
 * What is wrong with the modules of `paths`: each one over the bound and not waiting, and
 * each waiting file under `paths` that is gone, is no longer over the bound, or is not a test
 * file. Sorted; empty when all is well.
 */
export async function sizeProblems(
  paths: readonly string[],
  options: SizeProblemsOptions = {},
): Promise<string[]> {
  const waiting = options.waiting ?? WAITING;
  const max = options.max ?? MAX_LINES;
  const root = options.root ?? ".";
  const problems: string[] = [];
  for (const found of await oversized(paths.map((path) => join(root, path)), max)) {
    const line = relative(root, found);
    const file = line.slice(0, line.lastIndexOf(": "));
    if (!waiting.includes(file) || !isTestFile(file)) problems.push(`over ${max} lines: ${line}`);
  }
  for (const file of waiting) {
    if (!paths.some((path) => under(file, path))) continue;
    if (!isTestFile(file)) {
      problems.push(`${file} waits to be split but is not a test file: it must be split now`);
      continue;
    }
    let text: string;
    try {
      text = await Deno.readTextFile(join(root, file));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      problems.push(`${file} waits to be split but does not exist: take it off the list`);
      continue;
    }
    const lines = lineCount(text);
    if (lines <= max) {
      problems.push(`${file} waits to be split but has ${lines} lines: take it off the list`);
    }
  }
  return problems.sort();
}

if (import.meta.main) {
  const paths = Deno.args.length ? Deno.args : ["."];
  const problems = await sizeProblems(paths);
  for (const problem of problems) console.error(problem);
  if (problems.length) Deno.exit(1);
  const waiting = WAITING.length ? ` (${WAITING.length} test files wait to be split)` : "";
  console.log(`every module under ${paths.join(" ")} has at most ${MAX_LINES} lines${waiting}`);
}
