/**
 * ACP's errors: `{"code", "message", "data"}` with one of ACP's three codes, and how an
 * AIM error becomes one (AIM's own code and details kept in `data`).
 *
 * @module
 */
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  AimError,
  ERROR_STATUS,
  type ErrorCode as AimErrorCode,
  PRIVATE_HEADERS,
} from "../errors/aim_error.ts";
import { RunProblem } from "../runs/run.ts";
import type { AcpError, ErrorCode } from "./schemas.ts";

/**
 * ACP answers of the bridge's own that no AIM code names, and their HTTP status: a run the
 * reference would refuse to cancel or resume (403), and a run whose events another instance
 * holds (503, retry).
 */
export const ACP_ONLY_STATUS = {
  run_refused: 403,
  run_elsewhere: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

/** Why an ACP request failed: an AIM error code, or one of ACP's own refusals. */
export type AcpReason = AimErrorCode | keyof typeof ACP_ONLY_STATUS;

/**
 * The HTTP status of each {@linkcode AcpReason}: AIM's table, but a body ACP cannot read
 * (`bad_request`) answers 422 as the reference does.
 */
export const ACP_STATUS: Readonly<Record<AcpReason, ContentfulStatusCode>> = {
  ...ERROR_STATUS,
  bad_request: 422,
  ...ACP_ONLY_STATUS,
};

/** Options of {@linkcode AcpHttpError}. */
export interface AcpHttpErrorOptions {
  /** ACP's `data`: AIM's code and details, when an AIM error is answered. */
  data?: Record<string, unknown> | undefined;
  /** Headers the answer must carry (`WWW-Authenticate`, `Retry-After`, `Allow`). */
  headers?: Record<string, string> | undefined;
}

/**
 * An error answered in ACP's shape `{"code", "message", "data"}`: its status from
 * {@linkcode ACP_STATUS}, its ACP code from {@linkcode ACP_CODES}, both by its reason. A hono
 * `HTTPException`: it answers as itself wherever hono catches it.
 */
export class AcpHttpError extends HTTPException {
  /** Why the request failed. */
  readonly reason: AcpReason;
  /** The status {@linkcode ACP_STATUS} gives the reason. */
  override readonly status: ContentfulStatusCode;
  /** ACP's code {@linkcode ACP_CODES} gives the reason. */
  readonly code: ErrorCode;
  /** ACP's `data`, or null. */
  readonly data: Record<string, unknown> | null;
  /** Headers of the answer beside {@linkcode PRIVATE_HEADERS}. */
  readonly headers: Record<string, string>;

  /** An error of `reason`, saying `message`. */
  constructor(reason: AcpReason, message: string, options: AcpHttpErrorOptions = {}) {
    const status = ACP_STATUS[reason];
    super(status, { message });
    this.name = "AcpHttpError";
    this.reason = reason;
    this.status = status;
    this.code = ACP_CODES[reason];
    this.data = options.data ?? null;
    this.headers = options.headers ?? {};
  }

  /** The body: ACP's Error. */
  toJSON(): AcpError {
    return { code: this.code, message: this.message, data: this.data };
  }

  /** The answer: its status, ACP's Error, {@linkcode PRIVATE_HEADERS} and its own headers. */
  override getResponse(): Response {
    return new Response(JSON.stringify(this.toJSON()), {
      status: this.status,
      headers: {
        "Content-Type": "application/json; charset=utf-8",
        ...PRIVATE_HEADERS,
        ...this.headers,
      },
    });
  }
}

/**
 * ACP's code for each {@linkcode AcpReason}: ACP has three, so most AIM codes are
 * `server_error` there, with AIM's own code kept in `data.error`. A new AIM code must be placed
 * here.
 */
export const ACP_CODES: Readonly<Record<AcpReason, ErrorCode>> = {
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
  run_refused: "server_error",
  run_elsewhere: "server_error",
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

/** An AIM error answered in ACP's shape, keeping its code (as the reason) and headers. */
export function fromAimError(error: AimError): AcpHttpError {
  const { message, data } = runError(error);
  return new AcpHttpError(error.code, message, {
    data: data ?? undefined,
    headers: error.headers,
  });
}
