/**
 * The import graph of the project's own files, read from `deno info --json`: for each file, the
 * project files it imports and the packages it imports (npm names as `deno.json` maps them,
 * `node:` built-ins, `jsr:` packages, remote origins). Type-only imports count too. The layer
 * check (`.ci/layers.ts`) and the cycle check (`.ci/cycles.ts`) read it.
 *
 * @module
 */

/** A file's imports: project files (relative paths) and packages. */
export interface Imports {
  /** Project files it imports, relative to the working directory. */
  files: Set<string>;
  /** Packages it imports, by {@linkcode packageOf}'s name. */
  packages: Set<string>;
}

/** The import graph: each project file and what it imports. */
export type Graph = Map<string, Imports>;

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string }; type?: { specifier?: string } }[];
}

/**
 * The package a resolved specifier names: `npm:/hono@4.13.19/http-exception` → `hono`,
 * `npm:@redis/client@6.3.1` → `@redis/client`, `node:assert/strict` → `node:assert`,
 * `jsr:@std/path@1/join` → `jsr:@std/path`, a remote URL → its origin; undefined for a file.
 */
export function packageOf(specifier: string): string | undefined {
  const npm = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)/.exec(specifier);
  if (npm) return npm[1];
  const jsr = /^jsr:\/?((?:@[^/@]+\/)?[^/@]+)/.exec(specifier);
  if (jsr) return `jsr:${jsr[1]}`;
  const node = /^node:([^/]+)/.exec(specifier);
  if (node) return `node:${node[1]}`;
  if (/^https?:/.test(specifier)) return new URL(specifier).origin;
  return undefined;
}

/** How {@linkcode readGraph} resolves the roots' imports. */
export interface ReadGraphOptions {
  /**
   * The lockfile `deno info` checks the packages against, not frozen (the tests' imports are
   * locked in `deno.test.lock`); `deno.json`'s when not given.
   */
  lock?: string;
}

/**
 * The import graph of the project's own files reachable from `roots` (paths, or URLs such as a
 * `data:` module that imports several files), paths relative to `cwd`.
 */
export async function readGraph(
  roots: readonly string[],
  cwd: string,
  options: ReadGraphOptions = {},
): Promise<Graph> {
  const here = new URL(`file://${cwd.endsWith("/") ? cwd : `${cwd}/`}`).href;
  const graph: Graph = new Map();
  const lock = options.lock === undefined ? [] : [`--lock=${options.lock}`, "--frozen=false"];
  for (const root of roots) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", ...lock, root],
      cwd,
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error(`deno info failed for ${root.slice(0, 200)}`);
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] };
    for (const module of info.modules) {
      if (!module.specifier.startsWith(here)) continue;
      const from = decodeURIComponent(module.specifier.slice(here.length));
      const imports = graph.get(from) ?? { files: new Set(), packages: new Set() };
      graph.set(from, imports);
      for (const dep of module.dependencies ?? []) {
        for (const target of [dep.code?.specifier, dep.type?.specifier]) {
          if (target === undefined) continue;
          if (target.startsWith(here)) {
            imports.files.add(decodeURIComponent(target.slice(here.length)));
            continue;
          }
          const name = packageOf(target);
          if (name !== undefined) imports.packages.add(name);
        }
      }
    }
  }
  return graph;
}
