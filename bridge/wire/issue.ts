/**
 * The first problem zod found, in one line an agent or a person can act on.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { firstIssue } from "./issue.ts";
 *
 * const parsed = z.object({ page: z.string() }).safeParse({ page: 1 });
 * if (!parsed.success) firstIssue(parsed.error); // "page: Invalid input: expected string, …"
 * ```
 *
 * @module
 */
import type { z } from "zod";

/**
 * `path: message` of the first issue; `fallback: message` when it has no path (just the
 * message when `fallback` is empty). A path under `root` reads `root.path`.
 */
export function firstIssue(error: z.ZodError, fallback = "value", root = ""): string {
  const issue = error.issues[0];
  const path = issue?.path.join(".") ?? "";
  const where = path ? (root ? `${root}.${path}` : path) : fallback;
  const message = issue?.message ?? "is not valid";
  return where ? `${where}: ${message}` : message;
}
