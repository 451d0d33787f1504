/**
 * Mutants of `AimError` as hono's `HTTPException` (issue 24): its status comes from the one table
 * of codes, and its cause is kept.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "error-status-table-drift",
    guarantee: "A code answers with the status the table and the docs give it.",
    file: "bridge/wire/errors.ts",
    find: "  tab_timeout: 504,",
    replace: "  tab_timeout: 500,",
    tests: ["tests/unit/errors_test.ts"],
  },
  {
    name: "error-cause-dropped",
    guarantee: "An AimError keeps the cause it was given, for the logs.",
    file: "bridge/errors/aim_error.ts",
    find: "    super(status, { message, cause: options.cause });",
    replace: "    super(status, { message });",
    tests: ["tests/unit/errors_test.ts"],
  },
  {
    name: "error-response-without-headers",
    guarantee: "An AimError hono answers by itself carries its JSON body and its headers.",
    file: "bridge/errors/aim_error.ts",
    find: '      headers: { "Content-Type": JSON_TYPE, ...PRIVATE_HEADERS, ...this.headers },',
    replace: '      headers: { "Content-Type": JSON_TYPE, ...PRIVATE_HEADERS },',
    tests: ["tests/unit/errors_test.ts"],
  },
];
