/**
 * One anonymous GET to the app (bridge/upstream/anonymous_read.ts), imported directly, against a
 * raw TCP server that records the request's bytes: the request carries Accept, User-Agent, Host
 * and the revalidators, and nothing else; each content coding is decoded or left unread; a body
 * past its bound, unwanted, or garbled is null; a redirect is not followed; the read is bounded
 * in time.
 *
 * @module
 */
import assert from "node:assert/strict";
import { deflateSync, gzipSync } from "node:zlib";
import {
  type AnonymousReadOptions,
  boundedBytes,
  readAnonymously,
} from "../../bridge/upstream/anonymous_read.ts";

/** A server that answers each connection with `answer` and records each request's head. */
function rawServer(answer: (head: string) => Uint8Array | null) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const open = new Set<Deno.Conn>();
  const serving = (async () => {
    for await (const conn of listener) {
      open.add(conn);
      (async () => {
        let text = "";
        const buffer = new Uint8Array(4096);
        while (!text.includes("\r\n\r\n")) {
          const n = await conn.read(buffer).catch(() => null);
          if (n === null) break;
          text += new TextDecoder().decode(buffer.subarray(0, n));
        }
        heads.push(text);
        const bytes = answer(text);
        if (bytes) {
          await conn.write(bytes).catch(() => {});
          conn.close();
          open.delete(conn);
        }
      })();
    }
  })();
  return {
    url: new URL(`http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/page`),
    heads,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch { /* closed by the client */ }
      }
      await serving.catch(() => {});
    },
  };
}

/** An HTTP/1.1 answer's bytes. */
function answer(status: string, headers: Record<string, string>, body: Uint8Array | string = "") {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const head = Object.entries({ ...headers, "content-length": String(bytes.length) })
    .map(([name, value]) => `${name}: ${value}\r\n`).join("");
  const start = new TextEncoder().encode(`HTTP/1.1 ${status}\r\n${head}connection: close\r\n\r\n`);
  const all = new Uint8Array(start.length + bytes.length);
  all.set(start);
  all.set(bytes, start.length);
  return all;
}

const OPTIONS: AnonymousReadOptions = {
  accept: "text/html",
  userAgent: "aim-test",
  maxBytes: 1000,
  timeoutMs: 5000,
  wants: () => true,
};

Deno.test("readAnonymously() sends Accept, User-Agent, Host and the revalidators, and nothing else", async () => {
  await using app = rawServer(() => answer("200 OK", { "content-type": "text/html" }, "<p>hi</p>"));
  const read = await readAnonymously(app.url, {
    ...OPTIONS,
    host: "shop.example",
    revalidate: { "if-none-match": '"v1"', "if-modified-since": "Mon, 07 Dec 2026 00:00:00 GMT" },
  });
  assert.equal(read.status, 200);
  assert.equal(new TextDecoder().decode(read.body!), "<p>hi</p>");
  const [head] = app.heads;
  const lines = head!.split("\r\n").filter(Boolean);
  assert.equal(lines[0], "GET /page HTTP/1.1");
  const names = lines.slice(1).map((line) => line.slice(0, line.indexOf(":")).toLowerCase());
  // node:http adds `Connection` itself: no pooled connection is kept.
  assert.deepEqual(names.sort(), [
    "accept",
    "connection",
    "host",
    "if-modified-since",
    "if-none-match",
    "user-agent",
  ]);
  assert.match(head!, /\r\nhost: shop\.example\r\n/i);
  assert.match(head!, /\r\nconnection: close\r\n/i);
  // Without a host given, the URL's.
  await readAnonymously(app.url, OPTIONS);
  assert.match(app.heads[1]!, new RegExp(`\\r\\nhost: ${app.url.host}\\r\\n`, "i"));
});

Deno.test("readAnonymously() decodes each content coding it knows, and leaves any other unread", async () => {
  const text = "<p>café</p>";
  const cases: [string, Uint8Array, string | null][] = [
    ["gzip", gzipSync(text), text],
    ["x-gzip", gzipSync(text), text],
    [" GZIP ", gzipSync(text), text],
    ["deflate", deflateSync(text), text],
    ["identity", new TextEncoder().encode(text), text],
    ["br", new TextEncoder().encode(text), null],
    ["gzip, br", gzipSync(text), null],
    ["gzip", new TextEncoder().encode("not gzip"), null],
  ];
  for (const [coding, body, expected] of cases) {
    await using app = rawServer(() => answer("200 OK", { "content-encoding": coding }, body));
    const read = await readAnonymously(app.url, OPTIONS);
    assert.equal(read.body && new TextDecoder().decode(read.body), expected, coding);
  }
});

Deno.test("readAnonymously() reads no body it does not want or that is past its bound, and follows no redirect", async () => {
  {
    await using app = rawServer(() => answer("200 OK", {}, "x".repeat(1001)));
    assert.equal((await readAnonymously(app.url, OPTIONS)).body, null);
    const exact = await readAnonymously(app.url, { ...OPTIONS, maxBytes: 1001 });
    assert.equal(exact.body?.length, 1001);
  }
  {
    // A small gzip that decodes past the bound: the decoded bytes are what is bounded.
    await using app = rawServer(() =>
      answer("200 OK", { "content-encoding": "gzip" }, gzipSync("x".repeat(100_000)))
    );
    assert.equal((await readAnonymously(app.url, OPTIONS)).body, null);
  }
  {
    await using app = rawServer(() => answer("302 Found", { location: "/elsewhere" }, "moved"));
    const seen: number[] = [];
    const read = await readAnonymously(app.url, {
      ...OPTIONS,
      wants: (status) => (seen.push(status), status === 200),
    });
    assert.deepEqual([read.status, read.headers.get("location"), read.body], [
      302,
      "/elsewhere",
      null,
    ]);
    assert.deepEqual(seen, [302]);
    assert.equal(app.heads.length, 1, "the redirect is not followed");
  }
});

Deno.test("readAnonymously() fails when the app does not answer in time, or cannot be reached", async () => {
  await using app = rawServer(() => null);
  await assert.rejects(readAnonymously(app.url, { ...OPTIONS, timeoutMs: 100 }));
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  await assert.rejects(readAnonymously(new URL(`http://127.0.0.1:${port}/`), OPTIONS));
});

Deno.test("boundedBytes() gives the bytes up to exactly the bound, and null one past it", async () => {
  const stream = (...parts: string[]) =>
    ReadableStream.from(parts.map((p) => new TextEncoder().encode(p)));
  assert.equal(new TextDecoder().decode((await boundedBytes(stream("ab", "cd"), 4))!), "abcd");
  assert.equal(await boundedBytes(stream("ab", "cde"), 4), null);
  assert.equal((await boundedBytes(stream(), 0))?.length, 0);
});
