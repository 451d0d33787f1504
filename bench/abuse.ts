/**
 * A bounded abuse benchmark: `deno task bench:abuse`.
 *
 * Runs `aim serve --demo --trust-proxy` and `aim serve --upstream APP --trust-proxy` (APP: the
 * raw app of bench/abuse_app.ts) on loopback as child processes, and attacks each in turn. While
 * each attack runs, and for as long just before it (at rest), another session, from another
 * address, invokes an action of its own tab back to back: the report compares that session's
 * p95 under attack with its p95 at rest in the same run (goal: within 2×), one line per attack:
 *
 * ```
 * attack     rest p95  under p95  ratio  goal    what the attack sent
 * navigate   1.21 ms   1.63 ms    1.3×   held    2,816 messages from 14 tabs; closed: …
 * ```
 *
 * Attacks: `mint` (session mints), `login` (wrong passwords), `runs` (ACP runs that never
 * finish), `navigate` (channel `navigate` messages as fast as a socket takes them), `state`
 * (1 MB `state` messages), on the demo; `catalog` (sessions on 200 pages the app answers in 20 s,
 * then the site map, the agent card and ACP's agents read as fast as they answer) and `websocket`
 * (WebSockets pushing 128 MiB each into an app socket that never reads; aim's resident memory is
 * reported too), in front of the app.
 *
 * Clients are told apart by `X-Forwarded-For`: the flooder is 203.0.113.7, the other session
 * 198.51.100.2. Options: `--seconds N` (per attack, at most 20; default 10), `--rest N` (seconds
 * at rest before each; default 5), `--concurrency N` (the flood's requests at once, default 64),
 * `--only mint,login,…`, `--profile DIR` (a CPU profile of the bridge under each attack,
 * `DIR/<attack>.cpuprofile`, and its heaviest functions printed: bench/abuse_profile.ts). Exits 1
 * when an attack missed the goal.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { FakeTab, openPageSession } from "../tests/helpers/fake_tab.ts";
import { startAbuseApp } from "./abuse_app.ts";
import { PAGE } from "./abuse_attacks.ts";
import type { AttackCommand } from "./abuse_worker.ts";
import { heaviest, InspectorProfiler } from "./abuse_profile.ts";

const OTHER = { "X-Forwarded-For": "198.51.100.2" };
/** Another session's call that takes longer than this failed. */
const PROBE_TIMEOUT_MS = 10_000;
/** The goal: another session's p95 under attack, against at rest. */
const GOAL = 2;

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    rest: { type: "string", default: "5" },
    concurrency: { type: "string", default: "64" },
    only: { type: "string", default: "mint,login,runs,navigate,state,catalog,websocket" },
    profile: { type: "string" },
  },
});
const SECONDS = Math.min(20, Math.max(1, Number(values.seconds)));
const REST = Math.min(20, Math.max(1, Number(values.rest)));
const CONCURRENCY = Math.max(1, Number(values.concurrency));
const ONLY = new Set(values.only.split(","));
/** Where each attack's CPU profile of the bridge goes (`--profile DIR`); none without it. */
const PROFILE = values.profile;

/**
 * Spawns `command` in a session of its own where `setsid` is there (Linux): with the scheduler's
 * autogroups on, the threads of one session share one fair share of the CPU, so that the bridge,
 * the attack and the other session each get their own, as on three machines, and the attack's
 * own CPU (its clients) never counts as the bridge's time. `setsid` execs the command itself: the
 * child's pid is the command's.
 */
function ownSession(command: string, options: Deno.CommandOptions): Deno.ChildProcess {
  const setsid = ["/usr/bin/setsid", "/bin/setsid"].find((path) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  });
  return (setsid
    ? new Deno.Command(setsid, { ...options, args: [command, ...options.args ?? []] })
    : new Deno.Command(command, options)).spawn();
}

/** A bridge as a child process on a free loopback port. */
interface Child {
  url: string;
  pid: number;
  /** The bridge's profiler, with `--profile`. */
  profiler: InspectorProfiler | undefined;
  stop(): Promise<void>;
}

