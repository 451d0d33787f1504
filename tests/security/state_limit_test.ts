/**
 * Finding 4: a page whose own state outgrows the limit keeps its lease; the state is cut with
 * a marker the agent can read.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { boundedJsonBytes } from "../../bridge/core/state_bytes.ts";
import { fitState, type FitStateOptions, TRUNCATED_KEY } from "../../bridge/wire/state_limit.ts";
import { startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

/** The tab's way of counting (the default) and the bridge's, which must cut the same. */
const MEASURES: [string, FitStateOptions][] = [
  ["the tab's", {}],
  ["the bridge's", { measure: boundedJsonBytes }],
];

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

/**
 * fitState as it was, each value's bytes counted exactly: the model the one that stops counting
 * past the room must match.
 */
function fitModel(state: Record<string, unknown>, maxBytes: number) {
  if (bytes(state) <= maxBytes) return { state, truncated: false };
  const budget = Math.max(0, maxBytes - Math.min(2048, Math.floor(maxBytes / 4)));
  const out: Record<string, unknown> = {};
  const cut: Record<string, string> = {};
  let used = 2;
  for (const [key, value] of Object.entries(state)) {
    if (key === TRUNCATED_KEY) continue;
    const size = bytes(key) + 1 + bytes(value) + 1;
    if (used + size <= budget) {
      out[key] = value;
      used += size;
      continue;
    }
    if (Array.isArray(value)) {
      const kept: unknown[] = [];
      let listUsed = used + bytes(key) + 3;
      for (const item of value) {
        const itemSize = bytes(item) + 1;
        if (listUsed + itemSize > budget) break;
        kept.push(item);
        listUsed += itemSize;
      }
      out[key] = kept;
      used = listUsed;
      cut[key] = `kept ${kept.length} of ${value.length} items`;
    } else cut[key] = "left out";
  }
  const named = Object.entries(cut);
  const keys = Object.fromEntries(
    named.slice(0, 20).map(([k, v]) => [k.length > 64 ? k.slice(0, 64) + "…" : k, v]),
  );
  if (named.length > 20) keys["…"] = `${named.length - 20} more keys left out`;
  out[TRUNCATED_KEY] = { limit_bytes: maxBytes, keys };
  return { state: out, truncated: true };
}

