/**
 * Test helper: checking an input as the bridge does (bridge/input/validate.ts) in a few words: an
 * action of a schema, the hint an input is refused with (the rest of the error checked on the
 * way), whether an input is taken, an object schema, nested arrays.
 *
 * @module
 */
import assert from "node:assert/strict";
import { inputProblem, validateInput } from "../../bridge/input/validate.ts";
import { parseActionSpec } from "../../bridge/input/action_spec.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import type { ActionSpec } from "../../bridge/input/action_spec.ts";

/** An action of `schema` (checked, its objects closed, as the bridge takes it). */
export function action(schema: unknown, example?: unknown): ActionSpec {
  return parseActionSpec({
    id: "act",
    description: "An action",
    input_schema: schema,
    ...(example !== undefined && { input_example: example }),
    consequential: false,
    protected: false,
  });
}

/** The hint validateInput() refuses `input` with, checking the rest of the error on the way. */
export function hint(schema: unknown, input: unknown, example?: unknown): string {
  const spec = action(schema, example);
  try {
    validateInput(spec, input);
  } catch (error) {
    assert.ok(error instanceof AimError, String(error));
    assert.equal(error.code, "invalid_input");
    assert.equal(error.status, 400);
    const details = error.details as { hint: string };
    assert.equal(
      error.message,
      `Input for "act" does not match its input_schema: ${details.hint}.`,
    );
    assert.deepEqual(error.details, {
      actionId: "act",
      hint: details.hint,
      input_schema: spec.input_schema,
      ...(spec.input_example !== undefined && { input_example: spec.input_example }),
    });
    return details.hint;
  }
  assert.fail(`accepted ${JSON.stringify(input)}`);
}

/** Whether the bridge takes `input` for `schema`. */
export function takes(schema: unknown, input: unknown): boolean {
  return inputProblem(action(schema).input_schema, input) === undefined;
}

/** An object schema of `properties`, `required` ones listed when there are any. */
export const object = (
  properties: Record<string, unknown>,
  required: string[] = [],
): Record<string, unknown> => ({
  type: "object",
  properties,
  ...(required.length && { required }),
});

/** `levels` arrays, one in the other, around 1: `[[1]]` for 2. */
export function nestedArrays(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}
