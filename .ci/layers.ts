/**
 * Fails when a module imports what its folder may not: the table {@linkcode LAYERS} lists, for
 * each folder, the project folders it may import (its own always) and the packages (npm, `node:`
 * built-ins). An import not in the table (an upward one, one from a new folder, a package the
 * folder does not list) fails, naming the file and what it imports. The folders shared with the
 * page are marked `browser`: they may import only each other and {@linkcode BROWSER_PACKAGES}.
 * Reads the graph from `deno info --json` of the roots given, paths relative to the working
 * directory.
 *
 * @example
 * ```sh
 * deno run --allow-run --allow-read .ci/layers.ts main.ts demo/app.ts elements/mod.ts bench/run.ts
 * ```
 *
 * @module
 */
import { type Graph, readGraph } from "./graph.ts";

/** What one folder's modules may import. */
export interface Layer {
  /** Project folders they may import besides their own, bottom layer first; `"*"`: any. */
  imports: readonly string[];
  /**
   * Packages they may import: npm names as `deno.json` maps them (`hono`, `@redis/client`),
   * `node:` built-ins (`node:crypto`); `"*"`: any.
   */
  packages: readonly string[];
  /**
   * Shared with the page (run in the browser): only browser layers and
   * {@linkcode BROWSER_PACKAGES} may be imported.
   */
  browser?: boolean;
}

/** The packages that run in a browser as they run in Deno: no Deno, no Node, no HTTP server. */
export const BROWSER_PACKAGES: readonly string[] = ["zod", "lit", "@lit/reactive-element"];

/**
 * For each folder, what its modules may import, bottom layer first. Tests and benchmarks sit on
 * top of everything (`"*"`). Type-only imports count too.
 */
export const LAYERS: Readonly<Record<string, Layer>> = {
  // Shared by the page (elements/) and the bridge: no Deno, no HTTP.
  "bridge/wire": { imports: [], packages: ["zod"], browser: true }, // wire types, codes, names
  "bridge/markup": { imports: ["bridge/wire"], packages: [], browser: true }, // <aim-action> …
  // The bridge, bottom up.
  "bridge/errors": { imports: ["bridge/wire"], packages: ["hono"] }, // AimError (HTTPException)
  "bridge/utils": { imports: [], packages: [] },
  "bridge/input": { // input_schema validation, patterns
    imports: ["bridge/wire", "bridge/markup", "bridge/errors"],
    packages: ["zod", "re2js", "@cfworker/json-schema", "randexp"],
  },
  "bridge/share": { // SessionShare: local, Redis
    imports: ["bridge/wire", "bridge/errors", "bridge/input"],
    packages: ["zod", "@redis/client", "node:events"],
  },
  "bridge/site": {
    imports: ["bridge/wire", "bridge/markup", "bridge/input", "bridge/utils"],
    packages: ["htmlparser2", "domhandler", "domutils", "css-select", "node:path"],
  },
  "bridge/core": {
    imports: [
      "bridge/wire",
      "bridge/errors",
      "bridge/markup",
      "bridge/input",
      "bridge/share",
      "bridge/site",
      "bridge/utils",
    ],
    packages: ["node:crypto"],
  },
  "bridge/audit": {
    imports: ["bridge/core", "bridge/utils", "bridge/wire"],
    packages: ["node:sqlite"],
  },
  "bridge/runs": {
    imports: ["bridge/core", "bridge/errors", "bridge/share", "bridge/markup", "bridge/wire"],
    packages: [],
  },
  "bridge/http": {
    imports: [
      "bridge/core",
      "bridge/audit",
      "bridge/errors",
      "bridge/site",
      "bridge/utils",
      "bridge/wire",
      "bridge/markup",
      "bridge/input",
      "elements", // the built bundles it serves, imported as text
    ],
    packages: ["hono", "@toon-format/toon", "node:crypto"],
  },
  "bridge/mcp": {
    imports: [
      "bridge/core",
      "bridge/errors",
      "bridge/http",
      "bridge/wire",
      "bridge/markup",
      "bridge/input",
    ],
    packages: [
      "hono",
      "@modelcontextprotocol/server",
      "@modelcontextprotocol/client",
      "@toon-format/toon",
    ],
  },
  // What an operator watches: counts from the core's and the HTTP layer's hooks (prom-client)
  "bridge/metrics": {
    imports: ["bridge/core", "bridge/errors", "bridge/http", "bridge/wire"],
    packages: ["prom-client", "node:diagnostics_channel"],
  },
  // aim in front of an app: the proxy and the catalog read from the app
  "bridge/upstream": {
    imports: [
      "bridge/core",
      "bridge/errors",
      "bridge/http",
      "bridge/site",
      "bridge/utils",
      "bridge/wire",
    ],
    packages: ["hono", "node:http", "node:https", "node:stream"],
  },
  "bridge/a2a": {
    imports: [
      "bridge/core",
      "bridge/errors",
      "bridge/http",
      "bridge/runs",
      "bridge/site",
      "bridge/markup",
      "bridge/utils",
      "bridge/wire",
    ],
    packages: ["hono", "@a2a-js/sdk"],
  },
  "bridge/acp": {
    imports: [
      "bridge/core",
      "bridge/errors",
      "bridge/http",
      "bridge/runs",
      "bridge/site",
      "bridge/markup",
      "bridge/utils",
      "bridge/wire",
    ],
    packages: ["hono", "zod", "htmlparser2", "node:crypto"],
  },
  "bridge/serve": { // createBridge and serve: every protocol assembled, served
    imports: [
      "bridge/a2a",
      "bridge/acp",
      "bridge/audit",
      "bridge/core",
      "bridge/errors",
      "bridge/http",
      "bridge/mcp",
      "bridge/metrics",
      "bridge/share",
      "bridge/upstream",
      "bridge/utils",
      "bridge/wire",
    ],
    packages: ["hono"],
  },
  "bridge": { // mod.ts: the library's public face, re-exports only
    imports: [
      "bridge/serve",
      "bridge/a2a",
      "bridge/acp",
      "bridge/audit",
      "bridge/core",
      "bridge/errors",
      "bridge/http",
      "bridge/mcp",
      "bridge/metrics",
      "bridge/runs",
      "bridge/share",
      "bridge/upstream",
      "bridge/utils",
      "bridge/wire",
    ],
    packages: [],
  },
  "bridge/cli": {
    imports: [
      "bridge",
      "bridge/errors",
      "bridge/core",
      "bridge/mcp",
      "bridge/site",
      "bridge/upstream",
      "bridge/wire",
      "demo", // `aim serve --demo`, loaded on demand
    ],
    packages: [
      "zod",
      "@toon-format/toon",
      "@modelcontextprotocol/server",
      "node:path",
      "node:process",
      "node:stream",
      "node:url",
      "node:util",
    ],
  },
  ".": { imports: ["bridge/cli"], packages: [] }, // main.ts
  // The page's custom elements: only what the page and the bridge share.
  "elements": {
    imports: ["bridge/wire", "bridge/markup"],
    packages: ["lit", "@lit/reactive-element", "zod"],
    browser: true,
  },
  "demo": {
    imports: ["bridge", "bridge/core"],
    packages: ["hono", "zod", "node:path", "node:sqlite", "node:url", "node:util"],
  },
  "bench": { imports: ["*"], packages: ["*"] },
  "tests": { imports: ["*"], packages: ["*"] },
};

