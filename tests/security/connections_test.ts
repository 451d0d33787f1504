/**
 * A flood of idle connections that exhausts the bridge's file limit (docs/security.md,
 * "Connections and streams"): once it ends, the bridge accepts connections again, and its
 * health endpoint says so. `aim serve` runs as a subprocess under a small `ulimit -n`.
 */
import assert from "node:assert/strict";
import { startAim } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp.ts";
import { writeSite } from "../helpers/bridge.ts";

/** The open-file limit of the flooded bridge: small, so that a few hundred connections reach it. */
const FILE_LIMIT = 256;
/** Connections the flood opens at most: past the limit, bounded. */
const FLOOD = 400;

/**
 * Reads `/__aim/health` on a new connection each time (an open one would be answered by the
 * server that accepted it) until it says the bridge listens, for up to `timeoutMs`.
 */
async function listeningWithin(url: string, timeoutMs: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    using client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
    try {
      const init: RequestInit & { client: Deno.HttpClient } = {
        client,
        signal: AbortSignal.timeout(2000),
      };
      const response = await fetch(`${url}/__aim/health`, init);
      last = await response.json();
      if ((last as { listening?: unknown }).listening === true) {
        return last as Record<string, unknown>;
      }
    } catch (error) {
      // Connection refused: the bridge does not listen (yet).
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the bridge did not accept a connection within ${timeoutMs} ms: ${last}`);
}

Deno.test("a flood of idle connections past the file limit leaves the bridge accepting once it ends", async () => {
  await using dir = await tempDir();
  writeSite(dir.path);
  await using aim = await startAim(["serve", dir.path, "--port", "0", "--quiet"], {
    fileLimit: FILE_LIMIT,
  });
  const { port } = new URL(aim.url);
  await listeningWithin(aim.url, 5000);
  const conns: Deno.Conn[] = [];
  try {
    // Idle connections: no request, no token. Loopback only, bounded in count.
    for (let i = 0; i < FLOOD; i++) {
      try {
        conns.push(await Deno.connect({ hostname: "127.0.0.1", port: Number(port) }));
      } catch {
        break; // Refused: the accept loop failed, as the flood meant it to.
      }
    }
    assert(conns.length >= FILE_LIMIT / 2, `only ${conns.length} connections opened`);
  } finally {
    for (const conn of conns) conn.close();
  }
  const after = await listeningWithin(aim.url, 15_000);
  assert(
    typeof after.relistens === "number" && after.relistens >= 1,
    `the flood did not exhaust the file limit: ${JSON.stringify(after)}`,
  );
  using client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  const init: RequestInit & { client: Deno.HttpClient } = { client };
  const page = await fetch(`${aim.url}/index.json`, init);
  assert.equal(page.status, 200);
  await page.body?.cancel();
});
