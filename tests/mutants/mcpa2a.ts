/**
 * Named mutants: MCP sessions of others are never closed for
 * room, no protocol keeps or echoes a secret, and refusals cost the logs and the login gate
 * little.
 *
 * @module
 */
import type { Mutant } from "./mutant.ts";

export const mutants: Mutant[] = [
  {
    name: "a2a-message-keeps-secrets",
    guarantee:
      "An A2A message's data parts are kept, echoed and shared without secret-looking keys.",
    file: "bridge/a2a/executor.ts",
    find: "if (message && data) params.message = withoutSecrets(message);",
    replace: "",
    tests: ["tests/security/protocol_secrets_test.ts"],
  },
  {
    name: "mcp-room-from-busy-session",
    guarantee: "An MCP session with a call under way is never closed to make room for another.",
    file: "bridge/mcp/sessions.ts",
    find: "if (entry.pending.size > 0 || entry.streamed.size > 0) continue;",
    replace: "",
    tests: ["tests/mcp/endpoint_test.ts", "tests/mcp/session_limits_test.ts"],
  },
  {
    name: "mcp-room-from-others-in-use",
    guarantee:
      "An MCP session another client used recently, or that listens on its GET stream, is never closed for room: the initialize gets 429.",
    file: "bridge/mcp/sessions.ts",
    find: "if (!entry.listening && entry.usedAt <= quietSince) return entry;",
    replace: "return entry;",
    tests: ["tests/mcp/endpoint_test.ts", "tests/mcp/session_limits_test.ts"],
  },
  {
    name: "mcp-listening-not-tracked",
    guarantee: "An MCP session whose GET stream is open counts as in use.",
    file: "bridge/mcp/routes.ts",
    find: "entry.listening = true;",
    replace: "",
    tests: ["tests/mcp/endpoint_test.ts", "tests/mcp/session_limits_test.ts"],
  },
  {
    name: "mcp-per-client-unbounded",
    guarantee: "One client address holds at most maxPerClient MCP sessions; past it, 429.",
    file: "bridge/mcp/sessions.ts",
    find: "} else if ((this.#perClient.get(client) ?? 0) >= maxPerClient) {",
    replace: "} else if (false) {",
    tests: ["tests/mcp/endpoint_test.ts", "tests/mcp/session_limits_test.ts"],
  },
  {
    name: "mcp-initialize-unbounded",
    guarantee: "An initialize larger than 8 KiB opens no MCP session (nor a copy in the store).",
    file: "bridge/mcp/routes.ts",
    find: "if (jsonSize(initializeOf(mcp, body)) > MAX_INITIALIZE_BYTES) {",
    replace: "if (jsonSize(initializeOf(mcp, body)) > Infinity) {",
    tests: ["tests/mcp/endpoint_test.ts", "tests/mcp/session_limits_test.ts"],
  },
  {
    name: "mcp-transport-refusals-logged",
    guarantee: "A request the MCP transport refuses (406, 409, …) is not reported as an error.",
    file: "bridge/mcp/routes.ts",
    find: "if (error instanceof Error && TRANSPORT_REFUSAL.test(error.message)) return;",
    replace: "",
    tests: ["tests/mcp/endpoint_test.ts", "tests/mcp/session_limits_test.ts"],
  },
  {
    name: "login-gate-per-address",
    guarantee:
      "Password checks are shared per (address, account): a flood at one account from behind an address leaves a person there their login.",
    file: "bridge/core/server_actions.ts",
    find: "const places = [accountKey, sessionKey, `client:${client}`];",
    replace: "const places = [`address:${client}`, sessionKey];",
    tests: ["tests/security/login_throttle_test.ts"],
  },
  {
    name: "audit-refusals-unbounded",
    guarantee: "Refused calls are written one by one only up to a rate; the rest are counted.",
    file: "bridge/audit/log.ts",
    find: "if (entry.status >= 400 && !this.#admitRefusal(entry)) {",
    replace: "if (false) {",
    tests: ["tests/security/sessions_test.ts"],
  },
  {
    name: "audit-refusals-not-per-client",
    guarantee: "Refused calls from one client address are bounded whatever the session.",
    file: "bridge/core/invocations.ts",
    find: "...(call.client === undefined ? {} : { client: call.client }),",
    replace: "",
    tests: ["tests/security/sessions_test.ts"],
  },
];
