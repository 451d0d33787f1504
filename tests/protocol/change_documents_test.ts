/**
 * The cost of change documents: a change document from one version to
 * another is made once and then read from the cache, and a session or client that asks for more
 * new ones than its budget gets the whole manifest, which is always a correct answer, in place
 * of a change document.
 */
import assert from "node:assert/strict";
import { applyJsonPatch } from "../helpers/patches.ts";
import { ONE_PROCESS, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

const PAGE = "/control-panel";
const JSON_PATCH = "application/json-patch+json";
const MERGE_PATCH = "application/merge-patch+json";
/** A budget that the first change document spends (each is charged at least 0.1 ms). */
const ONE = { msPerSecond: 0, burstMs: 0.001 };

/** A session whose state changed after the agent read it, and the ETag the agent holds. */
async function changedSession(
  bridge: TestBridge,
): Promise<{ token: string; etag: string; held: unknown; tab: FakeTab }> {
  const token = await bridge.openSession(PAGE);
  const tab = await FakeTab.open(bridge.origin, { token, page: PAGE });
  await tab.next("lease");
  const rows = (done: boolean) => [{ id: "a", done: false }, { id: "b", done }];
  tab.setState({ rows: rows(false), filter: "all" });
  await tab.register([{ id: "search", handler: () => 1 }]);
  const res = await bridge.fetch(`${PAGE}.json`, { headers: { Authorization: `Bearer ${token}` } });
  const held = await res.json();
  tab.setState({ rows: rows(true), filter: "all" });
  await tab.register([{ id: "search", handler: () => 1 }]);
  return { token, etag: res.headers.get("etag")!, held, tab };
}

/** A read of `token`'s manifest from `etag`, asking for a change document of `type`. */
async function readChanges(
  bridge: TestBridge,
  token: string,
  etag: string,
  { type = JSON_PATCH, format = "json" }: { type?: string; format?: "json" | "toon" } = {},
): Promise<{ patch: boolean; body: string }> {
  const res = await bridge.fetch(`${PAGE}.${format}`, {
    headers: { Authorization: `Bearer ${token}`, Accept: type, "If-None-Match": etag },
  });
  assert.equal(res.status, 200);
  const body = await res.text();
  const patch = res.headers.get("aim-patch-from") !== null;
  if (!patch) assert.match(res.headers.get("content-type")!, /^(application\/json|text\/toon)/);
  return { patch, body };
}

Deno.test(
  "a change document read again is the one made the first time, not made again",
  ONE_PROCESS,
  async () => {
    // A budget that one change document spends, never refilled: a second one made is refused.
    await using bridge = await startBridge({ changeBudget: { session: ONE } });
    const { token, etag, held, tab } = await changedSession(bridge);
    await using _tab = tab;
    const first = await readChanges(bridge, token, etag);
    assert.ok(first.patch, "the first read gets a change document");
    for (let i = 0; i < 3; i++) {
      const again = await readChanges(bridge, token, etag);
      assert.ok(again.patch, "a read of the same change document is answered from the cache");
      assert.equal(again.body, first.body);
    }
    const full = await (await bridge.fetch(`${PAGE}.json`, {
      headers: { Authorization: `Bearer ${token}` },
    })).json();
    assert.deepEqual(applyJsonPatch(held, JSON.parse(first.body)), full);
  },
);

Deno.test(
  "past its budget, a session gets the whole manifest in place of a new change document",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge({ changeBudget: { session: ONE } });
    const { token, etag, tab } = await changedSession(bridge);
    await using _tab = tab;
    assert.ok((await readChanges(bridge, token, etag)).patch);
    // Another kind of change document, or another format, is another to make: over the budget.
    for (const ask of [{ format: "toon" as const }, { type: MERGE_PATCH }]) {
      const over = await readChanges(bridge, token, etag, ask);
      assert.equal(over.patch, false, "the whole manifest, not an error");
    }
    const over = await readChanges(bridge, token, etag, { type: MERGE_PATCH });
    const full = await (await bridge.fetch(`${PAGE}.json`, {
      headers: { Authorization: `Bearer ${token}` },
    })).text();
    assert.deepEqual(JSON.parse(over.body), JSON.parse(full));
    // What was made is still read; another session has its own budget.
    assert.ok((await readChanges(bridge, token, etag)).patch);
    const other = await changedSession(bridge);
    await using _other = other.tab;
    assert.ok((await readChanges(bridge, other.token, other.etag)).patch);
  },
);

Deno.test(
  "a spent budget fills again with time",
  ONE_PROCESS,
  async () => {
    // Refilled so fast that whatever one change document cost is back by the next request.
    await using bridge = await startBridge({
      changeBudget: { session: { msPerSecond: 1e9, burstMs: 0.001 } },
    });
    const { token, etag, tab } = await changedSession(bridge);
    await using _tab = tab;
    for (const ask of [{}, { format: "toon" as const }, { type: MERGE_PATCH }]) {
      assert.ok((await readChanges(bridge, token, etag, ask)).patch);
    }
  },
);

Deno.test(
  "past its budget, a client gets the whole manifest in place of a new change document, whichever session asks",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge({ changeBudget: { client: ONE } });
    const sessions = [];
    for (let i = 0; i < 2; i++) sessions.push(await changedSession(bridge));
    try {
      const got = [];
      for (const { token, etag } of sessions) {
        got.push((await readChanges(bridge, token, etag)).patch);
      }
      assert.deepEqual(got, [true, false]);
    } finally {
      for (const { tab } of sessions) await tab.close();
    }
  },
);

Deno.test(
  "past its budget, an invocation under Prefer: return=changes answers the whole state",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge({ changeBudget: { session: ONE } });
    const token = await bridge.openSession(PAGE);
    await using tab = await FakeTab.open(bridge.origin, { token, page: PAGE });
    await tab.next("lease");
    let count = 0;
    tab.stateAfter = () => ({ count });
    await tab.register([{ id: "add", handler: () => ++count }]);
    const res = await bridge.fetch(`${PAGE}.json`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    let version = (await res.json()).state_version;
    const answers = [];
    for (let i = 0; i < 2; i++) {
      const answer = await bridge.invoke(token, "add", "x", {
        Prefer: "return=changes",
        "If-Match": `"v${version}"`,
      });
      assert.equal(answer.status, 200);
      const body = await answer.json();
      answers.push({ applied: answer.headers.get("preference-applied"), body });
      version = body.state_version;
    }
    assert.equal(answers[0]!.applied, "return=changes");
    assert.ok(answers[0]!.body.changes);
    assert.equal(answers[1]!.applied, null, "the second change document is over the budget");
    assert.deepEqual(answers[1]!.body.state.count, 2);
    assert.equal(answers[1]!.body.changes, undefined);
  },
);
