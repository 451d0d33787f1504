/**
 * @module The first problem zod found, in one line an agent or a person can act on.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { firstIssue } from "./issue.ts";
 *
 * const parsed = z.object({ page: z.string() }).safeParse({ page: 1 });
 * if (!parsed.success) firstIssue(parsed.error); // "page: Invalid input: expected string, …"
 * ```
 */
import type { z } from "zod";

/** `path: message` of the first issue (`fallback: message` when it has no path). */
export function firstIssue(error: z.ZodError, fallback = "value"): string {
  const issue = error.issues[0];
  if (!issue) return `${fallback}: is not valid`;
  return `${issue.path.join(".") || fallback}: ${issue.message}`;
}
