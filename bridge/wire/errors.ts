/**
 * @module The one error type of the protocol: an HTTP status, a stable `error` code, a
 * sentence an agent can act on, optional details and headers.
 */

/**
 * Every `error` code the bridge answers with. One list: the error body's schema, the ACP
 * mapping and the docs are checked against it.
 */
export const ERROR_CODES = [
  "bad_request",
  "payload_too_large",
  "request_timeout",
  "missing_token",
  "invalid_token",
  "forbidden_origin",
  "forbidden_host",
  "tab_required",
  "tab_credential_required",
  "login_required",
  "declined",
  "not_found",
  "unknown_action",
  "method_not_allowed",
  "upgrade_required",
  "page_mismatch",
  "stale_state",
  "browser_not_connected",
  "cancelled",
  "conflict",
  "idempotency_key_expired",
  "idempotency_key_reused",
  "invalid_input",
  "action_failed",
  "too_many_requests",
  "server_error",
  "store_unavailable",
  "tab_timeout",
] as const;

/** One of {@linkcode ERROR_CODES}. */
export type ErrorCode = typeof ERROR_CODES[number];

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

/** An error the protocol answers with `{"error": code, "message": ..., ...details}`. */
export class AimError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly headers: Record<string, string>;

  constructor(status: number, code: ErrorCode, message: string, options: AimErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
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
}

/** The `AimError` of an answer's status, body and headers (as another instance answered). */
export function errorFromBody(
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string>,
): AimError {
  const { error, message, ...details } = body;
  const code = ERROR_CODES.includes(error as ErrorCode) ? error as ErrorCode : "server_error";
  return new AimError(status, code, String(message ?? ""), { details, headers });
}

/** The `WWW-Authenticate` challenge for a rejected token. */
export const INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"';

/** 401 `invalid_token`: expired, unknown or malformed; never a public fallback. */
export function invalidToken(): AimError {
  return new AimError(
    401,
    "invalid_token",
    "The session token is expired, unknown or malformed; ask the person for the token shown on the page now.",
    { headers: { "WWW-Authenticate": INVALID_TOKEN_CHALLENGE } },
  );
}

/** 401 `missing_token`: the request carries no session token. */
export function missingToken(): AimError {
  return new AimError(
    401,
    "missing_token",
    "Send the session token shown on the page as 'Authorization: Bearer <token>'.",
    { headers: { "WWW-Authenticate": 'Bearer realm="aim"' } },
  );
}

/** 404 `not_found`. */
export function notFound(message = "Nothing is served at this path."): AimError {
  return new AimError(404, "not_found", message);
}

/** 400 `bad_request`. */
export function badRequest(message: string, details?: ErrorDetails): AimError {
  return new AimError(400, "bad_request", message, { details });
}
