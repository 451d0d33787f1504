/**
 * Whether a pattern risks catastrophic backtracking in the engines browsers and agents use (its
 * Glushkov automaton is exponentially ambiguous): a warning of `aim check`.
 *
 * @module
 */
import { parsePattern } from "../input/pattern_parser.ts";
import { PatternError, type PatternNode } from "../input/pattern.ts";

// ---------------------------------------------------------------------------------------------
// Catastrophic backtracking. The bridge runs patterns with RE2, in linear time; but browsers
// check form fields' patterns, and agents validate input against the published input_schema,
// with backtracking engines. A pattern is reported when such an engine can take exponential
// time on it: when its Glushkov automaton is exponentially ambiguous (two different paths
// from one position back to itself read the same text: (a+)+, (a|a)*, (\w|\d)+, (a|b|ab)*),
// at a position after which the pattern still needs something that can fail (`$`, another
// part), so that the engine tries every path before giving up. Polynomial ambiguity (\d+\d+)
// is not reported. Packages weighed for this: safe-regex2 misses (a|a)* and flags safe
// patterns such as [a-z0-9]+(?:-[a-z0-9]+)*; redos-detector is precise on some patterns but
// takes seconds on others and answers "too many steps" for safe ones such as a{1,30}a{1,30}.

/** Code points every position is tried on, beside those the pattern itself names. */
const SAMPLE_CODE_POINTS = [
  0x2028,
  0x2029,
  0x1680,
  0x2000,
  0x200a,
  0x202f,
  0x205f,
  0x3000,
  0xfeff,
  0x391,
  0x3b1,
  0x410,
  0x430,
  0x5d0,
  0x627,
  0x660,
  0x905,
  0x966,
  0xe01,
  0x3042,
  0x30a2,
  0x4e00,
  0x9fff,
  0xac00,
  0xd800,
  0xdc00,
  0xe000,
  0xfffd,
  0xff10,
  0xff21,
  0x2160,
  0x10000,
  0x1f600,
  0x10ffff,
];
/** Product-automaton edges examined at most, so that a huge pattern cannot stall the check. */
const MAX_EDGES = 2_000_000;

interface Automaton {
  /** Per position: the regular expression of what it reads, or null for the end of input. */
  atoms: ({ source: string; flags: string } | null)[];
  /**
   * Per position: the positions that may come next, each with how many ways the pattern's
   * structure leads there: `(a+)+` goes from `a` back to `a` by the inner and by the outer
   * repetition, which a backtracking engine tries both.
   */
  follow: Map<number, number>[];
  first: Set<number>;
  last: Set<number>;
}

function glushkov(tree: PatternNode): Automaton {
  const atoms: Automaton["atoms"] = [];
  const follow: Map<number, number>[] = [];
  const link = (from: Set<number>, to: Set<number>) => {
    for (const l of from) {
      // Positions are indices that `add` gave out, so each has its map.
      const next = follow[l]!;
      for (const f of to) next.set(f, (next.get(f) ?? 0) + 1);
    }
  };
  const add = (atom: Automaton["atoms"][number]) => {
    atoms.push(atom);
    follow.push(new Map());
    return atoms.length - 1;
  };
  type Part = { nullable: boolean; first: Set<number>; last: Set<number> };
  const empty = (): Part => ({ nullable: true, first: new Set(), last: new Set() });
  const walk = (node: PatternNode): Part => {
    switch (node.type) {
      case "atom": {
        const flags = "u" + (node.ignoreCase ? "i" : "") + (node.dotAll ? "s" : "");
        const p = add({ source: node.source, flags });
        return { nullable: false, first: new Set([p]), last: new Set([p]) };
      }
      case "assert": {
        if (node.kind !== "$") return empty();
        const p = add(null);
        return { nullable: false, first: new Set([p]), last: new Set([p]) };
      }
      case "group":
        return walk(node.body);
      case "alt": {
        const out: Part = { nullable: false, first: new Set(), last: new Set() };
        for (const alt of node.alts) {
          const part = walk(alt);
          out.nullable ||= part.nullable;
          for (const p of part.first) out.first.add(p);
          for (const p of part.last) out.last.add(p);
        }
        return out;
      }
      case "seq": {
        let out = empty();
        for (const item of node.items) {
          const part = walk(item);
          link(out.last, part.first);
          out = {
            nullable: out.nullable && part.nullable,
            first: out.nullable ? new Set([...out.first, ...part.first]) : out.first,
            last: part.nullable ? new Set([...part.last, ...out.last]) : part.last,
          };
        }
        return out;
      }
      case "repeat": {
        if (node.max === 0) return empty();
        const part = walk(node.body);
        // Any count above one is a loop: bounded repetitions are treated as unbounded.
        if (node.max > 1) link(part.last, part.first);
        return { ...part, nullable: part.nullable || node.min === 0 };
      }
    }
  };
  const root = walk(tree);
  return { atoms, follow, first: root.first, last: root.last };
}

