/**
 * Fails when a TypeScript module under the paths given has more than {@linkcode MAX_LINES}
 * lines, test files included: a module that grows past it holds more than one concern, and is
 * split along them (each with its one-line `@module` description). Paths are relative to the
 * working directory; generated files (the elements' bundles are JavaScript) are not TypeScript
 * and not counted.
 *
 * @example
 * ```sh
 * deno run --allow-read .ci/file_size.ts bridge elements tests bench .ci main.ts demo
 * ```
 *
 * @module
 */
import { join } from "node:path";

/** The most lines a module may have. */
export const MAX_LINES = 500;

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

if (import.meta.main) {
  const paths = Deno.args.length ? Deno.args : ["."];
  const over = await oversized(paths);
  for (const line of over) console.error(`over ${MAX_LINES} lines: ${line}`);
  if (over.length) Deno.exit(1);
  console.log(`every module under ${paths.join(" ")} has at most ${MAX_LINES} lines`);
}
