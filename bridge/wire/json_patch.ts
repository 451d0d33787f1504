/**
 * JSON Patch (RFC 6902): the operations that turn one JSON value into another, addressed by JSON
 * Pointers (RFC 6901). Each change is said at the path where it happened, or by one replace
 * higher up when that is shorter. Agents apply them; the tests apply them with an independent
 * implementation (fast-json-patch).
 *
 * @example
 * ```ts
 * import { createJsonPatch } from "./json_patch.ts";
 *
 * const patch = createJsonPatch({ a: 1, b: [1] }, { a: 1, b: [1, 2], c: "x" });
 * // patch: [{ op: "add", path: "/b/1", value: 2 }, { op: "add", path: "/c", value: "x" }]
 * ```
 *
 * @module
 */

type Json = unknown;

/** An operation {@linkcode createJsonPatch} produces. */
export type JsonPatchOperation = {
  op: "add" | "remove" | "replace";
  path: string;
  value?: unknown;
};

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `key` as one reference token of a JSON Pointer (RFC 6901 §3). */
function escapeToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * Operations, and the characters they take in a patch: their JSON with the commas between. A
 * tree of the parts' operations, flattened once at the end, so that no level copies them.
 */
type Diff = { size: number; count: number; op?: JsonPatchOperation; parts?: Diff[] };

const NO_CHANGE: Diff = { size: 0, count: 0 };

/** Lengths of JSON encodings of the new value's objects and arrays, each computed once. */
type Lengths = WeakMap<object, number>;

/**
 * Where a node is: its parent's place and its key (undefined: the root). Its JSON Pointer is
 * made only for a node an operation names.
 */
type Place = { up: Place; key: string | number; pointer?: string } | undefined;

function pointer(place: Place): string {
  if (!place) return "";
  const key = typeof place.key === "number" ? place.key : escapeToken(place.key);
  return place.pointer ??= `${pointer(place.up)}/${key}`;
}

/**
 * The operations that turn `before` into `after`; `[]` when they are equal. Objects and arrays
 * are compared member by member (array elements by index; new ones added at explicit indexes,
 * dropped ones removed from the last index down), unless one replace of the whole node is no
 * longer than that, in which case it is the replace.
 *
 * The work is linear in the size of the two values: the length of a replace is computed from
 * the lengths of the node's members, each encoded once, not by encoding the node again at
 * every level above a change.
 */
export function createJsonPatch(before: Json, after: Json): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  flatten(diff(before, after, undefined, new WeakMap()), ops);
  return ops;
}

function flatten(diff: Diff, ops: JsonPatchOperation[]): void {
  if (diff.op) ops.push(diff.op);
  else for (const part of diff.parts ?? []) flatten(part, ops);
}

function diff(before: Json, after: Json, place: Place, lengths: Lengths): Diff {
  // The same value (a member the new version shares with the old one) has not changed.
  if (before === after) return NO_CHANGE;
  let parts: Diff;
  if (Array.isArray(before) && Array.isArray(after)) {
    parts = diffArray(before, after, place, lengths);
  } else if (isObject(before) && isObject(after)) parts = diffObject(before, after, place, lengths);
  else return single({ op: "replace", path: pointer(place), value: after }, lengths);
  if (parts.count === 0) return NO_CHANGE;
  const replace = single({ op: "replace", path: pointer(place), value: after }, lengths);
  return parts.size < replace.size ? parts : replace;
}

function diffArray(before: Json[], after: Json[], place: Place, lengths: Lengths): Diff {
  const parts = collect();
  const common = Math.min(before.length, after.length);
  for (let i = 0; i < common; i++) {
    if (before[i] !== after[i]) {
      addPart(parts, diff(before[i], after[i], { up: place, key: i }, lengths));
    }
  }
  for (let i = common; i < after.length; i++) {
    const path = pointer({ up: place, key: i });
    addPart(parts, single({ op: "add", path, value: after[i] }, lengths));
  }
  for (let i = before.length - 1; i >= common; i--) {
    addPart(parts, single({ op: "remove", path: pointer({ up: place, key: i }) }, lengths));
  }
  return parts;
}

function diffObject(
  before: Record<string, Json>,
  after: Record<string, Json>,
  place: Place,
  lengths: Lengths,
): Diff {
  const parts = collect();
  for (const [key, value] of Object.entries(after)) {
    if (!Object.hasOwn(before, key)) {
      addPart(parts, single({ op: "add", path: pointer({ up: place, key }), value }, lengths));
    } else if (before[key] !== value) {
      addPart(parts, diff(before[key], value, { up: place, key }, lengths));
    }
  }
  for (const key of Object.keys(before)) {
    if (!Object.hasOwn(after, key)) {
      addPart(parts, single({ op: "remove", path: pointer({ up: place, key }) }, lengths));
    }
  }
  return parts;
}

/** An empty list of parts, to {@linkcode addPart} to. */
function collect(): Diff & { parts: Diff[] } {
  return { size: 0, count: 0, parts: [] };
}

/** Adds `part` to `parts`, with the comma before it when it is not the first. */
function addPart(parts: Diff & { parts: Diff[] }, part: Diff): void {
  if (part.count === 0) return;
  if (parts.count > 0) parts.size++;
  parts.parts.push(part);
  parts.size += part.size;
  parts.count += part.count;
}

/** One operation, and its length: `JSON.stringify(op).length`, with its value's length known. */
function single(op: JsonPatchOperation, lengths: Lengths): Diff {
  // {"op":"…","path":…,"value":…}
  const value = "value" in op ? encodedLength(op.value, lengths) : undefined;
  const size = 7 + op.op.length + 9 + JSON.stringify(op.path).length +
    (value === undefined ? 0 : 9 + value) + 1;
  return { size, count: 1, op };
}

/**
 * `JSON.stringify(value).length`, or undefined when `JSON.stringify` leaves the value out; an
 * object's or array's from its members', remembered in `lengths`.
 */
export function encodedLength(value: Json, lengths: Lengths = new WeakMap()): number | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value).length;
    case "number":
      return Number.isFinite(value) ? String(value).length : 4;
    case "boolean":
      return value ? 4 : 5;
    case "object":
      break;
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    default:
      return JSON.stringify(value)?.length; // A bigint: the TypeError JSON.stringify throws.
  }
  if (value === null) return 4;
  let length = lengths.get(value);
  if (length !== undefined) return length;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    length = JSON.stringify(value)?.length;
    if (length === undefined) return undefined;
  } else if (Array.isArray(value)) {
    length = 2 + Math.max(value.length - 1, 0);
    for (const item of value) length += encodedLength(item, lengths) ?? 4;
  } else {
    let members = 0;
    length = 2;
    for (const key of Object.keys(value)) {
      const member = encodedLength((value as Record<string, Json>)[key], lengths);
      if (member === undefined) continue;
      length += JSON.stringify(key).length + 1 + member;
      members++;
    }
    length += Math.max(members - 1, 0);
  }
  lengths.set(value, length);
  return length;
}
