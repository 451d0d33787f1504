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
 * patch cannot set a member to `null`: null means "remove"). Checked by applying it.
 */
export function createMergePatch(from: Json, to: Json): Json | undefined {
  const patch = diff(from, to);
  return jsonEqual(applyMergePatch(from, patch), to) ? patch : undefined;
}

function diff(from: Json, to: Json): Json {
  if (!isObject(from) || !isObject(to)) return to;
  const patch: Record<string, Json> = {};
  for (const key of Object.keys(from)) if (!Object.hasOwn(to, key)) patch[key] = null;
  for (const [key, value] of Object.entries(to)) {
    if (Object.hasOwn(from, key) && jsonEqual(from[key], value)) continue;
    patch[key] = diff(from[key], value);
  }
  return patch;
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