/** One import that the table does not allow. */
export interface Violation {
  /** The importing file, relative to the root. */
  from: string;
  /** The imported file, relative to the root, or the imported package. */
  to: string;
  /** Whether `to` is a package. */
  package: boolean;
}

/** The folder a file's layer is named by: its directory, or the test tree for anything in it. */
export function layerOf(path: string): string {
  const cut = path.lastIndexOf("/");
  const dir = cut < 0 ? "." : path.slice(0, cut);
  return dir === "tests" || dir.startsWith("tests/") ? "tests" : dir;
}

/** The imports of `graph` that `layers` does not allow, sorted. */
export function checkLayers(
  graph: Graph,
  layers: Readonly<Record<string, Layer>> = LAYERS,
): Violation[] {
  const found: Violation[] = [];
  for (const [from, { files, packages }] of graph) {
    const own = layerOf(from);
    const layer = layers[own];
    for (const to of files) {
      const theirs = layerOf(to);
      if (theirs === own) continue;
      if (layer?.imports.includes("*") || layer?.imports.includes(theirs)) continue;
      found.push({ from, to, package: false });
    }
    for (const name of packages) {
      if (layer?.packages.includes("*") || layer?.packages.includes(name)) continue;
      found.push({ from, to: name, package: true });
    }
  }
  return found.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** The table's own cycles (a folder that may import one that may import it back), if any. */
export function tableCycles(layers: Readonly<Record<string, Layer>> = LAYERS): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  function visit(node: string): void {
    state.set(node, "open");
    stack.push(node);
    for (const next of layers[node]?.imports ?? []) {
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

/**
 * What the table lets a browser layer import that does not run in a browser: a folder not marked
 * `browser`, a package not in {@linkcode BROWSER_PACKAGES}, or `"*"`.
 */
export function browserProblems(layers: Readonly<Record<string, Layer>> = LAYERS): string[] {
  const problems: string[] = [];
  for (const [name, layer] of Object.entries(layers)) {
    if (!layer.browser) continue;
    for (const folder of layer.imports) {
      if (!layers[folder]?.browser) problems.push(`${name} (browser) may import ${folder}`);
    }
    for (const pkg of layer.packages) {
      if (!BROWSER_PACKAGES.includes(pkg)) problems.push(`${name} (browser) may import ${pkg}`);
    }
  }
  return problems;
}

if (import.meta.main) {
  const roots = Deno.args.length ? Deno.args : ["main.ts"];
  const cycles = tableCycles();
  for (const cycle of cycles) console.error(`layer table has a cycle: ${cycle}`);
  const browser = browserProblems();
  for (const problem of browser) console.error(`layer table: ${problem}`);
  const graph = await readGraph(roots, Deno.cwd());
  const unknown = new Set([...graph.keys()].map(layerOf).filter((layer) => !(layer in LAYERS)));
  for (const layer of unknown) console.error(`folder ${layer} is not in .ci/layers.ts's table`);
  const violations = checkLayers(graph);
  for (const { from, to, package: pkg } of violations) {
    const what = pkg ? `package ${to}` : layerOf(to);
    console.error(`${from} imports ${to}: ${layerOf(from)} may not import ${what}`);
  }
  if (cycles.length || browser.length || unknown.size || violations.length) Deno.exit(1);
  console.log(`${graph.size} modules import only the folders and packages .ci/layers.ts allows`);
}
