/**
 * BoundedMap (bridge/utils/bounded_map.ts): the caches keyed on what clients send hold at most
 * their bound, forgetting the oldest first, and refuse a bound under one.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { BoundedMap } from "../../bridge/utils/bounded_map.ts";

Deno.test("a bounded map holds exactly its bound, and one more key forgets the oldest", () => {
  const map = new BoundedMap<string, number>(3);
  map.set("a", 1).set("b", 2).set("c", 3);
  assert.deepEqual([...map.keys()], ["a", "b", "c"], "at exactly the bound, nothing is forgotten");
  map.set("d", 4);
  assert.deepEqual([...map.keys()], ["b", "c", "d"]);
  assert.equal(map.size, 3);
  assert.equal(map.max, 3);
});

Deno.test("setting a key a bounded map holds replaces its value and forgets nothing", () => {
  const map = new BoundedMap<string, number>(2);
  map.set("a", 1).set("b", 2).set("a", 3);
  assert.deepEqual([...map.entries()], [["a", 3], ["b", 2]]);
});

Deno.test("getOrSet() makes a value once and keeps it, within the bound", () => {
  const map = new BoundedMap<string, number>(2);
  let made = 0;
  const make = () => ++made;
  assert.equal(map.getOrSet("a", make), 1);
  assert.equal(map.getOrSet("a", make), 1, "the kept value, not a new one");
  assert.equal(made, 1);
  map.getOrSet("b", make);
  map.getOrSet("c", make);
  assert.deepEqual([...map.keys()], ["b", "c"]);
});

Deno.test("a bounded map refuses a bound under one, or one that is not a number", () => {
  for (const max of [0, -1, Number.NaN, 0.5]) {
    assert.throws(() => new BoundedMap(max), RangeError, String(max));
  }
  assert.equal(new BoundedMap(1).max, 1);
});

Deno.test("whatever is set, a bounded map never holds more than its bound and keeps the newest", () => {
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 8 }),
    fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }),
    (max, keys) => {
      const map = new BoundedMap<number, number>(max);
      for (const key of keys) map.set(key, key);
      assert.ok(map.size <= max);
      if (keys.length) assert.ok(map.has(keys[keys.length - 1]!), "the last key set is kept");
    },
  ));
});
