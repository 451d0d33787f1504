/**
 * `deno run -A bench/upstream_bench.ts [--quick]`: pages passed through `aim serve --upstream`
 * against nginx's `proxy_pass` to the same app, in the same run, against the goal docs/upstream.md
 * states ("Speed": at least 0.8× its throughput, under 1 ms added at the median). The app is a
 * bare `Deno.serve` answering a 2 KB HTML page; nginx runs one worker (aim runs one JavaScript
 * thread), keep-alive to the app on both.
 * Throughput: bench/load.ts with 32 keep-alive connections, alternating rounds. Latency: one
 * keep-alive connection, one request at a time, through each proxy and straight to the app;
 * what a proxy adds is its median minus the app's.
 * @module
 */
import { parseArgs } from "node:util";
import { Child, compareRates, median } from "./lib.ts";

const NGINX = "/usr/sbin/nginx";

/** One line of the summary run.ts prints, and whether the budgets held. */
export interface UpstreamBenchResult {
  line: string;
  ok: boolean;
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
    const rounds = quick ? 1 : 3;
    const seconds = quick ? 2 : 5;
    console.log(
      `page ${page.length} bytes; load: 32 keep-alive connections, ${seconds} s, ${rounds} round(s)`,
    );
    const rates = await compareRates({
      bare: { url: `${nginx.url}/page`, pid: 0 },
      bridge: { url: `${aimInfo.url}/page`, pid: aimInfo.pid },
    }, {
      connections: 32,
      seconds,
      warmup: 1,
      rounds,
      log: (line) => console.log(line.replace("bare  ", "nginx ").replace("bridge", "aim   ")),
    });
    if (rates.errors) throw new Error(`${rates.errors} answers were not 200`);
    // The ceiling on this platform: a bare proxy on fetch, checking nothing, loaded alike.
    const floor = Child.start("./fetch_proxy_server.ts", [appInfo.url]);
    const floorInfo = await floor.read<{ url: string; pid: number }>();
    const bare = await compareRates({
      bare: { url: `${floorInfo.url}/page`, pid: floorInfo.pid },
      bridge: { url: `${aimInfo.url}/page`, pid: aimInfo.pid },
    }, {
      connections: 32,
      seconds,
      warmup: 1,
      rounds,
      log: (line) => console.log(line.replace("bare  ", "fetch ").replace("bridge", "aim   ")),
    });
    await floor.stop();
    console.log(
      `a bare fetch proxy (bench/fetch_proxy_server.ts): ${bare.bareRate.toFixed(0)} req/s; ` +
        `aim ${bare.bridgeRate.toFixed(0)} req/s, ${bare.ratio.toFixed(2)} of it`,
    );
    const n = quick ? 1000 : 3000;
    const direct = await latency(`${appInfo.url}/page`, n);
    const viaAim = await latency(`${aimInfo.url}/page`, n);
    const viaNginx = await latency(`${nginx.url}/page`, n);
    const added = viaAim - direct;
    const throughputOk = rates.ratio >= 0.8;
    const latencyOk = added < 1;
    console.log(`nginx proxy_pass: ${rates.bareRate.toFixed(0)} req/s (median)`);
    console.log(`aim --upstream:   ${rates.bridgeRate.toFixed(0)} req/s (median)`);
    console.log(
      `ratio:            ${rates.ratio.toFixed(2)} (budget >= 0.8) ${
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
      ok: throughputOk && latencyOk,
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
