/**
 * JSON Merge Patch (RFC 7396): the change document from one JSON value to another. An agent that
 * holds an old manifest reads only what changed; the tests apply these with an independent
 * implementation (json-merge-patch).
 *
 * @example
 * ```ts
 * import { createMergePatch } from "./merge_patch.ts";
 *
 * const patch = createMergePatch({ a: 1, b: [1] }, { a: 1, b: [1, 2], c: "x" });
 * // patch: { b: [1, 2], c: "x" }
 * ```
 *
 * @module
 */

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether two JSON values are equal. */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length &&
    keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

/**
 * The patch that turns `from` into `to`, or undefined when no merge patch can say it (a merge
 * patch cannot set a member to `null`: null means "remove"). Each member is compared once, so
 * the work is linear in the size of the two values.
 */
export function createMergePatch(from: Json, to: Json): Json | undefined {
  const found = diff(from, to);
  const patch = found === SAME ? (isObject(to) ? {} : to) : found;
  return expressible(patch, to) ? patch : undefined;
}

/** What {@linkcode expressible} says of a member `to` does not have. */
const ABSENT = Symbol("absent");

/**
 * Whether every `null` member of `patch` (outside arrays, which are set whole) removes a member
 * that `to` does not have: a `null` that `to` holds would be read as "remove".
 */
function expressible(patch: Json, to: Json | typeof ABSENT): boolean {
  if (!isObject(patch)) return true;
  for (const [key, value] of Object.entries(patch)) {
    const target = isObject(to) && Object.hasOwn(to, key) ? to[key] : ABSENT;
    if (value === null ? target !== ABSENT : !expressible(value, target)) return false;
  }
  return true;
}

/** What {@linkcode diff} says of equal values. */
const SAME = Symbol("same");

function diff(from: Json, to: Json): Json | typeof SAME {
  if (!isObject(from) || !isObject(to)) return jsonEqual(from, to) ? SAME : to;
  const patch: Record<string, Json> = {};
  let changed = false;
  for (const key of Object.keys(from)) {
    if (!Object.hasOwn(to, key)) {
      patch[key] = null;
      changed = true;
    }
  }
  for (const [key, value] of Object.entries(to)) {
    const member = Object.hasOwn(from, key) ? diff(from[key], value) : value;
    if (member === SAME) continue;
    patch[key] = member;
    changed = true;
  }
  return changed ? patch : SAME;
}
