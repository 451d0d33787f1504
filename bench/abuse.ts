/**
 * A bounded abuse benchmark: `deno task bench:abuse`.
 *
 * Starts `aim serve --demo --trust-proxy` on loopback as a child process and floods it in turn
 * with session mints, logins (wrong passwords and unknown users) and ACP runs that never finish
 * (their tabs never answer), each flood at most 20 s. During each flood a real user, from
 * another address, opens a page (`POST /__aim/session` and the session manifest) and signs in,
 * a few times; one line per flood says how much the flood sent and whether the real user got
 * through:
 *
 * ```
 * mint flood: 12,345 requests in 20 s; real page ok (3/3), real login ok (3/3)
 * ```
 *
 * Clients are told apart by `X-Forwarded-For` (the bridge trusts it with `--trust-proxy`): the
 * flooder is 203.0.113.7, the real user 198.51.100.2. Options: `--seconds N` (per flood, at most
 * 20), `--concurrency N` (the flood's requests at once, default 64), `--probes N` (the real
 * user's tries per flood, default 3), `--only mint,login,runs`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { FakeTab, openPageSession } from "../tests/helpers/fake_tab.ts";

const FLOODER = { "X-Forwarded-For": "203.0.113.7" };
const REAL = { "X-Forwarded-For": "198.51.100.2" };
const PAGE = "/control-panel";
const AGENT = "control-panel";
/** The demo's users (README.md): the real user signs in as bob. */
const REAL_LOGIN = { username: "bob", password: "builder" };
/** A real user's request that takes longer than this failed. */
const PROBE_TIMEOUT_MS = 10_000;

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "20" },
    concurrency: { type: "string", default: "64" },
    probes: { type: "string", default: "3" },
    only: { type: "string", default: "mint,login,runs" },
  },
});
const SECONDS = Math.min(20, Math.max(1, Number(values.seconds)));
const CONCURRENCY = Math.max(1, Number(values.concurrency));
const PROBES = Math.max(1, Number(values.probes));
const ONLY = new Set(values.only.split(","));

/** `aim serve --demo` on a free loopback port, in a temporary data folder. */
async function startBridge(): Promise<{ url: string; stop: () => Promise<void> }> {
  const data = await Deno.makeTempDir({ prefix: "aim-abuse-" });
  const main = fileURLToPath(new URL("../main.ts", import.meta.url));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      main,
      "serve",
      "--demo",
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
  }).spawn();
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
  return {
    url,
    stop: async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await stderrDone;
      if (stderr.includes("internal error")) {
        console.error(`the bridge logged internal errors:\n${stderr.slice(-4000)}`);
      }
      await Deno.remove(data, { recursive: true }).catch(() => {});
    },
  };
}

/** `fetch` that always reads (or drops) the body, with a timeout. */
async function request(
  url: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    ...init,
    signal: AbortSignal.timeout(init.timeoutMs ?? PROBE_TIMEOUT_MS),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, body };
}

const json = (headers: Record<string, string>, more: Record<string, string> = {}) => ({
  "Content-Type": "application/json",
  ...headers,
  ...more,
});

/** A new session of the real user's page; its token. */
async function mint(origin: string, headers: Record<string, string>): Promise<string> {
  const res = await request(`${origin}/__aim/session`, {
    method: "POST",
    headers: json(headers),
    body: JSON.stringify({ page: PAGE }),
  });
  if (res.status !== 200) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { sessionToken: string }).sessionToken;
}

/** What the real user tries during a flood: true when it got through. */
type Probe = (origin: string) => Promise<boolean>;

/** A real page: a session, then its manifest with the session's state. */
const realPage: Probe = async (origin) => {
  const token = await mint(origin, REAL);
  const res = await request(`${origin}${PAGE}.json`, {
    headers: { ...REAL, Authorization: `Bearer ${token}` },
  });
  return res.status === 200 && (res.body as { state_scope?: string }).state_scope === "session";
};

