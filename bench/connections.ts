/**
 * A bounded flood of connections and streams:
 * `deno run -A bench/connections.ts`.
 *
 * Starts `aim serve` on loopback as a child process twice:
 *
 * - under `ulimit -n 1024`, opens up to 1,100 idle connections (no request, no token), closes
 *   them, and says how long the bridge took to accept a new connection again;
 * - opens 300 sessions from one client and 4 event streams on each, and says how many streams
 *   were served and refused (429), the bridge's memory (RSS) before and after, and its health.
 *
 * ```
 * idle flood: 997 connections opened (refused from 997) in 114 ms; accepting again 61 ms after it ended; health {…}
 * streams: 300 sessions x 4 from one client: {"200":64,"429":1136}; RSS 91 → 115 MiB; health {…}
 * ```
 *
 * @module
 */
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

interface Served {
  child: Deno.ChildProcess;
  url: string;
  port: number;
}

async function start(site: string, fileLimit: number): Promise<Served> {
  const child = new Deno.Command("bash", {
    args: [
      "-c",
      `ulimit -n ${fileLimit} && exec "$@"`,
      "aim",
      Deno.execPath(),
      "run",
      "-A",
      "--quiet",
      MAIN,
      "serve",
      site,
      "--port",
      "0",
      "--quiet",
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  while (!/ at (http\S+)\n/.test(printed)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`aim serve exited: ${printed}`);
    printed += value;
  }
  reader.releaseLock();
  const url = / at (http\S+)\n/.exec(printed)![1]!;
  return { child, url, port: Number(new URL(url).port) };
}

async function stop(served: Served): Promise<void> {
  served.child.kill();
  await served.child.status;
}

function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
}

/** `/__aim/health` on a new connection; undefined when none is accepted. */
async function health(url: string): Promise<Record<string, unknown> | undefined> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  try {
    const init: RequestInit & { client: Deno.HttpClient } = {
      client,
      signal: AbortSignal.timeout(2000),
    };
    return await (await fetch(`${url}/__aim/health`, init)).json();
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}

const site = await Deno.makeTempDir({ prefix: "aim-bench-" });
try {
  await Deno.writeTextFile(
    `${site}/index.html`,
    '<!doctype html><title>Home</title><aim-state name="view"></aim-state>',
  );

  const flooded = await start(site, 1024);
  try {
    const conns: Deno.Conn[] = [];
    let refusedFrom: number | undefined;
    const began = performance.now();
    for (let i = 0; i < 1100; i++) {
      try {
        conns.push(await Deno.connect({ hostname: "127.0.0.1", port: flooded.port }));
      } catch {
        refusedFrom = i;
        break;
      }
    }
    const floodMs = Math.round(performance.now() - began);
    for (const conn of conns) conn.close();
    const ended = performance.now();
    let answer: Record<string, unknown> | undefined;
    while (performance.now() - ended < 30_000) {
      answer = await health(flooded.url);
      if (answer?.listening === true) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    console.log(
      `idle flood: ${conns.length} connections opened (refused from ${refusedFrom ?? "none"}) ` +
        `in ${floodMs} ms; ` +
        (answer?.listening === true
          ? `accepting again ${Math.round(performance.now() - ended)} ms after it ended`
          : "not accepting 30 s after it ended") +
        `; health ${JSON.stringify(answer)}`,
    );
  } finally {
    await stop(flooded);
  }

  const streamed = await start(site, 20_000);
  try {
    const before = rssMiB(streamed.child.pid);
    const statuses: Record<number, number> = {};
    const open: Response[] = [];
    for (let s = 0; s < 300; s++) {
      const minted = await fetch(`${streamed.url}/__aim/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ page: "/index" }),
      });
      const { sessionToken } = await minted.json();
      for (let k = 0; k < 4; k++) {
        const events = await fetch(`${streamed.url}/__aim/events`, {
          headers: { Authorization: `Bearer ${sessionToken}` },
        });
        statuses[events.status] = (statuses[events.status] ?? 0) + 1;
        if (events.status === 200) open.push(events);
        else await events.body?.cancel();
      }
    }
    console.log(
      `streams: 300 sessions x 4 from one client: ${JSON.stringify(statuses)}; ` +
        `RSS ${before} → ${rssMiB(streamed.child.pid)} MiB; health ${
          JSON.stringify(await health(streamed.url))
        }`,
    );
    for (const events of open) await events.body?.cancel();
  } finally {
    await stop(streamed);
  }
} finally {
  await Deno.remove(site, { recursive: true });
}
