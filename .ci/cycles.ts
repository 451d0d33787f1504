/**
 * Fails when two files import each other, directly or through others: each cycle of the import
 * graph (type-only imports too) is named by its files, in import order. The layer table
 * (`.ci/layers.ts`) already keeps folders from importing each other; this keeps the files of one
 * folder from doing so. Reads the graph from `deno info --json` of the roots given, paths
 * relative to the working directory.
 *
 * @example
 * ```sh
 * deno run --allow-run --allow-read .ci/cycles.ts main.ts demo/app.ts elements/mod.ts bench/run.ts
 * ```
 *
 * @module
 */
import { type Graph, readGraph } from "./graph.ts";

/**
 * The cycles of `graph`, each as the files on it from its first in sort order back to that file
 * (`a.ts → b.ts → a.ts`), one per strongly connected group of files, sorted.
 */
export function fileCycles(graph: Graph): string[] {
  // Tarjan's strongly connected components, iteratively: a deep graph does not overflow.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let next = 0;
  const targets = (file: string) => [...graph.get(file)?.files ?? []].sort();
  for (const start of [...graph.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { file: string; edges: string[]; at: number }[] = [];
    const open = (file: string) => {
      index.set(file, next);
      low.set(file, next++);
      stack.push(file);
      onStack.add(file);
      work.push({ file, edges: targets(file), at: 0 });
    };
    open(start);
    while (work.length) {
      const frame = work[work.length - 1]!;
      if (frame.at < frame.edges.length) {
        const to = frame.edges[frame.at++]!;
        if (!index.has(to)) open(to);
        else if (onStack.has(to)) {
          low.set(frame.file, Math.min(low.get(frame.file)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.file);
      const selfImport = graph.get(frame.file)?.files.has(frame.file) ?? false;
      if (group.length > 1 || selfImport) groups.push(group);
    }
  }
  return groups.map((group) => cycleThrough(graph, new Set(group))).sort();
}

/** One cycle through the files of a strongly connected `group`, from its first file in order. */
function cycleThrough(graph: Graph, group: ReadonlySet<string>): string {
  const first = [...group].sort()[0]!;
  // The shortest way back to the first file, breadth first, within the group.
  const cameFrom = new Map<string, string>();
  const queue = [first];
  for (let head = 0; head < queue.length; head++) {
    const file = queue[head]!;
    for (const to of [...graph.get(file)?.files ?? []].sort()) {
      if (!group.has(to)) continue;
      if (to === first) {
        const back = [first, file];
        while (back[back.length - 1] !== first) back.push(cameFrom.get(back[back.length - 1]!)!);
        return back.reverse().join(" → ");
      }
      if (cameFrom.has(to)) continue;
      cameFrom.set(to, file);
      queue.push(to);
    }
  }
  return first;
}

if (import.meta.main) {
  const roots = Deno.args.length ? Deno.args : ["main.ts"];
  const graph = await readGraph(roots, Deno.cwd());
  const cycles = fileCycles(graph);
  for (const cycle of cycles) console.error(`import cycle: ${cycle}`);
  if (cycles.length) Deno.exit(1);
  console.log(`${graph.size} modules import one another without a cycle`);
}
