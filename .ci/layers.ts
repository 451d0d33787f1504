/**
 * Fails when a module imports one in a folder its own folder may not import: the table
 * {@linkcode LAYERS} lists, for each folder, the folders it may import (its own always). An import
 * not in the table (an upward one, or one from a new folder) fails, naming the file and what it
 * imports. Reads the graph from `deno info --json` of the roots given, paths relative to the
 * working directory.
 *
 * @example
 * ```sh
 * deno run --allow-run --allow-read .ci/layers.ts main.ts demo/app.ts elements/mod.ts bench/run.ts
 * ```
 *
 * @module
 */

/**
 * For each folder, the folders its modules may import, bottom layer first. `"*"`: any folder
 * (tests and benchmarks sit on top of everything). Type-only imports count too.
 */
export const LAYERS: Readonly<Record<string, readonly string[]>> = {
  // Shared by the page (elements/) and the bridge: no Deno, no HTTP.
  "bridge/wire": [], // wire types (zod), errors, names, run status
  "bridge/markup": ["bridge/wire"], // reading <aim-action>/<aim-state> declarations
  // The bridge, bottom up.
  "bridge/utils": [],
  "bridge/input": ["bridge/wire", "bridge/markup"], // input_schema validation, patterns
  "bridge/share": ["bridge/wire", "bridge/input"], // SessionShare: local, Redis
  "bridge/site": ["bridge/wire", "bridge/markup", "bridge/input", "bridge/utils"],
  "bridge/core": [
    "bridge/wire",
    "bridge/markup",
    "bridge/input",
    "bridge/share",
    "bridge/site",
    "bridge/utils",
  ],
  "bridge/audit": ["bridge/core", "bridge/utils", "bridge/wire"],
  "bridge/runs": ["bridge/core", "bridge/share", "bridge/markup", "bridge/wire"],
  "bridge/http": [
    "bridge/core",
    "bridge/audit",
    "bridge/site",
    "bridge/utils",
    "bridge/wire",
    "bridge/markup",
    "bridge/input",
    "elements", // the built bundles it serves, imported as text
  ],
  "bridge/mcp": ["bridge/core", "bridge/http", "bridge/wire", "bridge/markup", "bridge/input"],
  // What an operator watches: counts from the core's and the HTTP layer's hooks (prom-client)
  "bridge/metrics": ["bridge/core", "bridge/http", "bridge/wire"],
  // aim in front of an app: the proxy and the catalog read from the app
  "bridge/upstream": ["bridge/core", "bridge/http", "bridge/site", "bridge/utils", "bridge/wire"],
  "bridge/a2a": [
    "bridge/core",
    "bridge/http",
    "bridge/runs",
    "bridge/site",
    "bridge/markup",
    "bridge/utils",
    "bridge/wire",
  ],
  "bridge/acp": [
    "bridge/core",
    "bridge/http",
    "bridge/runs",
    "bridge/site",
    "bridge/markup",
    "bridge/utils",
    "bridge/wire",
  ],
  "bridge": [ // mod.ts: the library's public face
    "bridge/a2a",
    "bridge/acp",
    "bridge/audit",
    "bridge/core",
    "bridge/http",
    "bridge/mcp",
    "bridge/metrics",
    "bridge/share",
    "bridge/upstream",
    "bridge/utils",
    "bridge/wire",
  ],
  "bridge/cli": [
    "bridge",
    "bridge/core",
    "bridge/mcp",
    "bridge/site",
    "bridge/upstream",
    "bridge/wire",
    "demo", // `aim serve --demo`, loaded on demand
  ],
  ".": ["bridge/cli"], // main.ts
  // The page's custom elements: only what the page and the bridge share.
  "elements": ["bridge/wire", "bridge/markup"],
  "demo": ["bridge", "bridge/core"],
  "bench": ["*"],
  "tests": ["*"],
};

/** One import that the table does not allow. */
export interface Violation {
  /** The importing file, relative to the root. */
  from: string;
  /** The imported file, relative to the root. */
  to: string;
}

/** The folder a file's layer is named by: its directory, or the test tree for anything in it. */
export function layerOf(path: string): string {
  const cut = path.lastIndexOf("/");
  const dir = cut < 0 ? "." : path.slice(0, cut);
  return dir === "tests" || dir.startsWith("tests/") ? "tests" : dir;
}

/** The imports of `edges` (file → files it imports) that `layers` does not allow, sorted. */
export function checkLayers(
  edges: ReadonlyMap<string, ReadonlySet<string>>,
  layers: Readonly<Record<string, readonly string[]>> = LAYERS,
): Violation[] {
  const found: Violation[] = [];
  for (const [from, targets] of edges) {
    const own = layerOf(from);
    const allowed = layers[own];
    for (const to of targets) {
      const theirs = layerOf(to);
      if (theirs === own) continue;
      if (allowed?.includes("*") || allowed?.includes(theirs)) continue;
      found.push({ from, to });
    }
  }
  return found.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** The table's own cycles (a folder that may import one that may import it back), if any. */
export function tableCycles(
  layers: Readonly<Record<string, readonly string[]>> = LAYERS,
): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  function visit(node: string): void {
    state.set(node, "open");
    stack.push(node);
    for (const next of layers[node] ?? []) {
      if (next === "*") continue;
      const seen = state.get(next);
      if (seen === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].join(" → "));
      else if (seen === undefined) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  }
  for (const node of Object.keys(layers)) if (!state.has(node)) visit(node);
  return cycles;
}

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string }; type?: { specifier?: string } }[];
}

/** The import graph of the project's own files reachable from `roots`, paths relative to `cwd`. */
export async function readGraph(
  roots: readonly string[],
  cwd: string,
): Promise<Map<string, Set<string>>> {
  const here = new URL(`file://${cwd.endsWith("/") ? cwd : `${cwd}/`}`).href;
  const edges = new Map<string, Set<string>>();
  for (const root of roots) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", root],
      cwd,
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error(`deno info failed for ${root}`);
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] };
    for (const module of info.modules) {
      if (!module.specifier.startsWith(here)) continue;
      const from = decodeURIComponent(module.specifier.slice(here.length));
      const to = edges.get(from) ?? new Set<string>();
      edges.set(from, to);
      for (const dep of module.dependencies ?? []) {
        for (const target of [dep.code?.specifier, dep.type?.specifier]) {
          if (target?.startsWith(here)) to.add(decodeURIComponent(target.slice(here.length)));
        }
      }
    }
  }
  return edges;
}

if (import.meta.main) {
  const roots = Deno.args.length ? Deno.args : ["main.ts"];
  const cycles = tableCycles();
  for (const cycle of cycles) console.error(`layer table has a cycle: ${cycle}`);
  const edges = await readGraph(roots, Deno.cwd());
  const unknown = new Set([...edges.keys()].map(layerOf).filter((layer) => !(layer in LAYERS)));
  for (const layer of unknown) console.error(`folder ${layer} is not in .ci/layers.ts's table`);
  const violations = checkLayers(edges);
  for (const { from, to } of violations) {
    console.error(`${from} imports ${to}: ${layerOf(from)} may not import ${layerOf(to)}`);
  }
  if (cycles.length || unknown.size || violations.length) Deno.exit(1);
  console.log(`${edges.size} modules import only the folders .ci/layers.ts allows`);
}
