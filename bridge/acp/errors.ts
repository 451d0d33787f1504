/**
 * @module ACP's errors: `{"code", "message", "data"}` with one of ACP's three codes, and how an
 * AIM error becomes one (AIM's own code and details kept in `data`).
 */
import { AimError } from "../protocol/errors.ts";
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
    options: { data?: Record<string, unknown>; headers?: Record<string, string> } = {},
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

const NOT_FOUND = new Set(["not_found", "unknown_action"]);
const INVALID = new Set(["bad_request", "invalid_input", "payload_too_large"]);

/** ACP's code for an AIM error code; ACP has no word for the others, so `server_error`. */
export function acpCode(aimCode: string): ErrorCode {
  if (NOT_FOUND.has(aimCode)) return "not_found";
  if (INVALID.has(aimCode)) return "invalid_input";
  return "server_error";
}

/** A failed run's `error` for whatever an invocation threw. */
export function runError(error: unknown): AcpError {
  if (error instanceof AcpHttpError) return error.toJSON();
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
