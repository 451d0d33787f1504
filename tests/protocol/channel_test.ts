import assert from "node:assert/strict";
import { CloseCode } from "../../bridge/protocol/channel.ts";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import { credentials, FakeTab } from "../helpers/fake_tab.ts";

/** Sends a raw WebSocket handshake and returns the status line and headers. */
async function handshake(bridge: TestBridge, headers: Record<string, string>): Promise<string> {
  const { port } = bridge.served;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const lines = [
    "GET /__aim/tab HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    "Connection: Upgrade",
    "Upgrade: websocket",
    "Sec-WebSocket-Version: 13",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ];
  await conn.write(new TextEncoder().encode(lines.join("\r\n")));
  const buffer = new Uint8Array(4096);
  const n = await conn.read(buffer);
  conn.close();
  return new TextDecoder().decode(buffer.subarray(0, n ?? 0));
}

Deno.test("the channel opens with the tab credential only, from the bridge's own origin", async () => {
  await using bridge = startBridge();
  const token = await bridge.openSession("/control-panel");
  const protocols = (credential: string) => `aim-tab-v1, aim-credential.${credential}`;
  const credential = credentials.get(token)!;
  const refused = /^HTTP\/1\.1 403[\s\S]*tab_credential_required/;
  assert.match(await handshake(bridge, { Origin: bridge.origin }), refused);
  assert.match(
    await handshake(bridge, { Origin: bridge.origin, Cookie: `aim_session=${token}` }),
    refused,
  );
  assert.match(
    await handshake(bridge, {
      Origin: bridge.origin,
      Authorization: `Bearer ${token}`,
      "Sec-WebSocket-Protocol": protocols(token),
    }),
    refused,
  );
  assert.match(
    await handshake(bridge, {
      Origin: "https://evil.example",
      "Sec-WebSocket-Protocol": protocols(credential),
    }),
    /^HTTP\/1\.1 403[\s\S]*forbidden_origin/,
  );
  const opened = await handshake(bridge, {
    Origin: bridge.origin,
    "Sec-WebSocket-Protocol": protocols(credential),
  });
  assert.match(opened, /^HTTP\/1\.1 101/);
  assert.match(opened, /sec-websocket-protocol: aim-tab-v1\r\n/i);
  const plain = await bridge.fetch("/__aim/tab");
  assert.equal(plain.status, 426);
  assert.equal((await plain.json()).error, "upgrade_required");
});

Deno.test("a second tab waits for the lease and gets it when the first closes", async () => {
  await using bridge = startBridge();
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
  assert.ok(second.has("session"));
  assert.equal(
    (await (await bridge.invoke(token, "search", "x")).json()).result,
    "from the second tab",
  );
});

Deno.test("a lease that is not renewed expires and passes to the waiting tab", async () => {
  await using bridge = startBridge({ leaseMs: 150 });
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

Deno.test("heartbeats keep the lease while a second tab waits", async () => {
  await using bridge = startBridge({ leaseMs: 200 });
  const token = await bridge.openSession("/control-panel");
  await using first = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await first.next("lease");
  await using second = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await second.next("lease");
  // Renew on each grant, five times, each well inside the lease.
  for (let i = 0; i < 5; i++) {
    const renewed = first.next("lease", (m) => m.status === "granted");
    first.send({ type: "heartbeat" });
    await renewed;
  }
  assert.ok(!second.has("lease", (m) => m.type === "lease" && m.status === "granted"));
  const waiting = second.next("lease");
  second.send({ type: "heartbeat" });
  assert.equal((await waiting).status, "waiting");
});

Deno.test("a reload moves the session to the new page once the new tab owns it", async () => {
  await using bridge = startBridge();
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

Deno.test("a malformed message closes only that channel, with a reason", async () => {
  await using bridge = startBridge();
  const cases: [unknown, number, RegExp][] = [
    ["not json", CloseCode.Malformed, /not valid JSON/],
    [{ type: "launch" }, CloseCode.Malformed, /malformed message/],
    [{ type: "state", state: "not an object" }, CloseCode.Malformed, /state/],
    [{ type: "result", id: "x", ok: false }, CloseCode.Malformed, /error/],
    [{ type: "hello", page: "/control-panel" }, CloseCode.Malformed, /already/],
    [{ type: "register", actions: "all" }, CloseCode.Malformed, /actions/],
    [
      '{"type":"register","actions":[{"id":"p","input_schema":{"type":"object","properties":{"__proto__":{"type":"string"}},"additionalProperties":false}}]}',
      CloseCode.Malformed,
      /__proto__/,
    ],
  ];
  const other = await bridge.openSession("/control-panel");
  await using bystander = await FakeTab.open(bridge.origin, {
    token: other,
    page: "/control-panel",
  });
  await bystander.next("lease");
  for (const [message, code, reason] of cases) {
    const token = await bridge.openSession("/control-panel");
    const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    tab.send(message);
    const closed = await tab.closed;
    assert.equal(closed.code, code, JSON.stringify(message));
    assert.match(closed.reason, reason);
  }
  // The bridge and the other session still serve.
  await bystander.register([{ id: "search", handler: () => "alive" }]);
  assert.equal((await (await bridge.invoke(other, "search", "x")).json()).result, "alive");
});

Deno.test("a message before hello closes the channel", async () => {
  await using bridge = startBridge();
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel", hello: false });
  tab.send({ type: "heartbeat" });
  const closed = await tab.closed;
  assert.equal(closed.code, CloseCode.Malformed);
  assert.match(closed.reason, /hello/);
});

Deno.test("an oversized message closes the channel with 1009; a large state is cut, not refused", async () => {
  await using bridge = startBridge({ limits: { maxMessageBytes: 4096, maxStateBytes: 1024 } });
  const token = await bridge.openSession("/control-panel");
  const big = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await big.next("lease");
  big.setState({ blob: "x".repeat(5000) });
  const closed = await big.closed;
  assert.equal(closed.code, CloseCode.TooLarge);
  assert.match(closed.reason, /message over 4096 bytes/);
  const token2 = await bridge.openSession("/control-panel");
  await using state = await FakeTab.open(bridge.origin, { token: token2, page: "/control-panel" });
  await state.next("lease");
  state.setState({ blob: "x".repeat(2000) });
  await state.register([{ id: "search", handler: () => "still here" }]);
  const res = await bridge.invoke(token2, "search", "x");
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.result, "still here");
  assert.equal(body.state.blob, undefined);
  assert.deepEqual(body.state._truncated.keys, { blob: "left out" });
});

Deno.test("register() rejects invalid and reserved actions and keeps the valid ones", async () => {
  await using bridge = startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const registered = await tab.register([
    { id: "search" },
    { id: "login" },
    { id: "search" },
    { id: "bad id!" },
    { id: "no_example", input_example: "" },
    { id: "wrong_example", input_example: { a: "b" } },
    {
      id: "deep",
      input_schema: {
        type: "object",
        properties: { a: { type: "object" } },
        additionalProperties: false,
      },
      input_example: {},
    },
  ]);
  assert.deepEqual(registered.accepted, ["search"]);
  assert.deepEqual(registered.rejected.map((r) => r.id), [
    "login",
    "search",
    "bad id!",
    "no_example",
    "wrong_example",
    "deep",
  ]);
  for (const r of registered.rejected) assert.ok(r.reason.length > 5);
});

Deno.test("state snapshots lose keys that look like secrets", async () => {
  await using bridge = startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  tab.setState({
    view: "list",
    token: "t0ps3cret",
    password: "hunter2",
    nested: { apiKey: "k", api_key: "k", keep: 1, items: [{ secret: "s", id: "a" }] },
  });
  await tab.register([{ id: "search" }]);
  const body = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  assert.deepEqual(body.state, {
    view: "list",
    nested: { keep: 1, items: [{ id: "a" }] },
    authenticated: false,
  });
});

Deno.test("a late result after a timeout is ignored and the channel keeps working", async () => {
  await using bridge = startBridge({ tabTimeoutMs: 80 });
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: (q) => q }]);
  tab.answerWith = "never";
  const res = await bridge.invoke(token, "search", "x");
  assert.equal(res.status, 504);
  await res.body?.cancel();
  const late = tab.messages.find((m) => m.type === "invoke");
  tab.send({ type: "result", id: (late as { id: string }).id, ok: true, result: "late" });
  tab.send({ type: "result", id: "never-sent", ok: true, result: "stray" });
  tab.answerWith = "handler";
  assert.equal((await (await bridge.invoke(token, "search", "fresh")).json()).result, "fresh");
});

