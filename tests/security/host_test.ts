/**
 * Finding 9: a malformed `Host` answers 400 before any URL is made from it, never 500; a body
 * that trickles in is cut off (408); both with the manifest headers of every error.
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
  await using bridge = startBridge();
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
  await using bridge = startBridge({ limits: { bodyTimeoutMs: 200 } });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: bridge.served.port });
  await conn.write(
    new TextEncoder().encode(
      `POST /__aim/session HTTP/1.1\r\nHost: 127.0.0.1:${bridge.served.port}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"page":`,
    ),
  );
  // Nothing more is sent: the answer comes when the bridge stops waiting.
  let answer = "";
  const buffer = new Uint8Array(4096);
  while (!answer.includes("}")) {
    const n = await conn.read(buffer);
    if (!n) break;
    answer += new TextDecoder().decode(buffer.subarray(0, n));
  }
  conn.close();
  assert.match(answer, /^HTTP\/1\.1 408/);
  assert.match(answer, /"error":"request_timeout"/);
});
