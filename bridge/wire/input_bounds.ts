/**
 * aim's bounds on one input, whatever its schema allows, and the keys no input may hold: shared
 * by the bridge's validator (bridge/input/validate.ts) and the page's own check of an in-browser
 * agent's call (elements/input_check.ts), which no bridge sees. No imports, so that the elements
 * carry it small.
 *
 * @module
 */

/** Names that would reach an object's prototype if used as a key. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
  "__proto__",
  "constructor",
  "prototype",
]);

/** aim's bounds on one input, whatever its schema allows (docs/protocol.md, "Input schemas"). */
export const INPUT_LIMITS: {
  /** Nesting of arrays and objects: a flat object is level 1. */
  readonly depth: number;
  /** Values in all: every array, object, string, number, boolean and null. */
  readonly values: number;
  /** Items of one array. */
  readonly items: number;
} = {
  depth: 16,
  values: 20_000,
  items: 1000,
};

/** A step into an input: an object's key or an array's index. */
export type PathPart = string | number;

/**
 * Why `input` is past INPUT_LIMITS or holds a key that would reach a prototype, with where;
 * undefined when it is within them. Walked without recursion, stopping at the first problem.
 */
export function inputBoundsProblem(
  input: unknown,
): { path: PathPart[]; problem: string } | undefined {
  const stack: { value: unknown; path: PathPart[] }[] = [{ value: input, path: [] }];
  let values = 0;
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value, path } = next;
    if (++values > INPUT_LIMITS.values) {
      return { path: [], problem: `holds more than ${INPUT_LIMITS.values} values` };
    }
    if (typeof value !== "object" || value === null) continue;
    if (path.length >= INPUT_LIMITS.depth) {
      return {
        path,
        problem: `nests arrays and objects more than ${INPUT_LIMITS.depth} levels deep`,
      };
    }
    if (Array.isArray(value)) {
      if (value.length > INPUT_LIMITS.items) {
        return { path, problem: `has more than ${INPUT_LIMITS.items} items` };
      }
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i], path: [...path, i] });
      }
      continue;
    }
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) {
        return { path, problem: `has a key named "${key}", which is not accepted` };
      }
      stack.push({ value: (value as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
  return undefined;
}
