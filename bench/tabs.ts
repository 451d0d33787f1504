/**
 * Benchmark child: `tabs.ts ORIGIN PAGE N` opens N sessions on a bridge, each with a
 * connected tab (a FakeTab: hello, registered actions, a state snapshot), keeps every lease
 * alive with heartbeats, prints `{"tabs", "failed", "ms"}` once all are open, and holds them
 * until stdin closes. It runs apart from the bridge so its memory is not counted.
 *
 * @module
 */
import { FakeTab, openPageSession } from "../tests/helpers/fake_tab.ts";
import { lines } from "./lib.ts";

const [origin = "", page = "", countArg = ""] = Deno.args;
if (!origin || !page || !countArg) throw new Error("usage: tabs.ts ORIGIN PAGE N");
const count = Number(countArg);
const PARALLEL = 64;

const tabs: FakeTab[] = [];
let failed = 0;
let leaseMs = 15_000;

// Heartbeats from the start: opening ten thousand tabs can take longer than one lease.
let beat: ReturnType<typeof setInterval> | undefined;
function heartbeats(): void {
  clearInterval(beat);
  beat = setInterval(() => {
    for (const tab of tabs) if (tab.socket.readyState === 1) tab.send({ type: "heartbeat" });
  }, Math.floor(leaseMs / 3));
}
heartbeats();

async function openOne(): Promise<void> {
  const sessionToken = await openPageSession(origin, page);
  const tab = await FakeTab.open(origin, { token: sessionToken, page });
  tabs.push(tab);
  const lease = await tab.next("lease");
  if (lease.leaseMs !== leaseMs) {
    leaseMs = lease.leaseMs;
    heartbeats();
  }
  await tab.register([
    {
      id: "approve_request",
      description: "Approve one pending request",
      input_schema: { type: "string", minLength: 1 },
      input_example: "req-3",
      consequential: true,
    },
    { id: "search", description: "Search requests", input_example: "pending" },
  ]);
  tab.setState({
    requests: [
      { id: "req-1", amount: 120, status: "approved" },
      { id: "req-3", amount: 4200, status: "pending" },
    ],
  });
}

const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: PARALLEL }, async () => {
    while (next < count) {
      next++;
      try {
        await openOne();
      } catch (error) {
        failed++;
        if (failed <= 3) console.error(`tabs.ts: ${error}`);
      }
    }
  }),
);
console.log(JSON.stringify({
  tabs: tabs.length,
  failed,
  ms: Math.round(performance.now() - started),
}));

for await (const _ of lines(Deno.stdin.readable)) {
  // Holds the tabs open until stdin closes.
}
clearInterval(beat);
Deno.exit(0);
