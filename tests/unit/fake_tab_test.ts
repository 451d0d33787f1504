/**
 * The fake tab reads what a bridge sends with the channel's schemas: a bridge that
 * breaks them fails the test that listens, loudly, and a message that never comes fails it too.
 *
 * @module
 */
import assert from "node:assert/strict";
import { FakeTab } from "../helpers/fake_tab.ts";

/** A server that upgrades the channel and sends `messages` once the tab said hello. */
function bridgeSending(messages: string[]): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request, { protocol: "aim-tab-v1" });
    socket.onmessage = () => messages.forEach((message) => socket.send(message));
    return response;
  });
}

Deno.test("the fake tab fails every wait once the bridge sends a message its schemas refuse", async () => {
  const lease = {
    type: "lease",
    status: "granted",
    leaseMs: 1000,
    expiresAt: "2026-01-01T00:00:00Z",
  };
  await using server = bridgeSending([
    JSON.stringify({ ...lease, status: "borrowed" }),
    JSON.stringify(lease),
  ]);
  const tab = await FakeTab.open(`http://127.0.0.1:${server.addr.port}`, {
    token: "t",
    credential: "c",
    page: "/",
  });
  await assert.rejects(tab.next("lease"), /breaks the channel's schemas \(status: /);
  // What came after is not trusted either, and closing the tab says what went wrong.
  await assert.rejects(tab.next("lease"), /breaks the channel's schemas/);
  assert.deepEqual(tab.messages, []);
  await assert.rejects(tab.close(), /breaks the channel's schemas/);
});

Deno.test("the fake tab fails a wait for a message that never comes, instead of hanging", async () => {
  await using server = bridgeSending([]);
  await using tab = await FakeTab.open(`http://127.0.0.1:${server.addr.port}`, {
    token: "t",
    credential: "c",
    page: "/",
    waitMs: 50,
  });
  await assert.rejects(tab.next("lease"), /no "lease" message came within 50 ms/);
});
