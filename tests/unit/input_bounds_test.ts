/**
 * aim's bounds on one input (bridge/wire/input_bounds.ts), imported directly: each forbidden key
 * at the top and deep down, each limit at exactly its value and one past, the path of each
 * problem, and that the module imports nothing (the elements carry it).
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  FORBIDDEN_KEYS,
  INPUT_LIMITS,
  inputBoundsProblem,
} from "../../bridge/wire/input_bounds.ts";

Deno.test("FORBIDDEN_KEYS are the three keys that reach a prototype, and each is refused at any level", () => {
  assert.deepEqual([...FORBIDDEN_KEYS].sort(), ["__proto__", "constructor", "prototype"]);
  for (const key of FORBIDDEN_KEYS) {
    const problem = `has a key named "${key}", which is not accepted`;
    assert.deepEqual(inputBoundsProblem(JSON.parse(`{"${key}":1}`)), { path: [], problem });
    assert.deepEqual(inputBoundsProblem(JSON.parse(`{"a":[0,{"${key}":{}}]}`)), {
      path: ["a", 1],
      problem,
    });
    // A forbidden name as a value, or as an array's item, is no key.
    assert.equal(inputBoundsProblem({ name: key, list: [key] }), undefined);
  }
  // Near spellings are ordinary keys.
  for (const key of ["__proto", "Constructor", "PROTOTYPE", "__proto__ ", "proto"]) {
    assert.equal(inputBoundsProblem({ [key]: 1 }), undefined, key);
  }
});

/** `levels` arrays, one in the other. */
function nested(levels: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < levels; i++) value = [value];
  return value;
}

/** `count` lists of up to 999 zeros, `numbers` zeros in all. */
function lists(count: number, numbers: number): number[][] {
  return Array.from({ length: count }, (_, i) => Array(Math.min(999, numbers - i * 999)).fill(0));
}

Deno.test("inputBoundsProblem() takes each limit exactly and refuses one past it, saying where", () => {
  assert.deepEqual(INPUT_LIMITS, { depth: 16, values: 20_000, items: 1000 });
  const cases: [string, unknown, { path: (string | number)[]; problem: string } | undefined][] = [
    ["depth at the limit", nested(INPUT_LIMITS.depth), undefined],
    ["depth past the limit", nested(INPUT_LIMITS.depth + 1), {
      path: Array(INPUT_LIMITS.depth).fill(0),
      problem: "nests arrays and objects more than 16 levels deep",
    }],
    ["items at the limit", Array(INPUT_LIMITS.items).fill(0), undefined],
    ["items past the limit", { list: Array(INPUT_LIMITS.items + 1).fill(0) }, {
      path: ["list"],
      problem: "has more than 1000 items",
    }],
    // 1 list, 20 lists in it, and the numbers: 20,000 values, then 20,001.
    ["values at the limit", lists(20, 19 * 999 + 998), undefined],
    ["values past the limit", lists(20, 20 * 999), {
      path: [],
      problem: "holds more than 20000 values",
    }],
    ["scalars", "x", undefined],
    ["null", null, undefined],
    [
      "a wide object",
      Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`k${i}`, i])),
      undefined,
    ],
  ];
  for (const [name, input, expected] of cases) {
    assert.deepEqual(inputBoundsProblem(input), expected, name);
  }
});

Deno.test("inputBoundsProblem() walks 19,000 levels of nesting without recursion", () => {
  // JSON.parse builds what the walk must survive: a stack overflow would throw here.
  const deep = JSON.parse("[".repeat(19_000) + "]".repeat(19_000));
  assert.equal(
    inputBoundsProblem(deep)?.problem,
    "nests arrays and objects more than 16 levels deep",
  );
});

Deno.test("bridge/wire/input_bounds.ts imports nothing, so that the elements bundle carries it alone", async () => {
  const source = await Deno.readTextFile(
    new URL("../../bridge/wire/input_bounds.ts", import.meta.url),
  );
  assert.doesNotMatch(source, /^\s*import\b/m);
});
