/**
 * The budget of one session's tabs on the channel: per kind of message and in characters, a
 * burst and then so many a second. The message past it closes the tab (1008, saying which
 * budget), never the bridge; the invocations an agent sends pay for the tab's answers; a tab that
 * reconnects does not get a new budget.
 * @module
 */
import assert from "node:assert/strict";
import { CHANNEL_BUDGETS, INVOKE_CREDIT } from "../../bridge/core/channel_budget.ts";
import { ADDRESS_CHARACTERS } from "../../bridge/core/address_budget.ts";
import { CREDENTIAL_PROTOCOL_PREFIX, TAB_PROTOCOL } from "../../bridge/wire/names.ts";
import { ONE_PROCESS, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { credentials, FakeTab, openPageSession } from "../helpers/fake_tab.ts";
import { rawRequest } from "../helpers/raw_http.ts";

/**
 * A bridge whose clock stands still unless the test moves it: no budget refills by itself. It
 * trusts `X-Forwarded-For`, so that a test can be several client addresses.
 */
async function stillBridge(): Promise<{ bridge: TestBridge; clock: { now: number } }> {
  const clock = { now: 1_000_000 };
  const bridge = await startBridge({ now: () => clock.now, trustProxy: true });
  return { bridge, clock };
}

/**
 * The bridge's answer to a tab's upgrade of the channel of `token` from `from`, when it refuses
 * it (a raw request: an upgrade it accepted would hold the connection open).
 */
async function refusedUpgrade(
  bridge: TestBridge,
  token: string,
  from: Record<string, string> = {},
): Promise<{ status: number; retryAfter: string | null; error: string }> {
  const answer = await rawRequest(bridge.port, {
    target: "/__aim/tab",
    headers: [
      ["Upgrade", "websocket"],
      ["Sec-WebSocket-Version", "13"],
      ["Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="],
      [
        "Sec-WebSocket-Protocol",
        `${TAB_PROTOCOL}, ${CREDENTIAL_PROTOCOL_PREFIX}${credentials.get(token)}`,
      ],
      ["Origin", bridge.origin],
      ...Object.entries(from),
    ],
  });
  const body = answer.body ? JSON.parse(answer.body) : {};
  return { status: answer.status, retryAfter: answer.header("Retry-After"), error: body.error };
}

/** A 1 MB `state` message, the n-th. */
const big = (n: number) => JSON.stringify({ type: "state", state: { n, text: "x".repeat(1e6) } });

/** A tab holding a session on /control-panel, its `search` action answered at once. */
async function holder(bridge: TestBridge): Promise<{ token: string; tab: FakeTab }> {
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: (input) => ({ found: input }) }]);
  return { token, tab };
}

