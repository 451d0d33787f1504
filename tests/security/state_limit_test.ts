/**
 * Finding 4: a page whose own state outgrows the limit keeps its lease; the state is cut with
 * a marker the agent can read.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { fitState, TRUNCATED_KEY } from "../../bridge/wire/state_limit.ts";
import { startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

Deno.test("a page whose state grows past the limit keeps its lease; the agent sees the cut", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const comments: { id: number; text: string }[] = [];
  await tab.register([{
    id: "search",
    handler: () => {
      // Each call grows the page's state by about 2 KB, as add_comment did.
      comments.push({ id: comments.length, text: "c".repeat(2000) });
      tab.setState({ view: "requests", comments });
      return comments.length;
    },
  }]);
  for (let i = 0; i < 300; i++) {
    const res = await bridge.invoke(token, "search", "x");
    assert.equal(res.status, 200, `call ${i}`);
    await res.body?.cancel();
  }
  const manifest = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  assert.equal(manifest.browser_connected, true);
  assert.equal(manifest.state.view, "requests");
  assert.ok(manifest.state.comments.length > 50 && manifest.state.comments.length < 300);
  assert.match(manifest.state[TRUNCATED_KEY].keys.comments, /^kept \d+ of 300 items$/);
  assert.ok(bytes(manifest.state) <= 256 * 1024 + 512);
  assert.ok(!tab.has("ended"));
});

Deno.test("fitState() keeps a state within its limit, in order, and marks exactly what it cut", () => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 12 }),
      fc.integer({ min: 4096, max: 20_000 }),
      (state, limit) => {
        delete state[TRUNCATED_KEY];
        const { state: out, truncated } = fitState(state, limit);
        assert.equal(truncated, bytes(state) > limit);
        if (!truncated) return assert.equal(out, state);
        assert.ok(bytes(out) <= limit, `${bytes(out)} > ${limit}`);
        const marker = out[TRUNCATED_KEY] as { keys: Record<string, string> };
        for (const key of Object.keys(state)) {
          if (key in marker.keys) continue;
          assert.deepEqual(out[key], state[key], key);
        }
      },
    ),
  );
});
