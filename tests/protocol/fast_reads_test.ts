/**
 * The hot path of repeated session manifest reads (bridge/http/fast_reads.ts): it
 * answers exactly what the full route does, and leaves every other request to it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createApp, fastReads, PublicManifests, SessionManifests } from "../../bridge/http/app.ts";
import type { BridgeCore } from "../../bridge/core/bridge.ts";
import { ONE_PROCESS, startBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { until } from "../helpers/pair.ts";

/** The full route and the hot path of one bridge core, sharing their caches. */
function routes(
  core: BridgeCore,
  options: { allowedHosts?: string[]; instance?: string } = {},
) {
  const manifests = new SessionManifests(core);
  const publics = new PublicManifests();
  return {
    app: createApp(core, { ...options, manifests, publics }),
    fast: fastReads(core, { ...options, manifests, publics }),
  };
}

/** Status, headers (but `date` and the instance's name) and body of an answer. */
async function snapshot(res: Response): Promise<{
  status: number;
  headers: [string, string][];
  body: string;
}> {
  return {
    status: res.status,
    // Several bridges behind a balancer (AIM_TEST_CLUSTER) each name themselves.
    headers: [...res.headers].filter(([name]) => name !== "date" && name !== "x-aim-instance"),
    body: await res.text(),
  };
}

Deno.test("a repeated session read answers what the first one did, byte for byte and header for header", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  tab.setState({ requests: [{ id: "req-1", status: "pending" }] });
  await tab.register([{ id: "search", handler: () => 1 }]);
  const auth = { Authorization: `Bearer ${token}` };
  for (const format of ["json", "toon"]) {
    const first = await snapshot(await bridge.fetch(`/control-panel.${format}`, { headers: auth }));
    assert.equal(first.status, 200);
    for (let i = 0; i < 3; i++) {
      const again = await bridge.fetch(`/control-panel.${format}`, { headers: auth });
      assert.deepEqual(await snapshot(again), first);
    }
    const etag = first.headers.find(([name]) => name === "etag")![1];
    const conditional = { ...auth, "If-None-Match": etag };
    const notModified = await snapshot(
      await bridge.fetch(`/control-panel.${format}`, { headers: conditional }),
    );
    assert.equal(notModified.status, 304);
    assert.equal(notModified.body, "");
    for (let i = 0; i < 3; i++) {
      const again = await bridge.fetch(`/control-panel.${format}`, { headers: conditional });
      assert.deepEqual(await snapshot(again), notModified);
    }
  }
});

Deno.test(
  "fastReads() answers a repeated read and leaves every other request to the full route",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge();
    const { app, fast } = routes(bridge.served.bridge.core, { allowedHosts: [] });
    const token = await bridge.openSession("/control-panel");
    const other = await bridge.openSession("/control-panel");
    await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    await tab.register([{ id: "search", handler: () => 1 }]);
    const auth = { Authorization: `Bearer ${token}` };
    const request = (path: string, headers: Record<string, string> = auth, init = {}) =>
      new Request(bridge.origin + path, { headers, ...init });

    // Nothing encoded yet: the full route answers, and encodes.
    assert.equal(fast(request("/control-panel.json")), undefined);
    const full = await app.fetch(request("/control-panel.json"));
    assert.equal(full.status, 200);
    const etag = full.headers.get("etag")!;
    const body = await full.text();
    const hit = fast(request("/control-panel.json"));
    assert.ok(hit, "a repeated read is answered on the hot path");
    assert.equal(await hit.text(), body);
    assert.equal(hit.headers.get("etag"), etag);
    const notModified = fast(request("/control-panel.json", { ...auth, "If-None-Match": etag }));
    assert.equal(notModified?.status, 304);
    // If-None-Match is read as the full route reads it (bridge/http/if_none_match.ts): a weak
    // tag, a list naming this version, or `*`, is this version too.
    for (const held of [`W/${etag}`, `"v0", ${etag}`, "*"]) {
      const same = fast(request("/control-panel.json", { ...auth, "If-None-Match": held }));
      assert.equal(same?.status, 304, held);
      assert.equal(same?.headers.get("etag"), etag);
    }
    // TOON is encoded apart: not until the full route has answered it once.
    assert.equal(fast(request("/control-panel.toon")), undefined);

    const fullRoute: [string, Request][] = [
      ["HEAD", request("/control-panel.json", auth, { method: "HEAD" })],
      ["a query", request("/control-panel.json?x=1")],
      ["another page", request("/index.json")],
      ["a cookie, not a Bearer token", request("/control-panel.json", { Cookie: `aim=${token}` })],
      ["a lower-case scheme", request("/control-panel.json", { Authorization: `bearer ${token}` })],
      ["an unknown token", request("/control-panel.json", { Authorization: "Bearer nope" })],
      [
        "a wait",
        request("/control-panel.json", { ...auth, "If-None-Match": etag, Prefer: "wait=1" }),
      ],
      ["an older version", request("/control-panel.json", { ...auth, "If-None-Match": '"v1"' })],
      [
        "a Host the bridge does not answer to, even for a 304",
        request("/control-panel.json", { ...auth, "If-None-Match": etag, Host: "evil.example" }),
      ],
      [
        "another session's first read",
        request("/control-panel.json", { Authorization: `Bearer ${other}` }),
      ],
    ];
    for (const [what, req] of fullRoute) assert.equal(fast(req), undefined, what);
    // The refused Host is refused by the full route.
    await expectError(
      await app.fetch(request("/control-panel.json", { ...auth, Host: "evil.example" })),
      403,
      "forbidden_host",
    );

    // A change: the new version is not encoded yet, and the old tag is no longer current.
    tab.setState({ requests: ["new"] });
    await tab.register([{ id: "search", handler: () => 2 }]);
    assert.equal(fast(request("/control-panel.json")), undefined);
    assert.equal(
      fast(request("/control-panel.json", { ...auth, "If-None-Match": etag })),
      undefined,
    );
    const changed = await app.fetch(request("/control-panel.json"));
    assert.notEqual(changed.headers.get("etag"), etag);
    assert.match(await changed.text(), /"new"/);
    assert.ok(fast(request("/control-panel.json")));

    // An ended session: neither a 304 nor a body; the full route answers 401.
    const ended = await bridge.invoke(token, "disconnect", {});
    assert.equal(ended.status, 200);
    await ended.body?.cancel();
    const version = { ...auth, "If-None-Match": changed.headers.get("etag")! };
    assert.equal(fast(request("/control-panel.json", version)), undefined);
    assert.equal(fast(request("/control-panel.json")), undefined);
    await expectError(
      await app.fetch(request("/control-panel.json", version)),
      401,
      "invalid_token",
    );
  },
);

