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
 * Counts the UTF-8 bytes of a value's JSON; once the count is sure to pass `room` it may stop and
 * return any number above `room`.
 */
export type MeasureBytes = (value: unknown, room: number) => number;

/**
 * The UTF-8 bytes of `value`'s JSON: its text's length when that is over `room` already (a UTF-16
 * unit takes 1 to 3 bytes), else its bytes, counted only where a character is not ASCII.
 */
export function jsonBytes(value: unknown, room: number = Infinity): number {
  const text = JSON.stringify(value) ?? "null";
  if (text.length > room) return text.length;
  // The range is all of ASCII, control characters included.
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.length : new TextEncoder().encode(text).length;
}

/** Options of {@linkcode fitState}. */
export interface FitStateOptions {
  /**
   * How a value's bytes are counted: {@linkcode jsonBytes} where none is given (the tab's own
   * state, small). The bridge passes one that stops walking a megabyte message past its room
   * before writing its JSON (bridge/core/state_bytes.ts), which the tab's bundle need not carry.
   */
  measure?: MeasureBytes;
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
export function fitState(
  state: Record<string, unknown>,
  maxBytes: number,
  options: FitStateOptions = {},
): FittedState {
  const bytes = options.measure ?? jsonBytes;
  if (bytes(state, maxBytes) <= maxBytes) return { state, truncated: false };
  const budget = Math.max(0, maxBytes - Math.min(MARKER_ROOM, Math.floor(maxBytes / 4)));
  const out: Record<string, unknown> = {};
  const cut: Record<string, string> = {};
  let used = 2;
  for (const [key, value] of Object.entries(state)) {
    if (key === TRUNCATED_KEY) continue;
    const keyBytes = bytes(key, Infinity) + 1;
    // The room the value has: what is left, less its key, colon and comma.
    const size = keyBytes + bytes(value, budget - used - keyBytes - 1) + 1;
    if (used + size <= budget) {
      out[key] = value;
      used += size;
      continue;
    }
    if (Array.isArray(value)) {
      const kept: unknown[] = [];
      let listUsed = used + bytes(key, Infinity) + 3;
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
