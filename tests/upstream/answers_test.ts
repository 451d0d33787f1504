/**
 * What aim makes of the app's answers: an answer framed two ways (RFC 9112 §6.3) is the
 * client's 502, and the client's next request on the same connection still gets its answer; a
 * `Location` is rewritten only when it names the app's own origin, compared as an origin; a
 * client that hangs up before the app answered is logged as 499, not as the app's failure.
 * @module
 */
import assert from "node:assert/strict";
import type { RequestLogEntry } from "../../bridge/http/middleware.ts";
import { startAim, startApp } from "../helpers/upstream.ts";

/** A raw TCP app that answers each request with the bytes `answer` gives for its path. */
function scriptedApp(answer: (path: string) => string) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    for await (const conn of listener) {
      (async () => {
        const buffer = new Uint8Array(8192);
        const read = await conn.read(buffer);
        const head = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
        const path = head.split(" ")[1] ?? "/";
        await conn.write(new TextEncoder().encode(answer(path)));
        conn.close();
      })().catch(() => {});
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    async [Symbol.asyncDispose]() {
      listener.close();
      await served;
    },
  };
}

/** One parsed answer of a raw connection. */
interface Parsed {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** The answers in `text`, each read by its own framing; what is incomplete is left out. */
function parseAnswers(text: string): Parsed[] {
  const out: Parsed[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf("\r\n\r\n", at);
    if (end < 0) break;
    const [statusLine = "", ...fields] = text.slice(at, end).split("\r\n");
    const headers = new Map<string, string>();
    for (const field of fields) {
      const colon = field.indexOf(":");
      headers.set(field.slice(0, colon).trim().toLowerCase(), field.slice(colon + 1).trim());
    }
    let body = "";
    let next = end + 4;
    if (headers.get("transfer-encoding") === "chunked") {
      for (;;) {
        const line = text.indexOf("\r\n", next);
        if (line < 0) return out;
        const size = parseInt(text.slice(next, line), 16);
        next = line + 2 + size + 2;
        if (next > text.length) return out;
        if (!size) break;
        body += text.slice(line + 2, line + 2 + size);
      }
    } else {
      const length = Number(headers.get("content-length") ?? 0);
      if (next + length > text.length) return out;
      body = text.slice(next, next + length);
      next += length;
    }
    out.push({ status: Number(statusLine.split(" ")[1]), headers, body });
    at = next;
  }
  return out;
}

/** Answers of the app by path, each framed both ways or well. */
const FRAMED_TWICE: Record<string, string> = {
  "/chunked-then-length":
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5000\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
  "/length-then-chunked":
    "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
  "/short-length":
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
};

Deno.test("an answer framed both by Transfer-Encoding and Content-Length is a 502, and the client's pipelined next request is answered", async () => {
  await using app = scriptedApp((path) =>
    FRAMED_TWICE[path] ?? "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
  );
  await using aim = startAim(app.url);
  for (const path of Object.keys(FRAMED_TWICE)) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: aim.port });
    const host = `Host: 127.0.0.1:${aim.port}`;
    // Two requests at once on one keep-alive connection; the second closes it.
    await conn.write(
      new TextEncoder().encode(
        `GET ${path} HTTP/1.1\r\n${host}\r\n\r\nGET /ok HTTP/1.1\r\n${host}\r\nConnection: close\r\n\r\n`,
      ),
    );
    const text = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
    const answers = parseAnswers(text);
    assert.equal(answers.length, 2, `${path}: ${text}`);
    const [framed, next] = answers as [Parsed, Parsed];
    assert.equal(framed.status, 502, path);
    assert.equal(JSON.parse(framed.body).error, "bad_gateway", path);
    assert.equal(framed.headers.get("cache-control"), "private, no-store", path);
    assert.match(framed.headers.get("content-type") ?? "", /^application\/json/, path);
    assert.equal(next.status, 200, path);
    assert.equal(next.body, "ok", path);
  }
});

Deno.test("with preserveHost off, a Location is rewritten only when it names the app's origin exactly", async () => {
  let appUrl = "";
  await using app = startApp((request) => {
    const to = new URL(request.url).searchParams.get("to")!;
    return new Response(null, { status: 302, headers: { Location: to.replace("APP", appUrl) } });
  });
  appUrl = app.url;
  await using aim = startAim(app.url, { proxy: { preserveHost: false } });
  const appHost = new URL(app.url).host;
  const table: [string, string][] = [
    ["APP/there?a=1#f", `${aim.url}/there?a=1#f`],
    [`HTTP://${appHost}/up`, `${aim.url}/up`],
    [`//${appHost}/scheme-relative`, `${aim.url}/scheme-relative`],
    ["APP", `${aim.url}/`],
    // Another port that starts with the app's, another host, userinfo: not the app.
    ["APP1/other-port", `${app.url}1/other-port`],
    ["APP@evil.example/x", `${app.url}@evil.example/x`],
    ["https://evil.example/x", "https://evil.example/x"],
    [`https://${appHost}/other-scheme`, `https://${appHost}/other-scheme`],
    ["/relative", "/relative"],
    ["relative/path", "relative/path"],
  ];
  for (const [location, expected] of table) {
    const res = await fetch(`${aim.url}/go?to=${encodeURIComponent(location)}`, {
      redirect: "manual",
    });
    await res.body?.cancel();
    assert.equal(res.status, 302, location);
    assert.equal(res.headers.get("location"), expected, location);
  }
});

Deno.test("a client that hangs up before the app answered is logged as 499, not as a 502", async () => {
  const { promise: arrived, resolve: arrive } = Promise.withResolvers<void>();
  const { promise: never, resolve: release } = Promise.withResolvers<void>();
  await using app = startApp(async () => {
    arrive();
    await never;
    return new Response("late");
  });
  const { promise: logged, resolve: log } = Promise.withResolvers<RequestLogEntry>();
  await using aim = startAim(app.url, {
    log: (entry) => entry.path === "/slow" && log(entry),
  });
  try {
    const controller = new AbortController();
    const request = fetch(`${aim.url}/slow`, { signal: controller.signal });
    await arrived;
    controller.abort();
    await assert.rejects(request);
    const entry = await logged;
    assert.equal(entry.status, 499);
    assert.equal(entry.method, "GET");
  } finally {
    release();
  }
});
