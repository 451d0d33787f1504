/**
 * The one error type of the protocol: a stable `error` code, the HTTP status that code answers
 * with, a sentence an agent can act on, optional details and headers.
 *
 * @module
 */
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Every `error` code the bridge answers with, and its HTTP status: one table, so that a code
 * always answers with the same status. The error body's schema, the ACP mapping and the docs
 * are checked against it.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  payload_too_large: 413,
  request_timeout: 408,
  missing_token: 401,
  invalid_token: 401,
  forbidden_origin: 403,
  forbidden_host: 403,
  tab_required: 403,
  tab_credential_required: 403,
  login_required: 403,
  declined: 403,
  not_found: 404,
  unknown_action: 404,
  method_not_allowed: 405,
  upgrade_required: 426,
  page_mismatch: 409,
  stale_state: 409,
  browser_not_connected: 409,
  cancelled: 409,
  conflict: 409,
  idempotency_key_expired: 409,
  idempotency_key_reused: 422,
  invalid_input: 400,
  action_failed: 422,
  too_many_requests: 429,
  server_error: 500,
  store_unavailable: 503,
  tab_timeout: 504,
  bad_gateway: 502,
  gateway_timeout: 504,
  misdirected: 421,
  aim_unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

/** One of the codes of {@linkcode ERROR_STATUS}. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Every `error` code, in the order of {@linkcode ERROR_STATUS}. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** Extra fields of an error body, merged beside `error` and `message`. */
export type ErrorDetails = Record<string, unknown>;

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
 * status {@linkcode ERROR_STATUS} gives its code. A hono `HTTPException`: thrown in a handler,
 * it answers as itself ({@linkcode AimError.getResponse}) wherever hono catches it.
 */
export class AimError extends HTTPException {
  override readonly status: ContentfulStatusCode;
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly headers: Record<string, string>;

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

  /** The answer of this error: its status, its JSON body and its headers. */
  override getResponse(): Response {
    return new Response(JSON.stringify(this.toJSON()), {
      status: this.status,
      headers: { "Content-Type": "application/json; charset=utf-8", ...this.headers },
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
  const code = Object.hasOwn(ERROR_STATUS, String(error)) ? error as ErrorCode : "server_error";
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

/** 404 `not_found`. */
export function notFound(message = "Nothing is served at this path."): AimError {
  return new AimError("not_found", message);
}

/** 400 `bad_request`. */
export function badRequest(message: string, details?: ErrorDetails): AimError {
  return new AimError("bad_request", message, { details });
}