/** Which of `candidates` each position reads, as bit sets (one more bit: the end of input). */
function readSets(automaton: Automaton, candidates: number[]): Uint32Array[] {
  const words = Math.ceil((candidates.length + 1) / 32);
  const endBit = candidates.length;
  return automaton.atoms.map((atom) => {
    const bits = new Uint32Array(words);
    if (atom === null) {
      // `words` has room for bit `endBit`, and for each candidate's below.
      bits[endBit >> 5]! |= 1 << (endBit & 31);
      return bits;
    }
    const re = new RegExp(`^(?:${atom.source})$`, atom.flags);
    candidates.forEach((cp, i) => {
      if (re.test(String.fromCodePoint(cp))) bits[i >> 5]! |= 1 << (i & 31);
    });
    return bits;
  });
}

/** What {@linkcode backtrackingRisk} found. */
export type BacktrackingRisk =
  /** A backtracking engine can take exponential time; `atom` is where the paths meet. */
  | { kind: "catastrophic"; atom: string }
  /** The pattern is too large to tell within the analysis budget. */
  | { kind: "unknown" };

/**
 * Whether `pattern` can backtrack catastrophically in a backtracking engine; undefined when it
 * cannot, or does not parse (the bridge reports such patterns itself).
 */
export function backtrackingRisk(pattern: string): BacktrackingRisk | undefined {
  let tree: PatternNode;
  try {
    tree = parsePattern(pattern);
  } catch (error) {
    if (error instanceof PatternError) return undefined;
    throw error;
  }
  const automaton = glushkov(tree);
  const n = automaton.atoms.length;
  if (n === 0) return undefined;
  const named = new Set<number>();
  for (const atom of automaton.atoms) {
    for (const m of atom?.source.matchAll(/\\u\{([0-9a-fA-F]+)\}|\\x([0-9a-fA-F]{2})/g) ?? []) {
      // One of the two alternatives matched, so one of the groups took part.
      const cp = parseInt((m[1] ?? m[2])!, 16);
      named.add(cp).add(Math.max(0, cp - 1)).add(Math.min(0x10ffff, cp + 1));
    }
    for (const ch of atom?.source ?? "") {
      const cp = ch.codePointAt(0)!;
      named.add(cp).add(Math.max(0, cp - 1)).add(Math.min(0x10ffff, cp + 1));
    }
  }
  const candidates = [
    ...new Set([
      ...Array.from({ length: 0x250 }, (_, i) => i),
      ...SAMPLE_CODE_POINTS,
      ...named,
    ]),
  ];
  const sets = readSets(automaton, candidates);
  const meets = (a: number, b: number) => {
    // Positions index `sets`, whose bit sets all have the same length.
    const x = sets[a]!;
    const y = sets[b]!;
    for (let i = 0; i < x.length; i++) if (x[i]! & y[i]!) return true;
    return false;
  };
  // The product automaton: pairs of positions that read the same text, START being n. A pair
  // of equal positions is "diverged" when the two paths reached it by different ways.
  const START = n;
  const startFollow = new Map([...automaton.first].map((p) => [p, 1]));
  const followOf = (p: number) => (p === START ? startFollow : automaton.follow[p]!);
  const key = (p: number, q: number, diverged: boolean) =>
    (p * (n + 1) + q) * 2 + (diverged ? 1 : 0);
  const unkey = (node: number) => {
    const pair = Math.floor(node / 2);
    return { p: Math.floor(pair / (n + 1)), q: pair % (n + 1), diverged: node % 2 === 1 };
  };
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  let counter = 0;
  let edges = 0;
  let found: string | undefined;
  const successors = (node: number): number[] => {
    const { p, q } = unkey(node);
    const out: number[] = [];
    for (const [p2, ways] of followOf(p)) {
      for (const q2 of followOf(q).keys()) {
        if (++edges > MAX_EDGES) throw new RangeError("too large");
        if (!meets(p2, q2)) continue;
        out.push(key(p2, q2, false));
        if (p === q && p2 === q2 && ways > 1) out.push(key(p2, q2, true));
      }
    }
    return out;
  };
  // Tarjan's strongly connected components, without recursion.
  const visit = (root: number) => {
    const work: { node: number; next: number[]; i: number }[] = [];
    const open = (node: number) => {
      index.set(node, counter);
      low.set(node, counter++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, next: successors(node), i: 0 });
    };
    open(root);
    while (work.length && found === undefined) {
      const frame = work[work.length - 1]!;
      if (frame.i < frame.next.length) {
        const next = frame.next[frame.i++]!;
        if (!index.has(next)) open(next);
        else if (onStack.has(next)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(next)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: number[] = [];
      let member: number;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const pairs = component.map(unkey);
      const differing = new Set<number>();
      for (const { p, q, diverged } of pairs) if (p !== q || diverged) differing.add(p).add(q);
      if (differing.size === 0) continue;
      const loops = pairs.filter(({ p, q, diverged }) =>
        p === q && !diverged && p !== START && !automaton.last.has(p)
      );
      const loop = loops.find(({ p }) => differing.has(p)) ?? loops[0];
      if (loop) found = automaton.atoms[loop.p]?.source ?? "$";
    }
  };
  try {
    visit(key(START, START, false));
  } catch (error) {
    if (error instanceof RangeError) return { kind: "unknown" };
    throw error;
  }
  return found === undefined ? undefined : { kind: "catastrophic", atom: found };
}

/** Every pattern of an input schema, with where it is. */
