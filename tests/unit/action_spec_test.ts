/**
 * Unit tests of bridge/input/action_spec.ts, the check of every declared action: the ids no
 * action may take (Object.prototype's names, the read tool's, a built-in action's in another
 * case), each in every case; the string fields whose patterns it compiles; each refusal's
 * sentence, word for word; and the manifest form of an action.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  BUILTIN_ACTION_IDS,
  isActionIdAmong,
  parseActionSpec,
  RESERVED_TOOL_IDS,
  stringFields,
  toManifestAction,
} from "../../bridge/input/action_spec.ts";
import { MAX_ACTION_PATTERN_SIZE } from "../../bridge/input/pattern.ts";
import { MarkupError } from "../../bridge/markup/action.ts";
import { OBJECT_NAMES } from "../../bridge/wire/object_names.ts";
import { READ_TOOL } from "../../bridge/wire/tools.ts";
import type { InputSchema } from "../../bridge/wire/schemas.ts";

/** A declaration of an action with a string input, changed by `more`. */
function declaration(id: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    description: "An action",
    input_schema: { type: "string" },
    input_example: "x",
    consequential: false,
    protected: false,
    ...more,
  };
}

/** The message parseActionSpec() refuses `value` with. */
function refusal(value: unknown): string {
  try {
    parseActionSpec(value);
  } catch (error) {
    assert.ok(error instanceof MarkupError, String(error));
    return error.message;
  }
  assert.fail(`accepted ${JSON.stringify(value)}`);
}

/** The spellings of `name` an author (or an attacker) would try. */
function spellings(name: string): string[] {
  const title = name.charAt(0).toUpperCase() + name.slice(1);
  const alternating = [...name].map((c, i) => i % 2 ? c.toUpperCase() : c).join("");
  return [...new Set([name, name.toUpperCase(), title, alternating])];
}

Deno.test("isActionIdAmong() compares ids regardless of case", () => {
  assert.equal(isActionIdAmong("LOGIN", ["logout", "login"]), true);
  assert.equal(isActionIdAmong("login", ["LOGIN"]), true);
  assert.equal(isActionIdAmong("Approve", new Set(["approve"]).keys()), true);
  assert.equal(isActionIdAmong("login", ["logins", "logi"]), false);
  assert.equal(isActionIdAmong("login", []), false);
});

Deno.test("no action takes a name of Object.prototype, in any case", () => {
  assert.ok(OBJECT_NAMES.size > 5);
  for (const name of OBJECT_NAMES) {
    for (const id of spellings(name)) {
      if (!/^[A-Za-z]/.test(id)) continue;
      assert.equal(
        refusal(declaration(id)),
        `action "${id}" is not valid: "${id}" is a reserved name (of Object.prototype)`,
      );
    }
  }
});

Deno.test("no action takes the read tool's name, in any case", () => {
  assert.deepEqual(RESERVED_TOOL_IDS, [READ_TOOL]);
  for (const id of spellings(READ_TOOL)) {
    assert.equal(
      refusal(declaration(id)),
      `action "${id}" is not valid: "${id}" is reserved for the tool that reads the page`,
    );
  }
});

Deno.test("a built-in action's id is taken only as itself, never in another case", () => {
  assert.deepEqual(BUILTIN_ACTION_IDS, ["login", "logout", "disconnect"]);
  for (const builtin of BUILTIN_ACTION_IDS) {
    assert.equal(parseActionSpec(declaration(builtin)).id, builtin, "the bridge's own");
    for (const id of spellings(builtin).filter((s) => s !== builtin)) {
      assert.equal(
        refusal(declaration(id)),
        `action "${id}" is not valid: action ids are compared regardless of case, and ` +
          `"${builtin}" is a server action of the bridge`,
      );
    }
  }
  assert.equal(parseActionSpec(declaration("logins")).id, "logins");
});

