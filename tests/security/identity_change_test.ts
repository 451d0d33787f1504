/**
 * Signing out (or in as someone else) withdraws what the former
 * identity allowed. A protected action waits for the person to confirm it; the session signs
 * out, or an app's action signs another user in; the agent gets 409 `cancelled`, the tab is
 * told to withdraw the prompt, and an approval that comes after runs nothing: the call is
 * recorded as cancelled, never as run. Over `POST /__aim/invoke` and over MCP `tools/call`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import type { ServerAction } from "../../bridge/core/server_actions.ts";
import { ONE_PROCESS, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { endpoint, postHeaders, rawSession, within } from "../mcp/helpers.ts";

const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }), name: "Alice" },
]);

/** An app's action that signs another user in, without signing out first. */
const switchUser: ServerAction = {
  id: "switch_user",
  description: "Sign in as Bob",
  input_schema: { type: "object", properties: {}, additionalProperties: false },
  input_example: {},
  run: (ctx) => ctx.signIn({ username: "bob", name: "Bob" }),
};

/** How the session changes identity while the protected call waits. */
const CHANGES = [
  { name: "signs out", actionId: "logout" },
  { name: "signs in as another user", actionId: "switch_user" },
] as const;

/**
 * A session signed in as alice, held by a fake tab that registered the protected, consequential
 * `approve_request` and runs nothing until the test says so (as a page waits for the person).
 */
async function signedIn(bridge: TestBridge) {
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  tab.answerWith = "never";
  await tab.register([{ id: "approve_request", consequential: true, protected: true }]);
  const login = await bridge.invoke(token, "login", { username: "alice", password: "wonderland" });
  assert.equal(login.status, 200, await login.clone().text());
  await login.body?.cancel();
  return { token, tab };
}

/** The `invoke` the tab receives next: it asks the person, as a page does. */
async function prompted(tab: FakeTab) {
  const invoke = await tab.next("invoke", (m) => m.actionId === "approve_request");
  tab.send({ type: "awaiting", id: invoke.id, message: "Waiting for the person to confirm" });
  return invoke;
}

/** Changes the identity, then checks the prompt is withdrawn and a late approval runs nothing. */
async function changeAndApproveLate(
  bridge: TestBridge,
  token: string,
  tab: FakeTab,
  id: string,
  actionId: string,
) {
  const withdrawn = tab.next("cancel", (m) => m.id === id);
  const changed = await bridge.invoke(token, actionId, {});
  assert.equal(changed.status, 200, await changed.clone().text());
  await changed.body?.cancel();
  await within(withdrawn, "the prompt's withdrawal");
  // The person approves afterwards: a page that ran it anyway would answer this.
  tab.send({ type: "result", id, ok: true, result: { approved: "late" } });
  const entries = (await (await bridge.fetch("/__aim/activity", {
    headers: { Authorization: `Bearer ${token}` },
  })).json()).entries as { actionId: string; outcome: string; status: number }[];
  assert.deepEqual(
    entries.filter((e) => e.actionId === "approve_request").map((e) => [e.status, e.outcome]),
    [[409, "cancelled"]],
  );
}

for (const change of CHANGES) {
  Deno.test(
    `a protected invocation waiting for the person is withdrawn when the session ${change.name}`,
    async () => {
      await using bridge = await startBridge({ users, serverActions: [switchUser] });
      const { token, tab } = await signedIn(bridge);
      await using _tab = tab;
      const call = bridge.invoke(token, "approve_request", "req-3");
      const invoke = await prompted(tab);
      await changeAndApproveLate(bridge, token, tab, invoke.id, change.actionId);
      const error = await expectError(await call, 409, "cancelled");
      assert.match(error.message, /signed in or out/);
    },
  );

  Deno.test(
    `a protected MCP tools/call waiting for the person is withdrawn when the session ${change.name}`,
    async () => {
      await using bridge = await startBridge({ users, serverActions: [switchUser] });
      const { token, tab } = await signedIn(bridge);
      await using _tab = tab;
      const headers = await rawSession(bridge.origin, token);
      const call = fetch(endpoint(bridge.origin), {
        method: "POST",
        headers: postHeaders(token, headers),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 9,
          method: "tools/call",
          params: { name: "approve_request", arguments: { input: "req-3" } },
        }),
      });
      const invoke = await prompted(tab);
      await changeAndApproveLate(bridge, token, tab, invoke.id, change.actionId);
      const answer = await (await within(call, "the tools/call answer")).json();
      assert.equal(answer.result.isError, true);
      assert.equal(answer.result.structuredContent.error, "cancelled");
      assert.notEqual(answer.result.structuredContent.ok, true);
    },
  );
}

Deno.test(
  "a protected invocation queued behind another is withdrawn too, and the tab never sees it",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge({ users });
    const { token, tab } = await signedIn(bridge);
    await using _tab = tab;
    const first = bridge.invoke(token, "approve_request", "req-1");
    const invoke = await prompted(tab);
    const second = bridge.invoke(token, "approve_request", "req-2");
    const session = (await bridge.served.bridge.core.sessions.find(token))!;
    while (session.inFlight < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const withdrawn = tab.next("cancel", (m) => m.id === invoke.id);
    const logout = await bridge.invoke(token, "logout", {});
    assert.equal(logout.status, 200);
    await logout.body?.cancel();
    await within(withdrawn, "the prompt's withdrawal");
    await expectError(await first, 409, "cancelled");
    await expectError(await second, 409, "cancelled");
    assert.equal(tab.messages.filter((m) => m.type === "invoke").length, 1);
  },
);
