/**
 * `deno task bench:cluster` (and the last part of `deno task bench`): what sharing
 * sessions through Redis costs. The invoke round trip when the tab is on another instance
 * against the same instance, as an outside client measures it (budget: under 1 ms added, median):
 * two bridges in processes of their own on one `redis-server`, the tab in a third
 * (bench/cluster_tab.ts), and this process calling straight to each bridge, interleaved call by
 * call. The same figure with both bridges, the tab and the client in this one process is printed
 * beside it, for information: it leaves out what an outside client pays, each process on the
 * path woken apart (the other instance's path wakes two more: the second bridge, and Redis's
 * subscriber in the first). Then session manifest reads per second with Redis against in
 * memory, and the memory a session takes in Redis, in this process.
 *
 * @module
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { dirname, join } from "node:path";
import { createClient } from "@redis/client";
import { serve, type ServedBridge } from "../bridge/mod.ts";
import { BASIC_SITE } from "../tests/helpers/bridge.ts";
import { startRedis } from "../tests/helpers/redis.ts";
import { FakeTab, openPageSession } from "../tests/helpers/fake_tab.ts";
import { CHANNEL_BUDGETS } from "../bridge/core/channel_budget.ts";
import { Child } from "./lib.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: { quick: { type: "boolean", default: false } },
});
const CALLS = flags.quick ? 200 : 1000;
const READ_SECONDS = flags.quick ? 1 : 3;
const SESSIONS = flags.quick ? 1000 : 5000;
const CONNECTIONS = 16;

function writeSite(): string {
  const root = Deno.makeTempDirSync({ prefix: "aim-bench-cluster-" });
  for (const [path, content] of Object.entries(BASIC_SITE)) {
    Deno.mkdirSync(dirname(join(root, path)), { recursive: true });
    Deno.writeTextFileSync(join(root, path), content);
  }
  return root;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** Round trips of `echo` invoked at `origin`, in ms. */
async function roundTrips(origin: string, token: string, calls: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    const res = await fetch(`${origin}/__aim/invoke`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ actionId: "echo", input: `call ${i}` }),
    });
    await res.body?.cancel();
    if (res.status !== 200) throw new Error(`invoke answered ${res.status}`);
    times.push(performance.now() - started);
  }
  return times;
}

/** Redis's CPU time so far (user and system), in µs. */
async function redisCpu(client: { info(section: string): Promise<string> }): Promise<number> {
  const info = await client.info("cpu");
  const user = Number(/used_cpu_user:([\d.]+)/.exec(info)![1]);
  const sys = Number(/used_cpu_sys:([\d.]+)/.exec(info)![1]);
  return (user + sys) * 1e6;
}

/** Session manifest reads per second at `origin`, from `CONNECTIONS` loops. */
async function readRate(
  origin: string,
  token: string,
  seconds: number,
): Promise<{ rate: number; count: number }> {
  const url = `${origin}/control-panel.json`;
  const headers = { Authorization: `Bearer ${token}` };
  let count = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < until) {
      const res = await fetch(url, { headers });
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`manifest answered ${res.status}`);
      count++;
    }
  }));
  return { rate: count / seconds, count };
}

async function withTab(served: ServedBridge, token: string): Promise<FakeTab> {
  const tab = await FakeTab.open(served.url, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "echo", handler: (input) => ({ echoed: input }) }]);
  tab.send({ type: "state", state: { requests: [{ id: "req-1", status: "pending" }] } });
  return tab;
}

const root = writeSite();
await using redis = await startRedis();
const quiet = { hostname: "127.0.0.1", port: 0, root };
await using a = serve({ ...quiet, redis: redis.url });
await using b = serve({ ...quiet, redis: redis.url });
await using alone = serve(quiet);
await Promise.all([a.ready, b.ready]);
const client = createClient({ url: redis.url });
await client.connect();
/** Redis CPU per operation of each kind, µs: what sizes Redis. */
const redisCost: Record<string, number> = {};
async function costly<T>(name: string, count: (result: T) => number, run: () => Promise<T>) {
  const before = await redisCpu(client);
  const result = await run();
  redisCost[name] = (await redisCpu(client) - before) / count(result);
  return result;
}

