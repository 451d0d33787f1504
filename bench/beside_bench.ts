/**
 * `deno run -A bench/beside_bench.ts [--quick]`: people's pages through nginx with aim beside it
 * (the configuration `aim proxy-config nginx` prints) against nginx proxying straight to the same
 * app, in the same run (issue 34: at least 0.95× its throughput). The app is a bare `Deno.serve`
 * answering a 2 KB HTML page; aim runs beside it, idle (pages never reach it); nginx runs one
 * worker with keep-alive to the app in both setups. Load: wrk, one thread, 32 keep-alive
 * connections, interleaved rounds (neither setup always runs on a warmer machine; the ratio is the
 * median of each round's), for a visitor (no cookie) and for a person with a session (the app's
 * cookie and aim's, which nginx removes). It also prints the CPU time nginx, the app and wrk spent
 * per request, which a machine shared with other work disturbs less than the rate.
 * @module
 */
import { parseArgs } from "node:util";
import { createBridge } from "../bridge/mod.ts";
import { startWebServer, webServerConfig } from "../tests/helpers/web_server.ts";
import { Child, cpuMillis, median } from "./lib.ts";

/** The budget: beside / alone. */
const BUDGET = 0.95;

/** One line of the summary run.ts prints, and whether the budget held. */
export interface BesideBenchResult {
  line: string;
  ok: boolean;
}

/** nginx proxying every request straight to the app, as a site does without aim. */
function aloneConfig(app: string, port: number): string {
  return `upstream bench_app {
  server ${new URL(app).host};
  keepalive 64;
}
server {
  listen 127.0.0.1:${port};
  location / {
    proxy_pass http://bench_app;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    proxy_set_header X-Forwarded-For $remote_addr;
    proxy_set_header X-Forwarded-Proto $scheme;
    proxy_set_header X-Forwarded-Host $http_host;
  }
}
`;
}

/** The CPU time of nginx's master and workers, ms. */
function nginxCpu(master: number): number {
  const children = Deno.readTextFileSync(`/proc/${master}/task/${master}/children`).trim()
    .split(/\s+/).filter(Boolean).map(Number);
  return [master, ...children].reduce((sum, pid) => sum + (cpuMillis(pid) ?? 0), 0);
}

/** What one wrk run counted: its rate, answers that were not 2xx or 3xx, and its own CPU time. */
export interface WrkRun {
  rate: number;
  errors: number;
  requests: number;
  cpuMs: number;
}

