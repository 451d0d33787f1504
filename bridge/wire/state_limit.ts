/**
 * Keeping a state snapshot within its size limit by cutting it, with a marker an agent
 * can read, instead of refusing it: a page whose state grows must never lose its session.
 * No imports, so that the tab client shares it.
 *
 * @module
 */

/** The state key that says what was cut. */
export const TRUNCATED_KEY = "_truncated";

/** Room kept for the marker itself (less under a small limit). */
const MARKER_ROOM = 2048;

/**
 * At least how many characters `value`'s JSON has, counted until the count passes `room`: each
 * string's characters and quotes, each key of a plain object and its quotes and colon, each
 * bracket. Plain data only (what a parsed message holds): anything `JSON.stringify` could write
 * shorter than its fields (a `toJSON`, a class instance, a function) counts nothing.
 */
function leastLength(value: unknown, room: number): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length && count <= room) {
    const next = pending.pop();
    if (typeof next === "string") count += next.length + 2;
    else if (typeof next === "number" || typeof next === "boolean" || next === null) count += 1;
    else if (Array.isArray(next)) {
      count += 2;
      for (const item of next) pending.push(item);
    } else if (typeof next === "object" && isPlain(next)) {
      count += 2;
      for (const [key, item] of Object.entries(next)) {
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
        count += key.length + 3;
        pending.push(item);
      }
    }
  }
  return count;
}

/** Whether `value` is an object literal's kind, written field by field by `JSON.stringify`. */
function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) &&
    typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/**
 * The UTF-8 bytes of `value`'s JSON, counted exactly only when that can matter against `room`: a
 * value that has more characters than `room` has more bytes too (a UTF-16 unit takes 1 to 3), so
 * a megabyte over it is told by a walk that stops as soon as it passes `room`, before any JSON is
 * written; then the text's length, before its bytes are counted.
 */
function bytes(value: unknown, room = Infinity): number {
  if (room !== Infinity) {
    const least = leastLength(value, room);
    if (least > room) return least;
  }
  const text = JSON.stringify(value) ?? "null";
  if (text.length > room) return text.length;
  // The range is all of ASCII, control characters included.
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.length : new TextEncoder().encode(text).length;
}

/** What {@linkcode fitState} did. */
export interface FittedState {
  state: Record<string, unknown>;
  /** Whether anything was cut. */
  truncated: boolean;
}

/**
 * A state whose JSON fits in `maxBytes`: keys are kept in order while they fit; a list that
 * does not fit keeps its first items, anything else that does not fit is left out, and
 * `_truncated` says which keys were cut and how (`"kept 20 of 246 items"`, `"left out"`).
 */
export function fitState(state: Record<string, unknown>, maxBytes: number): FittedState {
  if (bytes(state, maxBytes) <= maxBytes) return { state, truncated: false };
  const budget = Math.max(0, maxBytes - Math.min(MARKER_ROOM, Math.floor(maxBytes / 4)));
  const out: Record<string, unknown> = {};
  const cut: Record<string, string> = {};
  let used = 2;
  for (const [key, value] of Object.entries(state)) {
    if (key === TRUNCATED_KEY) continue;
    const keyBytes = bytes(key) + 1;
    // The room the value has: what is left, less its key, colon and comma.
    const size = keyBytes + bytes(value, budget - used - keyBytes - 1) + 1;
    if (used + size <= budget) {
      out[key] = value;
      used += size;
      continue;
    }
    if (Array.isArray(value)) {
      const kept: unknown[] = [];
      let listUsed = used + bytes(key) + 3;
      for (const item of value) {
        const itemSize = bytes(item, budget - listUsed - 1) + 1;
        if (listUsed + itemSize > budget) break;
        kept.push(item);
        listUsed += itemSize;
      }
      out[key] = kept;
      used = listUsed;
      cut[key] = `kept ${kept.length} of ${value.length} items`;
    } else {
      cut[key] = "left out";
    }
  }
  const named = Object.entries(cut);
  // The marker stays small whatever the state: at most 20 keys named, and how many more.
  const keys = Object.fromEntries(
    named.slice(0, 20).map(([k, v]) => [k.length > 64 ? k.slice(0, 64) + "…" : k, v]),
  );
  if (named.length > 20) keys["…"] = `${named.length - 20} more keys left out`;
  out[TRUNCATED_KEY] = { limit_bytes: maxBytes, keys };
  return { state: out, truncated: true };
}
