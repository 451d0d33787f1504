/**
 * Test helper: servers a test runs as child processes (Redis, HAProxy): free ports, the binary
 * found where Debian puts it, the child's output kept, and polls until it is ready.
 *
 * @module
 */
import { join } from "node:path";

/** How long a server may take to start before the test fails with its output. */
export const START_TIMEOUT_MS = 15_000;
/** The pause between two polls of a port or of HAProxy's view of its servers. */
const POLL_INTERVAL_MS = 20;
/** The most output kept of a server, its end. */
const OUTPUT_LIMIT = 64 * 1024;
/** Free TCP ports on 127.0.0.1, all different: each is listened on until all are chosen. */
export function freePorts(count: number): number[] {
  const listeners = Array.from(
    { length: count },
    () => Deno.listen({ hostname: "127.0.0.1", port: 0 }),
  );
  const ports = listeners.map((listener) => (listener.addr as Deno.NetAddr).port);
  for (const listener of listeners) listener.close();
  return ports;
}

/** A free TCP port on 127.0.0.1 (listened on, read, closed). */
export function freePort(): number {
  return freePorts(1)[0]!;
}

/** The first of `candidates` that exists, else the one named `name` on the `PATH`. */
export function findBinary(name: string, candidates: readonly string[]): string | undefined {
  const dirs = (Deno.env.get("PATH") ?? "").split(":").filter(Boolean);
  for (const path of [...candidates, ...dirs.map((dir) => join(dir, name))]) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not there */ }
  }
  return undefined;
}

/** A server run as a child process whose output is kept. */
export interface ChildServer {
  readonly child: Deno.ChildProcess;
  /** What it printed on stdout and stderr so far (the last 64 KiB). */
  output(): string;
  /** Resolves with its status once it has exited and its output is read. */
  readonly exited: Promise<Deno.CommandStatus>;
  /** Sends `signal` (unless it has exited) and waits for the exit. */
  stop(signal: Deno.Signal): Promise<Deno.CommandStatus>;
  /** Resolves once its output matches `pattern`; rejects on an exit or after `timeoutMs`. */
  printed(pattern: RegExp, what: string, timeoutMs: number): Promise<void>;
}

export function spawnServer(path: string, args: string[], cwd: string): ChildServer {
  const child = new Deno.Command(path, {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let output = "";
  const listeners = new Set<() => void>();
  const read = async (stream: ReadableStream<Uint8Array<ArrayBuffer>>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      output = (output + chunk).slice(-OUTPUT_LIMIT);
      for (const listener of listeners) listener();
    }
  };
  const exited = Promise.all([read(child.stdout), read(child.stderr)]).then(() => child.status);
  let done = false;
  void exited.then(() => done = true);
  return {
    child,
    output: () => output,
    exited,
    async stop(signal) {
      if (!done) {
        try {
          child.kill(signal);
        } catch { /* exited meanwhile */ }
      }
      return await exited;
    },
    printed(pattern, what, timeoutMs) {
      return new Promise<void>((resolve, reject) => {
        let settled = false;
        const settle = (error?: Error) => {
          if (settled) return;
          settled = true;
          listeners.delete(check);
          clearTimeout(timer);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (pattern.test(output)) settle();
        };
        const timer = setTimeout(
          () => settle(new Error(`${what} was not ready within ${timeoutMs} ms:\n${output}`)),
          timeoutMs,
        );
        listeners.add(check);
        void exited.then((status) =>
          settle(new Error(`${what} exited (code ${status.code}) before it was ready:\n${output}`))
        );
        check();
      });
    },
  };
}

/**
 * Polls `attempt` every few milliseconds until it returns true; throws what `failure` says
 * (a server that exited) at once, or after `timeoutMs` the message of `late`.
 */
export async function pollUntil(
  attempt: () => Promise<boolean>,
  options: { timeoutMs: number; late: () => string; failure?: () => string | undefined },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (true) {
    if (await attempt()) return;
    const failure = options.failure?.();
    if (failure !== undefined) throw new Error(failure);
    if (Date.now() > deadline) throw new Error(options.late());
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

/** Whether starting failed because a port chosen as free was taken before it was bound. */
export function portTaken(error: unknown): boolean {
  return error instanceof Deno.errors.AddrInUse ||
    // Deno's error, HAProxy's, and `aim serve`'s own ("port N is already in use").
    /address already in use|cannot bind socket|AddrInUse|port \d+ is already in use/i.test(
      String(error),
    );
}
