/**
 * @module `deno task bench`: measures the performance budgets of DESIGN §8 that a benchmark
 * can measure here: public manifest rate against a bare `Deno.serve`, resident memory per
 * session with connected tabs, and (when bench/bundle_size.ts exists) the elements bundle.
 *
 * Every server, load client and tab client runs in its own process, all on 127.0.0.1.
 * Then `deno bench bench/manifest_bench.ts` runs the micro benchmarks. Options: `--quick`
 * (shorter runs, 1,000 sessions only, no micro benchmarks), `--strict` (exit 1 when a budget is
 * missed).
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { BASIC_SITE } from "../tests/helpers/bridge.ts";
import { BRIDGE_V8_FLAGS, Child, cpuMillis, fileLimit, mb, residentBytes } from "./lib.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    quick: { type: "boolean", default: false },
    strict: { type: "boolean", default: false },
  },
});

/** Budgets of DESIGN §8. */
const BUDGET = { ratio: 0.7, rss10k: 300 * 1024 * 1024 };
const CONNECTIONS = 32;
const SECONDS = flags.quick ? 2 : 5;
const WARMUP = 1;
const ROUNDS = flags.quick ? 1 : 3;
const SESSION_COUNTS = flags.quick ? [1_000] : [1_000, 10_000];
const PAGE = "/control-panel";

const verdicts: { name: string; ok: boolean }[] = [];
const summary: string[] = [];

function writeSite(): string {
  const root = Deno.makeTempDirSync({ prefix: "aim-bench-" });
  for (const [path, content] of Object.entries(BASIC_SITE)) {
    const full = join(root, path);
    Deno.mkdirSync(join(full, ".."), { recursive: true });
    Deno.writeTextFileSync(full, content);
  }
  return root;
}

interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rate: number;
}

/** One timed load run against `url`, with the server's CPU time over it. */
async function load(url: string, pid: number): Promise<LoadResult & { cpuMs: number | null }> {
  const cpuBefore = cpuMillis(pid);
  const client = Child.start("./load.ts", [url, String(CONNECTIONS), String(SECONDS), "0"]);
  const result = await client.read<LoadResult>();
  await client.stop();
  const cpuAfter = cpuMillis(pid);
  return {
    ...result,
    cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
  };
}

async function manifestRate(root: string): Promise<void> {
  console.log(`\n## Public manifest: bridge vs bare Deno.serve (GET ${PAGE}.json, no token)`);
  const bridge = Child.start("./bridge_server.ts", [root], [...BRIDGE_V8_FLAGS]);
  const bridgeInfo = await bridge.read<{ url: string; pid: number }>();
  const target = `${bridgeInfo.url}${PAGE}.json`;
  const res = await fetch(target);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`the bridge answered ${res.status}: ${body}`);
  // The same bytes and headers, minus those the server computes itself.
  const headers = [...res.headers].filter(([k]) => k !== "date" && k !== "content-length");
  const responseFile = Deno.makeTempFileSync({ suffix: ".json" });
  Deno.writeTextFileSync(responseFile, JSON.stringify({ body, headers }));
  const bare = Child.start("./bare_server.ts", [responseFile], [...BRIDGE_V8_FLAGS]);
  const bareInfo = await bare.read<{ url: string; pid: number }>();
  const bareRes = await fetch(`${bareInfo.url}${PAGE}.json`);
  const bareBody = await bareRes.text();
  if (bareBody !== body) throw new Error("the bare server does not answer the same bytes");
  console.log(
    `body ${new TextEncoder().encode(body).length} bytes; headers: ${
      headers.map(([k]) => k).join(", ")
    }`,
  );
  console.log(
    `load: ${CONNECTIONS} keep-alive connections, ${SECONDS} s per run, ${ROUNDS} round(s)`,
  );

  const servers = {
    bare: { url: `${bareInfo.url}${PAGE}.json`, pid: bareInfo.pid, runs: [] as LoadResult[] },
    bridge: { url: target, pid: bridgeInfo.pid, runs: [] as LoadResult[] },
  };
  const cpu = { bare: [] as number[], bridge: [] as number[] };
  // Warm both (JIT, connection setup) before anything counts.
  for (const s of Object.values(servers)) {
    const client = Child.start("./load.ts", [s.url, String(CONNECTIONS), String(WARMUP), "0"]);
    await client.read();
    await client.stop();
  }
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order so that neither always runs on a warmer or cooler machine.
    const order = round % 2 === 0 ? ["bare", "bridge"] as const : ["bridge", "bare"] as const;
    for (const name of order) {
      const s = servers[name];
      const result = await load(s.url, s.pid);
      if (result.errors) throw new Error(`${name}: ${result.errors} answers were not 200`);
      s.runs.push(result);
      if (result.cpuMs !== null) cpu[name].push(result.cpuMs * 1000 / result.requests);
      console.log(`  ${name.padEnd(6)} ${result.rate.toFixed(0).padStart(7)} req/s`);
    }
  }
  await bare.stop();
  await bridge.stop();
  Deno.removeSync(responseFile);

  // The median of the rounds: one run disturbed by the machine does not move it.
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const bareRate = median(servers.bare.runs.map((r) => r.rate));
  const bridgeRate = median(servers.bridge.runs.map((r) => r.rate));
  const ratio = bridgeRate / bareRate;
  const ok = ratio >= BUDGET.ratio;
  console.log(`bare Deno.serve: ${bareRate.toFixed(0)} req/s (median)`);
  console.log(`bridge:          ${bridgeRate.toFixed(0)} req/s (median)`);
  console.log(`ratio:           ${ratio.toFixed(2)} (budget >= ${BUDGET.ratio}) ${verdict(ok)}`);
  if (cpu.bare.length && cpu.bridge.length) {
    // Server CPU per request does not depend on how fast the client is.
    console.log(
      `server CPU per request: bare ${median(cpu.bare).toFixed(1)} µs, bridge ${
        median(cpu.bridge).toFixed(1)
      } µs`,
    );
  }
  verdicts.push({ name: "manifest rate ratio", ok });
  summary.push(
    `manifest: bridge ${bridgeRate.toFixed(0)} req/s, bare ${bareRate.toFixed(0)} req/s, ` +
      `ratio ${ratio.toFixed(2)} ${verdict(ok)}`,
  );
}

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  sessions: number;
}

