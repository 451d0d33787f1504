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
 * `result`, less the handler (split, on the page's clock, into its own work and the WebSocket);
 * the bridge → agent from that `result` to the body read. And the machine's floor, measured in
 * the same run, each sample right after a call at rest: an HTTP round trip to a bare `Deno.serve`
 * plus a WebSocket echo through the same Chromium (a page that only sends each message back), so
 * that a loaded machine reads as one.
 *
 * Puppeteer drives Chromium without DevTools network events (`networkEvents: false`): with them,
 * every frame on the tab's WebSocket costs Chromium an event and this process, the bridge's own,
 * its handling (0.2–0.4 ms of every call here), which no person's browser pays.
 *
 * ```sh
 * deno run -A --lock=deno.test.lock --frozen=false bench/invoke_bench.ts     # 1,000 of each kind
 * deno run -A --lock=deno.test.lock --frozen=false bench/invoke_bench.ts --calls 300 --strict
 * deno run -A --lock=deno.test.lock --frozen=false bench/invoke_bench.ts --page bare  # no render
 * deno run -A --lock=deno.test.lock --frozen=false bench/invoke_bench.ts --front  # a visible tab
 * deno run -A --lock=deno.test.lock --frozen=false bench/invoke_bench.ts --metrics  # metrics on
 * ```
 *
 * The last line, `summary: …`, is what `deno task bench` (bench/run.ts) lists.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startDemo } from "../demo/app.ts";
import { startBridge } from "../tests/helpers/bridge.ts";
import { ELEMENTS, launchBrowser, NO_CHROMIUM, panelToken } from "../tests/browser/harness.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    calls: { type: "string", default: "1000" },
    strict: { type: "boolean", default: false },
    /** The page: the demo's control panel, or a page that renders nothing (aim alone). */
    page: { type: "string", default: "demo" },
    /** The page measured in front of the echo page (it draws its frames), not behind it. */
    front: { type: "boolean", default: false },
    /** The bridge keeps metrics (`--metrics`), to compare with a run without. */
    metrics: { type: "boolean", default: false },
  },
});
if (flags.page !== "demo" && flags.page !== "bare") throw new Error("--page is demo or bare");
/** Calls of each kind. */
const CALLS = Number(flags.calls);
if (!Number.isInteger(CALLS) || CALLS < 2) throw new Error("--calls must be a whole number ≥ 2");
const WARMUP = Math.min(200, CALLS);
/**
 * The budget: what the round trip adds to the handler's own time, ms: at rest (median, p95)
 * and back to back (median).
 */
const BUDGET = { median: 1.5, p95: 4, backMedian: 3 };
const ACTION = "filter_requests";
const INPUTS = ["pending", "all"] as const;
/** `--page bare`: `filter_requests` publishes the filter and answers as the demo's does. */
const BARE_PAGE = `<!doctype html><title>Control panel</title>${ELEMENTS}<aim-panel></aim-panel>
<aim-state name="filter"></aim-state>
<aim-action name="filter_requests" description="Show only the requests of one status"
  input-example="pending"></aim-action>
<script type="module">
  const filter = document.querySelector("aim-state[name=filter]");
  document.querySelector("aim-action[name=filter_requests]").handler = (status) => {
    filter.value = status;
    return { filter: status, shown: 0 };
  };
</script>`;
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

