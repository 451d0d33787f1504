/**
 * Benchmark child: the demo (`startDemo`) over a fresh data folder, in a process of its own and
 * with no tab (the benchmark opens its own, in Chromium). Prints `{"url", "pid"}` once it
 * listens; stops when stdin closes.
 *
 * @module
 */
import { startDemo } from "../demo/app.ts";
import { lines } from "./lib.ts";

const data = Deno.makeTempDirSync({ prefix: "aim-bench-demo-" });
const demo = await startDemo({ data, hostname: "127.0.0.1", port: 0 });
console.log(JSON.stringify({ url: demo.served.url, pid: Deno.pid }));

for await (const _ of lines(Deno.stdin.readable)) {
  // Commands are not used; the loop ends when stdin closes.
}
await demo[Symbol.asyncDispose]();
Deno.removeSync(data, { recursive: true });
Deno.exit(0);
