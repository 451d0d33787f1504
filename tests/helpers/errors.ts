/**
 * Test helper: the one check of an error answer. The body is parsed with the error
 * body's own zod schema, so a test fails on an answer that breaks the protocol, not only on a
 * wrong status or code.
 *
 * @module
 */
import assert from "node:assert/strict";
import { firstIssue } from "../../bridge/wire/issue.ts";
import { ErrorBody } from "../../bridge/wire/schemas.ts";

/**
 * An error body as the schema reads it: `error`, `message`, and the error's details, which
 * each error shapes its own way (tests assert on them).
 */
// deno-lint-ignore no-explicit-any
export type ErrorAnswer = ReturnType<typeof ErrorBody.parse> & Record<string, any>;

/** An error code as the error body's schema knows them. */
export type ErrorCode = ReturnType<typeof ErrorBody.parse>["error"];

/**
 * Asserts that `res` is the error `code` with `status`: JSON of the `ErrorBody` schema, with a
 * message, and each of `headers` (a value, or a pattern the value matches). Reads the body and
 * returns it.
 */
export async function expectError(
  res: Response,
  status: number,
  code: ErrorCode,
  headers: Record<string, string | RegExp> = {},
): Promise<ErrorAnswer> {
  const text = await res.text();
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${text}`);
  assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    assert.fail(`the error body is not JSON: ${text}`);
  }
  const parsed = ErrorBody.safeParse(json);
  if (!parsed.success) {
    assert.fail(`the error body breaks its schema (${firstIssue(parsed.error, "body")}): ${text}`);
  }
  const body = parsed.data as ErrorAnswer;
  assert.equal(body.error, code, text);
  assert.ok(body.message.trim().length > 0, `the error ${code} says nothing`);
  for (const [name, expected] of Object.entries(headers)) {
    const actual = res.headers.get(name);
    if (expected instanceof RegExp) assert.match(actual ?? "", expected, name);
    else assert.equal(actual, expected, name);
  }
  return body;
}