const metricsOption = flags.metrics ? { metrics: { port: 0 } } : {};
const data = await Deno.makeTempDir({ prefix: "aim-invoke-bench-" });
try {
  // `--page bare`: the same action on a page that publishes its filter and renders nothing, so
  // that what the demo's table costs to render (on a loaded machine, it competes for the CPU with
  // the answer's way back) reads apart from what aim adds.
  await using demo = flags.page === "demo"
    ? await startDemo({ data, port: 0, hostname: "127.0.0.1", ...metricsOption })
    : undefined;
  await using bareBridge = demo ? undefined : await startBridge({
    site: { "control-panel.html": BARE_PAGE },
    ...metricsOption,
  });
  const origin = demo ? demo.served.url : bareBridge!.origin;
  // No DevTools network events: a person's browser has no DevTools attached (harness.ts).
  await using browser = await launchBrowser({ networkEvents: false });
  await using context = await browser.context();
  const page = await context.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  // In the page: when each `invoke` reaches the tab client's listener, and when its `result`
  // leaves (the page's own clock), to split the tab's time from the wire's.
  await page.evaluateOnNewDocument(() => {
    const w = window as unknown as { aimTab: { received: number[]; sent: number[] } };
    w.aimTab = { received: [], sent: [] };
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      if (typeof data === "string" && data.startsWith('{"type":"result"')) {
        w.aimTab.sent.push(performance.now());
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
            if (typeof event.data === "string" && event.data.startsWith('{"type":"invoke"')) {
              w.aimTab.received.push(performance.now());
            }
            listener.call(this, event);
          }),
        );
      },
    });
  });
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
  if (flags.page === "demo") {
    const login = await invoke("login", { username: "alice", password: "wonderland" });
    if (
      login.status !== 200 || login.body.settled !== true || !login.body.state.requests?.length
    ) {
      throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
    }
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
    const w = window as unknown as { aimHandlerMs: number[]; aimHandlerAt: number[] };
    w.aimHandlerMs = [];
    w.aimHandlerAt = [];
    const inner = el.handler;
    el.handler = (input, context) => {
      const started = performance.now();
      w.aimHandlerAt.push(started);
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

  // The floor: a bare server (HTTP and a WebSocket echo) and a page that echoes, same Chromium.
  let echoSocket: WebSocket | undefined;
  const echoOpen = Promise.withResolvers<void>();
  let echoed: (() => void) | undefined;
  await using bare = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req) => {
    if (req.headers.get("upgrade") === "websocket") {
      const { socket, response } = Deno.upgradeWebSocket(req);
      socket.onopen = () => {
        echoSocket = socket;
        echoOpen.resolve();
      };
      socket.onmessage = () => echoed?.();
      return response;
    }
    if (new URL(req.url).pathname === "/echo") {
      return new Response(
        `<!doctype html><script>const ws = new WebSocket("ws://" + location.host + "/ws");` +
          `ws.onmessage = (e) => ws.send(e.data);</script>`,
        { headers: { "Content-Type": "text/html" } },
      );
    }
    return Response.json({ ok: true });
  });
  const echoPage = await context.newPage();
  await echoPage.goto(`http://127.0.0.1:${bare.addr.port}/echo`);
  await echoOpen.promise;
  // The echo's tab is in front, as in every figure since issue 23 was filed: the page measured is
  // a background tab, which draws no frames. `--front` puts it in front, drawing its frames, as a
  // person watching the agent sees it (both the floor and what aim adds are higher then).
  if (flags.front) await page.bringToFront();
  const floorSamples: number[] = [];
  let measuring = false;
  const floor = async () => {
    const started = performance.now();
    await (await fetch(`http://127.0.0.1:${bare.addr.port}/`, { method: "POST", body: "{}" }))
      .arrayBuffer();
    await new Promise<void>((resolve) => {
      echoed = resolve;
      echoSocket!.send('{"type":"echo"}');
    });
    floorSamples.push(performance.now() - started);
  };

  // At rest: the frame the last call asked for (the panel's log) is drawn, when the page draws
  // frames, and the page is idle.
  const idle = () =>
    page.evaluate(() =>
      new Promise<void>((resolve) => {
        const rest = () => requestIdleCallback(() => resolve(), { timeout: 100 });
        if (document.hidden) rest();
        else requestAnimationFrame(rest);
      })
    );
  const calls: { kind: Kind; roundTrip: number; started: number; ended: number }[] = [];
  const call = async (i: number): Promise<void> => {
    const kind = KINDS[i % KINDS.length]!;
    const input = INPUTS[i % 2]!;
    if (kind === "rest") {
      await idle();
      if (measuring) await floor();
      await idle();
    }
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
  /** Per call, in the page: invoke received → handler called, and handler done → result sent. */
  const tabTimes = () =>
    page.evaluate(() => {
      const w = window as unknown as {
        aimTab: { received: number[]; sent: number[] };
        aimHandlerAt: number[];
      };
      const { received, sent } = w.aimTab;
      const at = w.aimHandlerAt;
      const out = { received: [...received], sent: [...sent], at: [...at] };
      received.length = sent.length = at.length = 0;
      return out;
    });

  for (let i = 0; i < 2 * WARMUP; i++) await call(i);
  await handlerTimes();
  await tabTimes();
  calls.length = channel.invoke.length = channel.result.length = 0;
  measuring = true;
  for (let i = 0; i < 2 * CALLS; i++) await call(i);
  const handler = await handlerTimes();
  const inTab = await tabTimes();
  if (handler.length !== calls.length) {
    throw new Error(`${calls.length} calls, but the page timed ${handler.length} handlers`);
  }

  const of = (kind: Kind) => calls.flatMap((c, i) => c.kind === kind ? [{ ...c, i }] : []);
  const rest = of("rest");
  const back = of("back");
  const added = (list: typeof rest) => stats(list.map((c) => c.roundTrip - handler[c.i]!));
  const atRest = added(rest);
  const backToBack = added(back);
  const floorStats = stats(floorSamples);
  const mark = (ok: boolean) => ok ? "held" : "MISSED";
  const verdicts = {
    median: atRest.median <= BUDGET.median,
    p95: atRest.p95 <= BUDGET.p95,
    back: backToBack.median <= BUDGET.backMedian,
  };
  const ok = verdicts.median && verdicts.p95 && verdicts.back;
  console.log(
    `# invoke: ${CALLS} calls of ${
      flags.page === "demo" ? "the demo's" : "a page that renders nothing:"
    } ${ACTION} to a tab at rest and ${CALLS} back to ` +
      `back, interleaved, through Chromium (after ${WARMUP} of each to warm up); ` +
      `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs, load average ` +
      `${Deno.loadavg().map((n) => n.toFixed(1)).join(" ")}`,
  );
  console.log(`handler (in the page):  ${both(stats(handler))}`);
  console.log(`at rest, round trip:    ${both(stats(rest.map((c) => c.roundTrip)))}`);
  console.log(
    `at rest, added:         ${both(atRest)} (budget ≤ ${BUDGET.median} ms: ` +
      `${mark(verdicts.median)}; ≤ ${BUDGET.p95} ms: ${mark(verdicts.p95)})`,
  );
  console.log(
    `the machine's floor:    ${both(floorStats)} (HTTP to a bare Deno.serve + a WebSocket ` +
      `echo through the same Chromium, after each call at rest)`,
  );
  console.log(
    `at rest, added over the floor: median ${ms(atRest.median - floorStats.median)}; ` +
      `added / floor: median ${(atRest.median / floorStats.median).toFixed(2)}×`,
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
    if (inTab.received.length === calls.length && inTab.sent.length === calls.length) {
      const { received, sent, at } = inTab;
      console.log(
        `    in the tab, invoke received → handler called:  ${
          split((c) => at[c.i]! - received[c.i]!)
        }`,
      );
      console.log(
        `    in the tab, handler done → result sent:       ${
          split((c) => sent[c.i]! - at[c.i]! - handler[c.i]!)
        }`,
      );
      console.log(
        `    the WebSocket both ways (bridge ↔ tab's listener): ${
          split((c) => channel.result[c.i]! - channel.invoke[c.i]! - (sent[c.i]! - received[c.i]!))
        }`,
      );
    }
  } else {
    console.log("  (the bridge's side of the channel could not be timed)");
  }
  console.log(
    `back to back, added:    ${both(backToBack)} (budget median ≤ ${BUDGET.backMedian} ms: ` +
      `${mark(verdicts.back)})`,
  );
  const where = `${flags.page} page${flags.front ? ", in front" : ""}${
    flags.metrics ? ", metrics on" : ""
  }`;
  console.log(
    `summary: invoke ${ACTION} (${where}) through Chromium, ${CALLS} calls at rest: ` +
      `adds median ` +
      `${ms(atRest.median)} (budget ${BUDGET.median}: ${mark(verdicts.median)}), p95 ` +
      `${ms(atRest.p95)} (budget ${BUDGET.p95}: ${mark(verdicts.p95)}); back to back median ` +
      `${ms(backToBack.median)} (budget ${BUDGET.backMedian}: ${mark(verdicts.back)}); the ` +
      `machine's floor in the same run: median ${ms(floorStats.median)}, p95 ${ms(floorStats.p95)}`,
  );
  if (flags.strict && !ok) Deno.exitCode = 1;
} finally {
  await Deno.remove(data, { recursive: true }).catch(() => {});
}
