/**
 * Reading requests (bridge/http/request.ts) at its edges, beside tests/unit/http_request_test.ts:
 * a Bearer header with odd white space inside or a word before it, a forwarded proto or host with
 * white space before its comma or with no URL to be, a Content-Length that is no number, a
 * declared length of exactly the limit, loopback names with something before them, and the host verdicts remembered per list of allowed names.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type Context, Hono } from "hono";
import {
  forbiddenOrigin,
  hostName,
  isAllowedHost,
  readBearer,
  readJson,
  remoteAddress,
  requestOrigin,
} from "../../bridge/http/request.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { expectError } from "../helpers/errors.ts";

/** An app whose one route answers what `read` makes of the request, errors as AimError says. */
function appOf(read: (c: Context) => unknown) {
  const app = new Hono();
  app.all("/", async (c) => c.json({ value: (await read(c)) ?? null }));
  app.onError((error) => {
    if (error instanceof AimError) return error.getResponse();
    throw error;
  });
  return app;
}

function head(url: string, headers: Record<string, string> = {}) {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { url, header: (name: string) => lower.get(name.toLowerCase()) };
}

const JSON_HEADERS = { "Content-Type": "application/json" };

Deno.test("readBearer() refuses a word before Bearer and white space inside the token that is no space or tab", async () => {
  const app = appOf((c) => readBearer(c));
  for (
    const header of [
      "XBearer abc",
      "Token Bearer abc",
      "Bearer abc\u00A0def",
      "Bearer abc\u000Bdef",
      "Bearer abc\u000Cdef",
    ]
  ) {
    const res = await app.request("/", { headers: { Authorization: header } });
    await expectError(res, 401, "invalid_token");
  }
});

Deno.test("remoteAddress() is undefined when the server hands over no connection info", async () => {
  const app = appOf((c) => remoteAddress(c) ?? "none");
  for (const env of [undefined, {}, { info: undefined }]) {
    const res = await app.request("/", {}, env);
    assert.equal(res.status, 200, JSON.stringify(env));
    assert.deepEqual(await res.json(), { value: "none" });
  }
});

Deno.test("requestOrigin() behind a trusted proxy trims a forwarded value before its comma, takes http, and keeps the URL's origin for a host no URL takes", () => {
  const url = "https://127.0.0.1:8000/page";
  const trust = { trustProxy: true };
  const table: [Record<string, string>, string][] = [
    [{ "X-Forwarded-Proto": "http" }, "http://127.0.0.1:8000"],
    [{ "X-Forwarded-Proto": "HTTP , https" }, "http://127.0.0.1:8000"],
    [{ "X-Forwarded-Host": "aim.example ,other.example" }, "https://aim.example"],
    // Characters a host may have, in an order no URL takes.
    [{ "X-Forwarded-Host": "[" }, "https://127.0.0.1:8000"],
    [{ "X-Forwarded-Host": "a:b:c" }, "https://127.0.0.1:8000"],
  ];
  for (const [headers, origin] of table) {
    assert.equal(requestOrigin(head(url, headers), trust), origin, JSON.stringify(headers));
  }
});

Deno.test("forbiddenOrigin() says why in a sentence", () => {
  const error = forbiddenOrigin();
  assert.equal(
    error.message,
    "Requests from another origin may not open, attach or use a session.",
  );
});

Deno.test("readJson() takes a type with white space before its parameters", async () => {
  const app = appOf((c) => readJson(c, 100));
  const res = await app.request("/", {
    method: "POST",
    headers: { "Content-Type": "application/json ; charset=utf-8" },
    body: '{"a":1}',
  });
  assert.deepEqual(await res.json(), { value: { a: 1 } });
});

Deno.test("readJson() refuses a Content-Length that is no number of bytes, and takes a declared length of exactly the limit", async () => {
  const app = appOf((c) => readJson(c, 10));
  // Over the limit: hono's body limit would take such a length for one it need not count.
  const over = JSON.stringify({ a: "123456" });
  for (const length of ["abc", "x5", "5x", "-1", "1e1", "0x10", "1.0", " ", "5, 5"]) {
    const res = await app.request("/", {
      method: "POST",
      headers: { ...JSON_HEADERS, "Content-Length": length },
      body: over,
    });
    const error = await expectError(res, 400, "bad_request");
    assert.equal(error.message, "The Content-Length header is not a number of bytes.", length);
  }
  // A length of more digits than any limit is over it.
  const huge = await app.request("/", {
    method: "POST",
    headers: { ...JSON_HEADERS, "Content-Length": "9".repeat(400) },
    body: over,
  });
  await expectError(huge, 413, "payload_too_large");
  const exact = '{"a":1234}';
  assert.equal(exact.length, 10);
  const res = await app.request("/", {
    method: "POST",
    headers: { ...JSON_HEADERS, "Content-Length": "10" },
    body: exact,
  });
  assert.deepEqual(await res.json(), { value: { a: 1234 } });
});

Deno.test("isAllowedHost() takes no name that merely ends in a loopback name", () => {
  for (const host of ["notlocalhost", "evil127.0.0.1", "x[::1]", "evil-localhost"]) {
    assert.equal(isAllowedHost(host, []), false, host);
  }
  for (const host of ["localhost", "a.localhost", "127.0.0.1:80", "[::1]:8000"]) {
    assert.equal(isAllowedHost(host, []), true, host);
  }
});

Deno.test("hostName() cuts only a port at the end", () => {
  const table: [string, string][] = [
    ["aim.example:8000", "aim.example"],
    ["aim.example:", "aim.example"],
    ["a:1b", "a:1b"],
    ["a:1b:2", "a:1b"],
  ];
  for (const [host, name] of table) assert.equal(hostName(host), name, host);
});

Deno.test("isAllowedHost() remembers each verdict for its own list of allowed names", () => {
  assert.equal(isAllowedHost("ab.example", ["ab", ".example"]), false);
  assert.equal(isAllowedHost("ab.example", ["ab.example"]), true);
  assert.equal(isAllowedHost("ab.example", ["ab", ".example"]), false);
});

Deno.test("readJson() clears its body timer once the body is read, whatever the outcome: no request leaves one for its whole time", async () => {
  const timeoutMs = 60_000;
  const started = new Set<number>();
  const { setTimeout: set, clearTimeout: clear } = globalThis;
  globalThis.setTimeout = ((fn: () => void, ms?: number, ...rest: unknown[]) => {
    const id = set(fn, ms, ...rest);
    if (ms === timeoutMs) started.add(id);
    return id;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((id?: number) => {
    started.delete(id!);
    clear(id);
  }) as typeof clearTimeout;
  try {
    const app = appOf((c) => readJson(c, 10, timeoutMs));
    for (const body of ['{"a":1}', "{", '{"a":"123456789"}']) {
      const res = await app.request("/", { method: "POST", headers: JSON_HEADERS, body });
      await res.body?.cancel();
      assert.equal(started.size, 0, body);
    }
  } finally {
    globalThis.setTimeout = set;
    globalThis.clearTimeout = clear;
    for (const id of started) clear(id);
  }
});