Deno.test("stringFields() names each string schema where it is, and nothing else", () => {
  const string = { type: "string", pattern: "^a" } as const;
  assert.deepEqual(stringFields(string as InputSchema), [["input_schema", string]]);
  assert.deepEqual(stringFields({ type: "integer" } as InputSchema), []);
  assert.deepEqual(stringFields({ type: "boolean" } as InputSchema), []);
  assert.deepEqual(
    stringFields({
      type: "object",
      properties: { a: string, n: { type: "number" }, b: { type: "string" } },
      additionalProperties: false,
    } as InputSchema),
    [["input_schema.properties.a", string], ["input_schema.properties.b", { type: "string" }]],
  );
});

Deno.test("a declaration that is not valid is refused naming its id and the first issue", () => {
  assert.equal(
    refusal(declaration("ok", { description: 5 })),
    'action "ok" is not valid: description: Invalid input: expected string, received number',
  );
  for (
    const [value, received] of [[null, "null"], [undefined, "undefined"], ["login", "string"], [
      5,
      "number",
    ]]
  ) {
    assert.equal(
      refusal(value),
      `action "" is not valid: Invalid input: expected object, received ${received}`,
    );
  }
  assert.match(refusal({ description: "x" }), /^action "" is not valid: /);
  assert.match(refusal({ id: 7 }), /^action "7" is not valid: /);
});

Deno.test("a pattern the bridge cannot run is refused naming where it is", () => {
  assert.equal(
    refusal(declaration("find", { input_schema: { type: "string", pattern: "(?=a)" } })),
    'action "find": input_schema.pattern "(?=a)" uses a lookahead "(?=…)", and the bridge ' +
      "matches patterns with RE2, in linear time, which has no lookaround",
  );
  assert.equal(
    refusal(declaration("find", {
      input_schema: {
        type: "object",
        properties: { n: { type: "number" }, q: { type: "string", pattern: "(a)\\1" } },
        additionalProperties: false,
      },
      input_example: {},
    })),
    'action "find": input_schema.properties.q.pattern "(a)\\\\1" uses a backreference "\\1", ' +
      "and the bridge matches patterns with RE2, in linear time, which has no backreferences",
  );
});

Deno.test("an action's patterns together may compile to the bound, not more", () => {
  /** A pattern of about `n` instructions. */
  const sized = (n: number) => `^(?:a{${n}})$`;
  const properties = (patterns: string[]) =>
    Object.fromEntries(patterns.map((pattern, i) => [`f${i}`, { type: "string", pattern }]));
  const object = (properties: Record<string, unknown>) => ({
    type: "object",
    properties,
    additionalProperties: false,
  });
  const fits = declaration("many", {
    input_schema: object(properties([sized(600), sized(600), sized(600)])),
    input_example: {},
  });
  assert.equal(parseActionSpec(fits).id, "many");
  const over = declaration("many", {
    input_schema: object(properties([sized(900), sized(900), sized(900)])),
    input_example: {},
  });
  assert.equal(
    refusal(over),
    'action "many": its patterns are too large together for the bridge\'s matcher ' +
      `(more than ${MAX_ACTION_PATTERN_SIZE} instructions); simplify them`,
  );
  // Exactly the bound: two patterns of 1,000 instructions each.
  const exact = declaration("exact", {
    input_schema: object(properties(["^a{996}$", "^a{996}$"])),
    input_example: {},
  });
  assert.equal(parseActionSpec(exact).id, "exact");
  const past = declaration("past", {
    input_schema: object(properties(["^a{996}$", "^a{996}$", "b"])),
    input_example: {},
  });
  assert.match(refusal(past), /too large together/);
  // Fields without a pattern cost nothing.
  const plain = declaration("plain", {
    input_schema: object(properties(["^a$"])),
    input_example: {},
  });
  (plain.input_schema as { properties: Record<string, unknown> }).properties.free = {
    type: "string",
  };
  assert.equal(parseActionSpec(plain).id, "plain");
});

