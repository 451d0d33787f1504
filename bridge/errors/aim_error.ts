/**
 * The one error type of the protocol: a hono `HTTPException` with a stable `error` code, the
 * HTTP status that code answers with ({@linkcode ERROR_STATUS}), a sentence an agent can act on,
 * optional details and headers. Thrown anywhere below a hono handler, it answers as itself
 * ({@linkcode AimError.getResponse}): the same body and headers whichever app caught it.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { HTTPException } from "hono/http-exception";
 * import { AimError } from "./aim_error.ts";
 *
 * const app = new Hono();
 * app.get("/late", () => {
 *   throw new AimError("too_many_requests", "Retry in a second.", {
 *     headers: { "Retry-After": "1" },
 *   });
 * });
 * app.onError((error) =>
 *   error instanceof HTTPException ? error.getResponse() : new Response(null, { status: 500 })
 * );
 * const res = await app.request("/late");
 * console.log(res.status, res.headers.get("Retry-After")); // 429 "1"
 * ```
 *
 * @module
 */
import { HTTPException } from "hono/http-exception";
import {
  ERROR_STATUS,
  type ErrorCode,
  type ErrorDetails,
  type ErrorStatus,
  isErrorCode,
} from "../wire/errors.ts";

export {
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  type ErrorDetails,
  type ErrorStatus,
} from "../wire/errors.ts";

/**
 * Headers of every answer that depends on who asks (errors, manifests): never stored by a cache,
 * varying with the cookie and the token, never sniffed as another type.
 */
export const PRIVATE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Cache-Control": "private, no-store",
  "Vary": "Cookie, Authorization",
  "X-Content-Type-Options": "nosniff",
});

/** JSON's media type, as every error body is sent. */
const JSON_TYPE = "application/json; charset=utf-8";

/** Options of {@linkcode AimError}. */
export interface AimErrorOptions {
  /** Fields added to the body beside `error` and `message`. */
  details?: ErrorDetails | undefined;
  /** Headers the answer must carry (`WWW-Authenticate`, `Retry-After`, `Allow`). */
  headers?: Record<string, string> | undefined;
  /** What caused it, for logs; never sent. */
  cause?: unknown;
}

/**
 * An error the protocol answers with `{"error": code, "message": ..., ...details}`, at the
 * status {@linkcode ERROR_STATUS} gives its code, with {@linkcode PRIVATE_HEADERS} and its own.
 */
export class AimError extends HTTPException {
  /**
   * The status {@linkcode ERROR_STATUS} gives {@linkcode AimError.code} (each one hono's
   * `ContentfulStatusCode`, as the base class requires).
   */
  override readonly status: ErrorStatus;
  /** The `error` code of the body. */
  readonly code: ErrorCode;
  /** Fields of the body beside `error` and `message`. */
  readonly details: ErrorDetails;
  /** Headers of the answer beside {@linkcode PRIVATE_HEADERS} (they win over them). */
  readonly headers: Record<string, string>;

  /** An error of `code`, saying `message`. */
  constructor(code: ErrorCode, message: string, options: AimErrorOptions = {}) {
    const status = ERROR_STATUS[code];
    super(status, { message, cause: options.cause });
    if (options.cause === undefined) delete this.cause;
    this.name = "AimError";
    this.status = status;
    this.code = code;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }

  /** The JSON body of this error. */
  toJSON(): Record<string, unknown> {
    return { ...this.details, error: this.code, message: this.message };
  }

  /**
   * The answer of this error, wherever hono catches it: its status, its JSON body,
   * {@linkcode PRIVATE_HEADERS} and its own headers.
   */
  override getResponse(): Response {
    return new Response(JSON.stringify(this.toJSON()), {
      status: this.status,
      headers: { "Content-Type": JSON_TYPE, ...PRIVATE_HEADERS, ...this.headers },
    });
  }
}

/**
 * The `AimError` of an answer's body and headers (as another instance answered); a code this
 * bridge does not know is a `server_error`.
 */
export function errorFromBody(
  body: Record<string, unknown>,
  headers: Record<string, string>,
): AimError {
  const { error, message, ...details } = body;
  const code = isErrorCode(error) ? error : "server_error";
  return new AimError(code, String(message ?? ""), { details, headers });
}

/** The `WWW-Authenticate` challenge for a rejected token. */
export const INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"';

/** 401 `invalid_token`: expired, unknown or malformed; never a public fallback. */
export function invalidToken(): AimError {
  return new AimError(
    "invalid_token",
    "The session token is expired, unknown or malformed; ask the person for the token shown on the page now.",
    { headers: { "WWW-Authenticate": INVALID_TOKEN_CHALLENGE } },
  );
}

/** 401 `missing_token`: the request carries no session token. */
export function missingToken(): AimError {
  return new AimError(
    "missing_token",
    "Send the session token shown on the page as 'Authorization: Bearer <token>'.",
    { headers: { "WWW-Authenticate": 'Bearer realm="aim"' } },
  );
}

/** 404 `not_found`, saying `message`. */
export function notFound(message = "Nothing is served at this path."): AimError {
  return new AimError("not_found", message);
}

/** 400 `bad_request`. */
export function badRequest(message: string, details?: ErrorDetails): AimError {
  return new AimError("bad_request", message, { details });
}

/** The 500 `server_error` a handler answers for an error that is not the protocol's (a bug). */
export function serverError(cause: unknown): AimError {
  return new AimError(
    "server_error",
    "The bridge failed to answer; the error was logged. Retry later.",
    { cause },
  );
}
