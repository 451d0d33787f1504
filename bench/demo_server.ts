/**
 * Benchmark child: the demo (`startDemo`) over a fresh data folder, with one session
 * signed in as alice on the control panel, held by the fake control panel of bench/demo_tab.ts
 * (the demo's requests, loaded through its API, in the page's rows). Prints
 * `{"url", "pid", "token"}` once the session's state is in; stops when stdin closes.
 *
 * @module
 */
import { startDemo } from "../demo/app.ts";
import { openDemoTab } from "./demo_tab.ts";
import { lines } from "./lib.ts";

const data = Deno.makeTempDirSync({ prefix: "aim-bench-demo-" });
const demo = await startDemo({ data, hostname: "127.0.0.1", port: 0 });
const origin = demo.served.url;
const panel = await openDemoTab(origin);
const login = await fetch(`${origin}/__aim/invoke`, {
  method: "POST",
  headers: { "Content-Type": "application/json", Authorization: `Bearer ${panel.token}` },
  body: JSON.stringify({ actionId: "login", input: { username: "alice", password: "wonderland" } }),
});
if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
await login.body?.cancel();
await panel.sync();
console.log(JSON.stringify({ url: origin, pid: Deno.pid, token: panel.token }));

for await (const _ of lines(Deno.stdin.readable)) {
  // Commands are not used; the loop ends when stdin closes.
}
await panel.close();
await demo[Symbol.asyncDispose]();
Deno.removeSync(data, { recursive: true });
Deno.exit(0);
