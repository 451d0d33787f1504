/**
 * The CPU a change document costs: `deno run --allow-all
 * bench/patch_bench.ts [--seconds N] [--readers N]`.
 *
 * 1. Computing one: `createJsonPatch` and `createMergePatch` between two versions of a maximal
 *    state (as big as `fitState` keeps whole: 256 KiB of JSON), for a few kinds of change, each
 *    timed in a loop, next to one `JSON.stringify` of the new manifest (the baseline: what the
 *    whole manifest costs to encode, once per version).
 * 2. Reading them: a bridge on port 0 in this process, a fake tab holding a maximal state that
 *    changed 7 times (every row each time), and an agent that reads change documents one after
 *    another: the same one again and again, then 28 different ones in turn (7 held versions, JSON
 *    Patch and merge patch, JSON and TOON): milliseconds per read, and how many were change
 *    documents and how many whole manifests.
 * 3. Starving others: `--readers` agents read the whole manifest (the baseline), then change
 *    documents in the same two ways, for `--seconds` each, while another session invokes an action in a loop; its invoke latency
 *    (p50, p95) is printed next to the same loop with nobody reading.
 *
 * Printed, never failed on timing.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { createJsonPatch } from "../bridge/wire/json_patch.ts";
import { createMergePatch } from "../bridge/wire/merge_patch.ts";
import { fitState } from "../bridge/wire/state_limit.ts";
import { DEFAULT_LIMITS } from "../bridge/core/limits.ts";
import { startBridge } from "../tests/helpers/bridge.ts";
import { FakeTab } from "../tests/helpers/fake_tab.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    readers: { type: "string", default: "8" },
  },
});
const SECONDS = Math.max(1, Number(values.seconds));
const READERS = Math.max(1, Number(values.readers));

type Row = { id: string; title: string; status: string; owner: string; amount: number };

/** Rows until the state's JSON reaches the state limit, and a marker of what was cut. */
function maximalRows(
  status: (i: number) => string,
  maxBytes = DEFAULT_LIMITS.maxStateBytes,
): Record<string, unknown> {
  const rows: Row[] = Array.from({ length: 4000 }, (_, i) => ({
    id: `req-${i}`,
    title: `Request number ${i} for a new laptop`,
    status: status(i),
    owner: `user${i % 97}`,
    amount: i * 10,
  }));
  return fitState({ filter: "all", rows }, maxBytes).state;
}

/** Rows 28 objects deep (the bridge keeps 32 levels of a state), the whole within the limit. */
function deep(status: (i: number) => string): Record<string, unknown> {
  let value = maximalRows(status, DEFAULT_LIMITS.maxStateBytes - 4096);
  for (let i = 0; i < 28; i++) value = { [`level${i}`]: value };
  return value;
}

/** A manifest around `state`, shaped as the bridge's. */
function manifest(state: Record<string, unknown>, version: number) {
  return {
    aim_version: "1",
    page: "/control-panel",
    state_version: version,
    actions: Array.from({ length: 12 }, (_, i) => ({
      id: `action-${i}`,
      description: `Action number ${i}`,
      input_schema: { type: "object", properties: { q: { type: "string" } } },
    })),
    state,
  };
}

/** The rows of {@linkcode deep} as an object by id, the last one's status `last`. */
function deepById(last: string): Record<string, unknown> {
  const state = deep(() => "open");
  let node = state;
  for (let i = 27; i >= 0; i--) node = node[`level${i}`] as Record<string, unknown>;
  const rows = node.rows as Row[];
  node.rows = Object.fromEntries(
    rows.map((r, i) => [r.id, i === rows.length - 1 ? { ...r, status: last } : r]),
  );
  return state;
}

const before = maximalRows(() => "open");
const CASES: [string, unknown, unknown][] = [
  [
    "one field of one row",
    manifest(before, 1),
    manifest({
      ...before,
      rows: (before.rows as Row[]).map((r, i) => i === 7 ? { ...r, status: "held" } : r),
    }, 2),
  ],
  [
    "a field of every row",
    manifest(before, 1),
    manifest(maximalRows(() => "held"), 2),
  ],
  [
    "every row, 28 levels deep",
    manifest(deep(() => "open"), 1),
    manifest(deep(() => "held"), 2),
  ],
  [
    "the last row of an object of rows, 28 levels deep",
    manifest(deepById("open"), 1),
    manifest(deepById("held"), 2),
  ],
];

/** Milliseconds per call of `f`, over at least `ms` milliseconds. */
function timePerCall(f: () => unknown, ms = 1000): number {
  f();
  let calls = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    f();
    calls++;
    now = performance.now();
  }
  return (now - start) / calls;
}

console.log(
  `1. Computing a change document (state ${
    JSON.stringify(before).length
  } bytes of JSON), ms per call:`,
);
for (const [name, a, b] of CASES) {
  const whole = timePerCall(() => JSON.stringify(b));
  const json = timePerCall(() => createJsonPatch(a, b));
  const merge = timePerCall(() => createMergePatch(a, b));
  const size = JSON.stringify(createJsonPatch(a, b)).length;
  console.log(
    `   ${name}: JSON Patch ${json.toFixed(3)} (${
      (json / whole).toFixed(1)
    }× a stringify, ${size} bytes), ` +
      `merge patch ${merge.toFixed(3)} (${(merge / whole).toFixed(1)}×); stringify ${
        whole.toFixed(3)
      }`,
  );
}

