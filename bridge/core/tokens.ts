/**
 * Session tokens: made (256 random bits), checked for their shape, and kept only as a hash.
 *
 * @module
 */
import { createHash } from "node:crypto";

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** SHA-256 of a token, base64url (43 characters). Only this is kept. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/** A new token: 256 random bits, base64url. */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Whether a string has the shape of a token (or a tab credential). */
export function isTokenShaped(text: string | undefined): text is string {
  return text !== undefined && TOKEN_SHAPE.test(text);
}
