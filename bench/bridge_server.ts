/**
 * Benchmark child: a bridge over a site folder on 127.0.0.1 (sharing sessions through
 * Redis when a second argument gives its URL), in its own process so the load and the tabs are
 * not in its isolate. Prints `{"url"}`; on the stdin line `mem` prints its memory after a full
 * GC; stops when stdin closes.
 *
 * @module
 */
import { serve } from "../bridge/mod.ts";
import { lines } from "./lib.ts";

const root = Deno.args[0];
if (!root) throw new Error("usage: bridge_server.ts ROOT");
const redis = Deno.args[1];
const served = serve({ root, hostname: "127.0.0.1", port: 0, ...(redis ? { redis } : {}) });
await served.ready;
console.log(JSON.stringify({ url: served.url, pid: Deno.pid }));

// With --v8-flags=--expose-gc; collecting first makes RSS reflect live data, not garbage.
const gc = (globalThis as { gc?: () => void }).gc;

for await (const line of lines(Deno.stdin.readable)) {
  if (line === "mem") {
    gc?.();
    await new Promise((r) => setTimeout(r, 200));
    gc?.();
    const mem = Deno.memoryUsage();
    console.log(JSON.stringify({ ...mem, sessions: served.bridge.core.sessions.size }));
  }
}
await served.shutdown();
Deno.exit(0);
