/**
 * Test helper: the change documents the bridge creates, applied with implementations independent
 * of aim's (fast-json-patch for JSON Patch, json-merge-patch for JSON Merge Patch), so that a
 * patch is checked against the RFCs as another party reads them, not against aim's own reading.
 *
 * @module
 */
import jsonpatch from "../deps/fast_json_patch.ts";
import mergePatch from "../deps/json_merge_patch.ts";

/**
 * A copy of a JSON value that shares no object with it, nor two places within it with each other
 * (`structuredClone` keeps shared references; the libraries patch in place).
 */
function copy<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

/**
 * Member names the two libraries refuse to patch (prototype pollution guards): a value whose
 * members are named so cannot be checked with them.
 */
export const GUARDED_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];

/** Whether `value` has a member (at any depth) named one of {@linkcode GUARDED_KEYS}. */
export function hasGuardedKey(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return value.some(hasGuardedKey);
  return Object.keys(value).some((key) => GUARDED_KEYS.includes(key)) ||
    Object.values(value).some(hasGuardedKey);
}

/**
 * `document` with the JSON Patch `patch` applied (RFC 6902); `document` is not changed.
 *
 * @throws {Error} When an operation cannot apply (fast-json-patch's `JsonPatchError`).
 */
export function applyJsonPatch(document: unknown, patch: readonly unknown[]): unknown {
  // Validated operation by operation, on a clone.
  return jsonpatch.applyPatch(copy(document), copy(patch) as never, true)
    .newDocument;
}

/** `target` with the JSON Merge Patch `patch` applied (RFC 7396); `target` is not changed. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return mergePatch.apply(copy(target), copy(patch));
}
