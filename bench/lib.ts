/**
 * Shared pieces of the benchmarks: child processes that talk in JSON lines, and the
 * resident memory and CPU time of a process read from /proc.
 *
 * @module
 */

/**
 * The V8 flags the bridge ships with (the `start` and `compile` tasks of deno.json): a small
 * young generation and V8's smaller footprint keep thousands of idle tabs within the memory
 * budget. Every server in the
 * benchmarks, the baseline included, runs with them.
 */
export const BRIDGE_V8_FLAGS: readonly string[] = [
  "--max-semi-space-size=1",
  "--optimize-for-size",
];

/** The lines of a byte stream, decoded as UTF-8. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let pending = "";
  const decoder = new TextDecoder();
  for await (const bytes of stream) {
    pending += decoder.decode(bytes, { stream: true });
    let index;
    while ((index = pending.indexOf("\n")) >= 0) {
      yield pending.slice(0, index);
      pending = pending.slice(index + 1);
    }
  }
  if (pending) yield pending;
}

/** A child `deno run` that reports in JSON lines on stdout and takes commands on stdin. */
export class Child {
  readonly process: Deno.ChildProcess;
  readonly #lines: AsyncGenerator<string>;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;

  private constructor(process: Deno.ChildProcess) {
    this.process = process;
    this.#lines = lines(process.stdout);
    this.#stdin = process.stdin.getWriter();
  }

  /**
   * Starts `deno run -A <script> ...args` under `sh`, with the open-file limit raised to the
   * hard limit: thousands of sockets need thousands of descriptors.
   */
  static start(script: string, args: string[], v8Flags: string[] = []): Child {
    const deno = Deno.execPath();
    const flags = v8Flags.length ? [`--v8-flags=${v8Flags.join(",")}`] : [];
    const command = new Deno.Command("sh", {
      args: [
        "-c",
        'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$@"',
        "sh",
        deno,
        "run",
        "--allow-all",
        ...flags,
        new URL(script, import.meta.url).pathname,
        ...args,
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    });
    return new Child(command.spawn());
  }

  /** The process id (`exec` keeps the shell's). */
  get pid(): number {
    return this.process.pid;
  }

  /** The next JSON line the child prints. */
  async read<T = Record<string, unknown>>(): Promise<T> {
    const { value, done } = await this.#lines.next();
    if (done) throw new Error("the child process exited before answering");
    return JSON.parse(value) as T;
  }

  /** Sends one command line. */
  async send(command: string): Promise<void> {
    await this.#stdin.write(new TextEncoder().encode(command + "\n"));
  }

  /** Closes stdin (the child's cue to stop) and waits for the exit. */
  async stop(): Promise<void> {
    await this.#stdin.close().catch(() => {});
    const timer = setTimeout(() => {
      try {
        this.process.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    }, 10_000);
    await this.process.status;
    clearTimeout(timer);
  }
}

/** Resident set size of a process in bytes, from /proc; null where /proc is missing. */
export function residentBytes(pid: number): number | null {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return kb ? Number(kb[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used, in milliseconds; null where /proc is missing. */
export function cpuMillis(pid: number): number | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command name (which may hold spaces) start at ") ".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** The soft and hard open-file limits a child started by {@linkcode Child.start} gets. */
export async function fileLimit(): Promise<number> {
  const out = await new Deno.Command("sh", {
    args: ["-c", 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; ulimit -n'],
    stdout: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  return text === "unlimited" ? Infinity : Number(text);
}

/** Megabytes, one decimal. */
export function mb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

/** The median: one run disturbed by the machine does not move it. */
export function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** What one run of bench/load.ts counted. */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rate: number;
}

/** A server under load: where to send the requests, and the process whose CPU is counted. */
export interface LoadTarget {
  url: string;
  pid: number;
}

/** How {@linkcode compareRates} loads the two servers. */
export interface CompareOptions {
  connections: number;
  /** Seconds of each counted run. */
  seconds: number;
  /** Seconds of the warm-up run of each server, not counted. */
  warmup: number;
  rounds: number;
  /** The status every answer must have (default 200); any other counts as an error. */
  status?: number;
  /** Headers sent with every request, as `Name: value`. */
  headers?: string[];
  /** Prints a line of progress. */
  log?: (line: string) => void;
}

/** The median rates of a bridge and its baseline, loaded alike in alternating rounds. */
export interface Comparison {
  bareRate: number;
  bridgeRate: number;
  /** bridge / bare. */
  ratio: number;
  /** Server CPU per counted answer, µs (median of the rounds); null where /proc is missing. */
  bareCpuUs: number | null;
  bridgeCpuUs: number | null;
  /** Answers without the expected status, over every round of both servers. */
  errors: number;
}

/** One timed run of bench/load.ts against `target`, with the server's CPU time over it. */
export async function loadOnce(
  target: LoadTarget,
  seconds: number,
  options: CompareOptions,
  warmup = 0,
): Promise<LoadResult & { cpuMs: number | null }> {
  const cpuBefore = cpuMillis(target.pid);
  const client = Child.start("./load.ts", [
    target.url,
    String(options.connections),
    String(seconds),
    String(warmup),
    String(options.status ?? 200),
    ...options.headers ?? [],
  ]);
  const result = await client.read<LoadResult>();
  await client.stop();
  const cpuAfter = cpuMillis(target.pid);
  return {
    ...result,
    cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
  };
}

/**
 * Loads a bare `Deno.serve` and a bridge with the same client, both warmed first, in
 * `options.rounds` rounds whose order alternates (neither always runs on a warmer or cooler
 * machine), and compares the medians. It measures; it never fails on timing.
 */
export async function compareRates(
  servers: { bare: LoadTarget; bridge: LoadTarget },
  options: CompareOptions,
): Promise<Comparison> {
  const log = options.log ?? console.log;
  const rates = { bare: [] as number[], bridge: [] as number[] };
  const cpu = { bare: [] as number[], bridge: [] as number[] };
  let errors = 0;
  // Warm both (JIT, connection setup) before anything counts.
  for (const target of Object.values(servers)) await loadOnce(target, options.warmup, options);
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? ["bare", "bridge"] as const : ["bridge", "bare"] as const;
    for (const name of order) {
      const result = await loadOnce(servers[name], options.seconds, options);
      errors += result.errors;
      rates[name].push(result.rate);
      if (result.cpuMs !== null && result.requests > 0) {
        cpu[name].push(result.cpuMs * 1000 / result.requests);
      }
      log(
        `  ${name.padEnd(6)} ${result.rate.toFixed(0).padStart(7)} req/s` +
          (result.errors
            ? ` (${result.errors} answers without status ${options.status ?? 200})`
            : ""),
      );
    }
  }
  const bareRate = median(rates.bare);
  const bridgeRate = median(rates.bridge);
  return {
    bareRate,
    bridgeRate,
    ratio: bridgeRate / bareRate,
    bareCpuUs: cpu.bare.length === options.rounds ? median(cpu.bare) : null,
    bridgeCpuUs: cpu.bridge.length === options.rounds ? median(cpu.bridge) : null,
    errors,
  };
}
