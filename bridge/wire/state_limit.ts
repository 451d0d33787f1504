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

function bytes(value: unknown): number {
  const text = JSON.stringify(value) ?? "null";
  // A UTF-16 unit takes at most 3 UTF-8 bytes; count exactly only when it could matter. The
  // range is all of ASCII, control characters included.
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
  if (bytes(state) <= maxBytes) return { state, truncated: false };
  const budget = Math.max(0, maxBytes - Math.min(MARKER_ROOM, Math.floor(maxBytes / 4)));
  const out: Record<string, unknown> = {};
  const cut: Record<string, string> = {};
  let used = 2;
  for (const [key, value] of Object.entries(state)) {
    if (key === TRUNCATED_KEY) continue;
    const size = bytes(key) + 1 + bytes(value) + 1;
    if (used + size <= budget) {
      out[key] = value;
      used += size;
      continue;
    }
    if (Array.isArray(value)) {
      const kept: unknown[] = [];
      let listUsed = used + bytes(key) + 3;
      for (const item of value) {
        const itemSize = bytes(item) + 1;
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
