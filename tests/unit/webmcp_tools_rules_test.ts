/**
 * Table-driven tests of bridge/wire/webmcp_tools.ts over every list it keeps (the keywords that
 * only annotate, those it enforces by type, the names a field may not take, the guesses of an
 * example) and every sentence it says when it refuses a tool, word for word: the page's author
 * reads them in the console, and `deno task mutate bridge/wire/webmcp_tools.ts` holds each.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  actionOfTool,
  inputSchemaOfTool,
  MAX_TOOL_BYTES,
  resultOfTool,
  type ToolAction,
} from "../../bridge/wire/webmcp_tools.ts";

/** The schema of one tool with one field `a`. */
const one = (field: unknown) => ({ type: "object", properties: { a: field } });

/** The action of a tool `t` whose one required field is `field`. */
function mapped(field: unknown): ToolAction {
  const result = actionOfTool({
    name: "t",
    description: "T",
    inputSchema: { ...one(field), required: ["a"] },
  });
  assert.ok(result.ok, result.ok ? "" : result.problem);
  return result.action;
}

/** Why the tool `t` with the one required field `field` is refused. */
function refused(field: unknown): string {
  const result = actionOfTool({
    name: "t",
    description: "T",
    inputSchema: { ...one(field), required: ["a"] },
  });
  assert.ok(!result.ok, JSON.stringify(field));
  return result.problem;
}

Deno.test("every keyword that only annotates is left out, of a field and of the whole schema", () => {
  const keywords = [
    "title",
    "default",
    "examples",
    "$schema",
    "$id",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "contentMediaType",
    "contentEncoding",
  ];
  for (const keyword of keywords) {
    const value = keyword === "examples" ? ["x"] : "x";
    assert.deepEqual(
      inputSchemaOfTool({
        type: "object",
        [keyword]: value,
        properties: { a: { type: "string", [keyword]: value } },
      }),
      {
        type: "object",
        // A title stands for a missing description.
        properties: {
          a: keyword === "title" ? { type: "string", description: "x" } : { type: "string" },
        },
        additionalProperties: false,
      },
      keyword,
    );
  }
});

Deno.test("each type keeps exactly the keywords aim enforces for it, and refuses any other", () => {
  const enforced: Record<string, Record<string, unknown>> = {
    string: { minLength: 1, maxLength: 5, pattern: "^a", enum: ["a"] },
    number: { minimum: -1.5, maximum: 2.5 },
    integer: { minimum: -1, maximum: 2 },
    boolean: {},
  };
  const others = [
    "minLength",
    "maxLength",
    "pattern",
    "enum",
    "minimum",
    "maximum",
    "oneOf",
    "not",
  ];
  for (const [type, keywords] of Object.entries(enforced)) {
    for (const [keyword, value] of Object.entries(keywords)) {
      assert.deepEqual(
        inputSchemaOfTool(one({ type, [keyword]: value })),
        {
          type: "object",
          properties: { a: { type, [keyword]: value } },
          additionalProperties: false,
        },
        `${type} ${keyword}`,
      );
    }
    for (const keyword of others.filter((k) => !(k in keywords))) {
      const value = keyword === "enum" ? ["a"] : keyword === "pattern" ? "a" : 1;
      assert.equal(
        inputSchemaOfTool(one({ type, [keyword]: value })),
        `field "a" uses "${keyword}", which aim cannot enforce`,
        `${type} ${keyword}`,
      );
    }
  }
  // `const` is a one-value enum of strings.
  assert.deepEqual(mapped({ type: "string", const: "on" }).input_schema.properties, {
    a: { type: "string", enum: ["on"] },
  });
});