Deno.test("shutting the bridge down tells the tabs and closes them", async () => {
  const bridge = startBridge();
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const ended = tab.next("ended");
  await bridge[Symbol.asyncDispose]();
  assert.equal((await ended).reason, "shutdown");
  assert.equal((await tab.closed).code, CloseCode.GoingAway);
});

Deno.test("a tab that says the person must confirm gets the confirmation timeout, not the tab timeout", async () => {
  await using bridge = startBridge({ tabTimeoutMs: 50, confirmTimeoutMs: 10_000 });
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "pay", consequential: true }]);
  tab.answerWith = "never";
  const session = bridge.served.bridge.core.sessions.find(token)!;
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

Deno.test("a tab that never said hello is closed when its session ends", async () => {
  await using bridge = startBridge();
  const token = await bridge.openSession("/control-panel");
  const silent = await FakeTab.open(bridge.origin, { token, page: "/control-panel", hello: false });
  const res = await bridge.invoke(token, "disconnect", {});
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal((await silent.closed).code, CloseCode.SessionEnded);
});

Deno.test("channel limits count bytes, not characters", async () => {
  await using bridge = startBridge({ limits: { maxMessageBytes: 4096, maxStateBytes: 2048 } });
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  // 1,000 euro signs: 1,000 characters, 3,000 bytes of UTF-8: over the state limit.
  tab.setState({ text: "€".repeat(1000), small: "€" });
  await tab.register([{ id: "search", handler: () => "ok" }]);
  const body = await (await bridge.invoke(token, "search", "x")).json();
  assert.equal(body.state.small, "€");
  assert.deepEqual(body.state._truncated.keys, { text: "left out" });
  // 1,400 euro signs in one message: 4,200 bytes, over the message limit.
  tab.send({ type: "state", state: { text: "€".repeat(1400) } });
  const closed = await tab.closed;
  assert.equal(closed.code, CloseCode.TooLarge);
  assert.match(closed.reason, /message over 4096 bytes/);
});

Deno.test("a hello for a page that is not on this site closes the channel", async () => {
  await using bridge = startBridge();
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/does-not-exist/at/all" });
  const closed = await tab.closed;
  assert.equal(closed.code, CloseCode.Malformed);
  assert.match(closed.reason, /not an agent-enabled page/);
  const res = await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("one session takes a bounded number of tabs at once", async () => {
  await using bridge = startBridge();
  const token = await bridge.openSession("/control-panel");
  const tabs: FakeTab[] = [];
  for (let i = 0; i < 8; i++) {
    const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    tabs.push(tab);
  }
  const extra = await FakeTab.open(bridge.origin, { token, page: "/control-panel", hello: false });
  const closed = await extra.closed;
  assert.equal(closed.code, CloseCode.Malformed);
  assert.match(closed.reason, /at most 8 tabs/);
  await Promise.all(tabs.map((t) => t.close()));
});
