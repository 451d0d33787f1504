/**
 * The session manifest paths of `deno task bench`: a signed-in demo control
 * panel read as JSON and as TOON, and the `304` an agent gets with `If-None-Match` when nothing
 * changed, each against a bare `Deno.serve` answering the same status, bytes and headers in the
 * same run. Goals: at least 0.8× the bare rate for session reads, 0.9× for the `304`. Printed,
 * never failed on timing.
 *
 * @module
 */
import { BRIDGE_V8_FLAGS, Child, compareRates, type Comparison } from "./lib.ts";
import { DEMO_PAGE } from "./demo_tab.ts";

/** Goals of session reads, as ratios to the bare server. */
export const SESSION_GOALS = { read: 0.8, notModified: 0.9 } as const;

/** How {@linkcode sessionReads} loads the servers. */
export interface SessionReadsOptions {
  connections: number;
  seconds: number;
  warmup: number;
  rounds: number;
  /** Records a verdict and a summary line. */
  report: (name: string, ok: boolean, line: string) => void;
}

interface Captured {
  status: number;
  body: string;
  headers: [string, string][];
}

/** The bridge's answer to `url` with `headers`, as the bare server is to repeat it. */
async function capture(url: string, headers: Record<string, string>): Promise<Captured> {
  const res = await fetch(url, { headers });
  const body = await res.text();
  return {
    status: res.status,
    body,
    // The same headers, minus those the server computes itself.
    headers: [...res.headers].filter(([k]) => k !== "date" && k !== "content-length"),
  };
}

/** A bare server answering `answer`, reading the URL and the `reads` headers of each request. */
async function startBare(
  answer: Captured,
  reads: string[] = [],
): Promise<AsyncDisposable & { url: string; pid: number }> {
  const file = Deno.makeTempFileSync({ suffix: ".json" });
  Deno.writeTextFileSync(file, JSON.stringify(answer));
  const bare = Child.start("./bare_server.ts", [file, ...reads], [...BRIDGE_V8_FLAGS]);
  const info = await bare.read<{ url: string; pid: number }>();
  return {
    ...info,
    async [Symbol.asyncDispose]() {
      await bare.stop();
      Deno.removeSync(file);
    },
  };
}

/** One comparison: a bare server started on `answer`, loaded against `target` alike. */
async function compareWith(
  answer: Captured,
  target: { url: string; pid: number },
  requestHeaders: Record<string, string>,
  options: SessionReadsOptions,
): Promise<Comparison> {
  await using bare = await startBare(answer);
  const path = new URL(target.url).pathname;
  const check = await capture(bare.url + path, requestHeaders);
  if (check.status !== answer.status || check.body !== answer.body) {
    throw new Error("the bare server does not answer the same status and bytes");
  }
  return await compareRates({ bare: { url: bare.url + path, pid: bare.pid }, bridge: target }, {
    ...options,
    status: answer.status,
    headers: Object.entries(requestHeaders).map(([k, v]) => `${k}: ${v}`),
  });
}

function ratioLine(c: Comparison, goal: number): { ok: boolean; text: string } {
  const ok = c.ratio >= goal && c.errors === 0;
  const cpu = c.bareCpuUs !== null && c.bridgeCpuUs !== null
    ? `; server CPU per request: bare ${c.bareCpuUs.toFixed(1)} µs, bridge ${
      c.bridgeCpuUs.toFixed(1)
    } µs`
    : "";
  const errors = c.errors ? `; ${c.errors} answers had another status` : "";
  return {
    ok,
    text: `bridge ${c.bridgeRate.toFixed(0)} req/s, bare ${c.bareRate.toFixed(0)} req/s, ratio ${
      c.ratio.toFixed(2)
    } (goal >= ${goal}: ${ok ? "holds" : "MISSED"})${errors}${cpu}`,
  };
}

/** Measures the session manifest reads and the `304` of a signed-in demo session. */
export async function sessionReads(options: SessionReadsOptions): Promise<void> {
  console.log(
    `\n## Session manifests: the signed-in demo control panel vs bare Deno.serve ` +
      `(${options.rounds} round(s) of ${options.seconds} s, ${options.connections} connections)`,
  );
  const demo = Child.start("./demo_server.ts", [], [...BRIDGE_V8_FLAGS]);
  try {
    const info = await demo.read<{ url: string; pid: number; token: string }>();
    const auth = { Authorization: `Bearer ${info.token}` };
    for (const format of ["json", "toon"] as const) {
      const url = `${info.url}${DEMO_PAGE}.${format}`;
      const answer = await capture(url, auth);
      if (answer.status !== 200) {
        throw new Error(`the bridge answered ${answer.status}: ${answer.body}`);
      }
      const bytes = new TextEncoder().encode(answer.body).length;
      const etag = answer.headers.find(([k]) => k === "etag")?.[1];
      console.log(`GET ${DEMO_PAGE}.${format} with the token: ${bytes} bytes, ETag ${etag}`);
      const c = await compareWith(answer, { url, pid: info.pid }, auth, options);
      const { ok, text } = ratioLine(c, SESSION_GOALS.read);
      console.log(`session ${format}: ${text}`);
      options.report(`session ${format} read ratio`, ok, `session ${format}: ${text}`);
    }
    // The 304: the agent already holds the current version.
    const url = `${info.url}${DEMO_PAGE}.json`;
    const etag = (await capture(url, auth)).headers.find(([k]) => k === "etag")?.[1];
    if (!etag) throw new Error("the session manifest has no ETag");
    const conditional = { ...auth, "If-None-Match": etag };
    const answer = await capture(url, conditional);
    if (answer.status !== 304 || answer.body !== "") {
      throw new Error(`If-None-Match ${etag} answered ${answer.status}, not an empty 304`);
    }
    console.log(`GET ${DEMO_PAGE}.json with If-None-Match: ${etag}: 304, no body`);
    const c = await compareWith(answer, { url, pid: info.pid }, conditional, options);
    const { ok, text } = ratioLine(c, SESSION_GOALS.notModified);
    console.log(`304: ${text}`);
    options.report("304 ratio", ok, `304: ${text}`);
    // What reading a request costs at all: the bare server again, now also reading the URL and
    // the headers any token check reads (the bridge reads these and no more on this path).
    await using reading = await startBare(answer, [
      "Host",
      "Authorization",
      "If-None-Match",
      "Prefer",
    ]);
    const floor = await compareWith(
      answer,
      { url: reading.url + new URL(url).pathname, pid: reading.pid },
      conditional,
      options,
    );
    const cpu = floor.bareCpuUs !== null && floor.bridgeCpuUs !== null
      ? `; server CPU per request: bare ${floor.bareCpuUs.toFixed(1)} µs, reading ${
        floor.bridgeCpuUs.toFixed(1)
      } µs`
      : "";
    const floorText = `ratio ${floor.ratio.toFixed(2)} to the bare one${cpu}`;
    console.log(
      `304, a bare server that also reads the URL and the Host, Authorization, If-None-Match ` +
        `and Prefer headers: ${floorText}`,
    );
    options.report(
      "304 floor",
      true,
      `304 floor (a bare server reading the URL and 4 headers): ${floorText}`,
    );
  } finally {
    await demo.stop();
  }
}
