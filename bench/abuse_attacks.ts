/**
 * The attacks of `bench/abuse.ts`, each run until its signal aborts: it says what it sent. The
 * flooder is 203.0.113.7 (`X-Forwarded-For`, which the bridge trusts with `--trust-proxy`).
 *
 * @module
 */
import { FakeTab, openPageSession } from "../tests/helpers/fake_tab.ts";

export const FLOODER = { "X-Forwarded-For": "203.0.113.7" };
/** The demo's page and its ACP agent. */
export const PAGE = "/control-panel";
const AGENT = "control-panel";

/** What an attack did, in a few words for the report. */
export type Attack = (origin: string, signal: AbortSignal) => Promise<string>;

/** The attacks by name, as `bench/abuse.ts --only` names them. */
export const ATTACKS: Readonly<Record<string, (options: FloodOptions) => Attack>> = {
  mint: (options) => mintFlood(options),
  login: (options) => loginFlood(options),
  runs: (options) => runFlood(options),
  navigate: () =>
    channelFlood(PAGE, () => `{"type":"navigate","page":"${PAGE}"}`, { concurrency: 4 }),
  state: () => channelFlood(PAGE, bigState, { concurrency: 4 }),
  catalog: () => catalogStall(200, { concurrency: 8 }),
  websocket: () => socketFlood(4, 128),
};

/** A `state` message of 1 MB, the n-th. */
function bigState(n: number): string {
  return JSON.stringify({ type: "state", state: { n, text: "x".repeat(1e6) } });
}

/** Options every flood shares. */
export interface FloodOptions {
  /** Requests at once. */
  concurrency: number;
}

const json = (more: Record<string, string> = {}) => ({
  "Content-Type": "application/json",
  ...FLOODER,
  ...more,
});

/** A count per answer, as `200: 12, 429: 3`. */
class Tally {
  readonly #counts = new Map<string, number>();
  total = 0;
  add(key: string | number): void {
    this.total++;
    this.#counts.set(String(key), (this.#counts.get(String(key)) ?? 0) + 1);
  }
  toString(): string {
    const counts = [...this.#counts].sort().map(([k, n]) => `${k}: ${n.toLocaleString("en-US")}`);
    return `${this.total.toLocaleString("en-US")} (${counts.join(", ")})`;
  }
}

/** Runs `one` from `concurrency` workers until `signal` aborts; tallies what each returned. */
async function workers(
  concurrency: number,
  signal: AbortSignal,
  one: (worker: number) => Promise<string | number>,
): Promise<Tally> {
  const tally = new Tally();
  await Promise.all(Array.from({ length: concurrency }, async (_, worker) => {
    while (!signal.aborted) {
      try {
        tally.add(await one(worker));
      } catch (error) {
        tally.add(error instanceof Error ? error.name : "error");
      }
    }
  }));
  return tally;
}

async function status(res: Promise<Response>): Promise<number> {
  const answer = await res;
  await answer.body?.cancel();
  return answer.status;
}

/** (a) Session mints from one address, as fast as it can. */
export function mintFlood({ concurrency }: FloodOptions): Attack {
  return async (origin, signal) => {
    const tally = await workers(concurrency, signal, () =>
      status(fetch(`${origin}/__aim/session`, {
        method: "POST",
        headers: json(),
        body: JSON.stringify({ page: PAGE }),
      })));
    return `${tally} session mints`;
  };
}

/** (b) Logins from one address: wrong passwords for the real users, and unknown users. */
export function loginFlood({ concurrency }: FloodOptions): Attack {
  return async (origin, signal) => {
    const tokens = await Promise.all(
      Array.from({ length: concurrency }, () => openPageSession(origin, PAGE, FLOODER)),
    );
    let n = 0;
    const tally = await workers(concurrency, signal, (worker) => {
      const i = n++;
      const input = i % 3 === 0
        ? { username: "bob", password: `guess-${i}` }
        : i % 3 === 1
        ? { username: "alice", password: `guess-${i}` }
        : { username: `ghost-${i}`, password: `guess-${i}` };
      return status(fetch(`${origin}/__aim/invoke`, {
        method: "POST",
        headers: json({ Authorization: `Bearer ${tokens[worker]}` }),
        body: JSON.stringify({ actionId: "login", input }),
      }));
    });
    return `${tally} logins`;
  };
}

/**
 * (c) ACP runs that never finish: the flooder's own sessions have tabs that take every
 * invocation, say a person must confirm it, and never answer.
 */
export function runFlood({ concurrency }: FloodOptions): Attack {
  return async (origin, signal) => {
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
          const invoke = await tab.next("invoke").catch(() => null);
          if (!invoke || tab.socket.readyState !== WebSocket.OPEN) break;
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
      const tally = await workers(concurrency, signal, () =>
        status(fetch(`${origin}/runs`, {
          method: "POST",
          headers: json({ Authorization: `Bearer ${tokens[n++ % tokens.length]}` }),
          body: JSON.stringify({
            agent_name: AGENT,
            mode: "async",
            input: [{ role: "user", parts: [{ content_type: "text/plain", content: "stall x" }] }],
          }),
        })));
      return `${tally} runs`;
    } finally {
      clearInterval(beat);
      for (const tab of tabs) tab.socket.close();
    }
  };
}

