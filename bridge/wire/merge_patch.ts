/**
 * @module JSON Merge Patch (RFC 7396): the change document from one JSON value to another, and
 * applying one. An agent that holds an old manifest reads only what changed.
 *
 * @example
 * ```ts
 * import { applyMergePatch, createMergePatch } from "./merge_patch.ts";
 *
 * const patch = createMergePatch({ a: 1, b: [1] }, { a: 1, b: [1, 2], c: "x" });
 * // patch: { b: [1, 2], c: "x" }
 * applyMergePatch({ a: 1, b: [1] }, patch); // { a: 1, b: [1, 2], c: "x" }
 * ```
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
 * patch cannot set a member to `null`: null means "remove"). Checked by applying it. Each
 * member is compared once, so the work is linear in the size of the two values.
 */
export function createMergePatch(from: Json, to: Json): Json | undefined {
  const found = diff(from, to);
  const patch = found === SAME ? (isObject(to) ? {} : to) : found;
  return jsonEqual(applyMergePatch(from, patch), to) ? patch : undefined;
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

/** `target` with `patch` applied (RFC 7396 §2); `target` is not changed. */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}
