/**
 * How a run by an agent in the browser can end, and the HTTP status each outcome is recorded
 * with. No imports: the tab channel (channel.ts), the bridge and the WebMCP chunk share it.
 *
 * @module
 */

/**
 * The HTTP status recorded for each way a run by an agent in the browser can end (`ok`, or the
 * error code it was answered with), as `POST /__aim/invoke` answers it.
 */
export const RUN_STATUS = {
  ok: 200,
  invalid_input: 400,
  login_required: 403,
  declined: 403,
  unknown_action: 404,
  cancelled: 409,
  action_failed: 422,
} as const;

/** How a run by an agent in the browser ended. */
export type RunOutcome = keyof typeof RUN_STATUS;
