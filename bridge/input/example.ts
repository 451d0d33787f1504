/**
 * Making an `input_example` that a schema accepts, for a declaration that gives none: the
 * schema's own `examples` or `default` where they fit, else a value built from its structure (the
 * first of each `enum`, `anyOf` or type list; an object's required fields; one item of a list),
 * a string of a `pattern` made by randexp, of a `format` its example. Deterministic (the same
 * schema makes the same example in the public and the session manifest), bounded in work and
 * size, and checked by the caller's validator: what does not validate is never an example.
 *
 * @module
 */
import RandExpModule from "randexp";
import type { InputSchema, JsonTypeName, JsonValue } from "../wire/input_schema.ts";
import { FORMATS } from "./formats.ts";

interface RandExpRange {
  subtract(from: number, to: number): RandExpRange;
}

/** A string generator of randexp for one pattern. */
interface RandExpGenerator {
  max: number;
  randInt: (a: number, b: number) => number;
  gen(): string;
  /** The characters `.` and negated classes take from (drange's DRange). */
  defaultRange: { subtract(from: number, to: number): RandExpRange };
}

/** randexp's class: its CommonJS module's default export. */
const RandExp = ((RandExpModule as unknown as { default?: unknown }).default ??
  RandExpModule) as unknown as new (pattern: string) => RandExpGenerator;

/** How many tries: the first choices, then the first without the schema's own, then seeded. */
const ATTEMPTS = 8;
/** The most values one try builds; past it, no example. */
const MAX_VALUES = 2000;
/**
 * The most values all tries build together: what one schema's example may cost the bridge,
 * whatever its shape (a list of 100 objects of 20 patterned fields is 2,100 values a try).
 */
const MAX_WORK = 4000;
/**
 * The most strings all tries make from patterns together: randexp takes some 0.1 ms a string
 * (it builds a character class's set anew each time), far more than any other value costs.
 */
const MAX_PATTERN_STRINGS = 200;
/** The most items one list of an example holds. */
const MAX_ITEMS = 100;
/** The longest string an example holds. */
const MAX_STRING = 1000;
/** The largest example, in bytes of JSON. */
export const MAX_EXAMPLE_BYTES = 4096;
/** How often randexp repeats a part that may repeat without end (`*`, `+`). */
const PATTERN_REPEAT = 3;

/** What all tries of one example share: randexp's reading of each pattern, and the work done. */
class Work {
  /** randexp's generator of each pattern (with letters and digits first, or not); null: none. */
  readonly patterns = new Map<string, RandExpGenerator | null>();
  /** Values built by all tries so far. */
  values = 0;
  /** Strings made from patterns by all tries so far. */
  strings = 0;
}

/** The choices of one try. */
class Choices {
  readonly own: boolean;
  /** The first try: the first of everything. */
  readonly first: boolean;
  readonly work: Work;
  readonly #seed: number;
  #state: number;
  values = 0;

  constructor(attempt: number, work: Work) {
    this.own = attempt === 0;
    this.first = attempt === 0;
    this.work = work;
    this.#seed = attempt;
    this.#state = attempt * 0x9e3779b9;
  }

