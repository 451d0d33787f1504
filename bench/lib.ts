/**
 * @module Shared pieces of the benchmarks: child processes that talk in JSON lines, and the
 * resident memory and CPU time of a process read from /proc.
 */

/**
 * The V8 flags the bridge ships with (the `start` and `compile` tasks of deno.json): a small
 * young generation keeps thousands of idle tabs within the memory budget. Every server in the
 * benchmarks, the baseline included, runs with them.
 */
export const BRIDGE_V8_FLAGS: readonly string[] = ["--max-semi-space-size=1"];

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