Deno.test("fitState() cuts exactly as counting every value's bytes would, long strings and lists, any characters", () => {
  // Values long against the limit, in characters of one, two and three UTF-8 bytes and escapes.
  const long = fc.oneof(
    fc.string({ unit: fc.constantFrom("a", "é", "€", '"', "\n"), minLength: 0, maxLength: 3000 }),
    fc.integer({ min: 0, max: 6000 }).map((n) => "x".repeat(n)),
  );
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    long,
    fc.array(long, { maxLength: 6 }),
    fc.dictionary(fc.string({ maxLength: 4 }), long, { maxKeys: 4 }),
  );
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 10 }),
      fc.integer({ min: 64, max: 12_000 }),
      (state, limit) => {
        delete state[TRUNCATED_KEY];
        for (const [name, options] of MEASURES) {
          assert.deepEqual(fitState(state, limit, options), fitModel(state, limit), name);
        }
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("fitState() cuts exactly as counting every value's bytes would, at the edge of the room", () => {
  // One value whose size is within a few bytes of what the room leaves it: a string, a list of
  // one, a string beside fields JSON leaves out (undefined, a function).
  const edge = fc.integer({ min: 256, max: 8192 }).chain((limit) => {
    const budget = limit - Math.min(2048, Math.floor(limit / 4));
    return fc.record({
      limit: fc.constant(limit),
      key: fc.string({ minLength: 1, maxLength: 6 }),
      chars: fc.integer({ min: -4, max: 4 }).map((d) => Math.max(0, budget - 12 + d)),
      unit: fc.constantFrom("a", "é", "\n"),
      shape: fc.constantFrom("string", "list", "object"),
      before: fc.constantFrom(0, 1, 2),
    });
  });
  fc.assert(
    fc.property(edge, ({ limit, key, chars, unit, shape, before }) => {
      if (key === TRUNCATED_KEY) return;
      const text = unit.repeat(unit === "a" ? chars : Math.floor(chars / 2));
      const value = shape === "string"
        ? text
        : shape === "list"
        ? [text.slice(0, Math.max(0, chars - 4))]
        : {
          gone: undefined,
          skipped: () => 1,
          [`pad_${"p".repeat(before * 20)}`]: undefined,
          t: text,
        };
      const state: Record<string, unknown> = before ? { a: "b".repeat(before) } : {};
      state[key] = value;
      // And one that cannot fit after it: the state is cut, the value above decided at its edge.
      state[`${key}_after`] = "w".repeat(limit);
      for (const [name, options] of MEASURES) {
        assert.deepEqual(fitState(state, limit, options), fitModel(state, limit), name);
      }
    }),
    { numRuns: 3000 },
  );
});

Deno.test("fitState() leaves out a value written by toJSON, undefined fields and functions as JSON does", () => {
  for (const [name, options] of MEASURES) {
    const stamp = { toJSON: () => "x".repeat(5000), big: "y".repeat(9000) };
    const state = { when: stamp, gone: undefined, fn: () => 1, keep: "z".repeat(100) };
    const { state: out } = fitState(state as Record<string, unknown>, 4096, options);
    assert.equal(out.keep, "z".repeat(100), name);
    const marker = out[TRUNCATED_KEY] as { keys: Record<string, string> };
    assert.equal(marker.keys.when, "left out", name);
    // The small one that toJSON writes is kept, whatever its fields.
    const small = { toJSON: () => "t", big: "y".repeat(9000) };
    const kept = fitState({ when: small } as Record<string, unknown>, 4096, options);
    assert.equal(kept.truncated, false, name);
  }
});

Deno.test("the bridge counts a state past its room without writing its JSON, and exactly within it", () => {
  // Writing the JSON would call toJSON, which throws: the walk stops at the string first.
  const refused = { toJSON: () => assert.fail("the JSON of a value past its room was written") };
  assert.ok(boundedJsonBytes(["x".repeat(200), refused], 100) > 100);
  assert.ok(boundedJsonBytes({ a: "é".repeat(60), b: [1, 2, "x".repeat(50)] }, 100) > 100);
  // Within the room, or with no room, the count is the exact UTF-8 bytes of the JSON.
  for (
    const value of [{ a: "é€\n", b: [1, null, true] }, "x".repeat(90), [{}, []], "€".repeat(40)]
  ) {
    assert.equal(boundedJsonBytes(value, 120), bytes(value));
    assert.equal(boundedJsonBytes(value, Infinity), bytes(value));
  }
});

Deno.test("the bridge's count of a state past its room is never more than its JSON's bytes, and tells the same side of the room", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), fc.nat({ max: 300 }), (value, room) => {
      const exact = bytes(value);
      const counted = boundedJsonBytes(value, room);
      assert.equal(counted > room, exact > room, `room ${room}`);
      assert.ok(counted <= exact, `${counted} counted of ${exact}`);
      if (exact <= room) assert.equal(counted, exact);
    }),
    { numRuns: 500 },
  );
});

Deno.test("the bridge's count is exact at every room around a state's size, whatever JSON.stringify leaves out", () => {
  class Point {
    constructor(readonly x: string) {}
    toJSON() {
      return 1;
    }
  }
  const bare = Object.assign(Object.create(null), { k: "v" });
  const table: unknown[] = [
    { a: 1 },
    { ab: "x", c: [true, null] },
    ["x", "yy", 3],
    [[], {}],
    "é€",
    { skipped: undefined, fn: () => 1, sym: Symbol("s"), kept: 2 },
    { toJSON: () => 1, big: "x".repeat(40) },
    new Point("y".repeat(40)),
    { when: new Date(0) },
    bare,
    // Its own indexed characters are entries; its JSON is the string.
    new String("abc"),
  ];
  for (const value of table) {
    const exact = bytes(value);
    for (let room = 0; room <= exact + 2; room++) {
      const counted = boundedJsonBytes(value, room);
      assert.ok(counted <= exact, `${JSON.stringify(value)} in ${room}: ${counted} of ${exact}`);
      assert.equal(counted > room, exact > room, `${JSON.stringify(value)} in ${room}`);
    }
  }
});
