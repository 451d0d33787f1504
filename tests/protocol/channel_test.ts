/**
 * The tab channel (`GET /__aim/tab`, docs/channel.md) over real WebSockets: who may open it, the
 * messages a tab may send and how a bad one closes only its channel, hello and its timeout,
 * sizes counted in bytes, registrations and state, answers only the owner may give, and how a
 * session or the bridge ending closes the tabs. The lease is tests/protocol/lease_test.ts's, the
 * wait while the person is asked tests/protocol/confirm_wait_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { CloseCode } from "../../bridge/wire/channel.ts";
import { ONE_PROCESS, startBridge, tabHandshake } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { credentials, FakeTab } from "../helpers/fake_tab.ts";

Deno.test("the channel opens with the tab credential only, from the bridge's own origin", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const protocols = (credential: string) => `aim-tab-v1, aim-credential.${credential}`;
  const credential = credentials.get(token)!;
  const refused = /^HTTP\/1\.1 403[\s\S]*tab_credential_required/;
  assert.match(await tabHandshake(bridge, { Origin: bridge.origin }), refused);
  // The credential alone, without the channel's own subprotocol, opens nothing.
  assert.match(
    await tabHandshake(bridge, {
      Origin: bridge.origin,
      "Sec-WebSocket-Protocol": `aim-credential.${credentials.get(token)}`,
    }),
    refused,
  );
  assert.match(
    await tabHandshake(bridge, { Origin: bridge.origin, Cookie: `aim_session=${token}` }),
    refused,
  );
  assert.match(
    await tabHandshake(bridge, {
      Origin: bridge.origin,
      Authorization: `Bearer ${token}`,
      "Sec-WebSocket-Protocol": protocols(token),
    }),
    refused,
  );
  assert.match(
    await tabHandshake(bridge, {
      Origin: "https://evil.example",
      "Sec-WebSocket-Protocol": protocols(credential),
    }),
    /^HTTP\/1\.1 403[\s\S]*forbidden_origin/,
  );
  const opened = await tabHandshake(bridge, {
    Origin: bridge.origin,
    "Sec-WebSocket-Protocol": protocols(credential),
  });
  assert.match(opened, /^HTTP\/1\.1 101/);
  assert.match(opened, /sec-websocket-protocol: aim-tab-v1\r\n/i);
  await expectError(await bridge.fetch("/__aim/tab"), 426, "upgrade_required", {
    Upgrade: "websocket",
  });
});

Deno.test("a malformed message closes only that channel, with a reason", async () => {
  await using bridge = await startBridge();
  const cases: [unknown, number, RegExp][] = [
    ["not json", CloseCode.Malformed, /not valid JSON/],
    [{ type: "launch" }, CloseCode.Malformed, /malformed message/],
    [{ type: "state", state: "not an object" }, CloseCode.Malformed, /state/],
    [{ type: "result", id: "x", ok: false }, CloseCode.Malformed, /error/],
    [{ type: "hello", page: "/control-panel" }, CloseCode.Malformed, /already/],
    [{ type: "register", actions: "all" }, CloseCode.Malformed, /actions/],
    [
      { type: "register", actions: Array.from({ length: 201 }, (_, i) => ({ id: `a${i}` })) },
      CloseCode.Malformed,
      /actions/,
    ],
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
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel", hello: false });
  tab.send({ type: "heartbeat" });
  const closed = await tab.closed;
  assert.equal(closed.code, CloseCode.Malformed);
  // Said at once, not 10 s later when the bridge gives up waiting for a hello.
  assert.equal(closed.reason, "send hello first");
});

Deno.test("a channel that never says hello is closed after the hello timeout, and frees its place", async () => {
  await using bridge = await startBridge({ helloTimeoutMs: 100 });
  const token = await bridge.openSession("/control-panel");
  const silent = await FakeTab.open(bridge.origin, { token, page: "/control-panel", hello: false });
  // Bounded, so that a bridge that never closes it fails the test instead of hanging it.
  const closed = await Promise.race([
    silent.closed,
    new Promise<never>((_, reject) => {
      const timer = setTimeout(
        () => reject(new Error("the channel is still open after 5 s")),
        5_000,
      );
      silent.closed.finally(() => clearTimeout(timer));
    }),
  ]);
  assert.equal(closed.code, CloseCode.Malformed);
  assert.equal(closed.reason, "no hello within 0.1 s");
  // The session is not held by it: a tab that says hello takes the lease.
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
});

Deno.test("an oversized message closes the channel with 1009; a large state is cut, not refused", async () => {
  await using bridge = await startBridge({
    limits: { maxMessageBytes: 4096, maxStateBytes: 1024 },
  });
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
  await using bridge = await startBridge();
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
      id: "unchecked",
      input_schema: {
        type: "object",
        properties: { a: { allOf: [{ type: "string" }] } },
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
    "unchecked",
  ]);
  for (const r of registered.rejected) assert.ok(r.reason.length > 5);
});

Deno.test("state snapshots lose keys that look like secrets", async () => {
  await using bridge = await startBridge();
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
  await using bridge = await startBridge({ tabTimeoutMs: 80 });
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

Deno.test("shutting the bridge down tells the tabs and closes them", ONE_PROCESS, async () => {
  const bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const ended = tab.next("ended");
  await bridge[Symbol.asyncDispose]();
  assert.equal((await ended).reason, "shutdown");
  assert.equal((await tab.closed).code, CloseCode.GoingAway);
});

Deno.test(
  "shutting the bridge down answers the invocation under way before it ends the session",
  ONE_PROCESS,
  async () => {
    const bridge = await startBridge();
    const token = await bridge.openSession("/control-panel");
    const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    let release!: () => void;
    await tab.register([{
      id: "search",
      handler: () => new Promise((resolve) => release = () => resolve("finished")),
    }]);
    const pending = bridge.invoke(token, "search", "x");
    await tab.next("invoke");
    const ended = tab.next("ended");
    const stopping = bridge[Symbol.asyncDispose]();
    // The page answers after the shutdown began: the agent still gets the answer.
    release();
    const res = await pending;
    assert.equal(res.status, 200);
    assert.equal((await res.json()).result, "finished");
    assert.equal((await ended).reason, "shutdown");
    await stopping;
  },
);

Deno.test(
  "a session that expires while its tab is open tells the tab why and closes it",
  ONE_PROCESS,
  async () => {
    let now = Date.now();
    await using bridge = await startBridge({ now: () => now, idleMs: 60_000, leaseMs: 3_600_000 });
    const token = await bridge.openSession("/control-panel");
    const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    now += 60_001;
    bridge.served.bridge.core.sessions.sweep();
    assert.deepEqual(await tab.next("ended"), { type: "ended", reason: "expired" });
    assert.equal((await tab.closed).code, CloseCode.SessionEnded);
  },
);

Deno.test("only the owner's answer to the invocation in progress counts", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using owner = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await owner.next("lease");
  await owner.register([{ id: "search" }]);
  owner.answerWith = "never";
  await using waiting = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await waiting.next("lease");
  const session = (await bridge.served.bridge.core.sessions.find(token))!;
  const awaited: string[] = [];
  const pending = bridge.served.bridge.core.invoke(session, { actionId: "search", input: "x" }, {
    onAwaiting: (message) => awaited.push(message),
  });
  const { id } = await owner.next("invoke");
  // A waiting tab answers, or says it asks the person: both ignored.
  waiting.send({ type: "awaiting", id, message: "forged prompt" });
  waiting.send({ type: "result", id, ok: true, result: "forged by the waiting tab" });
  // The owner answers another id: ignored.
  owner.send({ type: "result", id: "another-id", ok: true, result: "for another invocation" });
  // Messages of one socket are handled in order: a heartbeat's answer comes after them.
  for (const tab of [waiting, owner]) {
    const answered = tab.next("lease");
    tab.send({ type: "heartbeat" });
    await answered;
  }
  assert.deepEqual(awaited, []);
  owner.send({ type: "result", id, ok: true, result: "from the owner" });
  assert.equal((await pending).result, "from the owner");
});

Deno.test("a registration and a state snapshot each replace the tab's previous one", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  tab.setState({ view: "list", filter: "pending" });
  await tab.register([{ id: "search", handler: (q) => q }, { id: "export", handler: () => 1 }]);
  tab.setState({ view: "detail" });
  await tab.register([{ id: "search", handler: (q) => q }]);
  const manifest = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  assert.deepEqual(manifest.actions.map((a: { id: string }) => a.id), ["disconnect", "search"]);
  assert.deepEqual(manifest.state, { view: "detail", authenticated: false });
  await expectError(await bridge.invoke(token, "export", "x"), 404, "unknown_action");
});

Deno.test("a session that ends tells every tab, waiting ones too, and closes each with 4001", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const tabs = [];
  for (let i = 0; i < 3; i++) {
    const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    tabs.push(tab);
  }
  const res = await bridge.invoke(token, "disconnect", {});
  assert.equal(res.status, 200);
  await res.body?.cancel();
  for (const tab of tabs) {
    assert.deepEqual(await tab.next("ended"), { type: "ended", reason: "disconnected" });
    assert.equal((await tab.closed).code, CloseCode.SessionEnded);
  }
});

Deno.test("a close reason is cut to the 123 bytes a WebSocket allows, whatever its characters", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  // zod names the unknown key in its complaint: 100 euro signs are 300 bytes of UTF-8.
  tab.send(`{"type":"heartbeat","${"€".repeat(100)}":1}`);
  const closed = await tab.closed;
  assert.equal(closed.code, CloseCode.Malformed);
  assert.match(closed.reason, /^malformed message/);
  assert.ok(new TextEncoder().encode(closed.reason).length <= 123, closed.reason);
  // The bridge goes on serving the session.
  await using again = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  assert.equal((await again.next("lease")).status, "granted");
});

Deno.test("a socket that opens after its session ended is told so and closed with 4001", async () => {
  // The race between the handshake's check and the open, played on the core: the session
  // ends first, the socket's port connects after.
  await using bridge = await startBridge();
  const { core } = bridge.served.bridge;
  const session = (await core.sessions.find(await bridge.openSession("/control-panel")))!;
  core.sessions.end(session, "disconnected");
  const sent: unknown[] = [];
  const closed: number[] = [];
  core.connectTab(session, {
    send: (message) => sent.push(message),
    close: (code) => closed.push(code),
  });
  assert.deepEqual(sent, [{ type: "ended", reason: "disconnected" }]);
  assert.deepEqual(closed, [CloseCode.SessionEnded]);
});

Deno.test("a tab that never said hello is closed when its session ends", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const silent = await FakeTab.open(bridge.origin, { token, page: "/control-panel", hello: false });
  const res = await bridge.invoke(token, "disconnect", {});
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal((await silent.closed).code, CloseCode.SessionEnded);
});

Deno.test("channel limits count bytes, not characters", async () => {
  await using bridge = await startBridge({
    limits: { maxMessageBytes: 4096, maxStateBytes: 2048 },
  });
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

Deno.test("a hello for a page that is not on this site, or no page path at all, closes the channel", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/does-not-exist/at/all" });
  const closed = await tab.closed;
  assert.equal(closed.code, CloseCode.Malformed);
  assert.match(closed.reason, /not an agent-enabled page/);
  const invalid = await FakeTab.open(bridge.origin, { token, page: "/orders/../control-panel" });
  const refused = await invalid.closed;
  assert.equal(refused.code, CloseCode.Malformed);
  assert.equal(refused.reason, "hello.page is not a valid page path");
  const res = await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("one session takes a bounded number of tabs at once", ONE_PROCESS, async () => {
  await using bridge = await startBridge();
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
