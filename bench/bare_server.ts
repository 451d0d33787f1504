/**
 * Benchmark child: the baseline, a bare `Deno.serve` answering every request with the
 * same status, bytes and headers the bridge sent for a manifest (a 304 with no body, too).
 * `bare_server.ts RESPONSE.json [HEADER...]` reads `{"status"?, "body", "headers"}`; with
 * HEADER names, each request's URL and those headers are read first (what any server that
 * checks a token must at least do). Prints `{"url"}`; stops when stdin closes.
 *
 * @module
 */
import { lines } from "./lib.ts";

const file = Deno.args[0];
if (!file) throw new Error("usage: bare_server.ts RESPONSE.json");
const { status = 200, body, headers } = JSON.parse(Deno.readTextFileSync(file)) as {
  status?: number;
  body: string;
  headers: [string, string][];
};
const bodiless = status === 204 || status === 304;
const read = Deno.args.slice(1);

// A new Response per request, as the bridge makes one: the baseline does the same work.
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  (request) => {
    if (read.length) {
      let seen = request.url.length;
      for (const name of read) seen += request.headers.get(name)?.length ?? 0;
      if (seen < 0) throw new Error("unreachable");
    }
    return new Response(bodiless ? null : body, { status, headers });
  },
);
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.addr.port}`, pid: Deno.pid }));

for await (const _ of lines(Deno.stdin.readable)) {
  // Commands are not used; the loop ends when stdin closes.
}
await server.shutdown();
Deno.exit(0);
