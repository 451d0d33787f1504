/**
 * Benchmark child: the least a reverse proxy on the platform's `fetch` does (the request's path,
 * headers and body to the app, its answer back, nothing checked), as the ceiling of what aim's
 * proxy can reach. `fetch_proxy_server.ts URL`. Prints `{"url", "pid"}`; stops when stdin closes.
 * @module
 */
import { lines } from "./lib.ts";

const upstream = Deno.args[0];
if (!upstream) throw new Error("usage: fetch_proxy_server.ts URL");
const client = Deno.createHttpClient({ poolMaxIdlePerHost: 64 });
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  const url = req.url;
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  const answer = await fetch(upstream + path, {
    method: req.method,
    headers: req.headers,
    body: req.body,
    client,
  } as RequestInit);
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
});
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.addr.port}`, pid: Deno.pid }));
for await (const _ of lines(Deno.stdin.readable)) {
  // Commands are not used; the loop ends when stdin closes.
}
await server.shutdown();
Deno.exit(0);
