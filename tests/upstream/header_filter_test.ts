/**
 * What crosses the proxy, header by header (bridge/upstream/headers.ts), without a bridge: a
 * table per rule over every name and spelling it keeps. aim's tab key, cookie and issued
 * secrets never reach the app, the client's `Host` is kept or replaced as asked, where a request
 * came from is aim's to say (its values quoted so no client text can add a parameter), and the
 * app's answer loses its `Content-Encoding` and `Content-Length` exactly when the runtime's
 * `fetch` already decoded the body.
 * @module
 */
import assert from "node:assert/strict";
import {
  appCookies,
  clientResponseHeaders,
  fetchDecodes,
  type ForwardOptions,
  isAimCookie,
  upstreamRequestHeaders,
} from "../../bridge/upstream/headers.ts";
import { newToken } from "../../bridge/core/tokens.ts";

const FORWARD: ForwardOptions = {
  client: "127.0.0.1",
  peer: "127.0.0.1",
  origin: "http://127.0.0.1:8000",
  preserveHost: true,
  forwarded: false,
  trustForwarded: false,
  secrets: new Set<string>(),
};

Deno.test("the tab key header never reaches the app, in any case", () => {
  for (const name of ["X-Aim-Tab", "x-aim-tab", "X-AIM-TAB", "x-Aim-tAb"]) {
    const out = upstreamRequestHeaders(new Headers({ [name]: "k", "X-Kept": "1" }), FORWARD);
    assert.deepEqual([...out], [["x-kept", "1"]], name);
  }
});

Deno.test("isAimCookie() names aim's cookies with or without a prefix, in any case, and no app cookie", () => {
  const table: [string, boolean][] = [
    ["aim_session", true],
    ["AIM_SESSION", true],
    [" aim_session ", true],
    ["__Host-aim_session", true],
    ["__host-AIM_session", true],
    ["__Secure-aim_session", true],
    ["__SECURE-aim_session", true],
    ["aim_other", true],
    ["aim_", true],
    ["aim", false],
    ["aimsession", false],
    ["sid", false],
    ["x_aim_session", false],
    ["__Host-sid", false],
    ["__Other-aim_session", false],
    // A prefix is a prefix only at the start: cut elsewhere it would spell aim's name.
    ["a__Host-im_session", false],
    ["a__Secure-im_x", false],
  ];
  for (const [name, aims] of table) assert.equal(isAimCookie(name), aims, name);
});

Deno.test("appCookies() keeps the app's cookies as sent, drops aim's, bare names included, and empty parts", () => {
  const table: [string, string | null][] = [
    ["sid=1; aim_session=t", "sid=1"],
    ["aim_session=t", null],
    ["sid=1; ; theme=dark", "sid=1; theme=dark"],
    ["sid=1;;", "sid=1"],
    [" ; ", null],
    // A cookie without `=` is all name: aim's bare names go, the app's stay.
    ["aim_; sid=1", "sid=1"],
    ["__Host-aim_; flag", "flag"],
    ["flag; aim_session", "flag"],
    ["=x; sid=1", "=x; sid=1"],
    ["a__Host-im_session=1", "a__Host-im_session=1"],
    ["sid=aim_session", "sid=aim_session"],
  ];
  for (const [header, kept] of table) assert.equal(appCookies(header), kept, header);
});

Deno.test("the app gets its cookies without aim's, and no Cookie when only aim's were sent", () => {
  const table: [string, string | null][] = [
    ["sid=1; aim_session=t; __Host-aim_session=u", "sid=1"],
    ["aim_session=t", null],
    ["__Secure-aim_session=t; aim_x=1", null],
    ["theme=dark", "theme=dark"],
  ];
  for (const [cookie, kept] of table) {
    const out = upstreamRequestHeaders(new Headers({ Cookie: cookie }), FORWARD);
    assert.equal(out.get("cookie"), kept, cookie);
  }
});

Deno.test("the app gets Authorization and subprotocols without the members that carry aim's secrets", () => {
  const t = newToken();
  const own = newToken();
  const options = { ...FORWARD, secrets: new Set([t]) };
  const table: [string, string, string | null][] = [
    ["authorization", `Bearer ${t}`, null],
    ["authorization", `Bearer ${t}, Basic eDp5`, "Basic eDp5"],
    ["authorization", `Bearer ${own}`, `Bearer ${own}`],
    ["sec-websocket-protocol", `aim-tab-v1, aim-credential.${t}`, "aim-tab-v1"],
    ["sec-websocket-protocol", t, null],
    ["sec-websocket-protocol", `chat, ${own}`, `chat, ${own}`],
  ];
  for (const [name, value, kept] of table) {
    const out = upstreamRequestHeaders(new Headers({ [name]: value, "X-Kept": "1" }), options);
    assert.equal(out.get(name), kept, value);
    assert.equal(out.get("x-kept"), "1", value);
  }
  // A secret is a secret in these two headers only: elsewhere it is the client's to send.
  const elsewhere = upstreamRequestHeaders(new Headers({ "X-Api-Key": t }), options);
  assert.equal(elsewhere.get("x-api-key"), t);
});

