/**
 * `deno task bench`: measures aim's performance budgets that a benchmark
 * can measure here: public manifest rate against a bare `Deno.serve`, resident memory per
 * session with connected tabs, and (when bench/bundle_size.ts exists) the elements bundle; and
 * what several instances on Redis cost (bench/cluster.ts, `deno task bench:cluster`); and
 * the goals of session reads: session manifest reads (JSON, TOON) and the `304` of a signed-in demo
 * session against a bare `Deno.serve` (bench/session_reads.ts), and the tokens an agent spends
 * on the demo (bench/tokens.ts, `deno task bench:tokens`); and what an invocation's round trip
 * through a real Chromium tab adds to the page's handler (bench/invoke_bench.ts; skipped where
 * there is no Chromium), and what an MCP `tools/call` adds to it with both official clients
 * (bench/mcp_bench.ts), and how much faster it is than Playwright MCP's nearest tool on the same
 * page, interleaved in the same run (bench/playwright_bench.ts); and people's pages through nginx
 * with aim beside it against nginx alone (bench/beside_bench.ts, where nginx and wrk are
 * installed). Every budget is printed as a
 * figure or a ratio measured in the same run, held or MISSED; the summary repeats them, and
 * ends with every budget of DESIGN §8 and §11 (and §12's, issue 34) on a line of its own: held,
 * MISSED, or not measured in this run and why.
 *
 * Every server, load client and tab client runs in its own process, all on 127.0.0.1. Then
 * `deno bench` runs the micro benchmarks (bench/manifest_bench.ts, bench/session_bench.ts).
 * Options: `--quick` (shorter runs, 1,000 sessions only, no micro benchmarks), `--strict` (exit
 * 1 when a budget is missed; the goals of session reads are printed, never failed on).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { BASIC_SITE } from "../tests/helpers/bridge.ts";
import { BRIDGE_V8_FLAGS, Child, compareRates, fileLimit, mb, residentBytes } from "./lib.ts";
import { sessionReads } from "./session_reads.ts";
import { createClient } from "@redis/client";
import { NO_CLUSTER } from "../tests/helpers/cluster.ts";
import { startRedis } from "../tests/helpers/redis.ts";
import { upstreamBench } from "./upstream_bench.ts";
import { besideBench, hasWrk } from "./beside_bench.ts";
import { type BudgetKey, BUDGETS } from "./budgets.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    quick: { type: "boolean", default: false },
    strict: { type: "boolean", default: false },
  },
});

/**
 * The budgets: public manifests per second as a ratio to a bare server, and the resident memory
 * of 10,000 tabs.
 */
const BUDGET = { ratio: 0.85, rss10k: 300 * 1024 * 1024 };
const CONNECTIONS = 32;
const SECONDS = flags.quick ? 2 : 5;
const WARMUP = 1;
const ROUNDS = flags.quick ? 1 : 3;
const SESSION_COUNTS = flags.quick ? [1_000] : [1_000, 10_000];
const PAGE = "/control-panel";
/** Session reads: a few seconds per part, bounded. */
const SESSION_LOAD = flags.quick
  ? { connections: CONNECTIONS, seconds: 1, warmup: 0.5, rounds: 1 }
  : { connections: CONNECTIONS, seconds: 1, warmup: 0.5, rounds: 3 };

const verdicts: { name: string; ok: boolean }[] = [];
const summary: string[] = [];

const measured = new Map<BudgetKey, { ok: boolean; result: string }>();
/** Why a budget was not measured, when the run knows. */
const unmeasured = new Map<BudgetKey, string>([
  ["testCommand", "not by this bench: time `deno task test` (README) on the machine itself"],
]);

/** Records what the run measured of a budget (a later figure of the same budget adds to it). */
function budget(key: BudgetKey, ok: boolean, result: string): void {
  const earlier = measured.get(key);
  measured.set(
    key,
    earlier ? { ok: earlier.ok && ok, result: `${earlier.result}; ${result}` } : { ok, result },
  );
}

function writeSite(): string {
  const root = Deno.makeTempDirSync({ prefix: "aim-bench-" });
  for (const [path, content] of Object.entries(BASIC_SITE)) {
    const full = join(root, path);
    Deno.mkdirSync(join(full, ".."), { recursive: true });
    Deno.writeTextFileSync(full, content);
  }
  return root;
}

