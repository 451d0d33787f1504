/**
 * `deno run -A --lock=deno.test.lock --frozen=false bench/metrics_bench.ts [--quick]`: what the
 * metrics (`--metrics`) cost, each figure against the same bridge without them, in the same run:
 *
 * - recording alone, in this process: one request counted (a counter and a histogram), and one
 *   invocation watched from start to answer;
 * - page reads: a public manifest (the fast read path) and an app's page through `--upstream`,
 *   loaded by bench/load.ts (32 keep-alive connections) in alternating rounds, with and without
 *   metrics, each bridge in its own process;
 * - the invoke path: `POST /__aim/invoke` answered by a tab (a WebSocket client in this process,
 *   bench/invoke_bench.ts has the real Chromium), calls alternating between the two bridges.
 *
 * It measures; it never fails on timing.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { BridgeMetrics } from "../bridge/metrics/metrics.ts";
import type { RequestLogEntry } from "../bridge/mod.ts";
import { startBridge, type TestBridge } from "../tests/helpers/bridge.ts";
import { FakeTab } from "../tests/helpers/fake_tab.ts";
import { Child, compareRates, median } from "./lib.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: { quick: { type: "boolean", default: false } },
});
const quick = flags.quick ?? false;
const SITE = fileURLToPath(new URL("../demo/site", import.meta.url));

/** Nanoseconds per call of `f`, the median of 5 runs of `n` calls each. */
function nsPerCall(n: number, f: (i: number) => void): number {
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    for (let i = 0; i < n; i++) f(i);
    runs.push((performance.now() - started) * 1e6 / n);
  }
  return median(runs);
}

function recording(): void {
  console.log("## Recording, in this process");
  const metrics = new BridgeMetrics();
  const entries: RequestLogEntry[] = [
    "/control-panel.json",
    "/__aim/invoke",
    "/__aim/session",
    "/page.html",
    "/sitemap.toon",
    "/__aim/mcp",
    "/agents/x",
    "/__aim/elements.js",
  ].map((path, i) => ({ method: "GET", path, status: i % 3 ? 200 : 404, ms: i / 10 }));
  const n = quick ? 200_000 : 1_000_000;
  const request = nsPerCall(n, (i) => metrics.request(entries[i & 7]!));
  const watch = nsPerCall(n / 4, () => {
    const watched = metrics.watchInvocation("http");
    watched.answered("ok");
  });
  const prompt = nsPerCall(n / 4, () => {
    const watched = metrics.watchInvocation("mcp");
    watched.awaiting();
    watched.answered("declined");
  });
  console.log(`a request counted (family, status class, latency): ${request.toFixed(0)} ns`);
  console.log(`an invocation watched to its answer: ${watch.toFixed(0)} ns`);
  console.log(`an invocation with a prompt watched to its answer: ${prompt.toFixed(0)} ns`);
}

interface Served {
  child: Child;
  url: string;
  pid: number;
}

async function start(mode: "on" | "off", kind: "root" | "upstream", target: string) {
  const child = Child.start("./metrics_server.ts", [mode, kind, target]);
  const info = await child.read<{ url: string; pid: number }>();
  return { child, url: info.url, pid: info.pid } satisfies Served;
}

async function reads(): Promise<void> {
  const seconds = quick ? 2 : 5;
  const rounds = quick ? 2 : 4;
  const options = { connections: 32, seconds, warmup: 1, rounds };
  console.log(`\n## Page reads: 32 keep-alive connections, ${seconds} s, ${rounds} rounds`);
  const off = await start("off", "root", SITE);
  const on = await start("on", "root", SITE);
  try {
    const manifest = await compareRates({
      bare: { url: `${off.url}/control-panel.json`, pid: off.pid },
      bridge: { url: `${on.url}/control-panel.json`, pid: on.pid },
    }, { ...options, log: (line) => console.log(label(line)) });
    report("public manifest", manifest);
  } finally {
    await off.child.stop();
    await on.child.stop();
  }

  const page = `<!doctype html><title>App page</title>${"<p>Some text of the app.</p>".repeat(70)}`;
  const responseFile = Deno.makeTempFileSync({ suffix: ".json" });
  Deno.writeTextFileSync(
    responseFile,
    JSON.stringify({ body: page, headers: [["content-type", "text/html; charset=utf-8"]] }),
  );
  const app = Child.start("./bare_server.ts", [responseFile]);
  const appInfo = await app.read<{ url: string }>();
  const upOff = await start("off", "upstream", appInfo.url);
  const upOn = await start("on", "upstream", appInfo.url);
  try {
    const upstream = await compareRates({
      bare: { url: `${upOff.url}/page`, pid: upOff.pid },
      bridge: { url: `${upOn.url}/page`, pid: upOn.pid },
    }, { ...options, log: (line) => console.log(label(line)) });
    report("a 2 KB page through --upstream", upstream);
  } finally {
    await upOff.child.stop();
    await upOn.child.stop();
    await app.stop();
    Deno.removeSync(responseFile);
  }
}

function label(line: string): string {
  return line.replace("bare  ", "off   ").replace("bridge", "on    ");
}

function report(what: string, c: Awaited<ReturnType<typeof compareRates>>): void {
  const cpu = c.bareCpuUs !== null && c.bridgeCpuUs !== null
    ? `; CPU per answer ${c.bareCpuUs.toFixed(1)} µs off, ${c.bridgeCpuUs.toFixed(1)} µs on`
    : "";
  console.log(
    `${what}: ${c.bareRate.toFixed(0)} req/s off, ${c.bridgeRate.toFixed(0)} req/s on ` +
      `(${c.ratio.toFixed(3)}×)${cpu}`,
  );
}

/** A bridge over the demo's site with a tab that answers `search`. */
async function withTab(
  metrics: boolean,
): Promise<{ bridge: TestBridge; tab: FakeTab; token: string }> {
  const bridge = await startBridge({ root: SITE, ...(metrics ? { metrics: { port: 0 } } : {}) });
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: (q) => ({ found: [q] }) }]);
  return { bridge, tab, token };
}

async function invocations(): Promise<void> {
  const calls = quick ? 500 : 3000;
  console.log(`\n## The invoke path: ${calls} calls each, alternating, after 300 of warm-up`);
  const off = await withTab(false);
  const on = await withTab(true);
  const times = { off: [] as number[], on: [] as number[] };
  try {
    for (let i = 0; i < calls + 300; i++) {
      for (
        const [name, side] of (i % 2 ? [["on", on], ["off", off]] : [["off", off], ["on", on]]) as [
          "on" | "off",
          typeof on,
        ][]
      ) {
        const started = performance.now();
        const res = await side.bridge.invoke(side.token, "search", "pending");
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`invoke: ${res.status}`);
        if (i >= 300) times[name].push(performance.now() - started);
      }
    }
  } finally {
    for (const side of [off, on]) {
      await side.tab[Symbol.asyncDispose]();
      await side.bridge[Symbol.asyncDispose]();
    }
  }
  const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;
  console.log(
    `invoke round trip, median: ${median(times.off).toFixed(3)} ms off, ` +
      `${median(times.on).toFixed(3)} ms on (${
        (median(times.on) - median(times.off)).toFixed(3)
      } ms); ` +
      `p95 ${p95(times.off).toFixed(3)} / ${p95(times.on).toFixed(3)} ms`,
  );
}

recording();
await reads();
await invocations();
