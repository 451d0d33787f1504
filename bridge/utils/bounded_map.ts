/**
 * BoundedMap: a `Map` that holds at most so many entries, forgetting the oldest first.
 * The bridge's caches (validators, patterns, origins, Host verdicts, interned actions, page
 * facts) key on what clients send, so none of them may grow without bound.
 *
 * @example
 * ```ts
 * import { BoundedMap } from "./bounded_map.ts";
 *
 * const cache = new BoundedMap<string, number>(2);
 * cache.set("a", 1).set("b", 2).set("c", 3);
 * cache.has("a"); // false: the oldest went first
 * ```
 *
 * @module
 */

/** A `Map` of at most `max` entries; setting a new key past it deletes the oldest. */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly max: number;

  constructor(max: number) {
    super();
    if (!(max >= 1)) throw new RangeError("A bounded map holds at least one entry");
    this.max = max;
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.max) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }

  /** The value of `key`, made by `make` and kept when there is none yet. */
  getOrSet(key: K, make: () => V): V {
    if (this.has(key)) return this.get(key)!;
    const value = make();
    this.set(key, value);
    return value;
  }
}
