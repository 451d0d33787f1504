import assert from "node:assert/strict";
import fc from "fast-check";
import { createMergePatch } from "../../bridge/wire/merge_patch.ts";
import { applyMergePatch, hasGuardedKey } from "../helpers/patches.ts";

/** JSON values without the member names json-merge-patch refuses to patch. */
function json() {
  return fc.jsonValue({ maxDepth: 4 }).filter((v) => !hasGuardedKey(v));
}

Deno.test("createMergePatch(): applying the patch to the old value always gives the new one", () => {
  fc.assert(
    fc.property(json(), json(), (x, y) => {
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

/** The merge patch as createMergePatch() made it before it was made linear (comparing each level again). */
function referencePatch(from: unknown, to: unknown): unknown {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  const diff = (a: unknown, b: unknown): unknown => {
    if (!isObject(a) || !isObject(b)) return b;
    const patch: Record<string, unknown> = {};
    for (const key of Object.keys(a)) if (!Object.hasOwn(b, key)) patch[key] = null;
    for (const [key, value] of Object.entries(b)) {
      if (Object.hasOwn(a, key) && assertEqual(a[key], value)) continue;
      patch[key] = diff(a[key], value);
    }
    return patch;
  };
  const assertEqual = (a: unknown, b: unknown) => {
    try {
      assert.deepStrictEqual(a, b);
      return true;
    } catch {
      return false;
    }
  };
  const patch = diff(from, to);
  return assertEqual(applyMergePatch(from, patch), to) ? patch : undefined;
}

Deno.test("createMergePatch() gives the patch that comparing each level again gave", () => {
  // Without the member names json-merge-patch refuses (the reference applies patches with it).
  const json = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.parse(JSON.stringify(v)))
    .filter((v) => !hasGuardedKey(v));
  const same = (a: unknown, b: unknown) => {
    assert.deepStrictEqual(createMergePatch(a, b), referencePatch(a, b));
  };
  fc.assert(fc.property(json, json, same), { numRuns: 2000 });
  // Related values: an old state and a new one sharing most members.
  fc.assert(
    fc.property(json, json, fc.constantFrom("a", "b", "rows"), (a, b, key) => {
      const old = { a, b: { a, rows: [a] }, rows: b };
      same(old, { ...old, [key]: b });
      same(old, { ...old, b: { ...old.b, [key]: b } });
    }),
    { numRuns: 1000 },
  );
});