async function memoryPerSession(root: string, count: number): Promise<void> {
  console.log(`\n## Resident memory: ${count.toLocaleString("en")} sessions with connected tabs`);
  const limit = await fileLimit();
  if (limit < count + 1024) {
    console.log(`skipped: the open-file limit is ${limit}; ${count + 1024} descriptors are needed`);
    return;
  }
  const bridge = Child.start("./bridge_server.ts", [root], [
    "--expose-gc",
    ...BRIDGE_V8_FLAGS,
  ]);
  const info = await bridge.read<{ url: string; pid: number }>();
  // Warm the bridge: the catalog scanned, the routes and the session path compiled.
  await (await fetch(`${info.url}${PAGE}.json`)).body?.cancel();
  await (await fetch(`${info.url}/__aim/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ page: PAGE }),
  })).body?.cancel();
  await bridge.send("mem");
  const before = await bridge.read<Memory>();
  const rssBefore = residentBytes(info.pid) ?? before.rss;

  const tabs = Child.start("./tabs.ts", [info.url, PAGE, String(count)]);
  const opened = await tabs.read<{ tabs: number; failed: number; ms: number }>();
  // Let the last registrations and states land before measuring.
  await new Promise((r) => setTimeout(r, 2_000));
  await bridge.send("mem");
  const after = await bridge.read<Memory>();
  const rssAfter = residentBytes(info.pid) ?? after.rss;
  await tabs.stop();
  await bridge.stop();

  const added = after.sessions - before.sessions;
  const delta = rssAfter - rssBefore;
  const perSession = delta / Math.max(1, added) / 1024;
  const heapPer = (after.heapUsed - before.heapUsed) / Math.max(1, added) / 1024;
  console.log(
    `opened ${opened.tabs} tabs (${opened.failed} failed) in ${(opened.ms / 1000).toFixed(1)} s`,
  );
  console.log(`RSS before ${mb(rssBefore)} MB, after ${mb(rssAfter)} MB (+${mb(delta)} MB)`);
  console.log(
    `per session: ${perSession.toFixed(1)} KB resident, ${heapPer.toFixed(1)} KB of JS heap`,
  );
  let line = `memory ${count.toLocaleString("en")}: ${mb(rssAfter)} MB resident, ` +
    `+${mb(delta)} MB, ${perSession.toFixed(1)} KB/session`;
  if (count === 10_000) {
    const ok = rssAfter < BUDGET.rss10k && opened.failed === 0;
    console.log(`budget: under ${mb(BUDGET.rss10k)} MB resident ${verdict(ok)}`);
    verdicts.push({ name: "10,000 sessions resident", ok });
    line += ` ${verdict(ok)}`;
  }
  summary.push(line);
}

async function bundleSize(): Promise<void> {
  const script = new URL("./bundle_size.ts", import.meta.url);
  try {
    Deno.statSync(script);
  } catch {
    console.log("\n## Elements bundle: skipped (bench/bundle_size.ts does not exist)");
    return;
  }
  console.log("\n## Elements bundle (bench/bundle_size.ts)");
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", script.pathname],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  console.log(text);
  summary.push(`bundle: ${text.split("\n").at(-1)}`);
  if (!out.success) verdicts.push({ name: "bundle size", ok: false });
}

async function micro(): Promise<void> {
  console.log("\n## Micro benchmarks (deno bench bench/manifest_bench.ts)");
  await new Deno.Command(Deno.execPath(), {
    args: ["bench", "--allow-all", new URL("./manifest_bench.ts", import.meta.url).pathname],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
}

function verdict(ok: boolean): string {
  return ok ? "(within budget)" : "(OVER BUDGET)";
}

const started = performance.now();
console.log(
  `# aim benchmarks: Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs, ` +
    `${Deno.build.os}/${Deno.build.arch}`,
);
const root = writeSite();
try {
  await manifestRate(root);
  for (const count of SESSION_COUNTS) await memoryPerSession(root, count);
  await bundleSize();
  if (!flags.quick) await micro();
} finally {
  Deno.removeSync(root, { recursive: true });
}
console.log(`\n## Summary (${((performance.now() - started) / 1000).toFixed(0)} s)`);
for (const line of summary) console.log(`- ${line}`);
if (flags.strict && verdicts.some((v) => !v.ok)) Deno.exit(1);
