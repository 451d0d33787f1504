/**
 * ACP's errors: `{"code", "message", "data"}` with one of ACP's three codes, and how an
 * AIM error becomes one (AIM's own code and details kept in `data`).
 *
 * @module
 */
import { AimError, type ErrorCode as AimErrorCode } from "../wire/errors.ts";
import { RunProblem } from "../runs/run.ts";
import type { AcpError, ErrorCode } from "./schemas.ts";

/** An error answered in ACP's shape, with an HTTP status. */
export class AcpHttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly data: Record<string, unknown> | null;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    options: {
      data?: Record<string, unknown> | undefined;
      headers?: Record<string, string> | undefined;
    } = {},
  ) {
    super(message);
    this.name = "AcpHttpError";
    this.status = status;
    this.code = code;
    this.data = options.data ?? null;
    this.headers = options.headers ?? {};
  }

  /** The body: ACP's Error. */
  toJSON(): AcpError {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/**
 * ACP's code for each AIM error code: ACP has three, so most AIM codes are `server_error`
 * there, with AIM's own code kept in `data.error`. A new AIM code must be placed here.
 */
export const ACP_CODES: Readonly<Record<AimErrorCode, ErrorCode>> = {
  bad_request: "invalid_input",
  payload_too_large: "invalid_input",
  invalid_input: "invalid_input",
  not_found: "not_found",
  unknown_action: "not_found",
  request_timeout: "server_error",
  missing_token: "server_error",
  invalid_token: "server_error",
  forbidden_origin: "server_error",
  forbidden_host: "server_error",
  tab_required: "server_error",
  tab_credential_required: "server_error",
  login_required: "server_error",
  declined: "server_error",
  method_not_allowed: "server_error",
  upgrade_required: "server_error",
  page_mismatch: "server_error",
  stale_state: "server_error",
  browser_not_connected: "server_error",
  cancelled: "server_error",
  conflict: "server_error",
  idempotency_key_expired: "server_error",
  idempotency_key_reused: "server_error",
  action_failed: "server_error",
  too_many_requests: "server_error",
  server_error: "server_error",
  tab_timeout: "server_error",
  store_unavailable: "server_error",
  bad_gateway: "server_error",
  gateway_timeout: "server_error",
  misdirected: "server_error",
  aim_unavailable: "server_error",
};

/** ACP's code for an AIM error code. */
export function acpCode(aimCode: AimErrorCode): ErrorCode {
  return ACP_CODES[aimCode];
}

/** A failed run's `error` for whatever an invocation threw, or for a problem of the run. */
export function runError(error: unknown): AcpError {
  if (error instanceof AcpHttpError) return error.toJSON();
  if (error instanceof RunProblem) {
    return {
      code: "server_error",
      message: error.message,
      data: { error: error.code, status: error.status, ...error.details },
    };
  }
  if (error instanceof AimError) {
    return {
      code: acpCode(error.code),
      message: error.message,
      data: { ...error.details, error: error.code, status: error.status },
    };
  }
  return {
    code: "server_error",
    message: "The bridge failed to run the action; the error was logged. Retry later.",
    data: null,
  };
}

/** An AIM error answered in ACP's shape, keeping its status and headers. */
export function fromAimError(error: AimError): AcpHttpError {
  const { code, message, data } = runError(error);
  // As the reference does for a body it cannot read: 422 invalid_input.
  const status = error.code === "bad_request" ? 422 : error.status;
  return new AcpHttpError(status, code, message, {
    data: data ?? undefined,
    headers: error.headers,
  });
}
