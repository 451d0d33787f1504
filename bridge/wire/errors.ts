/**
 * The protocol's error codes and the HTTP status each answers with: one table, shared by the
 * bridge (which answers with them, `bridge/errors/aim_error.ts`) and the page (which reads them).
 *
 * @module
 */

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
} as const satisfies Record<string, number>;

/** One of the codes of {@linkcode ERROR_STATUS}. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The HTTP status of one of the codes of {@linkcode ERROR_STATUS}. */
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/** Every `error` code, in the order of {@linkcode ERROR_STATUS}. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** Whether `value` is one of the codes of {@linkcode ERROR_STATUS} (not an inherited name). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_STATUS, value);
}

/** Extra fields of an error body, merged beside `error` and `message`. */
export type ErrorDetails = Record<string, unknown>;
