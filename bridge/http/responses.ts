/**
 * The bridge's answers: JSON or TOON bodies, errors as `{"error", "message", …}`, and
 * the headers every manifest answer carries.
 *
 * @module
 */
import { encode as encodeToon } from "@toon-format/toon";
import { AimError, PRIVATE_HEADERS } from "../errors/aim_error.ts";

/**
 * Headers of every manifest answer, success or error: never cached, varies with the token (the
 * headers every {@linkcode AimError} answers with).
 */
export const MANIFEST_HEADERS: Readonly<Record<string, string>> = PRIVATE_HEADERS;

/** TOON's media type. */
export const TOON_TYPE = "text/toon; charset=utf-8";
/** JSON's media type. */
export const JSON_TYPE = "application/json; charset=utf-8";

/** A body in JSON or TOON (the same object, encoded by `@toon-format/toon`). */
export function encodeBody(value: unknown, format: "json" | "toon"): string {
  return format === "toon" ? encodeToon(value) : JSON.stringify(value);
}

/** An answer of `value` in JSON or TOON. */
export function bodyResponse(
  value: unknown,
  format: "json" | "toon",
  headers: Record<string, string> = {},
): Response {
  return textResponse(encodeBody(value, format), format, headers);
}

/** An answer of an already encoded body. */
export function textResponse(
  text: string,
  format: "json" | "toon",
  headers: Record<string, string> = {},
): Response {
  return new Response(text, {
    headers: { "Content-Type": format === "toon" ? TOON_TYPE : JSON_TYPE, ...headers },
  });
}

/** 405 `method_not_allowed`, with `Allow`. */
export function methodNotAllowed(allow: string): AimError {
  return new AimError("method_not_allowed", `Use ${allow} here.`, {
    headers: { Allow: allow },
  });
}
