/**
 * Named mutants: a hang-up withdraws the call whatever the size
 * of its body, and signing in or out withdraws every protected call that still waits.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "hang-up-request-signal-only",
    guarantee:
      "An agent that hangs up after a body of 1 KiB or more withdraws its call, although Deno's request.signal misses it.",
    file: "bridge/http/hang_up.ts",
    find: `  const entry: Watched | undefined = address && canReadTables()`,
    replace: `  const entry: Watched | undefined = address && canReadTables() && false`,
    tests: ["tests/security/hang_up_test.ts"],
  },
  {
    name: "hang-up-close-wait-not-closed",
    guarantee:
      "A connection whose client closed its end (CLOSE_WAIT in the TCP table) counts as a hang-up.",
    file: "bridge/http/hang_up.ts",
    find: `const CLOSED_STATES = new Set(["08", "09", "07", "0B", "06"]);`,
    replace: `const CLOSED_STATES = new Set(["09", "07", "0B", "06"]);`,
    tests: ["tests/security/hang_up_test.ts"],
  },
  {
    name: "hang-up-open-taken-for-closed",
    guarantee:
      "An agent still connected (ESTABLISHED) is never taken for gone: its call runs and is answered.",
    file: "bridge/http/hang_up.ts",
    find: `const CLOSED_STATES = new Set(["08", "09", "07", "0B", "06"]);`,
    replace: `const CLOSED_STATES = new Set(["01", "08", "09", "07", "0B", "06"]);`,
    tests: ["tests/security/hang_up_test.ts"],
  },
  {
    name: "hang-up-address-kept-per-host",
    guarantee: "A client's table address is kept per connection (host and port), not per host.",
    file: "bridge/http/hang_up.ts",
    find: "spellings.getOrSet(`${addr.hostname} ${addr.port}`,",
    replace: "spellings.getOrSet(addr.hostname,",
    tests: ["tests/security/hang_up_test.ts"],
  },
  {
    name: "hang-up-invoke-ignores-watch",
    guarantee:
      "POST /__aim/invoke passes the connection watch to the invocation, not the request's signal alone.",
    file: "bridge/http/session_routes.ts",
    find: `        signal: hangUp.signal,`,
    replace: `        signal: c.req.raw.signal,`,
    tests: ["tests/security/hang_up_test.ts"],
  },
  {
    name: "hang-up-mcp-ignores-watch",
    guarantee:
      "An MCP tools/call answered in JSON is withdrawn when its client hangs up after a streamed body.",
    file: "bridge/mcp/routes.ts",
    find: `    const signal = watch.signal;`,
    replace: `    const signal = c.req.raw.signal;`,
    tests: ["tests/security/hang_up_test.ts"],
  },
  {
    name: "identity-change-keeps-protected-calls",
    guarantee:
      "Signing in or out withdraws every protected call waiting for the person; approving afterwards runs nothing.",
    file: "bridge/core/invocations.ts",
    find: `      session.tab.withdrawProtected();`,
    replace: ``,
    tests: ["tests/security/identity_change_test.ts"],
  },
  {
    name: "identity-change-keeps-queued-protected-calls",
    guarantee:
      "A protected call queued behind another is withdrawn on sign-out before the tab ever sees it.",
    file: "bridge/core/relay_queue.ts",
    find: `    this.#queue = this.#queue.filter((pending) => !pending.options.protected);`,
    replace: ``,
    tests: ["tests/unit/relay_queue_test.ts", "tests/security/identity_change_test.ts"],
  },
  {
    name: "identity-change-relay-not-protected",
    guarantee:
      "A protected action's relay is marked protected, so that an identity change withdraws it.",
    file: "bridge/core/invocations.ts",
    find: `      protected: spec.protected,`,
    replace: ``,
    tests: ["tests/security/identity_change_test.ts"],
  },
];
