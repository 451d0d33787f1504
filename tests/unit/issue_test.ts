/**
 * firstIssue (bridge/wire/issue.ts): the first problem zod found, in one line: `path: message`,
 * the fallback in place of an empty path, and the root before a path under it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { firstIssue } from "../../bridge/wire/issue.ts";

const Page = z.object({ page: z.string(), items: z.array(z.number()) });

function errorOf(schema: z.ZodType, value: unknown): z.ZodError {
  const parsed = schema.safeParse(value);
  assert.ok(!parsed.success);
  return parsed.error;
}

Deno.test("firstIssue() names the path of the first issue, nested paths joined by dots", () => {
  const error = errorOf(Page, { page: 1, items: ["x"] });
  assert.match(firstIssue(error), /^page: Invalid input: expected string/);
  const nested = errorOf(Page, { page: "p", items: [1, "x"] });
  assert.match(firstIssue(nested), /^items\.1: /);
});

Deno.test("firstIssue() puts the root before the path, and the fallback where there is no path", () => {
  const error = errorOf(Page, { page: 1, items: [] });
  assert.match(firstIssue(error, "value", "input"), /^input\.page: /);
  const top = errorOf(z.string(), 1);
  assert.match(firstIssue(top), /^value: Invalid input/);
  assert.match(firstIssue(top, "body"), /^body: /);
  assert.match(firstIssue(top, "body", "input"), /^body: /, "the root only prefixes a path");
  assert.match(firstIssue(top, ""), /^Invalid input/, "an empty fallback: the message alone");
});

Deno.test("firstIssue() of an error without issues says the value is not valid", () => {
  assert.equal(firstIssue(new z.ZodError([])), "value: is not valid");
  assert.equal(firstIssue(new z.ZodError([]), ""), "is not valid");
});
