/**
 * The invocation budget: what a round trip agent → bridge → real Chromium
 * tab → agent adds to the tab handler's own time, settling included, on loopback. It runs the
 * demo (a fresh data folder), opens its control panel in Chromium, signs in as alice through
 * `POST /__aim/invoke` `login`, then invokes `filter_requests` with "pending" and "all" in turn,
 * so that every call changes the page (its table and its state).
 *
 * Per call it measures the agent's round trip (from `fetch` to the body read) and, in the page,
 * the handler's own time (a wrapper around the page's handler, with `performance.now()`, until
 * its result and the work it declared with `waitUntil` are done), and takes the difference.
 *
 * Two kinds of calls, interleaved (rest, back, back, rest, …) so that both see the same machine
 * and both inputs: **at rest**, the call starts once the page is idle (`requestIdleCallback`), as
 * an agent that thinks between calls finds it; this is the budget's figure. **Back to back**, the
 * call starts as soon as the last answer came, while the page may still render what the last call
 * changed (and Chromium react to it): printed for information.
 *
 * It also prints where the time of the calls at rest goes, from the bridge's side of the tab's
 * WebSocket: agent → bridge until the `invoke` is sent; the tab, from that `invoke` to its
 * `result`, less the handler; the bridge → agent from that `result` to the body read.
 *
 * ```sh
 * deno run -A --lock=deno.test.lock --frozen=false bench/invoke_bench.ts     # 1,000 of each kind
 * deno run -A --lock=deno.test.lock --frozen=false bench/invoke_bench.ts --calls 300 --strict
 * ```
 *
 * The last line, `summary: …`, is what `deno task bench` (bench/run.ts) lists.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startDemo } from "../demo/app.ts";
import { launchBrowser, NO_CHROMIUM, panelToken } from "../tests/browser/harness.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "1000" },
    strict: { type: "boolean", default: false },
  },
});
/** Calls of each kind. */
const CALLS = Number(flags.calls);
if (!Number.isInteger(CALLS) || CALLS < 2) throw new Error("--calls must be a whole number ≥ 2");
const WARMUP = Math.min(200, CALLS);
/** The budget: what the round trip adds to the handler's own time, ms. */
const BUDGET = { median: 1.5, p95: 4 };
const ACTION = "filter_requests";
const INPUTS = ["pending", "all"] as const;
/** Call `i` is at rest or back to back: both kinds get both inputs. */
const KINDS = ["rest", "back", "back", "rest"] as const;
type Kind = typeof KINDS[number];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

function stats(samples: number[]): { median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
}

const ms = (n: number) => `${n.toFixed(2)} ms`;
const both = (s: { median: number; p95: number }) => `median ${ms(s.median)}, p95 ${ms(s.p95)}`;

if (NO_CHROMIUM) {
  console.log("invoke bench: skipped, /usr/bin/chromium is missing");
  console.log("summary: invoke: skipped (no Chromium)");
  Deno.exit(0);
}

/**
 * When the bridge (in this process) sends each `invoke` to the tab and gets each `result`: the
 * bridge's WebSocket objects are this process's, so their prototype is watched. Puppeteer's own
 * socket sends and receives DevTools messages, which never start like these.
 */
const channel = { invoke: [] as number[], result: [] as number[] };
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  if (typeof data === "string" && data.startsWith('{"type":"invoke"')) {
    channel.invoke.push(performance.now());
  }
  return send.call(this, data);
};
const onmessage = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage")!;
Object.defineProperty(WebSocket.prototype, "onmessage", {
  ...onmessage,
  set(this: WebSocket, listener: ((event: MessageEvent) => void) | null) {
    onmessage.set!.call(
      this,
      listener && ((event: MessageEvent) => {
        if (typeof event.data === "string" && event.data.startsWith('{"type":"result"')) {
          channel.result.push(performance.now());
        }
        listener.call(this, event);
      }),
    );
  },
});

