/**
 * fast-check arbitraries of input schemas of every shape the wire takes (nested objects, lists,
 * type lists, null, enum, const, anyOf, oneOf, bounds, patterns, formats) and of values near what
 * they accept, for the property tests of the validator, the example generator and the page's own
 * check.
 *
 * @module
 */
import fc from "fast-check";
import type { InputSchema } from "../../bridge/wire/input_schema.ts";
import { FORMATS } from "../../bridge/input/formats.ts";

/** Patterns of every kind the generator and RE2 meet (anchored or not, classes, groups). */
export const PATTERNS: readonly string[] = [
  "^[a-z]+$",
  "^req-[0-9]+$",
  "\\d",
  "^(?:a|bc)+$",
  "^\\p{Lu}",
  "x.y",
  "^[1-9]:[0-5][0-9] (AM|PM)$",
  "^[^@\\s]+@[^@\\s]+$",
];

/** Short strings near what the patterns and enums above take. */
export const STRINGS: readonly string[] = [
  "",
  "a",
  "abc",
  "bcbc",
  "req-1",
  "req-",
  "X1",
  "Éa",
  "xzy",
  "x\ny",
  "12",
  "9:30 AM",
  "a@b",
  "user@example.com",
  "2026-01-01",
  "12:00:00Z",
  "😀",
];

/** Options of {@linkcode schemaArbitrary}. */
export interface SchemaArbitraryOptions {
  /** Whether strings may have a `format` (the page's own check leaves formats to the bridge). */
  formats?: boolean;
  /** How deep schemas nest. @default {3} */
  depth?: number;
}

/** Any schema of the wire's keywords, nested up to `depth` levels. */
export function schemaArbitrary(options: SchemaArbitraryOptions = {}): fc.Arbitrary<InputSchema> {
  const { formats = true, depth = 3 } = options;
  const leaf: fc.Arbitrary<InputSchema> = fc.oneof(
    fc.record({
      type: fc.constant("string" as const),
      minLength: fc.nat(3),
      maxLength: fc.integer({ min: 3, max: 12 }),
      pattern: fc.constantFrom(...PATTERNS),
      enum: fc.uniqueArray(fc.constantFrom(...STRINGS), { minLength: 1, maxLength: 4 }),
      ...(formats ? { format: fc.constantFrom(...Object.keys(FORMATS), "color") } : {}),
    }, { requiredKeys: ["type"] }),
    fc.record({
      type: fc.constantFrom("number" as const, "integer" as const),
      minimum: fc.integer({ min: -5, max: 0 }),
      maximum: fc.integer({ min: 0, max: 5 }),
      exclusiveMinimum: fc.integer({ min: -6, max: -1 }),
      multipleOf: fc.constantFrom(1, 2, 0.5),
    }, { requiredKeys: ["type"] }),
    fc.constant({ type: "boolean" as const }),
    fc.constant({ type: "null" as const }),
    fc.constant({ type: ["string", "null"] as InputSchema["type"] }),
    fc.record({ const: fc.jsonValue({ maxDepth: 1 }) }),
    fc.record({
      enum: fc.uniqueArray(fc.oneof(fc.constantFrom(...STRINGS), fc.integer(), fc.constant(null)), {
        minLength: 1,
        maxLength: 4,
        selector: (v) => JSON.stringify(v),
      }),
    }),
    fc.constant({}),
  ) as fc.Arbitrary<InputSchema>;
  const { node } = fc.letrec<{ node: InputSchema }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", maxDepth: depth },
      { arbitrary: leaf, weight: 3 },
      fc.uniqueArray(fc.tuple(fc.constantFrom("a", "b", "c"), tie("node")), {
        maxLength: 3,
        selector: ([name]) => name,
      }).chain((fields) =>
        fc.record({
          type: fc.constant("object" as const),
          properties: fc.constant(Object.fromEntries(fields)),
          required: fc.subarray(fields.map(([name]) => name)),
          additionalProperties: fc.oneof(fc.constant(false), fc.constant(true), leaf),
        }, { requiredKeys: ["type", "properties"] })
      ),
      fc.record({
        type: fc.constant("array" as const),
        items: tie("node"),
        minItems: fc.nat(2),
        maxItems: fc.integer({ min: 2, max: 4 }),
        uniqueItems: fc.boolean(),
      }, { requiredKeys: ["type"] }),
      fc.record({ anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
      fc.record({ oneOf: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
    ),
  }));
  return node;
}

/** Values near what schemas take: short strings, small numbers, lists and objects of them. */
export function valueArbitrary(): fc.Arbitrary<unknown> {
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", maxDepth: 3 },
      { arbitrary: fc.constantFrom(...STRINGS), weight: 4 },
      { arbitrary: fc.integer({ min: -7, max: 7 }), weight: 2 },
      fc.constantFrom(0.5, 1.5, -0.5, 2.25, true, false, null),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(fc.constantFrom("a", "b", "c", "d"), tie("value"), { maxKeys: 4 }),
    ),
  }));
  return value;
}
