/**
 * Benchmark child: aim in front of an app (`serve({ upstream })`) on 127.0.0.1, in its own
 * process. `upstream_server.ts URL`. Prints `{"url", "pid"}`; stops when stdin closes.
 * @module
 */
import { serve } from "../bridge/mod.ts";
import { lines } from "./lib.ts";

const upstream = Deno.args[0];
if (!upstream) throw new Error("usage: upstream_server.ts URL");
const served = serve({ upstream, hostname: "127.0.0.1", port: 0 });
console.log(JSON.stringify({ url: served.url, pid: Deno.pid }));
for await (const _ of lines(Deno.stdin.readable)) {
  // Commands are not used; the loop ends when stdin closes.
}
await served.shutdown();
Deno.exit(0);
