/**
 * The bridge's answers (bridge/http/responses.ts): JSON or TOON bodies of one value, with their
 * media types; manifest answers never cached and varying with the token; 405 with `Allow`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { decode as decodeToon } from "@toon-format/toon";
import {
  bodyResponse,
  encodeBody,
  JSON_TYPE,
  MANIFEST_HEADERS,
  methodNotAllowed,
  textResponse,
  TOON_TYPE,
} from "../../bridge/http/responses.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";

const VALUE = { page: "/control-panel", state: { count: 2, items: [{ id: "a" }, { id: "b" }] } };

Deno.test("the media types are JSON's and TOON's, both in UTF-8", () => {
  assert.equal(JSON_TYPE, "application/json; charset=utf-8");
  assert.equal(TOON_TYPE, "text/toon; charset=utf-8");
});

Deno.test("manifest answers are never stored, vary with the cookie and the token, and are not sniffed", () => {
  assert.deepEqual({ ...MANIFEST_HEADERS }, {
    "Cache-Control": "private, no-store",
    "Vary": "Cookie, Authorization",
    "X-Content-Type-Options": "nosniff",
  });
});

Deno.test("encodeBody() writes the same value as JSON or as TOON", () => {
  assert.deepEqual(JSON.parse(encodeBody(VALUE, "json")), VALUE);
  const toon = encodeBody(VALUE, "toon");
  assert.notEqual(toon, JSON.stringify(VALUE));
  assert.deepEqual(decodeToon(toon), VALUE);
});

Deno.test("bodyResponse() and textResponse() answer 200 with the format's media type and the headers given", async () => {
  for (const [format, type] of [["json", JSON_TYPE], ["toon", TOON_TYPE]] as const) {
    const res = bodyResponse(VALUE, format, { ETag: '"v1"' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), type);
    assert.equal(res.headers.get("etag"), '"v1"');
    assert.equal(await res.text(), encodeBody(VALUE, format));
    const text = textResponse("already encoded", format);
    assert.equal(text.headers.get("content-type"), type);
    assert.equal(await text.text(), "already encoded");
  }
  const typed = textResponse("x", "json", { "Content-Type": "text/event-stream" });
  assert.equal(typed.headers.get("content-type"), "text/event-stream", "a header given wins");
});

Deno.test("methodNotAllowed() is 405 method_not_allowed with Allow and the private headers", async () => {
  const error = methodNotAllowed("GET, HEAD");
  assert.ok(error instanceof AimError);
  const res = error.getResponse();
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "GET, HEAD");
  assert.equal(res.headers.get("cache-control"), "private, no-store");
  const body = await res.json();
  assert.equal(body.error, "method_not_allowed");
  assert.equal(body.message, "Use GET, HEAD here.");
});