Deno.test("a field is refused with a sentence that says why, for each way it can be wrong", () => {
  const cases: [unknown, string][] = [
    [true, `field "a" has no schema`],
    [{}, `field "a" has a type aim cannot check (null)`],
    [{ type: "date" }, `field "a" has a type aim cannot check ("date")`],
    [{ type: ["string", "null"] }, `field "a" has a type aim cannot check (["string","null"])`],
    // Not a string, though it reads as "string" as a key.
    [{ type: [["string"]] }, `field "a" has a type aim cannot check (["string"])`],
    [
      { type: "object" },
      `field "a" is an object: remote agents get flat inputs only (strings, numbers, integers, booleans)`,
    ],
    [
      { type: ["array"] },
      `field "a" is an array: remote agents get flat inputs only (strings, numbers, integers, booleans)`,
    ],
    [{ type: "string", enum: "a" }, `field "a": aim takes an enum of strings only`],
    [{ type: "string", enum: [] }, `field "a": aim takes an enum of strings only`],
    [{ type: "string", enum: ["a", 1] }, `field "a": aim takes an enum of strings only`],
    [{ type: "string", const: 1 }, `field "a": aim takes an enum of strings only`],
    [{ type: "string", pattern: 1 }, `field "a": its pattern is not a string`],
    [{ type: "string", minLength: "1" }, `field "a": its minLength is not a number`],
    [{ type: "number", minimum: Infinity }, `field "a": its minimum is not a number`],
    [{ type: "integer", maximum: NaN }, `field "a": its maximum is not a number`],
    [
      { type: "string", oneOf: [{ const: "a" }] },
      `field "a" uses "oneOf", which aim cannot enforce`,
    ],
    [{ type: "string", multipleOf: 1 }, `field "a" uses "multipleOf", which aim cannot enforce`],
    [{ type: "number", multipleOf: 0.5 }, `field "a" uses "multipleOf", which aim cannot enforce`],
  ];
  for (const [field, problem] of cases) {
    assert.equal(inputSchemaOfTool(one(field)), problem, JSON.stringify(field));
    assert.equal(refused(field), `tool "t": ${problem}`, JSON.stringify(field));
  }
});

Deno.test("a select's anyOf becomes an enum only when it is of string consts on a string field", () => {
  const consts = [{ const: "a", title: "A" }, { const: "b" }];
  assert.deepEqual(mapped({ type: "string", anyOf: consts }).input_schema.properties, {
    a: { type: "string", enum: ["a", "b"] },
  });
  assert.deepEqual(
    mapped({ type: "string", enum: ["a", "b"], anyOf: consts }).input_schema.properties,
    {
      a: { type: "string", enum: ["a", "b"] },
    },
  );
  const cases: [unknown, string][] = [
    [{ type: "string", enum: ["a"], anyOf: consts }, `field "a": its anyOf and its enum differ`],
    [{ type: "number", anyOf: consts }, `field "a" uses "anyOf", which aim cannot enforce`],
    [{ type: "string", anyOf: [] }, `field "a" uses "anyOf", which aim cannot enforce`],
    [{ type: "string", anyOf: {} }, `field "a" uses "anyOf", which aim cannot enforce`],
    [
      { type: "string", anyOf: [...consts, { type: "string" }] },
      `field "a" uses "anyOf", which aim cannot enforce`,
    ],
    [
      { type: "string", anyOf: [...consts, "c"] },
      `field "a" uses "anyOf", which aim cannot enforce`,
    ],
    [{ type: "string", anyOf: [{ const: 1 }] }, `field "a" uses "anyOf", which aim cannot enforce`],
    [
      { type: "string", anyOf: [{ const: "1", type: "number" }] },
      `field "a" uses "anyOf", which aim cannot enforce`,
    ],
  ];
  for (const [field, problem] of cases) {
    assert.equal(inputSchemaOfTool(one(field)), problem, JSON.stringify(field));
  }
});

Deno.test("a number's step of 1 makes it an integer; any other keyword of value 1 stays itself", () => {
  for (const type of ["number", "integer"]) {
    assert.deepEqual(mapped({ type, multipleOf: 1 }).input_schema.properties, {
      a: { type: "integer" },
    });
    assert.deepEqual(mapped({ type, minimum: 1 }).input_schema.properties, {
      a: { type, minimum: 1 },
    });
  }
});

