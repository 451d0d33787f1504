/**
 * Named mutants of issue 25's findings 5, 8 and 10: MCP sessions of others are never closed for
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
];
