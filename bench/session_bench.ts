/**
 * Micro benchmarks of a session's manifest reads (`deno bench --allow-all
 * bench/session_bench.ts`), in process, without sockets: the bridge's own request handler
 * answering the signed-in demo control panel (bench/demo_tab.ts) as JSON, as TOON and as a
 * `304`, against the public manifest and a bare `Response` of the same size. What the HTTP
 * benchmark (bench/session_reads.ts) measures with the server's socket work on top.
 *
 * @module
 */
import { startDemo } from "../demo/app.ts";
import { DEMO_PAGE, openDemoTab } from "./demo_tab.ts";

const data = Deno.makeTempDirSync({ prefix: "aim-bench-session-" });
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
// deno bench has no teardown hook; the process's unload event stops the demo.
globalThis.addEventListener("unload", () => {
  demo.served.bridge.close();
  Deno.removeSync(data, { recursive: true });
});

const { bridge } = demo.served;
const info = {
  remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40_000 },
  completed: Promise.resolve(),
} as unknown as Deno.ServeHandlerInfo<Deno.NetAddr>;
const auth = { Authorization: `Bearer ${panel.token}` };
const json = `${origin}${DEMO_PAGE}.json`;
const first = await bridge.fetch(new Request(json, { headers: auth }), info);
const body = await first.text();
const etag = first.headers.get("etag")!;

async function read(url: string, headers: Record<string, string>, status = 200): Promise<void> {
  const res = await bridge.fetch(new Request(url, { headers }), info);
  if (res.status !== status) throw new Error(`${url}: ${res.status}`);
  await res.arrayBuffer();
}

Deno.bench(
  "a bare Response of the same bytes",
  { group: "session read", baseline: true },
  async () => {
    await new Response(body, { headers: { "Content-Type": "application/json" } }).arrayBuffer();
  },
);
Deno.bench("public manifest (no token)", { group: "session read" }, async () => {
  await read(json, {});
});
Deno.bench("session manifest, JSON", { group: "session read" }, async () => {
  await read(json, auth);
});
Deno.bench("session manifest, TOON", { group: "session read" }, async () => {
  await read(`${origin}${DEMO_PAGE}.toon`, auth);
});
Deno.bench("session manifest, If-None-Match: 304", { group: "session read" }, async () => {
  await read(json, { ...auth, "If-None-Match": etag }, 304);
});
Deno.bench("finding the session of a token", { group: "session read" }, () => {
  bridge.core.authenticate(panel.token);
});
