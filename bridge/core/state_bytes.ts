/**
 * Counting a tab's state message against its room without writing a megabyte of JSON first: the
 * bridge's {@linkcode MeasureBytes} for `fitState`.
 *
 * @module
 */
import { jsonBytes, type MeasureBytes } from "../wire/state_limit.ts";

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
 * value that has more characters than `room` has more bytes too, so a megabyte over it is told
 * by a walk that stops as soon as it passes `room`, before any JSON is written.
 */
export const boundedJsonBytes: MeasureBytes = (value, room) => {
  if (room !== Infinity) {
    const least = leastLength(value, room);
    if (least > room) return least;
  }
  return jsonBytes(value, room);
};
