/**
 * Test helper: a bridge on port 0 over a temporary site, shut down with `await using`;
 * with `AIM_TEST_CLUSTER=N`, N bridges sharing Redis behind HAProxy in its place.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { serve, type ServedBridge, type ServeOptions } from "../../bridge/mod.ts";
import { type Cluster, NO_CLUSTER, startCluster } from "./cluster.ts";
import { openPageSession, rememberCredential } from "./fake_tab.ts";

/** Files of a temporary site: path → contents. */
export type SiteFiles = Record<string, string>;

/** Options of {@linkcode startBridge}. */
export interface StartBridgeOptions extends Omit<ServeOptions, "root" | "port"> {
  /** Files written into a new temporary site folder; ignored when `root` is given. */
  site?: SiteFiles;
  /** An existing site folder. */
  root?: string;
}

/** A bridge running for one test module. */
export interface TestBridge extends AsyncDisposable {
  /** The bridge; in a cluster, the first one's. */
  readonly served: ServedBridge;
  /** `http://127.0.0.1:PORT`; in a cluster, the balancer's. */
  readonly origin: string;
  /** The port of `origin`. */
  readonly port: number;
  readonly root: string;
  /** The bridges, Redis and HAProxy behind `origin` when `AIM_TEST_CLUSTER` asks for a cluster. */
  readonly cluster?: Cluster;
  /** `fetch` of a path on this bridge. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Opens a session on `page` as the page does; returns the token. */
  openSession(page: string, init?: { cookie?: string }): Promise<string>;
  /** Invokes an action with a token; returns the response (body not read). */
  invoke(
    token: string,
    actionId: string,
    input?: unknown,
    headers?: Record<string, string>,
  ): Promise<Response>;
}

/** A small site: an agent-enabled page with a string action, an object action and a protected one. */
export const BASIC_SITE: SiteFiles = {
  "index.html": `<!doctype html><title>Home</title>
<meta name="description" content="The home page">
<aim-state name="view"></aim-state>`,
  "control-panel.html": `<!doctype html><html><head><title>Control panel</title></head><body>
<aim-state name="requests"></aim-state>
<aim-action name="approve_request" description="Approve one pending request"
  input-description="The request ID itself; do not wrap it in an object" input-min-length="1"
  input-example="req-3" consequential protected></aim-action>
<aim-action name="search" description="Search requests" input-example="pending"></aim-action>
</body></html>`,
  "orders/index.html": `<!doctype html><title>Orders</title>
<form id="order"><label for="item">Item name</label><input id="item" name="item" required>
<label>Quantity <input name="quantity" pattern="[0-9]+"></label></form>
<aim-action name="place_order" description="Place an order" form="#order"
  input-example='{"item":"pen","quantity":"2"}'></aim-action>`,
  "plain.html": "<!doctype html><title>Plain</title><p>No agent here.</p>",
  "style.css": "body { color: black; }",
  "data.json": '{"static": true}',
};

/** Writes `files` (default {@linkcode BASIC_SITE}) into the folder `root`. */
export function writeSite(root: string, files: SiteFiles = BASIC_SITE): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    Deno.mkdirSync(dirname(full), { recursive: true });
    Deno.writeTextFileSync(full, content);
  }
}

/**
 * How many bridges `AIM_TEST_CLUSTER` asks for: 2 or more runs every {@linkcode startBridge} as
 * a cluster behind HAProxy; unset (or 0 or 1) runs one bridge.
 */
export function clusterSize(): number {
  const value = Deno.env.get("AIM_TEST_CLUSTER") ?? "";
  // Without Redis or HAProxy, one bridge: cluster.ts has said that the cluster runs are skipped.
  if (value === "" || NO_CLUSTER) return 1;
  const size = Number(value);
  if (!Number.isInteger(size) || size < 0) {
    throw new Error(`AIM_TEST_CLUSTER must be a number of bridges, got "${value}"`);
  }
  return Math.max(size, 1);
}

/**
 * Test options of a test about one bridge process itself: it reads the bridge's memory
 * (`served.bridge.core`), ages sessions with a fake clock (Redis ages them by its own), or
 * counts a limit that holds per instance. Under `AIM_TEST_CLUSTER` it is skipped, and says so.
 */
export const ONE_PROCESS: { readonly ignore: boolean } = {
  // Read when a test file declares its tests: a file with such tests says once why they skip.
  get ignore(): boolean {
    const skipped = clusterSize() >= 2;
    if (skipped && !onceWarned) {
      onceWarned = true;
      console.warn(
        `AIM_TEST_CLUSTER=${Deno.env.get("AIM_TEST_CLUSTER")}: the tests here about one bridge ` +
          "process (its memory, a fake clock, a limit per instance) are skipped in this run; " +
          "deno task test runs them against one bridge.",
      );
    }
    return skipped;
  },
};

