/**
 * `deno run -A bench/upstream_bench.ts [--quick]`: pages passed through `aim serve --upstream`
 * against nginx's `proxy_pass` and against a bare proxy on the runtime's `fetch` that checks
 * nothing (bench/fetch_proxy_server.ts), all three to the same app in the same rounds, against
 * the budgets docs/upstream.md states ("Speed": at least 0.8× nginx's throughput, under 1 ms
 * added at the median, DESIGN §11; at least 0.9× the bare `fetch` proxy, §12). The app is a bare
 * `Deno.serve` answering a 2 KB HTML page; nginx runs one worker (aim runs one JavaScript
 * thread), keep-alive to the app on all three.
 * Throughput: wrk (one thread, 32 keep-alive connections; bench/load.ts where wrk is missing),
 * rounds whose order rotates, so that each server runs first, middle and last alike; each
 * server's CPU time per answer beside it (nginx's workers are not counted). Latency: one
 * keep-alive connection, one request at a time, through each proxy and straight to the app;
 * what a proxy adds is its median minus the app's.
 * @module
 */
import { parseArgs } from "node:util";
import { Child, cpuMillis, loadOnce, median } from "./lib.ts";
import { hasWrk, wrk } from "./beside_bench.ts";

const NGINX = "/usr/sbin/nginx";

/** One line of the summary run.ts prints, and each budget's figures and verdict. */
export interface UpstreamBenchResult {
  line: string;
  /** Against nginx (DESIGN §11): at least 0.8× its rate, under 1 ms added at the median. */
  nginx: { ok: boolean; result: string };
  /** Against the bare `fetch` proxy (DESIGN §12): at least 0.9× its rate. */
  fetch: { ok: boolean; result: string };
}

/** The budgets: ratios of aim's rate, and the latency it adds, ms. */
const BUDGET = { nginx: 0.8, fetch: 0.9, addedMs: 1 } as const;

/** A server under load: its URL and its process (0 where its CPU is not counted). */
interface Loaded {
  name: string;
  url: string;
  pid: number;
}

/**
 * The median rate and CPU per answer of each server over `rounds` rounds of `seconds`, the
 * order rotating round by round; prints each run.
 */
