/**
 * Requests that stay open (event streams, long polls, MCP, A2A and ACP streams) are bounded per
 * client address and in all, whatever sessions the client minted (docs/security.md,
 * "Connections and streams"): past either bound, 429 with `Retry-After` and the aim error body.
 */
import assert from "node:assert/strict";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";

/** `GET /__aim/events` of `token`, from the client address `client` (the proxy's word). */
function events(bridge: TestBridge, token: string, client: string): Promise<Response> {
  return bridge.fetch("/__aim/events", {
    headers: { Authorization: `Bearer ${token}`, "X-Forwarded-For": client },
  });
}

/** Opens `count` sessions, as a client that mints its own. */
async function sessions(bridge: TestBridge, count: number): Promise<string[]> {
  const tokens = [];
  for (let i = 0; i < count; i++) tokens.push(await bridge.openSession("/index"));
  return tokens;
}

/** Tries `open` until it is not refused (a slot given back), for up to 5 s. */
async function openWithin(open: () => Promise<Response>): Promise<Response> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const response = await open();
    if (response.status !== 429 || Date.now() > deadline) return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("one client's event streams past its bound are refused with 429 and Retry-After, and another client is still served", async () => {
  await using bridge = await startBridge({ trustProxy: true, streams: { perClient: 2, total: 3 } });
  const tokens = await sessions(bridge, 5);
  const open: Response[] = [];
  try {
    // Each on a session of its own: the per-session bound never applies.
    for (const token of tokens.slice(0, 2)) {
      const response = await events(bridge, token, "10.0.0.1");
      assert.equal(response.status, 200);
      open.push(response);
    }
    const refused = await expectError(
      await events(bridge, tokens[2]!, "10.0.0.1"),
      429,
      "too_many_requests",
      { "Retry-After": /^\d+$/ },
    );
    assert.match(refused.message, /one client/);
    // A long poll is one more open request of the same client.
    const manifest = await bridge.fetch("/index.json", {
      headers: { Authorization: `Bearer ${tokens[2]}`, "X-Forwarded-For": "10.0.0.1" },
    });
    const etag = manifest.headers.get("ETag")!;
    await manifest.body?.cancel();
    await expectError(
      await bridge.fetch("/index.json", {
        headers: {
          Authorization: `Bearer ${tokens[2]}`,
          "X-Forwarded-For": "10.0.0.1",
          "If-None-Match": etag,
          Prefer: "wait=5",
        },
      }),
      429,
      "too_many_requests",
      { "Retry-After": /^\d+$/ },
    );
    // Another client is served.
    const other = await events(bridge, tokens[3]!, "10.0.0.2");
    assert.equal(other.status, 200);
    open.push(other);
    const health = await (await bridge.fetch("/__aim/health")).json();
    assert.equal(health.streams.open, 3);
    // The bound in all: a third client is refused too.
    const third = await expectError(
      await events(bridge, tokens[4]!, "10.0.0.3"),
      429,
      "too_many_requests",
      { "Retry-After": /^\d+$/ },
    );
    assert.match(third.message, /retry later/);
    // A stream that ends gives its slot back.
    await open.shift()!.body?.cancel();
    const again = await openWithin(() => events(bridge, tokens[2]!, "10.0.0.1"));
    assert.equal(again.status, 200);
    open.push(again);
  } finally {
    for (const response of open) await response.body?.cancel();
  }
});

Deno.test("the health endpoint says the bridge listens and counts its open streams", async () => {
  await using bridge = await startBridge({});
  const response = await bridge.fetch("/__aim/health");
  assert.equal(response.status, 200);
  const health = await response.json();
  assert.equal(health.status, "ok");
  assert.equal(health.listening, true);
  assert.equal(health.streams.open, 0);
  assert.equal(typeof health.streams.max, "number");
  assert.equal(typeof health.files.limit, "number");
  assert.equal(typeof health.files.open, "number");
});