Deno.test("the client's Host reaches the app with preserveHost, and only then", () => {
  const incoming = new Headers({ Host: "shop.example", "X-Kept": "1" });
  assert.equal(upstreamRequestHeaders(incoming, FORWARD).get("host"), "shop.example");
  const own = upstreamRequestHeaders(incoming, { ...FORWARD, preserveHost: false });
  assert.deepEqual([...own], [["x-kept", "1"]]);
  // Without a Host to drop, nothing else goes.
  const plain = upstreamRequestHeaders(new Headers({ "X-Kept": "1" }), {
    ...FORWARD,
    preserveHost: false,
  });
  assert.deepEqual([...plain], [["x-kept", "1"]]);
});

Deno.test("the forwarded host is the client's Host, or the origin's without one", () => {
  const options = { ...FORWARD, forwarded: true, origin: "https://aim.example" };
  const withHost = upstreamRequestHeaders(new Headers({ Host: "shop.example" }), options);
  assert.equal(withHost.get("x-forwarded-host"), "shop.example");
  assert.equal(withHost.get("forwarded"), "for=127.0.0.1;host=shop.example;proto=https");
  const without = upstreamRequestHeaders(new Headers(), options);
  assert.equal(without.get("x-forwarded-host"), "aim.example");
  assert.equal(without.get("x-forwarded-proto"), "https");
});

Deno.test("a Forwarded value that is no token is quoted, without the quotes and backslashes that would end it", () => {
  const options = { ...FORWARD, forwarded: true };
  const table: [string, string, string][] = [
    ["shop.example", "127.0.0.1", "for=127.0.0.1;host=shop.example;proto=http"],
    ["shop.example:8000", "::1", 'for="[::1]";host="shop.example:8000";proto=http'],
    ['a";for=6.6.6.6', "127.0.0.1", 'for=127.0.0.1;host="a;for=6.6.6.6";proto=http'],
    ["a\\\\b", "127.0.0.1", 'for=127.0.0.1;host="ab";proto=http'],
    // A peer already in brackets is not bracketed again.
    ["shop.example", "[2001:db8::1]", 'for="[2001:db8::1]";host=shop.example;proto=http'],
    ["shop.example", "unknown", "for=unknown;host=shop.example;proto=http"],
  ];
  for (const [host, peer, forwarded] of table) {
    const out = upstreamRequestHeaders(new Headers({ Host: host }), { ...options, peer });
    assert.equal(out.get("forwarded"), forwarded, `${host} ${peer}`);
  }
});

Deno.test("the app's Content-Encoding and Content-Length go exactly when fetch decoded gzip or br", () => {
  // [coding, decoded by fetch, headers kept]
  const table: [string | undefined, boolean, boolean][] = [
    ["gzip", true, false],
    ["br", true, false],
    ["GZIP", true, false],
    [" Br ", true, false],
    ["gzip", false, true],
    ["br", false, true],
    ["deflate", true, true],
    ["zstd", true, true],
    ["identity", true, true],
    [undefined, true, true],
    [undefined, false, true],
  ];
  for (const [coding, decoded, kept] of table) {
    const upstream = new Headers({ "Content-Length": "12", "X-Kept": "1" });
    if (coding !== undefined) upstream.set("Content-Encoding", coding);
    const out = clientResponseHeaders(upstream, decoded);
    const what = `${coding} ${decoded}`;
    assert.equal(out.get("content-length"), kept ? "12" : null, what);
    assert.equal(out.get("content-encoding"), kept ? coding?.trim() ?? null : null, what);
    assert.equal(out.get("x-kept"), "1", what);
  }
});

Deno.test("no Set-Cookie of aim's cookie reaches the client, bare names included; the app's do", () => {
  const upstream = new Headers();
  const cookies = [
    "aim_session=x; Path=/",
    "aim_",
    "__Host-aim_",
    "sid=1; Path=/",
    "flag",
    "=x",
    "a__Host-im_session=1",
  ];
  for (const cookie of cookies) upstream.append("set-cookie", cookie);
  assert.deepEqual(clientResponseHeaders(upstream, false).getSetCookie(), [
    "sid=1; Path=/",
    "flag",
    "=x",
    "a__Host-im_session=1",
  ]);
});

Deno.test("fetchDecodes() is false only when the request asks for the identity coding", () => {
  const table: [string | undefined, boolean][] = [
    [undefined, true],
    ["gzip", true],
    ["gzip, br", true],
    ["", true],
    ["identity", false],
    ["IDENTITY", false],
    [" Identity ", false],
  ];
  for (const [accept, decodes] of table) {
    const sent = new Headers(accept === undefined ? {} : { "Accept-Encoding": accept });
    assert.equal(fetchDecodes(sent), decodes, String(accept));
  }
});
