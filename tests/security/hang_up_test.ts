/**
 * An agent that hangs up withdraws its call, whatever the size of
 * its request's body. `POST /__aim/invoke` and MCP `tools/call` (without a progress token) wait
 * for the person to confirm a consequential action; the agent goes away; the bridge tells the
 * tab to withdraw the prompt, so that approving afterwards runs nothing, and records the call
 * as cancelled. Deno 2.9.6's `request.signal` misses the hang-up once a body of more than a
 * few hundred bytes was read (docs/deno-hang-up.md): the bridge must see it all the same,
 * alone or behind HAProxy (`AIM_TEST_CLUSTER=3`, where HAProxy resets the bridge's connection).
 *
 * @module
 */
import assert from "node:assert/strict";
import { tableReads } from "../../bridge/http/hang_up.ts";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { endpoint, postHeaders, rawSession, within } from "../mcp/helpers.ts";

/** Body sizes: the smallest request, one under the size Deno watches, 1 KiB, the limit. */
const SIZES = [0, 300, 1024, 64 * 1024] as const;

/** JSON padded with trailing spaces to `size` bytes (a smaller size leaves it as it is). */
function padded(value: unknown, size: number): string {
  const json = JSON.stringify(value);
  return json + " ".repeat(Math.max(0, size - json.length));
}

/**
 * A session held by a fake tab that registered the consequential `pay`. The tab behaves as a
 * page does: it says it asks the person (`awaiting`) and runs nothing until the test approves.
 */
async function heldSession(bridge: TestBridge) {
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  tab.answerWith = "never";
  await tab.register([{ id: "pay", consequential: true }]);
  return { token, tab };
}

/** The `invoke` the tab receives next: it asks the person, as a page does. */
async function prompted(tab: FakeTab) {
  const invoke = await tab.next("invoke");
  tab.send({ type: "awaiting", id: invoke.id, message: "Waiting for the person to confirm pay" });
  return invoke;
}

/**
 * The person approves after the hang-up: a page runs the action only for a prompt the bridge
 * did not withdraw. Asserts the prompt was withdrawn, then sends the late answer a page that
 * ran it anyway would, and checks the bridge recorded the call as cancelled, not as run.
 */
async function approveLate(bridge: TestBridge, token: string, tab: FakeTab, id: string) {
  await within(tab.next("cancel", (m) => m.id === id), "the prompt's withdrawal");
  tab.send({ type: "result", id, ok: true, result: { paid: "late" } });
  const activity = await tab.next("activity", (m) => m.actionId === "pay");
  assert.equal(activity.outcome, "cancelled");
  assert.equal(activity.status, 409);
  const entries = (await (await bridge.fetch("/__aim/activity", {
    headers: { Authorization: `Bearer ${token}` },
  })).json()).entries as { actionId: string; outcome: string }[];
  assert.deepEqual(entries.filter((e) => e.actionId === "pay").map((e) => e.outcome), [
    "cancelled",
  ]);
}

for (const size of SIZES) {
  Deno.test(
    `an agent that hangs up on POST /__aim/invoke with a ${size} B body withdraws the prompt`,
    async () => {
      await using bridge = await startBridge();
      const { token, tab } = await heldSession(bridge);
      await using _tab = tab;
      const abort = new AbortController();
      using _abort = { [Symbol.dispose]: () => abort.abort() };
      const body = padded({ actionId: "pay", input: "bill-1" }, size);
      assert.ok(size === 0 || new TextEncoder().encode(body).length === size);
      const call = bridge.fetch("/__aim/invoke", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body,
        signal: abort.signal,
      });
      const invoke = await prompted(tab);
      abort.abort();
      await assert.rejects(call);
      await approveLate(bridge, token, tab, invoke.id);
    },
  );

  Deno.test(
    `an MCP client that hangs up on tools/call with a ${size} B body withdraws the prompt`,
    async () => {
      await using bridge = await startBridge();
      const { token, tab } = await heldSession(bridge);
      await using _tab = tab;
      const headers = await rawSession(bridge.origin, token);
      const abort = new AbortController();
      using _abort = { [Symbol.dispose]: () => abort.abort() };
      const body = padded({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "pay", arguments: { input: "bill-1" } },
      }, size);
      const call = fetch(endpoint(bridge.origin), {
        method: "POST",
        headers: postHeaders(token, headers),
        body,
        signal: abort.signal,
      });
      const invoke = await prompted(tab);
      abort.abort();
      await assert.rejects(call);
      await approveLate(bridge, token, tab, invoke.id);
    },
  );
}

/**
 * Waits until the bridge read the TCP tables `count` more times (it reads them while a call
 * waits), or the tab was told to withdraw a prompt (then no more reads may come).
 */
async function tableReadsPass(count: number, tab: FakeTab): Promise<void> {
  const until = tableReads() + count;
  while (tableReads() < until && !tab.has("cancel")) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test(
  "an agent still waiting after a 1 KiB body is never taken for gone, and gets its answer",
  async () => {
    await using bridge = await startBridge();
    const { token, tab } = await heldSession(bridge);
    await using _tab = tab;
    const call = bridge.fetch("/__aim/invoke", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: padded({ actionId: "pay", input: "bill-1" }, 1024),
    });
    const invoke = await prompted(tab);
    await within(tableReadsPass(3, tab), "three reads of the TCP table");
    assert.ok(!tab.has("cancel"), "the bridge withdrew the call of an agent still connected");
    // The person approves: the page runs it and answers.
    tab.send({ type: "result", id: invoke.id, ok: true, result: { paid: "bill-1" } });
    const res = await within(call, "the answer");
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).result, { paid: "bill-1" });
  },
);
