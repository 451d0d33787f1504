/**
 * Test helper: the `aim` command line as a subprocess, as a person runs it.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type TempDir, tempDir } from "./temp.ts";

const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

/**
 * Whether the packaging tests run: they build aim whole (`deno compile`, another project that
 * depends on it), a minute of CPU on two cores, so README's test command leaves them to
 * `deno task test:packaging`, which CI runs after it (`deno task test:more`).
 */
export const PACKAGING: boolean = Deno.env.get("AIM_TEST_PACKAGING") === "1";

/** Says once why a packaging test file is skipped. */
export function skipUnlessPackaging(file: string): void {
  if (!PACKAGING) {
    console.log(`${file}: skipped, run by 'deno task test:packaging' (AIM_TEST_PACKAGING=1)`);
  }
}

/** What a finished command printed and how it exited. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@linkcode runAim}. */
export interface RunAimOptions {
  stdin?: string;
  env?: Record<string, string>;
  cwd?: string;
  /** Soft and hard limit on open files (`ulimit -n`) of the process. */
  fileLimit?: number;
  /** A module run before `main.ts` (`deno run --preload`). */
  preload?: string;
}

function command(args: string[], options: RunAimOptions): Deno.Command {
  const preload = options.preload === undefined ? [] : [`--preload=${options.preload}`];
  const deno = [Deno.execPath(), "run", "--allow-all", "--quiet", ...preload, MAIN, ...args];
  const limited = options.fileLimit === undefined
    ? undefined
    : ["-c", `ulimit -n ${options.fileLimit} && exec "$@"`, "aim", ...deno];
  return new Deno.Command(limited ? "bash" : deno[0]!, {
    args: limited ?? deno.slice(1),
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...options.env },
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
}

/** Runs `aim ARGS` to the end. */
export async function runAim(args: string[], options: RunAimOptions = {}): Promise<CliResult> {
  const child = command(args, options).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** A running `aim serve`. */
export interface RunningAim extends AsyncDisposable {
  readonly url: string;
  readonly process: Deno.ChildProcess;
  /** Lines printed so far on stdout. */
  readonly lines: string[];
  /**
   * Resolves with the first stdout line matching `pattern`, waiting for it up to `timeoutMs`
   * (default 10 s): a line that never comes fails the test instead of hanging it.
   */
  line(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends a signal and waits for the exit; returns the result. */
  stop(signal?: Deno.Signal): Promise<CliResult>;
}

/** Starts `aim ARGS` (a serve command with `--port 0`) and waits until it listens. */
export async function startAim(args: string[], options: RunAimOptions = {}): Promise<RunningAim> {
  const child = command(args, options).spawn();
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  let stderr = "";
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  const stdoutDone = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let index;
      while ((index = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        lines.push(line);
        for (const w of [...waiters]) {
          if (w.pattern.test(line)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
      }
    }
  })();
  const waitFor = (pattern: RegExp) => {
    const seen = lines.find((l) => pattern.test(l));
    if (seen) return Promise.resolve(seen);
    return new Promise<string>((resolve) => waiters.push({ pattern, resolve }));
  };
  const line = async (pattern: RegExp, timeoutMs = 10_000) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const waiter = waiters.find((w) => w.pattern === pattern);
        if (waiter) waiters.splice(waiters.indexOf(waiter), 1);
        reject(
          new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${lines.join("\n")}`),
        );
      }, timeoutMs);
    });
    try {
      return await Promise.race([waitFor(pattern), late]);
    } finally {
      clearTimeout(timer);
    }
  };
  // Starting may take long on a busy machine; an exit before listening ends the wait.
  const started = await Promise.race([
    waitFor(/^aim: serving .* at (https?:\/\/\S+)$/),
    child.status.then(async () => {
      await stderrDone;
      throw new Error(`aim exited before listening: ${stderr}`);
    }),
  ]);
  const url = /at (https?:\/\/\S+)$/.exec(started)![1]!;
  let result: Promise<CliResult> | undefined;
  const stop = (signal: Deno.Signal = "SIGTERM") => {
    result ??= (async () => {
      try {
        child.kill(signal);
      } catch { /* already exited */ }
      const status = await child.status;
      await Promise.all([stdoutDone, stderrDone]);
      return { code: status.code, stdout: lines.join("\n"), stderr };
    })();
    return result;
  };
  return {
    url,
    process: child,
    lines,
    line,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

/** A temporary site with one page, removed on dispose. */
export async function site(): Promise<TempDir> {
  const dir = await tempDir("aim-cli-site-");
  Deno.writeTextFileSync(
    join(dir.path, "control-panel.html"),
    `<title>Panel</title><script type="module" src="/__aim/elements.js"></script>
<aim-action name="approve_request" description="Approve one pending request" input-example="req-3"
  consequential protected></aim-action>`,
  );
  return dir;
}