let onceWarned = false;

/** The test API over a bridge (or a cluster) at `origin`. */
function testBridge(options: {
  origin: string;
  root: string;
  served: () => ServedBridge;
  cluster?: Cluster;
  dispose: () => Promise<void>;
}): TestBridge {
  const { origin } = options;
  return {
    get served() {
      return options.served();
    },
    origin,
    port: Number(new URL(origin).port),
    root: options.root,
    ...(options.cluster ? { cluster: options.cluster } : {}),
    fetch: (path, init) => fetch(origin + path, init),
    async openSession(page, init = {}) {
      const res = await fetch(origin + "/__aim/session", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...(init.cookie ? { Cookie: init.cookie } : {}),
        },
        body: JSON.stringify({ page }),
      });
      if (res.status !== 200) throw new Error(`openSession: ${res.status} ${await res.text()}`);
      const grant = await res.json();
      rememberCredential(grant.sessionToken, grant.tabCredential);
      return grant.sessionToken;
    },
    invoke(token, actionId, input, headers = {}) {
      return fetch(origin + "/__aim/invoke", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Authorization: `Bearer ${token}`,
          ...headers,
        },
        body: JSON.stringify(input === undefined ? { actionId } : { actionId, input }),
      });
    },
    [Symbol.asyncDispose]: options.dispose,
  };
}

/**
 * Whether bridges answer repeated manifest reads before routing: `AIM_TEST_FAST_READS=0` turns
 * that off, so that the route-level suites reach the full route's checks (a broken check there
 * cannot hide behind the fast path).
 */
export function fastReadsOn(): boolean {
  return Deno.env.get("AIM_TEST_FAST_READS") !== "0";
}

/**
 * Starts a bridge on port 0 over a temporary site; with `AIM_TEST_CLUSTER=N` (N ≥ 2), N bridges
 * in this process sharing Redis behind HAProxy, reached through the balancer.
 */
export async function startBridge(options: StartBridgeOptions = {}): Promise<TestBridge> {
  const { site = BASIC_SITE, root: givenRoot, ...rest } = options;
  const root = givenRoot ?? await Deno.makeTempDir({ prefix: "aim-site-" });
  if (!givenRoot) writeSite(root, site);
  const removeRoot = async () => {
    if (!givenRoot) await Deno.remove(root, { recursive: true }).catch(() => {});
  };
  const size = clusterSize();
  if (size >= 2) {
    let cluster: Cluster;
    try {
      cluster = await startCluster({ root, instances: size, bridge: rest });
    } catch (error) {
      await removeRoot();
      throw error;
    }
    return testBridge({
      origin: cluster.origin,
      root,
      served: () => {
        const { served } = cluster.instances[0]!;
        if (!served) throw new Error("The first bridge of the cluster is stopped");
        return served;
      },
      cluster,
      async dispose() {
        await cluster[Symbol.asyncDispose]();
        await removeRoot();
      },
    });
  }
  const served = serve({ hostname: "127.0.0.1", fastReads: fastReadsOn(), ...rest, root, port: 0 });
  return testBridge({
    origin: served.url,
    root,
    served: () => served,
    async dispose() {
      await served.shutdown();
      await removeRoot();
    },
  });
}

/** Sends a raw WebSocket handshake for the tab channel; returns the status line and headers. */
export async function tabHandshake(
  bridge: TestBridge,
  headers: Record<string, string>,
): Promise<string> {
  const { port } = bridge;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const lines = [
    "GET /__aim/tab HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    "Connection: Upgrade",
    "Upgrade: websocket",
    "Sec-WebSocket-Version: 13",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ];
  await conn.write(new TextEncoder().encode(lines.join("\r\n")));
  const buffer = new Uint8Array(4096);
  const n = await conn.read(buffer);
  conn.close();
  return new TextDecoder().decode(buffer.subarray(0, n ?? 0));
}

/**
 * A bridge someone else started (the demo, a subprocess) seen through the parts of
 * {@linkcode TestBridge} that need only its origin: `origin`, `port`, `fetch` and `invoke`.
 */
export function bridgeAt(origin: string): TestBridge {
  return {
    origin,
    port: Number(new URL(origin).port),
    fetch: (path: string, init?: RequestInit) => fetch(origin + path, init),
    openSession: (page: string) => openPageSession(origin, page),
    invoke: (token: string, actionId: string, input?: unknown) =>
      fetch(origin + "/__aim/invoke", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify({ actionId, input }),
      }),
  } as unknown as TestBridge;
}