await using bridge = await startBridge();
/** Versions a reader's session goes through; the bridge keeps the manifests of the last 8. */
const VERSIONS = 8;

/**
 * A session whose tab holds a maximal state that changed `VERSIONS - 1` times, every row each
 * time, and the ETags of the versions an agent read before the last.
 */
async function patchedSession(): Promise<{ token: string; etags: string[]; tab: FakeTab }> {
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const etags: string[] = [];
  for (let v = 0; v < VERSIONS; v++) {
    tab.setState(deep(() => `status ${v}`));
    await tab.register([{ id: "search", handler: () => 1 }]);
    const res = await bridge.fetch("/control-panel.json", {
      headers: { Authorization: `Bearer ${token}` },
    });
    await res.body?.cancel();
    etags.push(res.headers.get("etag")!);
  }
  return { token, etags: etags.slice(0, -1), tab };
}

/** The change documents an agent can ask for: kind and format. */
const ASKS = [
  { type: "application/json-patch+json", format: "json" },
  { type: "application/json-patch+json", format: "toon" },
  { type: "application/merge-patch+json", format: "json" },
  { type: "application/merge-patch+json", format: "toon" },
] as const;

/** Reads a change document from `etag`; the answer's media type, without parameters. */
async function readPatch(
  token: string,
  etag: string,
  ask: (typeof ASKS)[number] | typeof WHOLE = ASKS[0],
) {
  const res = await bridge.fetch(`/control-panel.${ask.format}`, {
    headers: {
      Authorization: `Bearer ${token}`,
      Accept: ask.type,
      ...(etag ? { "If-None-Match": etag } : {}),
    },
  });
  await res.arrayBuffer();
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!;
  return res.headers.get("aim-patch-from") ? `${ask.format} ${ask.type}` : `whole ${type}`;
}

/** The whole manifest, as a baseline: a read without `If-None-Match` asks for no change. */
const WHOLE = { type: "application/json", format: "json" } as const;

/**
 * Each reader's next read: the whole manifest (the baseline), the same change document, or a
 * new one of 28 in turn.
 */
type Pattern = "whole" | "same" | "rotating";
function nextAsk(pattern: Pattern, etags: string[], i: number) {
  if (pattern === "whole") return { etag: "", ask: WHOLE };
  if (pattern === "same") return { etag: etags[0]!, ask: ASKS[0] };
  return { etag: etags[i % etags.length]!, ask: ASKS[Math.floor(i / etags.length) % ASKS.length]! };
}

/** Counts of answers by kind, as a line. */
const tally = (answers: Map<string, number>) =>
  [...answers].map(([kind, n]) => `${n} ${kind}`).join(", ");

/** Reads by `pattern` in a loop until `done()`; the answers' kinds counted in `answers`. */
async function readLoop(
  session: { token: string; etags: string[] },
  pattern: Pattern,
  answers: Map<string, number>,
  done: () => boolean,
): Promise<number> {
  let i = 0;
  while (!done()) {
    const { etag, ask } = nextAsk(pattern, session.etags, i++);
    const got = await readPatch(session.token, etag, ask);
    answers.set(got, (answers.get(got) ?? 0) + 1);
  }
  return i;
}

const reader = await patchedSession();
for (const pattern of ["same", "rotating"] as const) {
  const answers = new Map<string, number>();
  const start = performance.now();
  const reads = await readLoop(reader, pattern, answers, () => performance.now() - start > 2000);
  console.log(
    `2. Reading change documents (every row changed, 28 levels deep) one after another, ${
      pattern === "same" ? "the same one" : "28 different ones in turn"
    }: ${((performance.now() - start) / reads).toFixed(3)} ms per read (${tally(answers)})`,
  );
}

// 3. Another session's invocations while agents read change documents.
const victim = await bridge.openSession("/control-panel");
await using victimTab = await FakeTab.open(bridge.origin, {
  token: victim,
  page: "/control-panel",
});
await victimTab.next("lease");
await victimTab.register([{ id: "search", handler: () => 1 }]);

async function invokeLatencies(ms: number): Promise<number[]> {
  const out: number[] = [];
  const start = performance.now();
  while (performance.now() - start < ms) {
    const t = performance.now();
    const res = await bridge.invoke(victim, "search", "x");
    await res.arrayBuffer();
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!.toFixed(1);

const quiet = await invokeLatencies(SECONDS * 1000);
console.log(
  `3. Another session's invoke alone: p50 ${pct(quiet, 0.5)} ms, p95 ${pct(quiet, 0.95)} ms`,
);
const sessions = await Promise.all(Array.from({ length: READERS }, () => patchedSession()));
const PATTERNS = {
  whole: "the whole manifest",
  same: "the same change document",
  rotating: "28 change documents in turn",
};
for (const pattern of ["whole", "same", "rotating"] as const) {
  let stop = false;
  const answers = new Map<string, number>();
  const loops = sessions.map((session) => readLoop(session, pattern, answers, () => stop));
  const loaded = await invokeLatencies(SECONDS * 1000);
  stop = true;
  const reads = (await Promise.all(loops)).reduce((a, b) => a + b, 0);
  console.log(
    `   while ${READERS} agents read ${PATTERNS[pattern]}: p50 ${pct(loaded, 0.5)} ms, p95 ${
      pct(loaded, 0.95)
    } ms ` +
      `(${reads} reads in ${SECONDS} s: ${tally(answers)})`,
  );
}
for (const { tab } of [...sessions, reader]) await tab.close();
