/**
 * The tab lease over the channel: a second tab waits and gets the lease when the first closes, a
 * lease not renewed passes to the waiting tab, heartbeats keep it while another waits, and a
 * reload moves the session to the new page once its tab holds it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { CloseCode } from "../../bridge/wire/channel.ts";
import { ONE_PROCESS, startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

Deno.test("a second tab waits for the lease and gets it when the first closes", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const first = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  assert.equal((await first.next("lease")).status, "granted");
  await using second = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  const waiting = await second.next("lease");
  assert.equal(waiting.status, "waiting");
  assert.ok(Date.parse(waiting.expiresAt) > Date.now());
  await second.register([{ id: "search", handler: () => "from the second tab" }]);
  await first.register([{ id: "search", handler: () => "from the first tab" }]);
  assert.equal(
    (await (await bridge.invoke(token, "search", "x")).json()).result,
    "from the first tab",
  );
  const granted = second.next("lease", (m) => m.status === "granted");
  await first.close();
  await granted;
  assert.ok(second.has("session") || await second.next("session"));
  assert.equal(
    (await (await bridge.invoke(token, "search", "x")).json()).result,
    "from the second tab",
  );
});

Deno.test("a lease that is not renewed expires and passes to the waiting tab", async () => {
  await using bridge = await startBridge({ leaseMs: 150 });
  const token = await bridge.openSession("/control-panel");
  await using first = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  assert.equal((await first.next("lease")).leaseMs, 150);
  await using second = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  assert.equal((await second.next("lease")).status, "waiting");
  // The first tab never heartbeats: its lease ends and the second is granted.
  assert.equal((await first.next("lease", (m) => m.status === "expired")).type, "lease");
  assert.equal((await first.closed).code, CloseCode.LeaseExpired);
  assert.equal((await second.next("lease", (m) => m.status === "granted")).status, "granted");
});

Deno.test(
  "heartbeats keep the lease past its first end while a second tab waits",
  ONE_PROCESS,
  async () => {
    let now = Date.now();
    await using bridge = await startBridge({ now: () => now, leaseMs: 1_000 });
    const token = await bridge.openSession("/control-panel");
    await using first = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await first.next("lease");
    await first.register([{ id: "search", handler: () => "from the first tab" }]);
    await using second = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await second.next("lease");
    const channel = (await bridge.served.bridge.core.sessions.find(token))!.tab;
    // 0.6 of a lease between beats, three times: 1.8 leases in all, each beat inside the lease
    // the one before it renewed.
    for (let i = 0; i < 3; i++) {
      now += 600;
      const renewed = first.next("lease", (m) => m.status === "granted");
      first.send({ type: "heartbeat" });
      assert.equal(Date.parse((await renewed).expiresAt), now + 1_000);
    }
    now += 600;
    // The sweep runs at 2.4 s: long past the first lease, inside the last renewed one.
    const owner = channel.holder;
    channel.checkLease();
    assert.equal(channel.holder, owner);
    assert.ok(!first.has("lease", (m) => m.type === "lease" && m.status === "expired"));
    assert.ok(!second.has("lease", (m) => m.type === "lease" && m.status === "granted"));
    assert.equal(first.socket.readyState, WebSocket.OPEN);
    assert.equal(
      (await (await bridge.invoke(token, "search", "x")).json()).result,
      "from the first tab",
    );
    // A waiting tab's heartbeat renews nothing: it is told when the owner's lease ends, and
    // once the owner stops beating, the lease ends then and passes to the waiting tab.
    const waiting = second.next("lease");
    second.send({ type: "heartbeat" });
    const answer = await waiting;
    assert.equal(answer.status, "waiting");
    assert.equal(Date.parse(answer.expiresAt), now - 600 + 1_000);
    now += 400;
    const granted = second.next("lease", (m) => m.status === "granted");
    channel.checkLease();
    assert.notEqual(channel.holder, owner);
    assert.equal((await first.closed).code, CloseCode.LeaseExpired);
    await granted;
  },
);

Deno.test("a reload moves the session to the new page once the new tab owns it", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const first = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await first.next("lease");
  await bridge.openSession("/orders", { cookie: `aim_session=${token}` });
  await using second = await FakeTab.open(bridge.origin, { token, page: "/orders" });
  await second.next("lease");
  const granted = second.next("lease", (m) => m.status === "granted");
  await first.close();
  await granted;
  const session = await second.next("session");
  assert.equal(session.page, "/orders");
  const res = await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 409);
  assert.equal((await res.json()).connected_page, "/orders");
});
