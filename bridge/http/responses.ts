/**
 * The bridge's answers: JSON or TOON bodies, errors as `{"error", "message", …}`, and
 * the headers every manifest answer carries.
 *
 * @module
 */
import { encode as encodeToon } from "@toon-format/toon";
import { AimError } from "../wire/errors.ts";

/** Headers of every manifest answer, success or error: never cached, varies with the token. */
export const MANIFEST_HEADERS: Readonly<Record<string, string>> = {
  "Cache-Control": "private, no-store",
  "Vary": "Cookie, Authorization",
  "X-Content-Type-Options": "nosniff",
};

/** TOON's media type. */
export const TOON_TYPE = "text/toon; charset=utf-8";
/** JSON's media type. */
export const JSON_TYPE = "application/json; charset=utf-8";

/** The answer of an error, with its status, its headers and `extra` ones. */
export function errorResponse(error: AimError, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.toJSON()), {
    status: error.status,
    headers: { "Content-Type": JSON_TYPE, ...extra, ...error.headers },
  });
}

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