/** One wrk run, under `sh` so that `times` reports wrk's CPU time as the shell's child's. */
export async function wrk(url: string, seconds: number, headers: string[]): Promise<WrkRun> {
  const quoted = headers.map((h) => ` -H '${h.replaceAll("'", "")}'`).join("");
  const out = await new Deno.Command("sh", {
    args: ["-c", `wrk -t1 -c32 -d${seconds}s${quoted} '${url}' && times`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(text)?.[1]);
  if (!out.success || !(rate > 0)) {
    throw new Error(`wrk failed: ${text}${new TextDecoder().decode(out.stderr)}`);
  }
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  // `times`: the shell's user and system time, then its children's (wrk's).
  const children = text.trim().split("\n").at(-1)!.split(/\s+/).map((time) => {
    const [, minutes, seconds] = /(\d+)m([\d.]+)s/.exec(time) ?? [];
    return Number(minutes) * 60_000 + Number(seconds) * 1000;
  });
  return { rate, errors, requests, cpuMs: (children[0] ?? 0) + (children[1] ?? 0) };
}

/** Whether wrk can be run here. */
export async function hasWrk(): Promise<boolean> {
  return await new Deno.Command("wrk", { args: ["-v"], stdout: "null", stderr: "null" })
    .output().then(() => true, () => false);
}

/** Runs the comparison; prints as it goes. */
export async function besideBench(quick: boolean): Promise<BesideBenchResult> {
  console.log("\n## Pages through nginx with aim beside it vs nginx alone (same app, same run)");
  const page = `<!doctype html><title>App page</title>${"<p>Some text of the app.</p>".repeat(70)}`;
  const responseFile = Deno.makeTempFileSync({ suffix: ".json" });
  Deno.writeTextFileSync(
    responseFile,
    JSON.stringify({ body: page, headers: [["content-type", "text/html; charset=utf-8"]] }),
  );
  const app = Child.start("./bare_server.ts", [responseFile]);
  const { url: appUrl, pid: appPid } = await app.read<{ url: string; pid: number }>();
  const aim = Child.start("./upstream_server.ts", [appUrl]);
  const aimUrl = (await aim.read<{ url: string }>()).url;
  const bridge = createBridge({ upstream: appUrl, allowedHosts: [] });
  const routes = bridge.routes;
  bridge.close();
  await using alone = startWebServer("nginx", (port) => aloneConfig(appUrl, port));
  await using beside = startWebServer(
    "nginx",
    (port) => webServerConfig("nginx", { app: appUrl, aim: aimUrl, port, routes }),
  );
  try {
    for (const url of [alone.url, beside.url]) {
      const body = await (await fetch(`${url}/page`)).text();
      if (body !== page) throw new Error(`${url} does not pass the app's page through`);
    }
    const rounds = quick ? 2 : 6;
    const seconds = quick ? 2 : 4;
    console.log(
      `page ${page.length} bytes; wrk -t1 -c32, ${rounds} interleaved round(s) of ${seconds} s`,
    );
    const cookie = `Cookie: PHPSESSID=4f1c2a9e0b7d; theme=dark; aim_session=${"t".repeat(43)}`;
    const ratios: number[] = [];
    for (
      const [who, headers] of [["a visitor", []], ["a person with a session", [cookie]]] as const
    ) {
      const rates = { alone: [] as number[], beside: [] as number[] };
      const cpu = { alone: [] as number[], beside: [] as number[] };
      let errors = 0;
      await wrk(`${alone.url}/page`, 1, [...headers]);
      await wrk(`${beside.url}/page`, 1, [...headers]);
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? ["alone", "beside"] as const : ["beside", "alone"] as const;
        for (const name of order) {
          const server = name === "alone" ? alone : beside;
          const before = nginxCpu(server.pid) + (cpuMillis(appPid) ?? 0);
          const run = await wrk(`${server.url}/page`, seconds, [...headers]);
          const used = nginxCpu(server.pid) + (cpuMillis(appPid) ?? 0) - before + run.cpuMs;
          const us = used * 1000 / run.requests;
          errors += run.errors;
          rates[name].push(run.rate);
          cpu[name].push(us);
          console.log(
            `  ${who}, ${name.padEnd(6)} ${run.rate.toFixed(0).padStart(7)} req/s, ` +
              `${us.toFixed(1)} µs of CPU per request (nginx, app and wrk)`,
          );
        }
      }
      if (errors) throw new Error(`${errors} answers were not 2xx or 3xx`);
      // Each round's two runs are back to back: their ratio moves less with the machine's load
      // than the ratio of the medians does.
      const ratio = median(rates.beside.map((rate, round) => rate / rates.alone[round]!));
      const cpuRatio = median(cpu.alone) / median(cpu.beside);
      ratios.push(ratio);
      const line = `${who}: nginx alone ${median(rates.alone).toFixed(0)} req/s, beside aim ${
        median(rates.beside).toFixed(0)
      } req/s, ratio ${ratio.toFixed(3)} (median of the rounds; budget >= ${BUDGET}) ${
        ratio >= BUDGET ? "(held)" : "(MISSED)"
      }; CPU per request (nginx, app, wrk) ${median(cpu.alone).toFixed(1)} / ${
        median(cpu.beside).toFixed(1)
      } µs, a ratio of ${cpuRatio.toFixed(3)}`;
      console.log(line);
    }
    const ok = ratios.every((ratio) => ratio >= BUDGET);
    return {
      line: `beside nginx: pages at ${ratios.map((r) => r.toFixed(3)).join(" / ")}× nginx alone ` +
        `(a visitor / a person with a session; budget >= ${BUDGET}) ${ok ? "(held)" : "(MISSED)"}`,
      ok,
    };
  } finally {
    await aim.stop();
    await app.stop();
    Deno.removeSync(responseFile);
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { quick: { type: "boolean" } } });
  const result = await besideBench(values.quick ?? false);
  console.log(`\n- ${result.line}`);
}