console.log("## Invoke round trip: tab on another instance vs the same instance");
const token = await openPageSession(a.url, "/control-panel");
await using _tab = await withTab(a, token);
const aloneToken = await openPageSession(alone.url, "/control-panel");
await using _aloneTab = await withTab(alone, aloneToken);
await roundTrips(a.url, token, 50);
await roundTrips(b.url, token, 50);
await roundTrips(alone.url, aloneToken, 50);
const same = await costly(
  "invoke, tab here",
  (r) => r.length,
  () => roundTrips(a.url, token, CALLS),
);
const other = await costly(
  "invoke, tab elsewhere",
  (r) => r.length,
  () => roundTrips(b.url, token, CALLS),
);
const memory = await roundTrips(alone.url, aloneToken, CALLS);
// The budget's figure: the same calls again, interleaved one by one (same, other, other, same,
// …), so that both kinds see the machine as it is at the same moment.
const paired = { same: [] as number[], other: [] as number[] };
for (let i = 0; i < CALLS; i++) {
  const order = i % 2 ? ["other", "same"] as const : ["same", "other"] as const;
  for (const kind of order) {
    paired[kind].push(...await roundTrips(kind === "same" ? a.url : b.url, token, 1));
  }
}
const addedInProcess = median(paired.other) - median(paired.same);

console.log(
  `in memory, one process:   median ${median(memory).toFixed(3)} ms, p99 ${
    percentile(memory, 0.99).toFixed(3)
  } ms`,
);
console.log(
  `Redis, same instance:     median ${median(same).toFixed(3)} ms, p99 ${
    percentile(same, 0.99).toFixed(3)
  } ms`,
);
console.log(
  `Redis, other instance:    median ${median(other).toFixed(3)} ms, p99 ${
    percentile(other, 0.99).toFixed(3)
  } ms`,
);
console.log(
  `in one process (both bridges, the tab and this client): the other instance adds ` +
    `${addedInProcess.toFixed(3)} ms median, interleaved (for information; median ` +
    `${median(paired.same).toFixed(3)} ms on the same instance)`,
);
console.log("\n## Session manifest reads per second: Redis vs in memory");
const memoryRate = (await readRate(alone.url, aloneToken, READ_SECONDS)).rate;
const sameRate = (await costly(
  "manifest read",
  (r) => r.count,
  () => readRate(a.url, token, READ_SECONDS),
)).rate;
const otherRate = (await readRate(b.url, token, READ_SECONDS)).rate;
console.log(`in memory:               ${memoryRate.toFixed(0)}/s`);
console.log(
  `Redis, tab here:         ${sameRate.toFixed(0)}/s (${(sameRate / memoryRate).toFixed(2)}×)`,
);
console.log(
  `Redis, tab elsewhere:    ${otherRate.toFixed(0)}/s (${(otherRate / memoryRate).toFixed(2)}×)`,
);

console.log("\n## A tab's heartbeat (every lease/3, 5 s by default)");
// A tab may send at most a burst of heartbeats (the channel budget, bridge/core/channel_budget.ts;
// more closes it): each of several sessions' tabs sends half of one.
const PER_TAB = CHANNEL_BUDGETS.heartbeat.burst / 2;
const beating = await Promise.all(
  Array.from({ length: flags.quick ? 20 : 50 }, async () => {
    const session = await openPageSession(a.url, "/control-panel");
    return await withTab(a, session);
  }),
);
const HEARTBEATS = beating.length * PER_TAB;
const cpuBefore = process.cpuUsage();
await costly("heartbeat", () => HEARTBEATS, async () => {
  for (const beat of beating) {
    for (let i = 0; i < PER_TAB; i++) {
      beat.send({ type: "heartbeat" });
      await beat.next("lease");
    }
  }
});
for (const beat of beating) await beat.close();
const cpu = process.cpuUsage(cpuBefore);
console.log(
  `this process (bridge and tab): ${
    ((cpu.user + cpu.system) / HEARTBEATS).toFixed(1)
  } µs CPU per heartbeat`,
);