/** `aim serve ARGS --port 0 --trust-proxy --quiet`, in a temporary data folder. */
async function startBridge(args: string[]): Promise<Child> {
  const data = await Deno.makeTempDir({ prefix: "aim-abuse-" });
  const inspectPort = PROFILE ? freePort() : 0;
  const main = fileURLToPath(new URL("../main.ts", import.meta.url));
  const child = ownSession(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      // As aim runs when installed (deno task install, compile, start).
      "--v8-flags=--max-semi-space-size=1,--optimize-for-size",
      ...(PROFILE ? [`--inspect=127.0.0.1:${inspectPort}`] : []),
      main,
      "serve",
      ...args,
      "--port",
      "0",
      "--data",
      data,
      "--trust-proxy",
      "--quiet",
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  });
  let stderr = "";
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr += chunk;
      if (stderr.length > 100_000) stderr = stderr.slice(-50_000);
    }
  })();
  const url = await new Promise<string>((resolve, reject) => {
    (async () => {
      let buffer = "";
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        const found = /^aim: serving .* at (https?:\/\/\S+)$/m.exec(buffer);
        if (found) resolve(found[1]!);
        if (buffer.length > 10_000) buffer = buffer.slice(-1000);
      }
      reject(new Error(`aim exited before listening: ${stderr}`));
    })();
  });
  const { hostname } = new URL(url);
  if (hostname !== "127.0.0.1" && hostname !== "[::1]" && hostname !== "localhost") {
    throw new Error(`the bridge must listen on loopback only, not ${hostname}`);
  }
  const profiler = PROFILE ? await InspectorProfiler.attach(inspectPort) : undefined;
  return {
    url,
    pid: child.pid,
    profiler,
    stop: async () => {
      profiler?.close();
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await stderrDone;
      const errors = stderr.split("\n").filter((line) => line.includes("internal error"));
      if (errors.length) {
        const kinds = [...new Set(errors)];
        console.error(
          `the bridge logged ${errors.length} internal errors: ${kinds.slice(0, 3).join(" | ")}`,
        );
      }
      await Deno.remove(data, { recursive: true }).catch(() => {});
    },
  };
}

/** A loopback port nobody listens on now. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
  return (listener.addr as Deno.NetAddr).port;
}

/** A process's resident memory now and at its peak, MiB (Linux; 0 elsewhere). */
function memory(pid: number): { rss: number; peak: number } {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)![1]);
    return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

/** Where a process's time went, ns: its main thread's running and waiting for a core, all its threads' CPU. */
interface Times {
  ran: number;
  waited: number;
  cpu: number;
  at: number;
}

