/**
 * A request body reaches the app as a web server in front of it would send it: a body of a
 * declared length up to `BUFFERED_BODY_BYTES` with that `Content-Length` (app servers that read
 * only a declared length, such as Fossil's, see a chunked body as none: a person's login would
 * post empty), a larger one or one sent chunked streamed chunked; a client that hangs up in the
 * middle of its upload is logged as such, and the app gets nothing.
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  BUFFERED_BODY_BYTES,
  declaredLength,
  upstreamBody,
} from "../../bridge/upstream/request_body.ts";
import { IN_FRONT, startAim, startApp } from "../helpers/upstream.ts";

/** What the app saw of one request's body. */
interface Seen {
  length: string | null;
  chunked: string | null;
  bytes: number;
}

/** An app that records how each body came, and answers with its size. */
function recordingApp(seen: Seen[]) {
  return startApp(async (request) => {
    const bytes = (await request.arrayBuffer()).byteLength;
    seen.push({
      length: request.headers.get("content-length"),
      chunked: request.headers.get("transfer-encoding"),
      bytes,
    });
    return new Response(String(bytes));
  });
}

/** A stream of `size` bytes, sent without a declared length (chunked). */
function stream(size: number): ReadableStream<Uint8Array> {
  return new Blob([new Uint8Array(size)]).stream().pipeThrough(new TransformStream());
}

const CASES: { name: string; body: () => BodyInit; size: number; expected: Omit<Seen, "bytes"> }[] =
  [
    {
      name: "a form of 30 bytes",
      body: () => "u=ada&p=lovelace-1843&in=Login",
      size: 30,
      expected: { length: "30", chunked: null },
    },
    {
      name: "a body of exactly the bound",
      body: () => new Uint8Array(BUFFERED_BODY_BYTES),
      size: BUFFERED_BODY_BYTES,
      expected: { length: String(BUFFERED_BODY_BYTES), chunked: null },
    },
    {
      name: "a body one byte over the bound",
      body: () => new Uint8Array(BUFFERED_BODY_BYTES + 1),
      size: BUFFERED_BODY_BYTES + 1,
      expected: { length: null, chunked: "chunked" },
    },
    {
      name: "a small body the client sends chunked",
      body: () => stream(10),
      size: 10,
      expected: { length: null, chunked: "chunked" },
    },
  ];

for (const { name, body, size, expected } of CASES) {
  Deno.test({
    name: `${name} reaches the app ${expected.length ? "with its Content-Length" : "chunked"}`,
    ...IN_FRONT,
    async fn() {
      const seen: Seen[] = [];
      await using app = recordingApp(seen);
      await using aim = startAim(app.url);
      const res = await fetch(`${aim.url}/form`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: body(),
        duplex: "half",
      } as RequestInit);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), String(size));
      assert.deepEqual(seen, [{ ...expected, bytes: size }]);
    },
  });
}

Deno.test({
  name: "a client that hangs up during a small upload of a declared length reaches no app",
  ...IN_FRONT,
  async fn() {
    const seen: Seen[] = [];
    await using app = recordingApp(seen);
    await using aim = startAim(app.url);
    const url = new URL(aim.url);
    const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
    await conn.write(new TextEncoder().encode(
      `POST /form HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: 1000\r\n\r\nu=ada`,
    ));
    // aim is reading the upload (it has asked for the rest): the client goes.
    conn.close();
    // A request after it is answered: aim is still there, and the app saw only that one.
    const after = await fetch(`${aim.url}/form`, { method: "POST", body: "x=1" });
    assert.equal(await after.text(), "3");
    assert.deepEqual(seen, [{ length: "3", chunked: null, bytes: 3 }]);
  },
});

Deno.test("declaredLength reads a plain number of Content-Length, and nothing else", () => {
  assert.equal(declaredLength(new Headers({ "content-length": "0" })), 0);
  assert.equal(declaredLength(new Headers({ "content-length": "262144" })), 262144);
  assert.equal(declaredLength(new Headers()), null);
  for (const value of ["", "-1", "1.5", "1e3", "+5", "0x10", "5,5", "9999999999999999"]) {
    assert.equal(declaredLength(new Headers({ "content-length": value })), null, value);
  }
  fc.assert(fc.property(fc.nat(), (n) => {
    assert.equal(declaredLength(new Headers({ "content-length": String(n) })), n);
  }));
});

Deno.test("upstreamBody() sends no body, the bytes, or the stream, and calls onEnd once the body went", async () => {
  const url = "http://127.0.0.1/form";
  // As Deno.serve hands it over: with the length the client declared.
  const post = (body: BodyInit, length: number) =>
    new Request(url, { method: "POST", body, headers: { "Content-Length": String(length) } });
  const chunked = () =>
    new Request(url, { method: "PUT", body: stream(3), duplex: "half" } as RequestInit);
  const bound = BUFFERED_BODY_BYTES;
  // [what, the request, whether its body streams (null: no body), its bytes]
  const table: [name: string, request: () => Request, streams: boolean | null, bytes: number][] = [
    ["a GET", () => new Request(url), null, 0],
    ["a HEAD", () => new Request(url, { method: "HEAD" }), null, 0],
    ["a POST without a body", () => new Request(url, { method: "POST" }), null, 0],
    ["a POST of 3 declared bytes", () => post("x=1", 3), false, 3],
    ["a POST of the bound", () => post(new Uint8Array(bound), bound), false, bound],
    ["a POST over the bound", () => post(new Uint8Array(bound + 1), bound + 1), true, bound + 1],
    ["a PUT sent chunked", chunked, true, 3],
  ];
  for (const [name, request, streams, size] of table) {
    let ended = 0;
    const made = upstreamBody(request(), () => ended++);
    const body = await made;
    if (streams === null) {
      assert.deepEqual(body, { body: null, streams: false }, name);
      assert.equal(ended, 1, name);
      continue;
    }
    assert.equal(body.streams, streams, name);
    assert.equal(made instanceof Promise, !streams, name);
    // A body read whole went with the read; a stream goes once its last byte is read.
    assert.equal(ended, streams ? 0 : 1, name);
    assert.ok(body.body, name);
    const bytes = body.body instanceof Uint8Array
      ? body.body.byteLength
      : (await new Response(body.body).arrayBuffer()).byteLength;
    assert.equal(ended, 1, name);
    assert.equal(bytes, size, name);
  }
});
