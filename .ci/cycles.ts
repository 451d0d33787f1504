/**
 * @module Fails when the project's own modules import each other in a cycle: each folder is a
 * layer, and a cycle means two of them know each other. Reads the graph from `deno info --json`.
 *
 * @example
 * ```sh
 * deno run --allow-run --allow-read .ci/cycles.ts main.ts demo/app.ts elements/mod.ts
 * ```
 */

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string }; type?: { specifier?: string } }[];
}

const roots = Deno.args.length ? Deno.args : ["main.ts"];
const here = new URL("../", import.meta.url).href;
const edges = new Map<string, Set<string>>();
for (const root of roots) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) Deno.exit(1);
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] };
  for (const module of info.modules) {
    if (!module.specifier.startsWith(here)) continue;
    const to = edges.get(module.specifier) ?? new Set<string>();
    edges.set(module.specifier, to);
    for (const dep of module.dependencies ?? []) {
      // Type-only imports count too: they tie the layers together just the same.
      for (const target of [dep.code?.specifier, dep.type?.specifier]) {
        if (target?.startsWith(here)) to.add(target);
      }
    }
  }
}

// Depth-first search; a back edge is a cycle.
const state = new Map<string, "open" | "done">();
const stack: string[] = [];
const cycles: string[][] = [];
function visit(node: string): void {
  state.set(node, "open");
  stack.push(node);
  for (const next of edges.get(node) ?? []) {
    const seen = state.get(next);
    if (seen === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
    else if (seen === undefined) visit(next);
  }
  stack.pop();
  state.set(node, "done");
}
for (const node of edges.keys()) if (!state.has(node)) visit(node);

const short = (s: string) => s.slice(here.length);
if (cycles.length) {
  for (const cycle of cycles) console.error(`import cycle: ${cycle.map(short).join(" → ")}`);
  Deno.exit(1);
}
console.log(`no import cycles in ${edges.size} modules`);