Deno.test("an example that does not match the schema is refused, with the validator's reason", () => {
  // The hint of the whole input loses its "input: ", a field's keeps its name.
  const cases: [Record<string, unknown>, string][] = [
    [{ input_example: 3 }, "input must be a string, not a number"],
    [{ input_schema: { type: "string", pattern: "^b$" } }, "must match the pattern ^b$"],
    [{ input_schema: { type: "string", maxLength: 0 } }, "must be at most 0 characters long"],
    [
      {
        input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
        input_example: { n: "2" },
      },
      'field "n" must be an integer, not a string: send 2, not "2"',
    ],
    [
      { input_schema: { type: "object", properties: {} }, input_example: { extra: 1 } },
      'unknown field "extra"; allowed fields: (none)',
    ],
    [
      { input_schema: { type: "array", items: { enum: ["a"] } }, input_example: ["b"] },
      'field "[0]": must be one of ["a"]',
    ],
  ];
  for (const [more, reason] of cases) {
    assert.equal(
      refusal(declaration("typed", more)),
      `action "typed": input_example does not match input_schema (${reason})`,
      JSON.stringify(more),
    );
  }
});

Deno.test("a key named __proto__ anywhere in the schema or the example is refused, never left out unsaid", () => {
  const schemas = [
    '{"type":"object","properties":{"__proto__":{"type":"string"}}}',
    '{"type":"object","properties":{"a":{"type":"array","items":{"properties":{"__proto__":{}}}}}}',
    '{"type":"object","__proto__":{"additionalProperties":true}}',
    '{"const":{"__proto__":1}}',
    '{"enum":[{"a":{"__proto__":1}}]}',
    '{"type":"object","default":{"__proto__":{}}}',
  ];
  for (const text of schemas) {
    assert.equal(
      refusal(declaration("p", { input_schema: JSON.parse(text), input_example: undefined })),
      'action "p" is not valid: input_schema has a key named "__proto__", which is not accepted',
      text,
    );
  }
  for (const text of ['{"__proto__":"x"}', '[{"a":{"__proto__":null}}]']) {
    assert.equal(
      refusal(declaration("p", { input_schema: {}, input_example: JSON.parse(text) })),
      'action "p" is not valid: input_example has a key named "__proto__", which is not accepted',
      text,
    );
  }
  // Text that only reads like such a key is no key.
  const spec = parseActionSpec(declaration("p", {
    input_schema: { type: "string", description: '"__proto__": 1', enum: ['"__proto__":'] },
    input_example: '"__proto__":',
  }));
  assert.equal(spec.input_example, '"__proto__":');
  // A key named like it is ordinary.
  assert.equal(
    parseActionSpec(declaration("p", { input_schema: {}, input_example: { __proto: 1 } })).id,
    "p",
  );
});

Deno.test("a schema or an example that is no JSON is refused as too large, naming nothing it cannot print", () => {
  const cyclic: Record<string, unknown> = { type: "object" };
  cyclic.default = cyclic;
  for (const input_schema of [cyclic, { const: 10n }]) {
    assert.equal(
      refusal(declaration("c", { input_schema })),
      'action "c" is not valid: input_schema: The schema is too large: more than 16384 bytes ' +
        "as JSON",
    );
  }
  assert.match(refusal(declaration("c", { input_example: 10n })), /^action "c" is not valid: /);
  // Of exactly 16,384 bytes, and one more.
  const sized = (bytes: number) => ({ enum: ["v".repeat(bytes - '{"enum":[""]}'.length)] });
  const exact = declaration("c", { input_schema: sized(16384), input_example: undefined });
  assert.equal(parseActionSpec(exact).id, "c");
  assert.equal(
    refusal(declaration("c", { input_schema: sized(16385), input_example: undefined })),
    'action "c" is not valid: input_schema: The schema is too large: more than 16384 bytes ' +
      "as JSON",
  );
});

Deno.test("the manifest form of an action has exactly the seed's five fields", () => {
  const spec = parseActionSpec(declaration("five", { consequential: true, protected: true }));
  assert.deepEqual(toManifestAction(spec), {
    id: "five",
    description: "An action",
    input_schema: { type: "string" },
    input_example: "x",
    consequential: true,
  });
});