// What renews a session's TTLs (at most every 15 s): measured alone, on keys of its shape.
const TOUCHES = flags.quick ? 1000 : 5000;
await costly("TTL renewal (every 15 s)", () => TOUCHES, async () => {
  for (let i = 0; i < TOUCHES; i++) {
    await client.multi()
      .pExpire("aim:s:bench", 60_000)
      .pExpire("aim:c:bench", 60_000)
      .pExpire("aim:k:bench", 60_000)
      .zAdd("aim:n", { score: Date.now(), value: "bench" }, { condition: "XX" })
      .exec();
  }
});

console.log("\n## Redis CPU per operation (INFO cpu, user + system)");
for (const [name, micros] of Object.entries(redisCost)) {
  console.log(`${name.padEnd(24)} ${micros.toFixed(1)} µs`);
}

console.log("\n## Memory per session in Redis");
const usedMemory = async () => {
  const info = await client.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)![1]);
};
const before = await usedMemory();
for (let i = 0; i < SESSIONS; i += 50) {
  await Promise.all(
    Array.from({ length: Math.min(50, SESSIONS - i) }, () =>
      fetch(`${b.url}/__aim/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": `10.0.${i % 250}.1` },
        body: JSON.stringify({ page: "/control-panel" }),
      }).then((res) => res.body?.cancel())),
  );
}
const after = await usedMemory();
const tokenKeys = await client.keys("aim:s:*");
let withState = 0;
for (const key of tokenKeys) {
  const fields = await client.hGet(key, "actions");
  if (fields && fields !== "[]") withState = await client.memoryUsage(key) ?? 0;
}
console.log(
  `${SESSIONS} new sessions (no tab yet): ${((after - before) / SESSIONS).toFixed(0)} bytes each` +
    ` (the hash, two aliases and three sorted-set entries)`,
);
console.log(`one session hash with its tab's state and actions: ${withState} bytes`);
await client.close();

console.log("\n## A tab on another instance, as an outside client measures it");
// As an outside client measures it: each bridge and the tab in a process of its own.
const children: Child[] = [];
async function bridgeProcess(): Promise<string> {
  const child = Child.start("./bridge_server.ts", [root, redis.url]);
  children.push(child);
  return (await child.read<{ url: string }>()).url;
}
const outside = { same: [] as number[], other: [] as number[] };
try {
  const [here, there] = await Promise.all([bridgeProcess(), bridgeProcess()]);
  const tabChild = Child.start("./cluster_tab.ts", [here, "/control-panel"]);
  children.push(tabChild);
  const { token: outsideToken } = await tabChild.read<{ token: string }>();
  await roundTrips(here, outsideToken, 50);
  await roundTrips(there, outsideToken, 50);
  for (let i = 0; i < CALLS; i++) {
    const order = i % 2 ? ["other", "same"] as const : ["same", "other"] as const;
    for (const kind of order) {
      outside[kind].push(...await roundTrips(kind === "same" ? here : there, outsideToken, 1));
    }
  }
} finally {
  for (const child of children.reverse()) await child.stop();
}
const added = median(outside.other) - median(outside.same);
console.log(
  `as an outside client measures it (each bridge and the tab in a process of its own), ` +
    `${CALLS} calls each way, interleaved: same instance median ${
      median(outside.same).toFixed(3)
    } ms, p99 ${percentile(outside.same, 0.99).toFixed(3)} ms; other instance median ${
      median(outside.other).toFixed(3)
    } ms, p99 ${percentile(outside.other, 0.99).toFixed(3)} ms`,
);
console.log(
  `added by the other instance: ${added.toFixed(3)} ms median, as an outside client measures ` +
    `it (budget < 1 ms: ${added < 1 ? "held" : "MISSED"}); in one process ${
      addedInProcess.toFixed(3)
    } ms`,
);
