import assert from "node:assert/strict";
import fc from "fast-check";
import { applyMergePatch, createMergePatch } from "../../bridge/protocol/merge_patch.ts";

Deno.test("createMergePatch(): applying the patch to the old value always gives the new one", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 4 }), (x, y) => {
      // As values come off the wire: plain objects.
      const [a, b] = [JSON.parse(JSON.stringify(x)), JSON.parse(JSON.stringify(y))];
      const patch = createMergePatch(a, b);
      if (patch === undefined) return; // Not expressible: the full value is sent instead.
      assert.deepEqual(applyMergePatch(a, patch), b);
    }),
    { numRuns: 2000 },
  );
  // Related values (an old and a new state), where patches are expected.
  const state = fc.dictionary(
    fc.constantFrom("rows", "filter", "count", "user"),
    fc.oneof(
      fc.string(),
      fc.integer(),
      fc.array(fc.record({ id: fc.string(), done: fc.boolean() })),
    ),
  );
  fc.assert(
    fc.property(state, state, (x, y) => {
      const [a, b] = [JSON.parse(JSON.stringify(x)), JSON.parse(JSON.stringify(y))];
      const patch = createMergePatch({ state: a, v: 1 }, { state: b, v: 2 });
      assert.notEqual(patch, undefined);
      assert.deepEqual(applyMergePatch({ state: a, v: 1 }, patch), { state: b, v: 2 });
    }),
  );
});

Deno.test("createMergePatch() sends only what changed, and nothing it cannot say", () => {
  assert.deepEqual(createMergePatch({ a: 1, b: { c: 2, d: 3 } }, { a: 1, b: { c: 2, d: 4 } }), {
    b: { d: 4 },
  });
  assert.deepEqual(createMergePatch({ a: 1, gone: true }, { a: 1 }), { gone: null });
  assert.equal(createMergePatch({ a: 1 }, { a: null }), undefined);
  assert.deepEqual(createMergePatch({ a: [1, 2] }, { a: [1] }), { a: [1] });
});
