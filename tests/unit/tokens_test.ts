/**
 * Session tokens (bridge/core/tokens.ts): made from 256 random bits, checked for their shape
 * before any lookup, and kept only as a hash.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { hashToken, isTokenShaped, newToken } from "../../bridge/core/tokens.ts";

Deno.test("newToken() makes 43 base64url characters that isTokenShaped() accepts, never the same twice", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const token = newToken();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(isTokenShaped(token));
    assert.ok(!seen.has(token), "a token repeated");
    seen.add(token);
  }
});

Deno.test("isTokenShaped() refuses anything but 43 base64url characters", () => {
  assert.equal(isTokenShaped(undefined), false);
  assert.equal(isTokenShaped(""), false);
  assert.equal(isTokenShaped(`${newToken()}A`), false);
  assert.equal(isTokenShaped(newToken().slice(1)), false);
  assert.equal(isTokenShaped(`${newToken().slice(1)}=`), false);
  fc.assert(fc.property(fc.string({ maxLength: 60 }), (text) => {
    assert.equal(isTokenShaped(text), /^[A-Za-z0-9_-]{43}$/.test(text));
  }));
});

Deno.test("hashToken() is the same for the same token, differs for another, and never holds the token", () => {
  const token = newToken();
  assert.equal(hashToken(token), hashToken(token));
  assert.notEqual(hashToken(token), hashToken(newToken()));
  assert.ok(!hashToken(token).includes(token));
  // SHA-256 in base64url, as its doc says: 43 characters of [A-Za-z0-9_-].
  assert.match(hashToken(token), /^[A-Za-z0-9_-]{43}$/);
  assert.match(hashToken(token), /^[A-Za-z0-9_-]{43}$/, "SHA-256, base64url without padding");
});