/** {@linkcode Times} of a process now (Linux; zeros elsewhere). */
function times(pid: number): Times {
  const at = performance.now() * 1e6;
  try {
    const [ran = 0, waited = 0] = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/schedstat`)
      .split(" ").map(Number);
    // utime and stime, fields 14 and 15, in clock ticks (100 a second on Linux).
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1]!.split(" ");
    const cpu = (Number(stat[11]) + Number(stat[12])) * 1e7;
    return { ran, waited, cpu, at };
  } catch {
    return { ran: 0, waited: 0, cpu: 0, at };
  }
}

/** What `after - before` says of the bridge, as `thread ran 62%, waited 30%; 1.3 cores`. */
function busy(before: Times, after: Times): string {
  const wall = after.at - before.at;
  const share = (ns: number) => `${Math.round(100 * ns / wall)}%`;
  return `aim's thread ran ${share(after.ran - before.ran)}, waited for a core ` +
    `${share(after.waited - before.waited)}; all its threads ${
      ((after.cpu - before.cpu) / wall).toFixed(2)
    } cores`;
}

/** Another session: a tab of its own that answers its action at once. */
class OtherSession {
  readonly #origin: string;
  readonly #token: string;
  readonly #tab: FakeTab;
  readonly #beat: ReturnType<typeof setInterval>;

  private constructor(origin: string, token: string, tab: FakeTab) {
    this.#origin = origin;
    this.#token = token;
    this.#tab = tab;
    this.#beat = setInterval(() => tab.send({ type: "heartbeat" }), 4000);
  }

  static async open(origin: string, page: string): Promise<OtherSession> {
    const token = await openPageSession(origin, page, OTHER);
    const tab = await FakeTab.open(origin, { token, page, headers: OTHER, waitMs: 60_000 });
    await tab.next("lease");
    await tab.register([{ id: "echo", description: "Echo", handler: (input) => input }]);
    return new OtherSession(origin, token, tab);
  }

  /** One invocation's time, ms; the timeout when it failed. */
  async #once(n: number): Promise<number> {
    const started = performance.now();
    try {
      const res = await fetch(`${this.#origin}/__aim/invoke`, {
        method: "POST",
        headers: {
          ...OTHER,
          "Content-Type": "application/json",
          Authorization: `Bearer ${this.#token}`,
        },
        body: JSON.stringify({ actionId: "echo", input: `n${n}` }),
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
      await res.body?.cancel();
      return res.status === 200 ? performance.now() - started : PROBE_TIMEOUT_MS;
    } catch {
      return PROBE_TIMEOUT_MS;
    }
  }

  /** Invokes back to back (one every 20 ms at most) for `seconds`; the times, sorted. */
  async measure(seconds: number): Promise<number[]> {
    const times: number[] = [];
    const end = performance.now() + seconds * 1000;
    for (let n = 0; performance.now() < end; n++) {
      const started = performance.now();
      times.push(await this.#once(n));
      const left = 20 - (performance.now() - started);
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
    }
    return times.sort((a, b) => a - b);
  }

  async close(): Promise<void> {
    clearInterval(this.#beat);
    await this.#tab.close().catch(() => {});
  }
}

function p95(sorted: number[]): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? NaN;
}

interface Row {
  attack: string;
  rest: number;
  under: number;
  calls: number;
  failed: number;
  sent: string;
}

/**
 * Runs the attack `name` for SECONDS after REST at rest, while `other` invokes. The attack runs in
 * a process of its own (bench/abuse_worker.ts), so that only the bridge's time counts.
 */
async function phase(name: string, bridge: Child, other: OtherSession): Promise<Row> {
  const origin = bridge.url;
  const restStart = times(bridge.pid);
  const rest = await other.measure(REST);
  const restEnd = times(bridge.pid);
  // The attack runs in a process (and a session) of its own: bench/abuse_worker.ts.
  const attack = ownSession(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      fileURLToPath(new URL("./abuse_worker.ts", import.meta.url)),
      JSON.stringify({ name, origin, concurrency: CONCURRENCY } satisfies AttackCommand),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  });
  const said = new Response(attack.stdout).text();
  await bridge.profiler?.start();
  const underStart = times(bridge.pid);
  const under = await other.measure(SECONDS);
  const underEnd = times(bridge.pid);
  const profile = await bridge.profiler?.stop();
  // Closing its input tells the attack to stop; it then prints what it sent.
  await attack.stdin.close();
  await attack.status;
  const sent = (await said).trim() || "the attack said nothing";
  const row: Row = {
    attack: name,
    rest: p95(rest),
    under: p95(under),
    calls: under.length,
    failed: under.filter((t) => t >= PROBE_TIMEOUT_MS).length,
    sent,
  };
  report(row);
  console.log(`${"".padEnd(10)} at rest: ${busy(restStart, restEnd)}`);
  console.log(`${"".padEnd(10)} under attack: ${busy(underStart, underEnd)}`);
  if (profile && PROFILE) {
    await Deno.mkdir(PROFILE, { recursive: true });
    await Deno.writeTextFile(`${PROFILE}/${name}.cpuprofile`, JSON.stringify(profile));
    for (const line of heaviest(profile)) console.log(`${"".padEnd(10)} ${line}`);
  }
  return row;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

function report(row: Row): void {
  const ratio = row.under / row.rest;
  const goal = ratio <= GOAL && row.failed === 0 ? "held" : "MISSED";
  const failed = row.failed ? `, ${row.failed} of ${row.calls} calls failed` : "";
  console.log(
    `${row.attack.padEnd(10)} ${ms(row.rest).padEnd(10)} ${ms(row.under).padEnd(11)} ` +
      `${(ratio.toFixed(1) + "×").padEnd(6)} ${goal.padEnd(7)} ${row.sent}${failed}`,
  );
}

/** The machine's load (Linux): the rates move with what else runs. */
function load(): string {
  try {
    const [one, five] = Deno.readTextFileSync("/proc/loadavg").split(" ");
    return `load average ${one} (1 min), ${five} (5 min) on ${navigator.hardwareConcurrency} cores`;
  } catch {
    return `${navigator.hardwareConcurrency} cores`;
  }
}

console.log(
  `abuse benchmark: ${SECONDS} s per attack after ${REST} s at rest, ${CONCURRENCY} flood ` +
    `requests at once; another session's invocation p95 (goal: within ${GOAL}× of rest); ` +
    load(),
);
console.log(
  `${"attack".padEnd(10)} ${"rest p95".padEnd(10)} ${"under p95".padEnd(11)} ` +
    `${"ratio".padEnd(6)} ${"goal".padEnd(7)} what the attack sent`,
);
const rows: Row[] = [];
const DEMO = ["mint", "login", "runs", "navigate", "state"];
if (DEMO.some((name) => ONLY.has(name))) {
  const bridge = await startBridge(["--demo"]);
  const other = await OtherSession.open(bridge.url, PAGE);
  try {
    for (const name of DEMO) if (ONLY.has(name)) rows.push(await phase(name, bridge, other));
  } finally {
    await other.close();
    await bridge.stop();
  }
}
if (ONLY.has("catalog") || ONLY.has("websocket")) {
  await using app = startAbuseApp();
  const bridge = await startBridge(["--upstream", app.url]);
  const other = await OtherSession.open(bridge.url, "/page");
  try {
    if (ONLY.has("catalog")) rows.push(await phase("catalog", bridge, other));
    if (ONLY.has("websocket")) {
      const before = memory(bridge.pid);
      rows.push(await phase("websocket", bridge, other));
      const after = memory(bridge.pid);
      console.log(
        `${"".padEnd(10)} aim's resident memory: ${before.rss.toFixed(0)} MiB before, ` +
          `${after.rss.toFixed(0)} MiB after, peak ${after.peak.toFixed(0)} MiB`,
      );
    }
  } finally {
    await other.close();
    await bridge.stop();
  }
}
const missed = rows.filter((row) => row.under / row.rest > GOAL || row.failed > 0);
console.log(
  `${rows.length - missed.length} of ${rows.length} attacks held the goal (${load()})` +
    (missed.length ? `; missed: ${missed.map((row) => row.attack).join(", ")}` : ""),
);
Deno.exit(missed.length ? 1 : 0);