Deno.test("the whole schema is refused with a sentence that says why, or maps without a type", () => {
  const cases: [unknown, string][] = [
    [{ type: "object", properties: [] }, "its inputSchema's properties are not an object"],
    [{ type: "object", properties: "a" }, "its inputSchema's properties are not an object"],
    [{ type: "string" }, "its inputSchema is not an object schema"],
    [[], "its inputSchema is not an object schema"],
    [
      { type: "object", properties: {}, required: "a" },
      "its required fields are not all among its properties",
    ],
    [
      { type: "object", properties: {}, additionalProperties: {} },
      "its inputSchema's additionalProperties is a schema, which aim cannot enforce",
    ],
    [
      { type: "object", properties: {}, oneOf: [] },
      `its inputSchema uses "oneOf", which aim cannot enforce`,
    ],
  ];
  for (const [schema, problem] of cases) {
    assert.equal(inputSchemaOfTool(schema), problem, JSON.stringify(schema));
  }
  const empty = { type: "object", properties: {}, additionalProperties: false };
  assert.deepEqual(inputSchemaOfTool({ properties: {} }), empty);
  assert.deepEqual(inputSchemaOfTool({ type: "object", description: "Things" }), empty);
  for (const additionalProperties of [true, false]) {
    assert.deepEqual(inputSchemaOfTool({ type: "object", additionalProperties }), empty);
  }
  // Required fields are kept once each.
  assert.deepEqual(inputSchemaOfTool({ ...one({ type: "boolean" }), required: ["a", "a"] }), {
    ...one({ type: "boolean" }),
    required: ["a"],
    additionalProperties: false,
  });
});

Deno.test("a schema may have 100 fields, not 101", () => {
  const fields = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: "boolean" }]));
  const hundred = inputSchemaOfTool({ type: "object", properties: fields(100) });
  assert.equal(typeof hundred, "object");
  assert.equal(
    inputSchemaOfTool({ type: "object", properties: fields(101) }),
    "its inputSchema has more than 100 fields",
  );
});

Deno.test("a field may not take a name that reaches an object's prototype, nor one no action takes", () => {
  for (const name of ["__proto__", "constructor", "prototype"]) {
    // JSON.parse makes "__proto__" an own key, as a page's JSON schema would.
    const schema = JSON.parse(`{"type":"object","properties":{"${name}":{"type":"string"}}}`);
    assert.equal(inputSchemaOfTool(schema), `its field name "${name}" is not one aim takes`);
  }
  const long = `-${"x".repeat(100)}`;
  assert.equal(
    inputSchemaOfTool({ type: "object", properties: { [long]: { type: "string" } } }),
    `its field name "${long.slice(0, 80)}" is not one aim takes`,
  );
});

Deno.test("a tool's name is refused in a sentence that shows at most 80 characters of it", () => {
  const problem = (name: unknown) => {
    const result = actionOfTool({ name, description: "x" });
    assert.ok(!result.ok);
    return result.problem;
  };
  const rule =
    "its name is not an action id (a letter, then at most 63 letters, digits, '_', '.' or '-')";
  assert.equal(problem(undefined), `tool "": ${rule}`);
  assert.equal(problem(42), `tool "": ${rule}`);
  assert.equal(problem("a b"), `tool "a b": ${rule}`);
  assert.equal(problem("x".repeat(100)), `tool "${"x".repeat(80)}": ${rule}`);
  assert.equal(
    actionOfTool({ name: "t", description: "T", inputSchema: { type: "array" } }).ok,
    false,
  );
  const bad = actionOfTool({ name: "t", description: "T", inputSchema: one({ type: "date" }) });
  assert.deepEqual(bad, {
    ok: false,
    problem: `tool "t": field "a" has a type aim cannot check ("date")`,
  });
});

Deno.test("a description of 2,000 characters is kept whole; a longer one is cut to 2,000", () => {
  const exact = actionOfTool({ name: "t", description: "d".repeat(2000) });
  assert.ok(exact.ok);
  assert.equal(exact.action.description, "d".repeat(2000));
  const longer = actionOfTool({ name: "t", description: "d".repeat(2001) });
  assert.ok(longer.ok);
  assert.equal(longer.action.description, `${"d".repeat(1999)}…`);
  const field = mapped({ type: "string", description: "e".repeat(2001) });
  assert.equal(
    (field.input_schema.properties as Record<string, { description: string }>).a!.description,
    `${"e".repeat(1999)}…`,
  );
});

Deno.test("an action of exactly the size limit is kept; one byte more is refused", () => {
  const action = (padding: number) =>
    actionOfTool({
      name: "t",
      description: "T",
      inputSchema: one({ type: "string", pattern: "p".repeat(padding) }),
    });
  const base = action(0);
  assert.ok(base.ok);
  const room = MAX_TOOL_BYTES - JSON.stringify(base.action).length;
  const exact = action(room);
  assert.ok(exact.ok, "exactly the limit");
  assert.equal(JSON.stringify(exact.action).length, MAX_TOOL_BYTES);
  assert.deepEqual(action(room + 1), {
    ok: false,
    problem: `tool "t": it is larger than ${MAX_TOOL_BYTES} bytes as an action`,
  });
});