/**
 * (d, e) Channel messages as fast as a socket takes them, from the tabs of `concurrency` sessions
 * of the flooder's own: each tab floods until the bridge closes it, then connects again with its
 * session's credential, as a tab does (100 ms later when the bridge refused it). `message(n)`
 * is the n-th message's text.
 */
export function channelFlood(
  page: string,
  message: (n: number) => string,
  { concurrency }: FloodOptions,
): Attack {
  return async (origin, signal) => {
    let sent = 0;
    let tabs = 0;
    const reasons = new Tally();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      const token = await openPageSession(origin, page, FLOODER);
      while (!signal.aborted) {
        let tab: FakeTab;
        try {
          tab = await FakeTab.open(origin, { token, page, headers: FLOODER });
          await tab.next("lease");
        } catch (error) {
          const refused = /closed \((\d+) (.*)\) before/.exec(String(error));
          reasons.add(refused ? `${refused[2] || refused[1]} (at hello)` : "could not open");
          await new Promise((resolve) => setTimeout(resolve, 100));
          continue;
        }
        tabs++;
        for (let n = 0; tab.socket.readyState === WebSocket.OPEN && !signal.aborted; n++) {
          // As fast as the socket takes them: what the bridge does not read waits here.
          while (tab.socket.bufferedAmount > 1 << 20 && tab.socket.readyState === WebSocket.OPEN) {
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
          tab.send(message(n));
          sent++;
          // Let the socket hear its close every so often.
          if (n % 256 === 255) await new Promise((resolve) => setTimeout(resolve, 0));
        }
        if (signal.aborted) tab.socket.close();
        const closed = await tab.closed;
        reasons.add(closed.reason || `code ${closed.code}`);
      }
    }));
    return `${sent.toLocaleString("en-US")} messages from ${tabs} tabs of ${concurrency} ` +
      `sessions; closed: ${reasons}`;
  };
}

/**
 * (f) The catalog stall: the flooder opens sessions on `paths` pages the app answers slowly
 * (each becomes a visited page of the site map), then asks for the site map, the agent card and
 * ACP's agents as fast as it can; the slowest of those answers is reported.
 */
export function catalogStall(paths: number, { concurrency }: FloodOptions): Attack {
  return async (origin, signal) => {
    for (let i = 0; i < paths; i++) await openPageSession(origin, `/slow/${i}`, FLOODER);
    const lists = ["/sitemap.json", "/.well-known/agent-card.json", "/agents"];
    let slowest = 0;
    let n = 0;
    const tally = await workers(concurrency, signal, async () => {
      const started = performance.now();
      const code = await status(fetch(origin + lists[n++ % lists.length], {
        headers: FLOODER,
        signal: AbortSignal.timeout(60_000),
      }));
      slowest = Math.max(slowest, performance.now() - started);
      return code;
    });
    return `${paths} slow pages visited; ${tally} list reads, the slowest ${
      Math.round(slowest)
    } ms`;
  };
}

/**
 * (g) WebSockets into an app socket that does not read: `sockets` sockets through aim to the
 * app's `/ws`, each pushing 64 KiB messages up to `megabytes` MiB (the client waits while its own
 * buffer holds 4 MiB, so that what piles up piles up in aim, not here).
 */
export function socketFlood(sockets: number, megabytes: number): Attack {
  return async (origin, signal) => {
    const chunk = new Uint8Array(64 * 1024);
    let pushed = 0;
    await Promise.all(Array.from({ length: sockets }, async () => {
      const socket = new WebSocket(`${origin.replace(/^http/, "ws")}/ws`, {
        headers: FLOODER,
      } as unknown as string[]);
      const opened = await new Promise<boolean>((resolve) => {
        socket.onopen = () => resolve(true);
        socket.onerror = () => resolve(false);
      });
      let mine = 0;
      while (opened && socket.readyState === WebSocket.OPEN && !signal.aborted) {
        if (mine >= megabytes << 20 || socket.bufferedAmount > 4 << 20) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          continue;
        }
        socket.send(chunk);
        mine += chunk.length;
        pushed += chunk.length;
      }
      socket.close();
    }));
    return `${sockets} sockets pushed ${(pushed / (1 << 20)).toFixed(0)} MiB`;
  };
}