async function interleaved(
  servers: Loaded[],
  options: { seconds: number; rounds: number },
): Promise<Map<string, { rate: number; cpuUs: number | null }>> {
  const useWrk = await hasWrk();
  const once = async (server: Loaded, seconds: number) => {
    const before = server.pid ? cpuMillis(server.pid) : null;
    const run = useWrk
      ? await wrk(`${server.url}/page`, seconds, [])
      : await loadOnce({ url: `${server.url}/page`, pid: 0 }, seconds, {
        connections: 32,
        seconds,
        warmup: 0,
        rounds: 1,
      });
    if (run.errors) throw new Error(`${server.name}: ${run.errors} answers were not 200`);
    const after = server.pid ? cpuMillis(server.pid) : null;
    const cpuUs = before !== null && after !== null && run.requests > 0
      ? (after - before) * 1000 / run.requests
      : null;
    return { rate: run.rate, cpuUs };
  };
  for (const server of servers) await once(server, 1);
  const runs = new Map(
    servers.map((s) => [s.name, { rates: [] as number[], cpu: [] as number[] }]),
  );
  for (let round = 0; round < options.rounds; round++) {
    const order = servers.map((_, i) => servers[(i + round) % servers.length]!);
    for (const server of order) {
      const { rate, cpuUs } = await once(server, options.seconds);
      runs.get(server.name)!.rates.push(rate);
      if (cpuUs !== null) runs.get(server.name)!.cpu.push(cpuUs);
      console.log(
        `  ${server.name.padEnd(6)} ${rate.toFixed(0).padStart(7)} req/s` +
          (cpuUs === null ? "" : `, ${cpuUs.toFixed(1)} µs of CPU per answer`),
      );
    }
  }
  return new Map(
    [...runs].map(([name, { rates, cpu }]) => [
      name,
      { rate: median(rates), cpuUs: cpu.length ? median(cpu) : null },
    ]),
  );
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** nginx with one worker proxying to `upstream`; resolves once it answers. */
async function startNginx(upstream: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "aim-nginx-" });
  const port = freePort();
  const app = new URL(upstream);
  await Deno.writeTextFile(
    `${dir}/nginx.conf`,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 10000000;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream app { server ${app.host}; keepalive 64; keepalive_requests 10000000; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $host;
    }
  }
}
`,
  );
  const child = new Deno.Command(NGINX, {
    args: ["-c", `${dir}/nginx.conf`, "-p", dir, "-e", `${dir}/error.log`],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0;; i++) {
    const res = await fetch(url).catch(() => null);
    if (res) {
      await res.body?.cancel();
      break;
    }
    if (i > 200) throw new Error("nginx did not start");
    // Waiting for another process to listen: there is no event to wait on.
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url,
    stop: async () => {
      child.kill("SIGQUIT");
      await child.status;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** Median milliseconds of `n` sequential GETs of `url` on one keep-alive connection. */
async function latency(url: string, n: number): Promise<number> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < n + 200; i++) {
      const started = performance.now();
      const res = await fetch(url, { client } as RequestInit);
      await res.arrayBuffer();
      if (i >= 200) times.push(performance.now() - started);
    }
  } finally {
    client.close();
  }
  return median(times);
}

/** Runs the comparison; prints as it goes. */
export async function upstreamBench(quick: boolean): Promise<UpstreamBenchResult> {
  console.log("\n## Pages passed through --upstream: aim vs nginx proxy_pass (same app, same run)");
  const page = `<!doctype html><title>App page</title>${"<p>Some text of the app.</p>".repeat(70)}`;
  const responseFile = Deno.makeTempFileSync({ suffix: ".json" });
  Deno.writeTextFileSync(
    responseFile,
    JSON.stringify({ body: page, headers: [["content-type", "text/html; charset=utf-8"]] }),
  );
  const app = Child.start("./bare_server.ts", [responseFile]);
  const appInfo = await app.read<{ url: string; pid: number }>();
  const aim = Child.start("./upstream_server.ts", [appInfo.url]);
  const aimInfo = await aim.read<{ url: string; pid: number }>();
  const nginx = await startNginx(appInfo.url);
  try {
    for (const url of [aimInfo.url, nginx.url]) {
      const body = await (await fetch(`${url}/page`)).text();
      if (body !== page) throw new Error(`${url} does not pass the app's page through`);
    }
    const rounds = quick ? 1 : 4;
    const seconds = quick ? 2 : 5;
    const floor = Child.start("./fetch_proxy_server.ts", [appInfo.url]);
    const floorInfo = await floor.read<{ url: string; pid: number }>();
    const loadavg = Deno.loadavg().map((n) => n.toFixed(1)).join(" ");
    console.log(
      `page ${page.length} bytes; ${(await hasWrk()) ? "wrk -t1" : "bench/load.ts"}, 32 ` +
        `keep-alive connections, ${rounds} round(s) of ${seconds} s, the order rotating; ` +
        `load average ${loadavg} (the machine is shared: compare ratios of one run only)`,
    );
    let medians: Map<string, { rate: number; cpuUs: number | null }>;
    try {
      medians = await interleaved([
        { name: "nginx", url: nginx.url, pid: 0 },
        { name: "fetch", url: floorInfo.url, pid: floorInfo.pid },
        { name: "aim", url: aimInfo.url, pid: aimInfo.pid },
      ], { seconds, rounds });
    } finally {
      await floor.stop();
    }
    const [ng, fe, ai] = ["nginx", "fetch", "aim"].map((name) => medians.get(name)!) as [
      { rate: number; cpuUs: number | null },
      { rate: number; cpuUs: number | null },
      { rate: number; cpuUs: number | null },
    ];
    const rates = { bareRate: ng.rate, bridgeRate: ai.rate, ratio: ai.rate / ng.rate };
    const bare = { bareRate: fe.rate, bridgeRate: ai.rate, ratio: ai.rate / fe.rate };
    const cpuRatio = fe.cpuUs !== null && ai.cpuUs !== null ? fe.cpuUs / ai.cpuUs : null;
    console.log(
      `a bare fetch proxy (bench/fetch_proxy_server.ts): ${fe.rate.toFixed(0)} req/s; ` +
        `aim ${ai.rate.toFixed(0)} req/s, ${bare.ratio.toFixed(2)} of it (budget >= ` +
        `${BUDGET.fetch}) ${bare.ratio >= BUDGET.fetch ? "(held)" : "(MISSED)"}` +
        (cpuRatio === null
          ? ""
          : `; CPU per answer: fetch ${fe.cpuUs!.toFixed(1)} µs, aim ${ai.cpuUs!.toFixed(1)} µs ` +
            `(the fetch proxy's / aim's: ${cpuRatio.toFixed(2)})`),
    );
    const n = quick ? 1000 : 3000;
    const direct = await latency(`${appInfo.url}/page`, n);
    const viaAim = await latency(`${aimInfo.url}/page`, n);
    const viaNginx = await latency(`${nginx.url}/page`, n);
    const added = viaAim - direct;
    const throughputOk = rates.ratio >= BUDGET.nginx;
    const latencyOk = added < BUDGET.addedMs;
    const fetchOk = bare.ratio >= BUDGET.fetch;
    console.log(`nginx proxy_pass: ${rates.bareRate.toFixed(0)} req/s (median)`);
    console.log(`aim --upstream:   ${rates.bridgeRate.toFixed(0)} req/s (median)`);
    console.log(
      `ratio:            ${rates.ratio.toFixed(2)} (budget >= ${BUDGET.nginx}) ${
        throughputOk ? "(within budget)" : "(OVER BUDGET)"
      }`,
    );
    console.log(
      `median latency (${n} sequential requests): app ${direct.toFixed(3)} ms, ` +
        `through aim ${viaAim.toFixed(3)} ms (+${added.toFixed(3)}), ` +
        `through nginx ${viaNginx.toFixed(3)} ms (+${(viaNginx - direct).toFixed(3)}) ` +
        `${latencyOk ? "(within budget)" : "(OVER BUDGET)"}`,
    );
    return {
      line:
        `upstream: aim ${rates.bridgeRate.toFixed(0)} req/s, nginx ${rates.bareRate.toFixed(0)} ` +
        `req/s, ratio ${rates.ratio.toFixed(2)}; a bare fetch proxy ${bare.bareRate.toFixed(0)} ` +
        `req/s (aim ${bare.ratio.toFixed(2)} of it); added median latency ${added.toFixed(3)} ms ` +
        `(nginx ${(viaNginx - direct).toFixed(3)} ms)`,
      nginx: {
        ok: throughputOk && latencyOk,
        result: `${rates.ratio.toFixed(2)}x nginx, +${added.toFixed(3)} ms at the median`,
      },
      fetch: {
        ok: fetchOk,
        result: `${bare.ratio.toFixed(2)}x the bare fetch proxy (${ai.rate.toFixed(0)} vs ` +
          `${fe.rate.toFixed(0)} req/s)` +
          (cpuRatio === null ? "" : `, CPU per answer ratio ${cpuRatio.toFixed(2)}`),
      },
    };
  } finally {
    await nginx.stop();
    await aim.stop();
    await app.stop();
    Deno.removeSync(responseFile);
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { quick: { type: "boolean" } } });
  const result = await upstreamBench(values.quick ?? false);
  console.log(`\n- ${result.line}`);
}