  /** A whole number in [a, b]: a on the first two tries, then seeded (mulberry32). */
  int(a: number, b: number): number {
    if (this.#seed < 2 || b <= a) return a;
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return a + Math.floor(unit * (b - a + 1));
  }
}

/** The types a schema names, or those its keywords imply; `[]` for any value. */
function typesOf(schema: InputSchema): JsonTypeName[] {
  if (schema.type !== undefined) return Array.isArray(schema.type) ? schema.type : [schema.type];
  if (schema.properties || schema.required || schema.additionalProperties !== undefined) {
    return ["object"];
  }
  if (schema.items || schema.minItems !== undefined || schema.maxItems !== undefined) {
    return ["array"];
  }
  if (
    schema.pattern !== undefined || schema.format !== undefined ||
    schema.minLength !== undefined || schema.maxLength !== undefined
  ) return ["string"];
  if (schema.minimum !== undefined || schema.maximum !== undefined) return ["number"];
  return [];
}

/**
 * Letters and digits of the `u` flag's `\p{…}`, which randexp does not read, as ASCII ranges:
 * a string of them matches as well.
 */
const PROPERTIES: Record<string, string> = {
  L: "a-zA-Z",
  Letter: "a-zA-Z",
  Lu: "A-Z",
  Uppercase_Letter: "A-Z",
  Ll: "a-z",
  Lowercase_Letter: "a-z",
  N: "0-9",
  Number: "0-9",
  Nd: "0-9",
  Decimal_Number: "0-9",
};

/**
 * `pattern` as randexp reads it: the `\p{…}` of PROPERTIES written as ASCII ranges (in a class
 * or not), modifier groups (`(?i:…)`) as plain groups.
 */
function forRandExp(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const property = c === "\\" && pattern[i + 1] === "p"
      ? /^\\p\{(\w+)\}/.exec(pattern.slice(i, i + 24))
      : null;
    const range = property && Object.hasOwn(PROPERTIES, property[1]!)
      ? PROPERTIES[property[1]!]
      : undefined;
    if (range) {
      out += inClass ? range : `[${range}]`;
      i += property![0].length - 1;
      continue;
    }
    if (c === "\\") {
      out += c + (pattern[i + 1] ?? "");
      i++;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (!inClass && /^\(\?[is]+:/.test(pattern.slice(i, i + 5))) {
      // A modifier group (`(?i:…)`) as a plain one: its own letters match.
      out += "(?:";
      i = pattern.indexOf(":", i);
      continue;
    }
    out += c;
  }
  return out;
}

/**
 * randexp's generator of `pattern`, read once for all tries of an example (reading a pattern
 * costs far more than a string of it); null when randexp cannot read it.
 */
function generatorOf(pattern: string, choices: Choices): RandExpGenerator | null {
  const key = `${choices.first ? "1" : "0"}${pattern}`;
  let randexp = choices.work.patterns.get(key);
  if (randexp === undefined) {
    try {
      randexp = new RandExp(forRandExp(pattern));
      randexp.max = PATTERN_REPEAT;
      // Letters and digits first where any character would do (`.`, `[^@]`): "0", not " ".
      if (choices.first) {
        randexp.defaultRange.subtract(32, 47).subtract(58, 64).subtract(91, 96).subtract(
          123,
          126,
        );
      }
    } catch {
      randexp = null;
    }
    choices.work.patterns.set(key, randexp);
  }
  return randexp;
}

/** A string of `pattern` (ECMAScript) made by randexp; undefined when randexp cannot read it. */
function fromPattern(pattern: string, choices: Choices): string | undefined {
  if (++choices.work.strings > MAX_PATTERN_STRINGS) return undefined;
  const randexp = generatorOf(pattern, choices);
  if (!randexp) return undefined;
  try {
    randexp.randInt = (a: number, b: number) => choices.int(a, b);
    const value = randexp.gen();
    return value.length <= MAX_STRING ? value : undefined;
  } catch {
    return undefined;
  }
}

function stringOf(schema: InputSchema, choices: Choices, variant: number): string | undefined {
  const format = schema.format === undefined ? undefined : FORMATS[schema.format];
  if (format) return format.example;
  if (schema.pattern !== undefined) return fromPattern(schema.pattern, choices);
  const min = schema.minLength ?? 0;
  if (min > MAX_STRING) return undefined;
  const base = variant ? `example${variant + 1}` : "example";
  return base.padEnd(min, "x").slice(0, schema.maxLength ?? Infinity);
}

/** A number within the schema's bounds: 1 where it fits (2, 3… for later items of a list). */
function numberOf(schema: InputSchema, integer: boolean, variant: number): number | undefined {
  const step = schema.multipleOf ?? (integer ? 1 : undefined);
  let low = schema.minimum ?? -Infinity;
  let high = schema.maximum ?? Infinity;
  const gap = step ?? 1;
  if (schema.exclusiveMinimum !== undefined) {
    low = Math.max(low, schema.exclusiveMinimum + (step ? 0 : gap / 2));
  }
  if (schema.exclusiveMaximum !== undefined) {
    high = Math.min(high, schema.exclusiveMaximum - (step ? 0 : gap / 2));
  }
  let value = Math.min(Math.max(1 + variant, low), high);
  if (step) {
    value = Math.ceil(value / step) * step;
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) value += step;
    if (
      value > high || (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum)
    ) {
      value = Math.floor(high / step) * step;
    }
  }
  return Number.isFinite(value) ? value : undefined;
}

/** A value of `schema`, by the choices of one try; undefined when none could be made. */
function valueOf(
  schema: InputSchema,
  choices: Choices,
  level: number,
  variant = 0,
): JsonValue | undefined {
  if (++choices.values > MAX_VALUES || ++choices.work.values > MAX_WORK || level > 64) {
    return undefined;
  }
  if (choices.own && schema.examples?.length) return schema.examples[0]!;
  if (choices.own && schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) {
    return schema.enum[(variant + choices.int(0, schema.enum.length - 1)) % schema.enum.length]!;
  }
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches?.length) {
    // The branch with the schema's own keywords: both apply.
    const { anyOf: _, oneOf: __, ...own } = schema;
    const branch = branches[choices.int(0, branches.length - 1)]!;
    return valueOf({ ...own, ...branch }, choices, level + 1, variant);
  }
  const types = typesOf(schema);
  const concrete = types.filter((t) => t !== "null");
  if (types.length && !concrete.length) return null;
  const type = concrete.length ? concrete[choices.int(0, concrete.length - 1)]! : "string";
  switch (type) {
    case "string":
      return stringOf(schema, choices, variant);
    case "number":
    case "integer":
      return numberOf(schema, type === "integer", variant);
    case "boolean":
      // false first: an agent may copy an example as it is, and "false" does least.
      return variant % 2 === 1;
    case "object": {
      const out: Record<string, JsonValue> = {};
      const properties = schema.properties ?? {};
      const extra = typeof schema.additionalProperties === "object"
        ? schema.additionalProperties
        : {};
      const names = [...new Set(schema.required ?? [])];
      for (const name of Object.keys(properties)) {
        if (names.length >= (schema.minProperties ?? 0)) break;
        if (!names.includes(name)) names.push(name);
      }
      for (const name of names) {
        // The item's variant goes down to its fields: the items of a list differ.
        const value = valueOf(properties[name] ?? extra, choices, level + 1, variant);
        if (value === undefined) return undefined;
        out[name] = value;
      }
      return out;
    }
    case "array": {
      // One item at least, where the schema allows one: an empty list shows nothing.
      const count = Math.max(schema.minItems ?? 0, schema.maxItems === 0 ? 0 : 1);
      if (count > MAX_ITEMS) return undefined;
      const out: JsonValue[] = [];
      for (let i = 0; i < count; i++) {
        const value = valueOf(schema.items ?? {}, choices, level + 1, i);
        if (value === undefined) return undefined;
        out.push(value);
      }
      return out;
    }
  }
  return undefined;
}

/**
 * An input `schema` accepts (`fits` says which do), made from the schema; undefined when no try
 * made one that fits within MAX_EXAMPLE_BYTES.
 */
export function makeExample(
  schema: InputSchema,
  fits: (value: unknown) => boolean,
): JsonValue | undefined {
  const ok = (value: JsonValue | undefined): value is JsonValue =>
    value !== undefined && (JSON.stringify(value)?.length ?? Infinity) <= MAX_EXAMPLE_BYTES &&
    fits(value);
  const work = new Work();
  for (
    let attempt = 0;
    attempt < ATTEMPTS && work.values < MAX_WORK && work.strings < MAX_PATTERN_STRINGS;
    attempt++
  ) {
    const value = valueOf(schema, new Choices(attempt, work), 1);
    if (ok(value)) return value;
  }
  return undefined;
}