/** A real login: bob, with his password, from his own address. */
const realLogin: Probe = async (origin) => {
  const token = await mint(origin, REAL);
  const res = await request(`${origin}/__aim/invoke`, {
    method: "POST",
    headers: json(REAL, { Authorization: `Bearer ${token}` }),
    body: JSON.stringify({ actionId: "login", input: REAL_LOGIN }),
  });
  return res.status === 200;
};

/** A real ACP run: bob signs in through `POST /runs`. */
const realRun: Probe = async (origin) => {
  const token = await mint(origin, REAL);
  const res = await request(`${origin}/runs`, {
    method: "POST",
    headers: json(REAL, { Authorization: `Bearer ${token}` }),
    body: JSON.stringify({
      agent_name: AGENT,
      mode: "sync",
      input: [{
        role: "user",
        parts: [{
          content_type: "application/json",
          content: JSON.stringify({ actionId: "login", input: REAL_LOGIN }),
        }],
      }],
    }),
  });
  return res.status === 200 && (res.body as { status?: string }).status === "completed";
};

interface FloodResult {
  requests: number;
  statuses: Map<string, number>;
  probes: Map<string, { ok: number; tries: number; worstMs: number }>;
}

/**
 * Runs `attack` from CONCURRENCY workers for SECONDS, and the probes PROBES times, spread over
 * the flood (the first once the flood is under way).
 */
async function flood(
  origin: string,
  attack: (worker: number) => Promise<number | string>,
  probes: Record<string, Probe>,
): Promise<FloodResult> {
  const result: FloodResult = { requests: 0, statuses: new Map(), probes: new Map() };
  for (const name of Object.keys(probes)) {
    result.probes.set(name, { ok: 0, tries: 0, worstMs: 0 });
  }
  const end = performance.now() + SECONDS * 1000;
  const workers = Array.from({ length: CONCURRENCY }, async (_, worker) => {
    while (performance.now() < end) {
      let status: number | string;
      try {
        status = await attack(worker);
      } catch (error) {
        status = error instanceof Error ? error.name : "error";
      }
      result.requests++;
      result.statuses.set(String(status), (result.statuses.get(String(status)) ?? 0) + 1);
    }
  });
  const probing = (async () => {
    for (let i = 0; i < PROBES; i++) {
      // Spread over the flood: at 1/(n+1), 2/(n+1), … of its length.
      const at = end - SECONDS * 1000 + ((i + 1) * SECONDS * 1000) / (PROBES + 1);
      const wait = at - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await Promise.all(
        Object.entries(probes).map(async ([name, probe]) => {
          const entry = result.probes.get(name)!;
          const started = performance.now();
          let ok = false;
          try {
            ok = await probe(origin);
          } catch {
            ok = false;
          }
          entry.tries++;
          if (ok) entry.ok++;
          entry.worstMs = Math.max(entry.worstMs, performance.now() - started);
        }),
      );
    }
  })();
  await Promise.all([...workers, probing]);
  return result;
}

function report(name: string, result: FloodResult): boolean {
  const count = result.requests.toLocaleString("en-US");
  const probes = [...result.probes].map(([probe, { ok, tries }]) =>
    `${probe} ${ok === tries ? "ok" : "FAILED"} (${ok}/${tries})`
  );
  console.log(`${name} flood: ${count} requests in ${SECONDS} s; ${probes.join(", ")}`);
  const statuses = [...result.statuses].sort().map(([s, n]) => `${s}: ${n}`).join(", ");
  const worst = [...result.probes].map(([probe, { worstMs }]) =>
    `${probe} ${Math.round(worstMs)} ms`
  ).join(", ");
  console.log(`  flood answers: ${statuses}; slowest real try: ${worst}`);
  return [...result.probes.values()].every(({ ok, tries }) => ok === tries);
}