/** How the bridge closed `tab`; fails when it does not within 10 s (a budget that holds nothing). */
async function closedBy(tab: FakeTab): Promise<CloseEvent> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the bridge did not close the tab")), 10_000);
  });
  try {
    return await Promise.race([tab.closed, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Proves the tab is still open and heard: a heartbeat, answered. */
async function alive(tab: FakeTab): Promise<void> {
  const answered = tab.next("lease");
  tab.send({ type: "heartbeat" });
  await answered;
}

/** One message of each kind, as a tab sends it after hello; `n` varies it. */
const KINDS: [kind: keyof typeof CHANNEL_BUDGETS, message: (n: number) => unknown][] = [
  ["navigate", (n) => ({ type: "navigate", page: n % 2 ? "/orders" : "/control-panel" })],
  ["heartbeat", () => ({ type: "heartbeat" })],
  ["register", () => ({ type: "register", actions: [] })],
  ["state", (n) => ({ type: "state", state: { n } })],
  ["answer", (n) => ({ type: "result", id: `stray-${n}`, ok: true, result: null })],
  ["answer", (n) => ({ type: "awaiting", id: `stray-${n}`, message: "Asking." })],
  ["answer", (n) => ({ type: "settled", id: `stray-${n}` })],
  [
    "run",
    () => ({ type: "run", actionId: "search", outcome: "ok", durationMs: 1, via: "webmcp" }),
  ],
];

Deno.test(
  "each kind of message past its burst closes the tab with 1008 and the budget it broke",
  ONE_PROCESS,
  async () => {
    for (const [kind, message] of KINDS) {
      const { bridge } = await stillBridge();
      await using _bridge = bridge;
      const { tab } = await holder(bridge);
      const { burst, perSecond } = CHANNEL_BUDGETS[kind];
      // The holder's own registration spent one of its kind already.
      const spent = kind === "register" ? 1 : 0;
      for (let n = 0; n < burst - spent; n++) tab.send(message(n));
      // Each was handled: a heartbeat is answered; the others are heard before a heartbeat after.
      if (kind === "heartbeat") {
        for (let n = 0; n < burst; n++) await tab.next("lease");
      } else await alive(tab);
      const type = (message(0) as { type: string }).type;
      tab.send(message(burst));
      const closed = await closedBy(tab);
      assert.equal(closed.code, 1008, type);
      assert.equal(closed.reason, `more than ${perSecond} ${type} messages a second`);
      // The bridge goes on: another session opens and answers.
      const other = await holder(bridge);
      const res = await bridge.invoke(other.token, "search", "pens");
      assert.equal(res.status, 200);
      await res.body?.cancel();
      await other.tab.close();
    }
  },
);

Deno.test("a flood of navigations ends at the budget: the tab is closed, another session's invocation is answered", async () => {
  await using bridge = await startBridge();
  const flooder = await holder(bridge);
  const other = await holder(bridge);
  await using _other = other.tab;
  // What break 9 sent: navigations as fast as a socket takes them.
  const flood = JSON.stringify({ type: "navigate", page: "/orders" });
  for (let n = 0; n < 20_000 && flooder.tab.socket.readyState === WebSocket.OPEN; n++) {
    flooder.tab.send(flood);
  }
  await closedBy(flooder.tab);
  // The bridge handled no more than the budget: one `page` answer each, then it closed the tab
  // (a client that floods may not read the close frame: it learns of it as its socket drops).
  const { burst } = CHANNEL_BUDGETS.navigate;
  const answered = flooder.tab.messages.filter((m) => m.type === "page").length;
  assert.ok(answered <= burst, `${answered} navigations were handled`);
  const started = performance.now();
  const res = await bridge.invoke(other.token, "search", "pens");
  assert.equal(res.status, 200);
  assert.deepEqual((await res.json()).result, { found: "pens" });
  assert.ok(performance.now() - started < 1000);
});

Deno.test("a budget fills again at its rate", ONE_PROCESS, async () => {
  const { bridge, clock } = await stillBridge();
  await using _bridge = bridge;
  const { tab } = await holder(bridge);
  const { burst, perSecond } = CHANNEL_BUDGETS.navigate;
  for (let n = 0; n < burst; n++) tab.send({ type: "navigate", page: "/control-panel" });
  await alive(tab);
  clock.now += 1000;
  for (let n = 0; n < perSecond; n++) tab.send({ type: "navigate", page: "/control-panel" });
  await alive(tab);
  tab.send({ type: "navigate", page: "/control-panel" });
  assert.equal((await closedBy(tab)).reason, `more than ${perSecond} navigate messages a second`);
});

Deno.test(
  "the characters of a tab's messages are budgeted, whatever their kind",
  ONE_PROCESS,
  async () => {
    const { bridge } = await stillBridge();
    await using _bridge = bridge;
    const { tab } = await holder(bridge);
    const { burst, perSecond } = CHANNEL_BUDGETS.characters;
    // Under the message limit each (1 MiB), and within the state budget in number.
    let sent = 0;
    for (let n = 0; sent + big(n).length <= burst - 10_000; n++) {
      tab.send(big(n));
      sent += big(n).length;
    }
    await alive(tab);
    tab.send(big(99));
    const closed = await closedBy(tab);
    assert.equal(closed.code, 1008);
    assert.equal(closed.reason, `more than ${perSecond} characters of messages a second`);
  },
);

Deno.test(
  "the invocations an agent sends pay for the tab's answers: a page driven fast is never closed",
  ONE_PROCESS,
  async () => {
    const { bridge } = await stillBridge();
    await using _bridge = bridge;
    const { token, tab } = await holder(bridge);
    await using _tab = tab;
    // A state and a result for each, far past their buckets, with no time for them to fill.
    tab.stateAfter = (_id, input) => ({ last: input });
    const calls = CHANNEL_BUDGETS.state.burst + CHANNEL_BUDGETS.answer.burst + 50;
    for (let n = 0; n < calls; n++) {
      const res = await bridge.invoke(token, "search", `q${n}`);
      assert.equal(res.status, 200, `call ${n}`);
      assert.deepEqual((await res.json()).state.last, `q${n}`);
    }
    await alive(tab);
  },
);

Deno.test(
  "an invocation pays for its own answers only: the messages and characters a tab sends after them count",
  ONE_PROCESS,
  async () => {
    for (const flood of ["state", "characters"] as const) {
      const { bridge } = await stillBridge();
      await using _bridge = bridge;
      const { token, tab } = await holder(bridge);
      const res = await bridge.invoke(token, "search", "pens");
      assert.equal(res.status, 200);
      await res.body?.cancel();
      const { perSecond } = CHANNEL_BUDGETS[flood];
      const message = (n: number) => ({
        type: "state",
        state: flood === "state" ? { n } : { n, big: "x".repeat(1e6 - 100) },
      });
      // The tab answered with a result (1 of the credit's 4 messages): 3 messages are left, or 2
      // messages of about 1e6 characters. First as much as the bucket holds (all 300 states, or
      // 4 of the 4 MiB), heard; then exactly up to the one past the bucket and the credit
      // together (more after it would reach a closed socket, whose close the client then misses).
      const first = flood === "state" ? CHANNEL_BUDGETS.state.burst : 4;
      for (let n = 0; n < first; n++) tab.send(message(n));
      await alive(tab);
      const more = flood === "state" ? INVOKE_CREDIT.messages : 3;
      for (let n = 0; n < more; n++) tab.send(message(first + n));
      const closed = await closedBy(tab);
      assert.equal(closed.code, 1008, `${flood}: ${closed.reason}`);
      assert.equal(
        closed.reason,
        flood === "state"
          ? `more than ${perSecond} state messages a second`
          : `more than ${perSecond} characters of messages a second`,
      );
    }
  },
);

Deno.test(
  "a tab that reconnects gets no new budget: past the session's hellos, the upgrade is refused with 429 and Retry-After",
  ONE_PROCESS,
  async () => {
    const { bridge, clock } = await stillBridge();
    await using _bridge = bridge;
    const token = await bridge.openSession("/control-panel");
    const { burst, perSecond } = CHANNEL_BUDGETS.hello;
    for (let n = 0; n < burst; n++) {
      const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
      await tab.next("lease");
      await tab.close();
    }
    // No socket to push into: the upgrade itself is refused until the session has a hello.
    const refused = await refusedUpgrade(bridge, token);
    assert.deepEqual(refused, {
      status: 429,
      retryAfter: String(Math.ceil(1 / perSecond)),
      error: "too_many_requests",
    });
    clock.now += 1000 / perSecond;
    const again = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await again.next("lease");
    await again.close();
  },
);

Deno.test(
  "a session whose tabs spent their characters is refused at the upgrade until half a burst refills",
  ONE_PROCESS,
  async () => {
    const { bridge, clock } = await stillBridge();
    await using _bridge = bridge;
    const { token, tab } = await holder(bridge);
    const { burst, perSecond } = CHANNEL_BUDGETS.characters;
    // As many 1 MB messages as the burst holds, then one more: the tab is closed.
    const sent = Math.floor(burst / big(0).length);
    for (let n = 0; n <= sent; n++) tab.send(big(n));
    assert.equal(
      (await closedBy(tab)).reason,
      `more than ${perSecond} characters of messages a second`,
    );
    const refused = await refusedUpgrade(bridge, token);
    assert.equal(refused.status, 429);
    assert.equal(refused.error, "too_many_requests");
    // Until half a burst is back, and no longer: what was left, filled at its rate.
    const refillMs = (burst / 2 - (burst - sent * big(0).length)) * 1000 / perSecond;
    assert.equal(refused.retryAfter, String(Math.ceil(refillMs / 1000)));
    clock.now += Math.floor(refillMs) - 1;
    assert.equal((await refusedUpgrade(bridge, token)).status, 429);
    clock.now += 2;
    const again = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await again.next("lease");
    await again.close();
  },
);

Deno.test(
  "the tabs of one address share its characters: the sessions that flood are closed, a person there is not",
  ONE_PROCESS,
  async () => {
    const { bridge } = await stillBridge();
    await using _bridge = bridge;
    const flooder = { "X-Forwarded-For": "203.0.113.7" };
    const open = async (headers: Record<string, string>) => {
      const token = await openPageSession(bridge.origin, "/control-panel", headers);
      const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel", headers });
      await tab.next("lease");
      return tab;
    };
    // A person behind the same address holds a session and sends small states.
    const person = await open(flooder);
    await using _person = person;
    // Four sessions of the address, each within its own budget (4 MiB): 2 MB each.
    const tabs = [];
    for (let i = 0; i < 4; i++) tabs.push(await open(flooder));
    for (const tab of tabs) {
      tab.send(big(0));
      await alive(tab);
    }
    // The address's burst (4 MiB) is spent, and more: each session past its share is closed.
    for (const tab of tabs) tab.send(big(1));
    const reasons = await Promise.all(tabs.map(async (tab) => (await closedBy(tab)).reason));
    const { perSecond } = ADDRESS_CHARACTERS;
    const byAddress = `more than ${perSecond} characters of messages a second from this address`;
    assert.ok(reasons.filter((r) => r === byAddress).length >= 2, reasons.join(" | "));
    for (let n = 0; n < 20; n++) person.setState({ n, note: "y".repeat(10_000) });
    await alive(person);
    // Another address's sessions have a budget of their own.
    const other = await open({ "X-Forwarded-For": "198.51.100.2" });
    other.send(big(0));
    await alive(other);
    await other.close();
  },
);

Deno.test(
  "each page an agent's action loads pays for its own hello: an agent moves from page to page past the hello burst",
  ONE_PROCESS,
  async () => {
    const { bridge } = await stillBridge();
    await using _bridge = bridge;
    const token = await bridge.openSession("/control-panel");
    const auth = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    let tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    // Past the burst, with the clock standing still: only the invocations pay for the hellos.
    for (let n = 0; n < CHANNEL_BUDGETS.hello.burst + 5; n++) {
      await tab.register([{ id: "go" }]);
      tab.answerWith = "never";
      const going = fetch(`${bridge.origin}/__aim/invoke`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ actionId: "go", input: "on" }),
      });
      const invoke = await tab.next("invoke");
      const result = { navigating_to: `${bridge.origin}/control-panel` };
      tab.send({ type: "result", id: invoke.id, ok: true, result, leaving: "document" });
      await tab.close();
      tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
      await tab.next("lease");
      tab.setState({ n });
      const gone = await going;
      assert.equal(gone.status, 200, `call ${n}: ${await gone.clone().text()}`);
      assert.equal((await gone.json()).result.page, "/control-panel");
    }
    await alive(tab);
    await tab.close();
  },
);
