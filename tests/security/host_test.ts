/**
 * Finding 9: a malformed `Host` answers 400 before any URL is made from it, never 500; a body
 * that trickles in is cut off (408); both with the manifest headers of every error. And the
 * client address per-client limits count: the last `X-Forwarded-For` hop behind a trusted
 * proxy, the socket's peer otherwise.
 */
import assert from "node:assert/strict";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";

/** Sends raw request bytes and returns the whole answer as text. */
async function raw(bridge: TestBridge, text: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: bridge.served.port });
  await conn.write(new TextEncoder().encode(text));
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(8192);
  while (true) {
    const n = await conn.read(buffer).catch(() => null);
    if (!n) break;
    chunks.push(buffer.slice(0, n));
    const sofar = new TextDecoder().decode(chunks.reduce((a, b) => new Uint8Array([...a, ...b])));
    if (/\r\n\r\n/.test(sofar) && /\}$/.test(sofar.trim())) break;
  }
  conn.close();
  return new TextDecoder().decode(
    chunks.reduce((a, b) => new Uint8Array([...a, ...b]), new Uint8Array()),
  );
}

Deno.test("a malformed Host answers 400 bad_request, never 500", async () => {
  await using bridge = await startBridge();
  const port = bridge.served.port;
  const hosts = [
    `127.0.0.1:${port}.evil.example`,
    `127.0.0.1:${port}:1`,
    `127.0.0.1 :${port}`,
    `127.0.0.1:${port}/x`,
    `user@127.0.0.1:${port}`,
  ];
  for (const host of hosts) {
    for (const path of ["/control-panel.json", "/__aim/session", "/"]) {
      const answer = await raw(
        bridge,
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      const status = Number(answer.slice(9, 12));
      assert.ok(status === 400 || status === 403, `${host} ${path}: ${answer.slice(0, 60)}`);
      if (status === 400) {
        assert.match(answer, /"error":"bad_request"/, host);
        assert.match(answer, /cache-control: private, no-store/i);
      }
      assert.doesNotMatch(answer, /server_error/);
    }
  }
  // And the bridge still answers well-formed requests.
  assert.equal((await bridge.fetch("/control-panel.json")).status, 200);
});

Deno.test("a body that takes too long to arrive answers 408 request_timeout", async () => {
  await using bridge = await startBridge({ limits: { bodyTimeoutMs: 200 } });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: bridge.served.port });
  await conn.write(
    new TextEncoder().encode(
      `POST /__aim/session HTTP/1.1\r\nHost: 127.0.0.1:${bridge.served.port}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"page":`,
    ),
  );
  // Nothing more is sent: the answer comes when the bridge stops waiting, within 200 ms and
  // long before this test gives up on it.
  const giveUp = setTimeout(() => conn.close(), 5_000);
  let answer = "";
  const buffer = new Uint8Array(4096);
  while (!answer.includes("}")) {
    const n = await conn.read(buffer).catch(() => null);
    if (!n) break;
    answer += new TextDecoder().decode(buffer.subarray(0, n));
  }
  clearTimeout(giveUp);
  try {
    conn.close();
  } catch {
    // Closed by the deadline already.
  }
  assert.match(answer, /^HTTP\/1\.1 408/);
  assert.match(answer, /"error":"request_timeout"/);
});

Deno.test("behind --trust-proxy the client is the last X-Forwarded-For hop; without it, the socket's peer", async () => {
  const whoami = {
    id: "whoami",
    description: "Say which client address the bridge sees",
    input_schema: { type: "string" as const },
    input_example: "x",
    run: (ctx: { client: string }) => ctx.client,
  };
  // The first hops are the client's to write; the last is the one the proxy added.
  const forwarded = { "X-Forwarded-For": "203.0.113.7, 198.51.100.2" };
  for (const [trustProxy, seen] of [[true, "198.51.100.2"], [false, "127.0.0.1"]] as const) {
    await using bridge = await startBridge({ trustProxy, serverActions: [whoami] });
    const token = await bridge.openSession("/control-panel");
    const res = await bridge.invoke(token, "whoami", "x", forwarded);
    assert.equal(res.status, 200);
    assert.equal((await res.json()).result, seen, `trustProxy: ${trustProxy}`);
  }
});