/** (a) Session mints from one address, as fast as it can. */
function mintFlood(origin: string): Promise<FloodResult> {
  return flood(origin, async () => {
    const res = await fetch(`${origin}/__aim/session`, {
      method: "POST",
      headers: json(FLOODER),
      body: JSON.stringify({ page: PAGE }),
    });
    await res.body?.cancel();
    return res.status;
  }, { "real page": realPage, "real login": realLogin });
}

/** (b) Logins from one address: wrong passwords for the real users, and unknown users. */
async function loginFlood(origin: string): Promise<FloodResult> {
  const tokens = await Promise.all(
    Array.from({ length: CONCURRENCY }, () => mint(origin, FLOODER)),
  );
  let n = 0;
  return await flood(origin, async (worker) => {
    const i = n++;
    const input = i % 3 === 0
      ? { username: "bob", password: `guess-${i}` }
      : i % 3 === 1
      ? { username: "alice", password: `guess-${i}` }
      : { username: `ghost-${i}`, password: `guess-${i}` };
    const res = await fetch(`${origin}/__aim/invoke`, {
      method: "POST",
      headers: json(FLOODER, { Authorization: `Bearer ${tokens[worker]}` }),
      body: JSON.stringify({ actionId: "login", input }),
    });
    await res.body?.cancel();
    return res.status;
  }, { "real page": realPage, "real login": realLogin });
}

/**
 * (c) ACP runs that never finish: the flooder's own sessions have tabs that take every
 * invocation, say a person must confirm it, and never answer.
 */
async function runFlood(origin: string): Promise<FloodResult> {
  const tabs: FakeTab[] = [];
  const tokens: string[] = [];
  for (let i = 0; i < 10; i++) {
    const token = await openPageSession(origin, PAGE, FLOODER);
    const tab = await FakeTab.open(origin, { token, page: PAGE, headers: FLOODER });
    await tab.next("lease");
    await tab.register([{ id: "stall", description: "Never answers", input_example: "x" }]);
    tab.answerWith = "never";
    (async () => {
      while (tab.socket.readyState === WebSocket.OPEN) {
        const invoke = await tab.next("invoke");
        if (tab.socket.readyState !== WebSocket.OPEN) break;
        tab.send({ type: "awaiting", id: invoke.id, message: "Waiting for the person." });
      }
    })();
    tabs.push(tab);
    tokens.push(token);
  }
  const beat = setInterval(() => {
    for (const tab of tabs) {
      if (tab.socket.readyState === WebSocket.OPEN) tab.send({ type: "heartbeat" });
    }
  }, 4000);
  let n = 0;
  try {
    return await flood(origin, async () => {
      const token = tokens[n++ % tokens.length];
      const res = await fetch(`${origin}/runs`, {
        method: "POST",
        headers: json(FLOODER, { Authorization: `Bearer ${token}` }),
        body: JSON.stringify({
          agent_name: AGENT,
          mode: "async",
          input: [{ role: "user", parts: [{ content_type: "text/plain", content: "stall x" }] }],
        }),
      });
      await res.body?.cancel();
      return res.status;
    }, { "real page": realPage, "real login": realLogin, "real run": realRun });
  } finally {
    clearInterval(beat);
    for (const tab of tabs) tab.socket.close();
  }
}

const bridge = await startBridge();
console.log(
  `abuse benchmark: ${bridge.url}, ${CONCURRENCY} flood requests at once, ${SECONDS} s per flood`,
);
let allOk = true;
try {
  if (ONLY.has("mint")) allOk = report("mint", await mintFlood(bridge.url)) && allOk;
  if (ONLY.has("login")) allOk = report("login", await loginFlood(bridge.url)) && allOk;
  if (ONLY.has("runs")) allOk = report("run", await runFlood(bridge.url)) && allOk;
} finally {
  await bridge.stop();
}
Deno.exit(allOk ? 0 : 1);
