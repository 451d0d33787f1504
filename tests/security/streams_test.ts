/**
 * Requests that stay open (event streams, long polls, MCP, A2A and ACP streams) are bounded per
 * client address and in all, whatever sessions the client minted (docs/security.md,
 * "Connections and streams"): past either bound, 429 with `Retry-After` and the aim error body.
 */
import assert from "node:assert/strict";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import { type ErrorAnswer, expectError } from "../helpers/errors.ts";

/** What an MCP client accepts. */
const MCP_ACCEPT = "application/json, text/event-stream";

/** `GET /__aim/events` of `token`, from the client address `client` (the proxy's word). */
function events(bridge: TestBridge, token: string, client: string): Promise<Response> {
  return bridge.fetch("/__aim/events", {
    headers: { Authorization: `Bearer ${token}`, "X-Forwarded-For": client },
  });
}

/**
 * Asserts that `res` is the 429 `too_many_requests` with `Retry-After` that refuses a stream;
 * a stream answered in its place is closed at once, so that the test fails instead of reading
 * it forever.
 */
async function expectRefused(res: Response): Promise<ErrorAnswer> {
  if (res.status !== 429) {
    await res.body?.cancel();
    assert.fail(`expected 429 too_many_requests, got ${res.status}`);
  }
  return await expectError(res, 429, "too_many_requests", { "Retry-After": /^\d+$/ });
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
    const refused = await expectRefused(await events(bridge, tokens[2]!, "10.0.0.1"));
    assert.match(refused.message, /one client/);
    // A long poll is one more open request of the same client.
    const manifest = await bridge.fetch("/index.json", {
      headers: { Authorization: `Bearer ${tokens[2]}`, "X-Forwarded-For": "10.0.0.1" },
    });
    const etag = manifest.headers.get("ETag")!;
    await manifest.body?.cancel();
    await expectRefused(
      await bridge.fetch("/index.json", {
        headers: {
          Authorization: `Bearer ${tokens[2]}`,
          "X-Forwarded-For": "10.0.0.1",
          "If-None-Match": etag,
          Prefer: "wait=5",
        },
      }),
    );
    // Another client is served.
    const other = await events(bridge, tokens[3]!, "10.0.0.2");
    assert.equal(other.status, 200);
    open.push(other);
    const health = await (await bridge.fetch("/__aim/health")).json();
    assert.equal(health.streams.open, 3);
    // The bound in all: a third client is refused too.
    const third = await expectRefused(await events(bridge, tokens[4]!, "10.0.0.3"));
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

Deno.test("MCP, A2A and ACP streams count against the client's bound and are refused past it with 429", async () => {
  await using bridge = await startBridge({ streams: { perClient: 1 } });
  const token = await bridge.openSession("/control-panel");
  const auth = { Authorization: `Bearer ${token}` };
  const initialized = await bridge.fetch("/__aim/mcp", {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json", Accept: MCP_ACCEPT },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "aim-test-raw", version: "1.0.0" },
      },
    }),
  });
  assert.equal(initialized.status, 200);
  await initialized.body?.cancel();
  const mcpStream = () =>
    bridge.fetch("/__aim/mcp", {
      headers: {
        ...auth,
        Accept: "text/event-stream",
        "Mcp-Session-Id": initialized.headers.get("Mcp-Session-Id")!,
        "MCP-Protocol-Version": "2025-11-25",
      },
    });
  const held = await bridge.fetch("/__aim/events", { headers: auth });
  assert.equal(held.status, 200);
  try {
    await expectRefused(await mcpStream());
    await expectRefused(
      await bridge.fetch("/__aim/a2a", {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "message/stream",
          params: {
            message: {
              kind: "message",
              messageId: "m-1",
              role: "user",
              parts: [{ kind: "data", data: { actionId: "search", input: "x" } }],
            },
          },
        }),
      }),
    );
    // ACP answers in its own error shape, with aim's code in `data`.
    const acp = await bridge.fetch("/runs", {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({
        agent_name: "control-panel",
        input: [{ role: "user", parts: [{ content_type: "text/plain", content: "x" }] }],
        mode: "stream",
      }),
    });
    assert.equal(acp.status, 429);
    assert.match(acp.headers.get("Retry-After") ?? "", /^\d+$/);
    assert.equal((await acp.json()).data.error, "too_many_requests");
  } finally {
    await held.body?.cancel();
  }
  // The MCP session's GET stream holds the client's one place in turn.
  const stream = await openWithin(mcpStream);
  assert.equal(stream.status, 200);
  try {
    await expectRefused(await bridge.fetch("/__aim/events", { headers: auth }));
  } finally {
    await stream.body?.cancel();
  }
});
