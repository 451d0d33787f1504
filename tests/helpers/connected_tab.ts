/**
 * Test helper of the invocation tests (tests/protocol/invoke*_test.ts, idempotency_test.ts): a
 * session whose fake tab registered a plain, a protected and consequential, and a structured
 * action, and a user store that knows alice.
 *
 * @module
 */
import { createUserStore, hashPassword, type UserStore } from "../../bridge/mod.ts";
import type { TestBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

/** alice, whose password is `wonderland`. */
export const users: UserStore = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }), name: "Alice" },
]);

/** A session with a connected tab that registered `search` and the protected `approve_request`. */
export async function connected(bridge: TestBridge): Promise<{ token: string; tab: FakeTab }> {
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([
    { id: "search", input_example: "pending", handler: (q) => ({ found: [q] }) },
    {
      id: "approve_request",
      input_example: "req-3",
      consequential: true,
      protected: true,
      handler: (id) => ({ approved: id }),
    },
    {
      id: "add_comment",
      input_schema: {
        type: "object",
        properties: {
          request_id: { type: "string", minLength: 1 },
          text: { type: "string", maxLength: 20 },
        },
        required: ["request_id", "text"],
        additionalProperties: false,
      },
      input_example: { request_id: "req-3", text: "ok" },
      handler: (input) => input,
    },
  ]);
  return { token, tab };
}
