/**
 * CPU profiles of a bridge under attack, for `bench/abuse.ts --profile DIR`: the bridge runs with
 * `--inspect=127.0.0.1:PORT`, and this module speaks the Chrome DevTools Protocol's `Profiler`
 * domain to it over the inspector's WebSocket. Each attack's profile is written as
 * `DIR/<attack>.cpuprofile` (open it in Chromium's DevTools, Performance panel), and the
 * functions the bridge's thread spent the most time in are printed under the attack's line.
 *
 * @module
 */

/** A V8 CPU profile (the `Profiler.Profile` of the DevTools Protocol), as much as is read. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** A connection to a process's inspector that records CPU profiles. */
export class InspectorProfiler {
  readonly #socket: WebSocket;
  #next = 1;
  readonly #waiting = new Map<number, (result: unknown) => void>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) this.#waiting.get(message.id)?.(message.result);
    };
  }

  /** Connects to the inspector a process opened with `--inspect=127.0.0.1:PORT`. */
  static async attach(port: number): Promise<InspectorProfiler> {
    const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() as {
      webSocketDebuggerUrl: string;
    }[];
    return await InspectorProfiler.connect(targets[0]!.webSocketDebuggerUrl);
  }

  /** Connects to the inspector at `url` (ws://…) and enables the profiler. */
  static async connect(url: string): Promise<InspectorProfiler> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = () => reject(new Error(`cannot reach the inspector at ${url}`));
    });
    const profiler = new InspectorProfiler(socket);
    await profiler.#call("Profiler.enable");
    // One sample a millisecond: enough to see where the thread goes, cheap enough not to move it.
    await profiler.#call("Profiler.setSamplingInterval", { interval: 1000 });
    return profiler;
  }

  #call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#waiting.set(id, (result) => (this.#waiting.delete(id), resolve(result)));
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Starts recording. */
  async start(): Promise<void> {
    await this.#call("Profiler.start");
  }

  /** Stops recording; the profile since {@linkcode start}. */
  async stop(): Promise<CpuProfile> {
    const result = await this.#call("Profiler.stop") as { profile: CpuProfile };
    return result.profile;
  }

  close(): void {
    this.#socket.close();
  }
}

/**
 * The functions a profile's thread spent its samples in (self time), the heaviest first, as lines
 * such as `  31.2%  scryptSync  ext:deno_node/…:88`; `(idle)` is the thread waiting for work.
 */
export function heaviest(profile: CpuProfile, top = 12): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    const frame = byId.get(samples[i]!)?.callFrame;
    const time = Math.max(0, deltas[i + 1] ?? deltas[i] ?? 0);
    total += time;
    if (!frame) continue;
    const file = frame.url.replace(/^.*\/(bridge|bench|tests|demo|node_modules|ext:)/, "$1");
    const key = `${frame.functionName || "(anonymous)"}  ${file}:${frame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + time);
  }
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, top).map(([key, time]) =>
    `${(100 * time / (total || 1)).toFixed(1).padStart(6)}%  ${key}`
  );
}
