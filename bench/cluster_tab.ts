/**
 * Benchmark child: `cluster_tab.ts ORIGIN PAGE` opens a session on the bridge at ORIGIN with one
 * connected tab (a FakeTab whose `echo` action answers its input back), prints `{"token"}` once
 * the tab is registered, keeps its lease with heartbeats, and holds it until stdin closes. It
 * runs in its own process, as a person's browser does, so that a bench's client, the bridges and
 * the tab each wake apart (bench/cluster.ts).
 *
 * @module
 */
import { FakeTab, openPageSession } from "../tests/helpers/fake_tab.ts";
import { lines } from "./lib.ts";

const [origin = "", page = ""] = Deno.args;
if (!origin || !page) throw new Error("usage: cluster_tab.ts ORIGIN PAGE");
const token = await openPageSession(origin, page);
const tab = await FakeTab.open(origin, { token, page });
const lease = await tab.next("lease");
await tab.register([{ id: "echo", handler: (input) => ({ echoed: input }) }]);
tab.send({ type: "state", state: { requests: [{ id: "req-1", status: "pending" }] } });
const beat = setInterval(() => tab.send({ type: "heartbeat" }), Math.floor(lease.leaseMs / 3));
console.log(JSON.stringify({ token }));
for await (const _ of lines(Deno.stdin.readable)) {
  // Commands are not used; the loop ends when stdin closes.
}
clearInterval(beat);
await tab.close();
Deno.exit(0);
