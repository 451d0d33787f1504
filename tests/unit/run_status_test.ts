/**
 * RUN_STATUS (bridge/wire/run_status.ts): the HTTP status each way a run by an agent in the
 * browser can end is recorded with, the same as `POST /__aim/invoke` answers its error code.
 *
 * @module
 */
import assert from "node:assert/strict";
import { RUN_STATUS } from "../../bridge/wire/run_status.ts";
import { ERROR_STATUS, isErrorCode } from "../../bridge/wire/errors.ts";

Deno.test("RUN_STATUS records each outcome with its exact status", () => {
  assert.deepEqual(RUN_STATUS, {
    ok: 200,
    invalid_input: 400,
    login_required: 403,
    declined: 403,
    unknown_action: 404,
    cancelled: 409,
    action_failed: 422,
  });
});

Deno.test("every failed outcome is an error code, recorded with the status its error answers", () => {
  for (const [outcome, status] of Object.entries(RUN_STATUS)) {
    if (outcome === "ok") continue;
    assert.ok(isErrorCode(outcome), `${outcome} is an error code`);
    assert.equal(status, ERROR_STATUS[outcome], outcome);
  }
});
