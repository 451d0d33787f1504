/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) are dropped both ways: every name of `HOP_BY_HOP`, and
 * every name a `Connection` header lists, in a request to the app and in the app's answer. A
 * table over the whole list, first on the header functions, then through a real aim between a
 * raw client and an app that writes its answer byte for byte.
 * @module
 */
import assert from "node:assert/strict";
import {
  clientResponseHeaders,
  HOP_BY_HOP,
  upstreamRequestHeaders,
} from "../../bridge/upstream/headers.ts";
import { startAim, startApp } from "../helpers/upstream.ts";

/** A value each hop-by-hop header may carry. */
const VALUES: Record<string, string> = {
  "connection": "x-listed-hop, keep-alive",
  "keep-alive": "timeout=5",
  "proxy-connection": "keep-alive",
  "proxy-authenticate": 'Basic realm="proxy"',
  "proxy-authorization": "Basic eDp5",
  "te": "trailers",
  "trailer": "x-trailing",
  "transfer-encoding": "chunked",
  "upgrade": "h2c",
};

Deno.test("the table of values covers every hop-by-hop name", () => {
  assert.deepEqual(Object.keys(VALUES).sort(), [...HOP_BY_HOP].sort());
});

const FORWARD = {
  client: "127.0.0.1",
  peer: "127.0.0.1",
  origin: "http://127.0.0.1:8000",
  preserveHost: true,
  forwarded: false,
  trustForwarded: false,
  secrets: new Set<string>(),
};

Deno.test("every hop-by-hop header, and every name Connection lists, is dropped from a request to the app", () => {
  for (const name of HOP_BY_HOP) {
    const incoming = new Headers({ [name]: VALUES[name]!, "x-kept": "1" });
    const out = upstreamRequestHeaders(incoming, FORWARD);
    assert.equal(out.get(name), null, name);
    assert.equal(out.get("x-kept"), "1", name);
  }
  const listed = upstreamRequestHeaders(
    new Headers({ Connection: "X-Listed-Hop, x-other ", "X-Listed-Hop": "a", "X-Other": "b" }),
    FORWARD,
  );
  assert.deepEqual([...listed.keys()], []);
});

Deno.test("every hop-by-hop header, and every name Connection lists, is dropped from the app's answer", () => {
  for (const name of HOP_BY_HOP) {
    const out = clientResponseHeaders(new Headers({ [name]: VALUES[name]!, "x-kept": "1" }), false);
    assert.equal(out.get(name), null, name);
    assert.equal(out.get("x-kept"), "1", name);
  }
  const listed = clientResponseHeaders(
    new Headers({ Connection: "x-listed-hop", "X-Listed-Hop": "a", "X-End": "kept" }),
    false,
  );
  assert.deepEqual([...listed], [["x-end", "kept"]]);
});

/** Reads one answer's head off a raw connection: its status line and header lines. */
async function rawHead(port: number, request: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(request));
  const text = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
  return text.slice(0, text.indexOf("\r\n\r\n")).toLowerCase();
}

Deno.test("through aim, no hop-by-hop request header reaches the app, nor one Connection lists", async () => {
  await using app = startApp((request) => Response.json(Object.fromEntries(request.headers)));
  await using aim = startAim(app.url);
  // The names themselves, not HOP_BY_HOP: a name missing from the list must show here.
  for (const name of Object.keys(VALUES)) {
    if (name === "connection" || name === "transfer-encoding") continue;
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: aim.port });
    await conn.write(
      new TextEncoder().encode(
        `GET /page HTTP/1.1\r\nHost: 127.0.0.1:${aim.port}\r\n${name}: ${VALUES[name]}\r\n` +
          "Connection: close, x-listed-hop\r\nX-Listed-Hop: secret\r\nX-Kept: 1\r\n\r\n",
      ),
    );
    const text = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
    const body = text.slice(text.indexOf("\r\n\r\n") + 4);
    const seen = JSON.parse(body.slice(body.indexOf("{"), body.lastIndexOf("}") + 1));
    assert.equal(seen[name], undefined, name);
    assert.equal(seen["x-listed-hop"], undefined, name);
    assert.equal(seen.connection, undefined, name);
    assert.equal(seen["x-kept"], "1", name);
  }
});

Deno.test("through aim, no hop-by-hop header of the app's answer reaches the client, nor one its Connection lists", async () => {
  // An app that writes every hop-by-hop header itself (a runtime's server would drop some).
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    for await (const conn of listener) {
      (async () => {
        await conn.read(new Uint8Array(4096));
        const lines = Object.entries(VALUES)
          .filter(([name]) => name !== "connection" && name !== "transfer-encoding")
          .map(([name, value]) => `${name}: ${value}`);
        await conn.write(
          new TextEncoder().encode(
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close, x-app-hop\r\n" +
              `X-App-Hop: 1\r\nX-End: kept\r\n${lines.join("\r\n")}\r\n\r\nok`,
          ),
        );
        conn.close();
      })().catch(() => {});
    }
  })().catch(() => {});
  try {
    await using aim = startAim(`http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`);
    const head = await rawHead(
      aim.port,
      `GET /page HTTP/1.1\r\nHost: 127.0.0.1:${aim.port}\r\nConnection: close\r\n\r\n`,
    );
    assert.match(head, /^http\/1\.1 200/);
    assert.match(head, /\r\nx-end: kept/);
    for (const name of [...Object.keys(VALUES), "x-app-hop"]) {
      if (name === "connection" || name === "transfer-encoding") continue;
      assert.ok(!head.includes(`\r\n${name}:`), `${name} in ${head}`);
    }
  } finally {
    listener.close();
    await served;
  }
});