const data = await Deno.makeTempDir({ prefix: "aim-invoke-bench-" });
try {
  await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
  const origin = demo.served.url;
  await using browser = await launchBrowser();
  await using context = await browser.context();
  const page = await context.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  await page.goto(`${origin}/control-panel`);
  const token = await panelToken(page);

  const invoke = async (actionId: string, input: unknown) => {
    const res = await fetch(`${origin}/__aim/invoke`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ actionId, input }),
    });
    return { status: res.status, body: await res.json() };
  };

  // The tab must hold the lease before the agent signs in (the answer then waits for it).
  await page.waitForFunction(() =>
    document.querySelector("aim-panel")?.getAttribute("status") === "connected"
  );
  const login = await invoke("login", { username: "alice", password: "wonderland" });
  if (login.status !== 200 || login.body.settled !== true || !login.body.state.requests?.length) {
    throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  }

  // The handler's own time, measured in the page: from its call until its result and the work
  // it declared (waitUntil) are done. One entry per call, in call order.
  await page.waitForFunction(
    (name) =>
      typeof document.querySelector<HTMLElement & { handler?: unknown }>(
        `aim-action[name=${name}]`,
      )?.handler === "function",
    {},
    ACTION,
  );
  await page.evaluate((name) => {
    type Handler = (input: unknown, context: { waitUntil(work: unknown): void }) => unknown;
    const el = document.querySelector(`aim-action[name=${name}]`) as Element & {
      handler: Handler;
    };
    const w = window as unknown as { aimHandlerMs: number[] };
    w.aimHandlerMs = [];
    const inner = el.handler;
    el.handler = (input, context) => {
      const started = performance.now();
      const declared: Promise<unknown>[] = [];
      const waitUntil = (work: unknown) => {
        declared.push(Promise.resolve(work).catch(() => {}));
        context.waitUntil(work);
      };
      const done = () => w.aimHandlerMs.push(performance.now() - started);
      let result: unknown;
      try {
        result = inner(input, { ...context, waitUntil });
      } catch (error) {
        done();
        throw error;
      }
      const pending = result !== null && typeof (result as Promise<unknown>)?.then === "function";
      if (!pending && declared.length === 0) {
        done();
        return result;
      }
      // Work declared while other work runs counts too (as Work.done() in elements/client.ts).
      const all = async () => {
        for (let seen = -1; seen < declared.length;) {
          seen = declared.length;
          await Promise.all(declared);
        }
      };
      return Promise.resolve(result).finally(() => all().then(done));
    };
  }, ACTION);

  const idle = () =>
    page.evaluate(() =>
      new Promise<void>((resolve) => requestIdleCallback(() => resolve(), { timeout: 100 }))
    );
  const calls: { kind: Kind; roundTrip: number; started: number; ended: number }[] = [];
  const call = async (i: number): Promise<void> => {
    const kind = KINDS[i % KINDS.length]!;
    const input = INPUTS[i % 2]!;
    if (kind === "rest") await idle();
    const started = performance.now();
    const { status, body } = await invoke(ACTION, input);
    const ended = performance.now();
    calls.push({ kind, roundTrip: ended - started, started, ended });
    if (
      status !== 200 || body.result?.filter !== input || body.settled !== true ||
      body.state?.filter !== input
    ) {
      throw new Error(`${ACTION} "${input}": ${status} ${JSON.stringify(body)}`);
    }
  };
  const handlerTimes = () =>
    page.evaluate(() => (window as unknown as { aimHandlerMs: number[] }).aimHandlerMs.splice(0));

  for (let i = 0; i < 2 * WARMUP; i++) await call(i);
  await handlerTimes();
  calls.length = channel.invoke.length = channel.result.length = 0;
  for (let i = 0; i < 2 * CALLS; i++) await call(i);
  const handler = await handlerTimes();
  if (handler.length !== calls.length) {
    throw new Error(`${calls.length} calls, but the page timed ${handler.length} handlers`);
  }

  const of = (kind: Kind) => calls.flatMap((c, i) => c.kind === kind ? [{ ...c, i }] : []);
  const rest = of("rest");
  const back = of("back");
  const added = (list: typeof rest) => stats(list.map((c) => c.roundTrip - handler[c.i]!));
  const atRest = added(rest);
  const ok = atRest.median < BUDGET.median && atRest.p95 < BUDGET.p95;
  const verdict = ok ? "ok" : "OVER BUDGET";
  console.log(
    `# invoke: ${CALLS} calls of the demo's ${ACTION} to a tab at rest and ${CALLS} back to ` +
      `back, interleaved, through Chromium (after ${WARMUP} of each to warm up); ` +
      `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs`,
  );
  console.log(`handler (in the page):  ${both(stats(handler))}`);
  console.log(`at rest, round trip:    ${both(stats(rest.map((c) => c.roundTrip)))}`);
  console.log(
    `at rest, added:         ${both(atRest)} ` +
      `(budget < ${BUDGET.median} ms, < ${BUDGET.p95} ms) ${verdict}`,
  );
  if (channel.invoke.length === calls.length && channel.result.length === calls.length) {
    const split = (f: (c: typeof rest[number]) => number) => both(stats(rest.map(f)));
    console.log(
      `  agent → bridge → invoke sent:   ${split((c) => channel.invoke[c.i]! - c.started)}`,
    );
    console.log(
      `  tab, invoke → result, less the handler: ${
        split((c) => channel.result[c.i]! - channel.invoke[c.i]! - handler[c.i]!)
      }`,
    );
    console.log(
      `  result → bridge → agent:        ${split((c) => c.ended - channel.result[c.i]!)}`,
    );
  } else {
    console.log("  (the bridge's side of the channel could not be timed)");
  }
  const backToBack = added(back);
  console.log(`back to back, added:    ${both(backToBack)} (for information)`);
  console.log(
    `summary: invoke ${ACTION} through Chromium, ${CALLS} calls at rest: adds median ` +
      `${ms(atRest.median)}, p95 ${ms(atRest.p95)} to the handler (budget < ${BUDGET.median} / ` +
      `< ${BUDGET.p95} ms) ${verdict}; back to back: median ${ms(backToBack.median)}, ` +
      `p95 ${ms(backToBack.p95)}`,
  );
  if (flags.strict && !ok) Deno.exitCode = 1;
} finally {
  await Deno.remove(data, { recursive: true }).catch(() => {});
}
