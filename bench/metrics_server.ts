/**
 * Benchmark child: a bridge with or without metrics, on 127.0.0.1, in its own process.
 * `metrics_server.ts on|off root DIR` serves a site folder; `metrics_server.ts on|off upstream
 * URL` stands in front of an app. Prints `{"url", "pid", "metricsUrl"}`; stops when stdin closes.
 *
 * @module
 */
import { serve } from "../bridge/mod.ts";
import { lines } from "./lib.ts";

const [mode, kind, target] = Deno.args;
if ((mode !== "on" && mode !== "off") || (kind !== "root" && kind !== "upstream") || !target) {
  throw new Error("usage: metrics_server.ts on|off root DIR | upstream URL");
}
const served = serve({
  ...(kind === "root" ? { root: target } : { upstream: target }),
  hostname: "127.0.0.1",
  port: 0,
  ...(mode === "on" ? { metrics: { port: 0 } } : {}),
});
console.log(JSON.stringify({ url: served.url, pid: Deno.pid, metricsUrl: served.metricsUrl }));
for await (const _ of lines(Deno.stdin.readable)) {
  // Commands are not used; the loop ends when stdin closes.
}
await served.shutdown();
Deno.exit(0);