Deno.test("each guess of a string example is tried in turn, for the pattern only it matches", () => {
  const guesses = ["example", "a", "A", "0", "1", "a@example.com", "2026-01-01", "x1", ""];
  for (const guess of guesses) {
    const pattern = `^${guess.replaceAll(".", "\\.")}$`;
    assert.deepEqual(mapped({ type: "string", pattern }).input_example, { a: guess }, pattern);
  }
  // Past the guesses: as many x as the field needs.
  assert.deepEqual(mapped({ type: "string", pattern: "^x{4}$", minLength: 4 }).input_example, {
    a: "xxxx",
  });
  // The pattern is read with the u flag, as JSON Schema asks: \u{61} is "a".
  assert.deepEqual(mapped({ type: "string", pattern: "^\\u{61}$" }).input_example, { a: "a" });
  // A pattern no RegExp reads fits nothing.
  assert.equal(
    refused({ type: "string", pattern: "(" }),
    `tool "t": no example fits its field "a": give it "examples" in its inputSchema`,
  );
});

Deno.test("the tool's own example or default is used only when it fits the field", () => {
  const cases: [Record<string, unknown>, unknown][] = [
    [{ type: "number", default: 2.5 }, 2.5],
    [{ type: "number", default: Infinity }, 0],
    [{ type: "number", default: "7" }, 0],
    [{ type: "integer", default: 2.5 }, 0],
    [{ type: "integer", minimum: 5, default: 1 }, 5],
    [{ type: "integer", minimum: 0.5, maximum: 2.5 }, 1],
    [{ type: "integer", maximum: -3, default: 1 }, -3],
    [{ type: "integer", minimum: 1, maximum: 9, examples: [3, 12] }, 3],
    [{ type: "integer", minimum: 1, maximum: 9, examples: [12, 4] }, 4],
    [{ type: "boolean", default: "true" }, false],
    [{ type: "boolean", default: true }, true],
    [{ type: "string", default: 5 }, "example"],
    [{ type: "string", maxLength: 3, default: "abc" }, "abc"],
    [{ type: "string", maxLength: 3, default: "abcd" }, "a"],
    [{ type: "string", minLength: 2, default: "b" }, "example"],
    [{ type: "string", enum: ["p", "q"], default: "z" }, "p"],
    [{ type: "string", enum: ["p", "q"], default: "q" }, "q"],
    [{ type: "string", pattern: "^b+$", default: "a" }, null],
  ];
  // null: nothing fits, and the tool is refused.
  for (const [field, example] of cases) {
    if (example === null) {
      assert.match(refused(field), /no example fits/, JSON.stringify(field));
      continue;
    }
    assert.deepEqual(mapped(field).input_example, { a: example }, JSON.stringify(field));
  }
});

Deno.test("a run's failure says the text of its parts, joined by spaces and cut at 2,000 characters", () => {
  const error = (content: unknown[]) => {
    try {
      resultOfTool({ isError: true, content });
    } catch (thrown) {
      return (thrown as Error).message;
    }
    assert.fail("no error");
  };
  assert.equal(
    error([{ type: "text", text: "a" }, { type: "image" }, null, { text: 5 }, { text: "b" }]),
    "a b",
  );
  assert.equal(error([{ type: "image" }]), "The tool reported an error.");
  assert.equal(error([]), "The tool reported an error.");
  assert.equal(error([{ text: "w".repeat(3000) }]), "w".repeat(2000));
  // Not an error: isError must be true, with a list of content.
  assert.deepEqual(resultOfTool({ isError: true, content: "x" }), { isError: true, content: "x" });
  assert.deepEqual(resultOfTool({ isError: 1, content: [] }), { isError: 1, content: [] });
});

Deno.test("a run's answer that is not text is itself, whatever its text would read as", () => {
  assert.deepEqual(resultOfTool([1]), [1]);
  assert.deepEqual(resultOfTool(["1"]), ["1"]);
  assert.equal(resultOfTool(5), 5);
  assert.equal(resultOfTool(null), null);
  assert.equal(resultOfTool("[1"), "[1");
  assert.deepEqual(resultOfTool("[1]"), [1]);
});