Deno.test(
  "fastReads() stops answering for a session once it is past its idle expiry",
  ONE_PROCESS,
  async () => {
    let now = Date.now();
    await using bridge = await startBridge({ now: () => now, idleMs: 60_000 });
    const { app, fast } = routes(bridge.served.bridge.core);
    const token = await bridge.openSession("/control-panel");
    const auth = { Authorization: `Bearer ${token}` };
    const request = (headers: Record<string, string> = {}) =>
      new Request(bridge.origin + "/control-panel.json", { headers: { ...auth, ...headers } });
    const first = await app.fetch(request());
    assert.equal(first.status, 200);
    await first.body?.cancel();
    const held = { "If-None-Match": first.headers.get("etag")! };
    assert.ok(fast(request()));
    // Each hot read renews the session, as a full read does, a 304 too.
    now += 50_000;
    assert.ok(fast(request()));
    now += 50_000;
    assert.equal(fast(request(held))?.status, 304, "renewed by the read before");
    now += 50_000;
    assert.ok(fast(request()), "renewed by the 304 before");
    now += 61_000;
    // Past its expiry, neither a 304 nor a body: the full route answers 401.
    assert.equal(fast(request(held)), undefined);
    assert.equal(fast(request()), undefined);
    await expectError(await app.fetch(request(held)), 401, "invalid_token");
  },
);

Deno.test(
  "fastReads() answers a public manifest once the full route has made it, and nothing else without a token",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge();
    // As one of several bridges sharing a store: every answer names the instance.
    const { app, fast } = routes(bridge.served.bridge.core, {
      allowedHosts: [],
      instance: "bridge-1",
    });
    const request = (path: string, headers: Record<string, string> = {}) =>
      new Request(bridge.origin + path, { headers });
    for (const format of ["json", "toon"]) {
      const path = `/control-panel.${format}`;
      assert.equal(fast(request(path)), undefined, "not made yet");
      const full = await snapshot(await app.fetch(request(path)));
      assert.equal(full.status, 200);
      const hot = fast(request(path));
      assert.ok(hot, `${format}: a repeated public read is answered on the hot path`);
      assert.equal(hot.headers.get("x-aim-instance"), "bridge-1");
      assert.deepEqual(await snapshot(hot), full);
    }
    const fullRoute: [string, Request][] = [
      ["another spelling", request("/control-panel.html.json")],
      ["an escaped path", request("/control%2Dpanel.json")],
      ["a page that is not agent-enabled", request("/plain.json")],
      ["a static file", request("/data.json")],
      ["a cookie", request("/control-panel.json", { Cookie: "aim_session=x" })],
      ["another scheme", request("/control-panel.json", { Authorization: "Basic eDp5" })],
      ["a refused Host", request("/control-panel.json", { Host: "evil.example" })],
    ];
    for (const [what, req] of fullRoute) assert.equal(fast(req), undefined, what);
  },
);

Deno.test(
  "fastReads() serves a page's new public manifest once its file changes",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge();
    const { app, fast } = routes(bridge.served.bridge.core);
    const read = () => new Request(bridge.origin + "/control-panel.json");
    await (await app.fetch(read())).body?.cancel();
    assert.ok(fast(read()));
    const file = `${bridge.root}/control-panel.html`;
    await Deno.writeTextFile(
      file,
      (await Deno.readTextFile(file)).replace("Search requests", "Find requests"),
    );
    // Once the catalog has the new scan, the full route makes the new manifest; the hot path
    // answers it from then on, never the old one.
    await until(
      async () => await (await app.fetch(read())).text(),
      (text) => text.includes("Find"),
    );
    const answer = fast(read());
    assert.ok(answer);
    assert.match(await answer.text(), /Find requests/);
  },
);

Deno.test("the access log counts the reads answered on the hot path", async () => {
  const entries: { method: string; path: string; status: number }[] = [];
  await using bridge = await startBridge({ log: (entry) => entries.push(entry) });
  const token = await bridge.openSession("/control-panel");
  const auth = { Authorization: `Bearer ${token}` };
  for (let i = 0; i < 3; i++) {
    const res = await bridge.fetch("/control-panel.json", { headers: auth });
    await res.body?.cancel();
  }
  const reads = entries.filter((e) => e.path === "/control-panel.json");
  assert.deepEqual(
    reads.map(({ method, path, status }) => ({ method, path, status })),
    Array(3).fill({ method: "GET", path: "/control-panel.json", status: 200 }),
  );
});