async function manifestRate(root: string): Promise<void> {
  console.log(`\n## Public manifest: bridge vs bare Deno.serve (GET ${PAGE}.json, no token)`);
  const bridge = Child.start("./bridge_server.ts", [root], [
    ...BRIDGE_V8_FLAGS,
  ]);
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
  const result = await compareRates({
    bare: { url: `${bareInfo.url}${PAGE}.json`, pid: bareInfo.pid },
    bridge: { url: target, pid: bridgeInfo.pid },
  }, { connections: CONNECTIONS, seconds: SECONDS, warmup: WARMUP, rounds: ROUNDS });
  await bare.stop();
  await bridge.stop();
  Deno.removeSync(responseFile);
  if (result.errors) throw new Error(`${result.errors} answers were not 200`);

  const { bareRate, bridgeRate, ratio } = result;
  const ok = ratio >= BUDGET.ratio;
  console.log(`bare Deno.serve: ${bareRate.toFixed(0)} req/s (median)`);
  console.log(`bridge:          ${bridgeRate.toFixed(0)} req/s (median)`);
  console.log(`ratio:           ${ratio.toFixed(2)} (budget >= ${BUDGET.ratio}) ${verdict(ok)}`);
  if (result.bareCpuUs !== null && result.bridgeCpuUs !== null) {
    // Server CPU per request does not depend on how fast the client is.
    console.log(
      `server CPU per request: bare ${result.bareCpuUs.toFixed(1)} µs, bridge ${
        result.bridgeCpuUs.toFixed(1)
      } µs`,
    );
  }
  verdicts.push({ name: "manifest rate ratio", ok });
  budget("manifest", ok, `ratio ${ratio.toFixed(2)}`);
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

async function memoryPerSession(root: string, count: number, redis?: string): Promise<void> {
  console.log(
    `\n## Resident memory: ${count.toLocaleString("en")} sessions with connected tabs` +
      (redis ? ", sessions in Redis" : ""),
  );
  const limit = await fileLimit();
  if (limit < count + 1024) {
    console.log(`skipped: the open-file limit is ${limit}; ${count + 1024} descriptors are needed`);
    return;
  }
  const bridge = Child.start("./bridge_server.ts", redis ? [root, redis] : [root], [
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
  const redisMemory = redis ? await redisUsedMemory(redis) : 0;
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
  const redisAfter = redis ? await redisUsedMemory(redis) : 0;
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
  let line = `memory ${count.toLocaleString("en")}${redis ? " (Redis)" : ""}: ${
    mb(rssAfter)
  } MB resident, +${mb(delta)} MB, ${perSession.toFixed(1)} KB/session`;
  if (redis) {
    const inRedis = (redisAfter - redisMemory) / Math.max(1, added);
    console.log(`in Redis: ${(inRedis / 1024).toFixed(2)} KB per session with a tab`);
    line += `; Redis ${(inRedis / 1024).toFixed(2)} KB/session`;
    summary.push(line);
    return;
  }
  if (count === 10_000) {
    const ok = rssAfter < BUDGET.rss10k && opened.failed === 0;
    console.log(`budget: under ${mb(BUDGET.rss10k)} MB resident ${verdict(ok)}`);
    verdicts.push({ name: "10,000 sessions resident", ok });
    budget("memory10k", ok, `${mb(rssAfter)} MB resident, ${opened.failed} tabs failed`);
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
  const last = text.split("\n").at(-1) ?? "";
  summary.push(`bundle: ${last}`);
  if (!out.success) verdicts.push({ name: "bundle size", ok: false });
  budget("bundle", out.success && last.includes("ok"), last.replace(/^elements up front: /, ""));
}

/**
 * Runs a benchmark script of this folder in a process of its own, with the test lockfile (it
 * uses test-only packages, locked in deno.test.lock; see tests/deps/). Prints what it prints
 * but its `summary: ` lines, which it returns; undefined when it failed.
 */
async function child(script: string, args: string[] = []): Promise<string[] | undefined> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--lock=deno.test.lock",
      "--frozen=false",
      new URL(script, import.meta.url).pathname,
      ...args,
    ],
    cwd: new URL("../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  console.log(lines.filter((l) => !l.startsWith("summary: ")).join("\n"));
  const summaries = lines.filter((l) => l.startsWith("summary: ")).map((l) => l.slice(9));
  return out.success ? summaries : undefined;
}

async function tokens(): Promise<void> {
  console.log("\n## Tokens an agent spends on the demo (deno task bench:tokens)");
  const lines = await child("./tokens.ts");
  if (!lines) {
    console.log("bench/tokens.ts failed; run it alone with `deno task bench:tokens`");
    summary.push("tokens: failed; run `deno task bench:tokens`");
    return;
  }
  for (const line of lines) {
    summary.push(`tokens: ${line}`);
    if (line.includes("MISSED")) verdicts.push({ name: "tokens", ok: false });
    if (line.startsWith("demo task over MCP")) budget("tokensMcp", !line.includes("MISSED"), line);
    if (line.startsWith("demo task over HTTP")) {
      budget(
        "tokensHttp",
        !line.includes("MISSED"),
        line.replace(/^.*\(the cheapest/, "the cheapest"),
      );
    }
  }
}

/**
 * The invocation round trip through real Chromium (bench/invoke_bench.ts): it says itself when
 * there is no Chromium, and its `summary:` line is the verdict.
 */
async function invocation(): Promise<void> {
  console.log("\n## Invocation round trip through Chromium (bench/invoke_bench.ts)");
  const line = (await child("./invoke_bench.ts", flags.quick ? ["--calls", "300"] : []))?.[0];
  if (!line) {
    summary.push("invoke: failed; run `deno run -A --lock=deno.test.lock bench/invoke_bench.ts`");
    verdicts.push({ name: "invocation round trip", ok: false });
    return;
  }
  summary.push(line);
  verdicts.push({ name: "invocation round trip", ok: !line.includes("MISSED") });
  // "adds median X (budget 1.5: held), p95 Y (budget 4: held); back to back median Z (…)".
  const [rest, back] = line.split("; back to back");
  budget("invokeAtRest", !rest!.includes("MISSED"), rest!.replace(/^.*at rest: /, ""));
  if (back !== undefined) {
    budget("invokeBack", !back.split(";")[0]!.includes("MISSED"), back.split(";")[0]!.trim());
  }
  // The same on a page that renders nothing: what aim adds, apart from the demo's rendering.
  console.log(
    "\n## The same through a page that renders nothing (bench/invoke_bench.ts --page bare)",
  );
  const bare = (await child("./invoke_bench.ts", [
    ...(flags.quick ? ["--calls", "300"] : []),
    "--page",
    "bare",
  ]))?.[0];
  summary.push(`${bare ?? "invoke, bare page: failed"} (for information)`);
}

/**
 * An MCP `tools/call` against the same invocation over HTTP, both official clients
 * (bench/mcp_bench.ts): each `summary:` line is a ratio, held or missed.
 */
async function mcp(): Promise<void> {
  console.log("\n## MCP tools/call vs POST /__aim/invoke through Chromium (bench/mcp_bench.ts)");
  const lines = await child("./mcp_bench.ts", ["--calls", flags.quick ? "300" : "1000"]);
  if (!lines) {
    summary.push("mcp: failed; run `deno run -A --lock=deno.test.lock bench/mcp_bench.ts`");
    verdicts.push({ name: "aim's own MCP layer", ok: false });
    return;
  }
  for (const line of lines) {
    summary.push(line);
    const ok = !line.includes("MISSED");
    verdicts.push({ name: "aim's own MCP layer", ok });
    const own = /aim's own MCP layer adds [^;]*/.exec(line)?.[0] ?? line;
    if (line.startsWith("mcp (v2")) budget("mcpV2", ok, own);
    if (line.startsWith("mcp (v1")) budget("mcpV1", ok, own);
  }
}

/**
 * aim's `filter_requests` against Playwright MCP's `browser_select_option` on the same page,
 * interleaved rounds (bench/playwright_bench.ts): its `summary:` line holds the ratio.
 */
async function playwright(): Promise<void> {
  console.log(
    "\n## An invocation against Playwright MCP's nearest tool (bench/playwright_bench.ts)",
  );
  const line = (await child(
    "./playwright_bench.ts",
    flags.quick ? ["--rounds", "4", "--calls", "20"] : [],
  ))?.[0];
  if (!line || line.startsWith("playwright: not measured")) {
    const why = line?.replace(/^playwright: not measured \((.*)\)$/, "$1") ??
      "bench/playwright_bench.ts failed; run `deno run -A --lock=deno.test.lock " +
        "--frozen=false bench/playwright_bench.ts`";
    summary.push(`playwright: not measured (${why})`);
    unmeasured.set("playwright", why);
    if (!line) verdicts.push({ name: "invocation against Playwright MCP", ok: false });
    return;
  }
  summary.push(line);
  const ok = !line.includes("MISSED");
  verdicts.push({ name: "invocation against Playwright MCP", ok });
  budget("playwright", ok, line.replace(/^playwright: /, ""));
}

async function micro(): Promise<void> {
  console.log(
    "\n## Micro benchmarks (deno bench bench/manifest_bench.ts bench/session_bench.ts)",
  );
  await new Deno.Command(Deno.execPath(), {
    args: [
      "bench",
      "--allow-all",
      new URL("./manifest_bench.ts", import.meta.url).pathname,
      new URL("./session_bench.ts", import.meta.url).pathname,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
}

/** Redis's `used_memory`, in bytes. */
async function redisUsedMemory(url: string): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  const info = await client.info("memory");
  await client.close();
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

/** Several instances on Redis (bench/cluster.ts), when `redis-server` is installed. */
async function cluster(): Promise<void> {
  console.log("\n## Several instances on Redis (bench/cluster.ts)");
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--lock=deno.test.lock",
      "--frozen=false",
      new URL("./cluster.ts", import.meta.url).pathname,
      ...(flags.quick ? ["--quick"] : []),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  console.log(text);
  const added = /added by the other instance: .*$/m.exec(text)?.[0];
  if (added) summary.push(`cluster: ${added}`);
  if (added?.includes("MISSED")) verdicts.push({ name: "tab on another instance", ok: false });
  if (added) budget("cluster", !added.includes("MISSED"), added);
  else unmeasured.set("cluster", "bench/cluster.ts failed; run `deno task bench:cluster`");
}

function verdict(ok: boolean): string {
  return ok ? "(held)" : "(MISSED)";
}

const started = performance.now();
console.log(
  `# aim benchmarks: Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs, ` +
    `${Deno.build.os}/${Deno.build.arch}`,
);
const root = writeSite();
try {
  await manifestRate(root);
  await sessionReads({
    ...SESSION_LOAD,
    report: (name, ok, line) => {
      summary.push(line);
      const key = ({
        "session json read ratio": "sessionJson",
        "session toon read ratio": "sessionToon",
        "304 ratio": "notModified",
      } as Record<string, BudgetKey>)[name];
      if (key) budget(key, ok, line.replace(/^[^:]*: /, "").replace(/ \(goal[^)]*\)/, ""));
    },
  });
  for (const count of SESSION_COUNTS) await memoryPerSession(root, count);
  if (NO_CLUSTER) console.log("\n## Sessions in Redis: skipped (no redis-server or haproxy)");
  else {
    await using redis = await startRedis();
    await memoryPerSession(root, SESSION_COUNTS.at(-1)!, redis.url);
  }
  await bundleSize();
  await tokens();
  await invocation();
  await mcp();
  await playwright();
  // The proxy's goal (docs/upstream.md, "Speed": 0.8× nginx's throughput, under 1 ms added),
  // printed, never failed on: nginx must be installed.
  const nginx = await Deno.stat("/usr/sbin/nginx").then(() => true, () => false);
  if (nginx) {
    const upstream = await upstreamBench(flags.quick);
    summary.push(upstream.line);
    budget("upstreamNginx", upstream.nginx.ok, upstream.nginx.result);
    budget("upstreamFetch", upstream.fetch.ok, upstream.fetch.result);
  } else {
    console.log("\n## Pages passed through --upstream: skipped (no /usr/sbin/nginx)");
    unmeasured.set("upstreamNginx", "no /usr/sbin/nginx");
  }
  // Issue 34: pages through nginx with aim beside it, at least 0.95× nginx alone.
  if (nginx && await hasWrk()) {
    const beside = await besideBench(flags.quick);
    summary.push(beside.line);
    verdicts.push({ name: "pages beside nginx", ok: beside.ok });
    budget("beside", beside.ok, beside.line.replace(/^[^:]*: /, ""));
  } else console.log("\n## Pages through nginx with aim beside it: skipped (no nginx or wrk)");
  if (!NO_CLUSTER) await cluster();
  else unmeasured.set("cluster", "no redis-server or haproxy");
  if (!flags.quick) await micro();
} finally {
  Deno.removeSync(root, { recursive: true });
}
console.log(`\n## Summary (${((performance.now() - started) / 1000).toFixed(0)} s)`);
for (const line of summary) console.log(`- ${line}`);
if (flags.quick) {
  unmeasured.set("memory10k", "--quick opens 1,000 sessions only");
}
console.log("\n## Budgets (DESIGN §8, §11, and §12's of issue 34)");
for (const [key, name] of Object.entries(BUDGETS) as [BudgetKey, string][]) {
  const result = measured.get(key);
  console.log(
    result
      ? `- ${name}: ${result.ok ? "held" : "MISSED"} (${result.result})`
      : `- ${name}: not measured (${unmeasured.get(key) ?? "this part of the run did not finish"})`,
  );
}
if (flags.strict && verdicts.some((v) => !v.ok)) Deno.exit(1);
