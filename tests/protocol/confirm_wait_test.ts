/**
 * The tab channel while the person is asked (`awaiting`): the invocation then waits the
 * confirmation timeout, not the tab timeout, and one the person never answers ends in 504
 * `tab_timeout`, the tab told to withdraw its prompt.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

Deno.test("a tab that says the person must confirm gets the confirmation timeout, not the tab timeout", async () => {
  await using bridge = await startBridge({ tabTimeoutMs: 50, confirmTimeoutMs: 10_000 });
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "pay", consequential: true }]);
  tab.answerWith = "never";
  const session = (await bridge.served.bridge.core.sessions.find(token))!;
  const awaited: string[] = [];
  let heard!: () => void;
  const awaiting = new Promise<void>((resolve) => heard = resolve);
  const pending = bridge.served.bridge.core.invoke(session, { actionId: "pay", input: "x" }, {
    onAwaiting: (message) => {
      awaited.push(message);
      heard();
    },
  });
  const invoke = await tab.next("invoke");
  tab.send({ type: "awaiting", id: invoke.id, message: "Waiting for the person to approve pay" });
  await awaiting;
  // Another invocation, started now with the same tab timeout, times out first: by then the
  // tab timeout of the first one would have ended it too, had the prompt not extended it.
  const other = await bridge.openSession("/control-panel");
  await using silent = await FakeTab.open(bridge.origin, { token: other, page: "/control-panel" });
  await silent.next("lease");
  await silent.register([{ id: "search" }]);
  silent.answerWith = "never";
  const timedOut = await bridge.invoke(other, "search", "x");
  assert.equal(timedOut.status, 504);
  await timedOut.body?.cancel();
  tab.send({ type: "result", id: invoke.id, ok: true, result: "paid" });
  const result = await pending;
  assert.equal(result.result, "paid");
  assert.deepEqual(awaited, ["Waiting for the person to approve pay"]);
});

Deno.test("a confirmation the person never gives ends in 504 tab_timeout, and the tab is told to withdraw it", async () => {
  await using bridge = await startBridge({ tabTimeoutMs: 50, confirmTimeoutMs: 300 });
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "pay", consequential: true }]);
  tab.answerWith = "never";
  // A bound on the wait, so that a bridge that waits for ever fails the test, not hangs it.
  const pending = bridge.fetch("/__aim/invoke", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ actionId: "pay", input: "x" }),
    signal: AbortSignal.timeout(10_000),
  });
  const { id } = await tab.next("invoke");
  tab.send({ type: "awaiting", id, message: "Waiting for the person to approve pay" });
  const res = await pending;
  const body = await expectError(res, 504, "tab_timeout");
  assert.match(body.message, /300 ms/);
  assert.equal((await tab.next("cancel")).id, id);
});
