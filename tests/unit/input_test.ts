/**
 * Property tests of validateInput: what an action's input_schema accepts, and that
 * every rejection is a 400 `invalid_input` an agent can act on.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { validateInput } from "../../bridge/input/validate.ts";
import { type ActionSpec, parseActionSpec } from "../../bridge/input/action_spec.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import type { InputSchema } from "../../bridge/wire/schemas.ts";

type StringSchema = InputSchema;

const WRAPPED_HINT = "input must be the string itself, not an object";

/** A valid action over `schema`; parseActionSpec checks the example fits. */
function action(input_schema: InputSchema, input_example: unknown): ActionSpec {
  return parseActionSpec({
    id: "act",
    description: "An action",
    input_schema,
    input_example,
    consequential: false,
    protected: false,
  });
}

/** Asserts that `input` is refused with a 400 `invalid_input` carrying schema, example, hint. */
function assertInvalid(spec: ActionSpec, input: unknown): AimError {
  let caught: unknown;
  try {
    validateInput(spec, input);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof AimError, `accepted ${JSON.stringify(input)}`);
  assert.equal(caught.status, 400);
  assert.equal(caught.code, "invalid_input");
  assert.deepEqual(caught.details.input_schema, spec.input_schema);
  assert.deepEqual(caught.details.input_example, spec.input_example);
  assert.equal(typeof caught.details.hint, "string");
  assert.ok((caught.details.hint as string).length > 0);
  const body = caught.toJSON();
  assert.equal(body.error, "invalid_input");
  assert.ok(String(body.message).includes(caught.details.hint as string));
  return caught;
}

/** Length bounds with min ≤ max, each maybe absent. */
const bounds = fc.tuple(fc.nat(12), fc.nat(12), fc.boolean(), fc.boolean()).map(
  ([a, b, hasMin, hasMax]) => {
    const schema: StringSchema = { type: "string" };
    if (hasMin) schema.minLength = Math.min(a, b);
    if (hasMax) schema.maxLength = Math.max(a, b);
    return schema;
  },
);

function exampleOf(schema: StringSchema): string {
  return "e".repeat(schema.minLength ?? Math.min(1, schema.maxLength ?? 1));
}

const nonString = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.string(), { maxLength: 3 }),
);

Deno.test("a string within the declared lengths is accepted as it is", () => {
  fc.assert(
    fc.property(
      bounds.chain((schema) =>
        fc.tuple(
          fc.constant(schema),
          fc.string({ minLength: schema.minLength ?? 0, maxLength: schema.maxLength ?? 40 }),
        )
      ),
      ([schema, input]) => {
        const spec = action(schema, exampleOf(schema));
        assert.equal(validateInput(spec, input), input);
      },
    ),
  );
});

Deno.test("a string shorter or longer than declared is refused as invalid_input", () => {
  fc.assert(
    fc.property(bounds, fc.nat(5), fc.boolean(), (schema, extra, tooLong) => {
      const spec = action(schema, exampleOf(schema));
      if (tooLong && schema.maxLength !== undefined) {
        assertInvalid(spec, "x".repeat(schema.maxLength + 1 + extra));
      } else if (!tooLong && schema.minLength) {
        assertInvalid(spec, "x".repeat(Math.max(0, schema.minLength - 1 - extra)));
      }
    }),
  );
});

Deno.test("an enum accepts its values and refuses every other string", () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 6 }),
      fc.string({ maxLength: 8 }),
      (values, other) => {
        const spec = action({ type: "string", enum: values }, values[0]);
        for (const v of values) assert.equal(validateInput(spec, v), v);
        if (!values.includes(other)) assertInvalid(spec, other);
      },
    ),
  );
});

Deno.test("a pattern accepts matching strings and refuses others", () => {
  const schema: StringSchema = { type: "string", pattern: "^req-[0-9]+$" };
  const spec = action(schema, "req-3");
  fc.assert(
    fc.property(fc.stringMatching(/^req-[0-9]+$/), fc.string(), (good, any) => {
      assert.equal(validateInput(spec, good), good);
      if (!/^req-[0-9]+$/u.test(any)) assertInvalid(spec, any);
    }),
  );
});

Deno.test("a value that is not a string is refused for a string input", () => {
  const spec = action({ type: "string", minLength: 1 }, "req-3");
  fc.assert(
    fc.property(nonString, (input) => {
      const error = assertInvalid(spec, input);
      assert.match(error.details.hint as string, /^input must be a string, not /);
    }),
  );
});

Deno.test(`a string input wrapped in an object gets the hint "${WRAPPED_HINT}"`, () => {
  const spec = action({ type: "string", minLength: 1 }, "req-3");
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string(), { maxKeys: 4 }),
      (input) => {
        const error = assertInvalid(spec, input);
        assert.ok((error.details.hint as string).includes(WRAPPED_HINT));
      },
    ),
  );
  const error = assertInvalid(spec, { id: "req-3" });
  assert.equal(error.details.hint, `${WRAPPED_HINT}: send "input": "req-3"`);
});

Deno.test("a wrapped string input never echoes a secret-looking value such as a pin or an otp", () => {
  const spec = action({ type: "string", minLength: 1 }, "req-3");
  for (const key of ["pin", "userPin", "otp", "card_number", "cvv", "ssn", "jwt", "pwd"]) {
    const error = assertInvalid(spec, { [key]: "s3cr3t" });
    assert.ok(!JSON.stringify(error.toJSON()).includes("s3cr3t"), key);
    assert.equal(error.details.hint, `${WRAPPED_HINT}: send "input": "req-3"`);
  }
});

Deno.test("a pattern mismatch names the field and the pattern, in object fields too", () => {
  const spec = action({
    type: "object",
    properties: {
      id: { type: "string", pattern: "^req-[0-9]+$" },
      code: { type: "string", pattern: "^\\p{Lu}{3}$" },
    },
    required: ["id"],
    additionalProperties: false,
  }, { id: "req-1" });
  assert.deepEqual(validateInput(spec, { id: "req-2", code: "ÉTÉ" }), { id: "req-2", code: "ÉTÉ" });
  const error = assertInvalid(spec, { id: "req-x" });
  assert.equal(error.details.hint, 'field "id": must match the pattern ^req-[0-9]+$');
  const code = assertInvalid(spec, { id: "req-1", code: "été" });
  assert.equal(code.details.hint, 'field "code": must match the pattern ^\\p{Lu}{3}$');
});

Deno.test("patterned fields accept exactly what RegExp with the u flag accepts", () => {
  const patterns = ["^[a-z]+$", "^\\d{3}(-\\d{2})?$", "\\s", "^(?:é|e)+\\b", "^.$", "^[^\\s@]+@x$"];
  fc.assert(
    fc.property(
      fc.constantFrom(...patterns),
      fc.string({ unit: fc.constantFrom("a", "z", "1", "-", " ", "\n", "é", "@", "x", "😀") }),
      (pattern, value) => {
        const spec = action({
          type: "object",
          properties: { v: { type: "string", pattern } },
          additionalProperties: false,
        }, {});
        const expected = new RegExp(pattern, "u").test(value);
        let accepted = true;
        try {
          validateInput(spec, { v: value });
        } catch (error) {
          assert.ok(error instanceof AimError);
          accepted = false;
        }
        assert.equal(accepted, expected, `${pattern} on ${JSON.stringify(value)}`);
      },
    ),
  );
});

// ---------------------------------------------------------------------------------------------
// Object inputs

const fieldName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,10}$/).filter((n) =>
  !["__proto__", "constructor", "prototype"].includes(n)
);

/** An object schema with its field names and the required ones. */
const objectSchema = fc.uniqueArray(fieldName, { minLength: 1, maxLength: 5 }).chain((names) =>
  fc.tuple(fc.constant(names), fc.subarray(names), fc.subarray(names)).map(
    ([names, required, short]) => {
      const properties = Object.fromEntries(
        names.map((n) => [
          n,
          short.includes(n) ? { type: "string", maxLength: 4 } : {
            type: "string",
          },
        ]),
      );
      const schema: InputSchema = {
        type: "object",
        properties: properties as Record<string, StringSchema>,
        required,
        additionalProperties: false,
      };
      const example = Object.fromEntries(required.map((n) => [n, "x"]));
      return { names, required, spec: action(schema, example) };
    },
  )
);

/** A valid input for a schema: every required field, some optional ones, short strings. */
function validInput(names: string[], required: string[]) {
  return fc.tuple(
    fc.subarray(names),
    fc.array(fc.string({ maxLength: 4 }), { minLength: names.length, maxLength: names.length }),
  ).map(([optional, values]) => {
    const input: Record<string, string> = {};
    // `values` has one item per name.
    names.forEach((n, i) => {
      if (required.includes(n) || optional.includes(n)) input[n] = values[i]!;
    });
    return input;
  });
}

Deno.test("an object with its required string fields is accepted", () => {
  fc.assert(
    fc.property(
      objectSchema.chain((o) => fc.tuple(fc.constant(o), validInput(o.names, o.required))),
      ([{ spec }, input]) => {
        assert.deepEqual(validateInput(spec, input), input);
      },
    ),
  );
});

Deno.test("an object missing a required field is refused, naming the field", () => {
  fc.assert(
    fc.property(
      objectSchema.filter((o) => o.required.length > 0).chain((o) =>
        fc.tuple(fc.constant(o), validInput(o.names, o.required), fc.constantFrom(...o.required))
      ),
      ([{ spec }, input, missing]) => {
        delete input[missing];
        const error = assertInvalid(spec, input);
        assert.match(error.details.hint as string, /is required/);
      },
    ),
  );
});

Deno.test("an object with an unknown field or a field that is not a string is refused", () => {
  fc.assert(
    fc.property(
      objectSchema.chain((o) =>
        fc.tuple(fc.constant(o), validInput(o.names, o.required), fieldName, nonString)
      ),
      ([{ spec, names }, input, extra, value]) => {
        if (!names.includes(extra)) {
          const error = assertInvalid(spec, { ...input, [extra]: "v" });
          assert.match(error.details.hint as string, /^unknown field/);
        }
        // A schema has at least one field.
        if (value !== undefined) assertInvalid(spec, { ...input, [names[0]!]: value });
      },
    ),
  );
});

Deno.test("a value that is not an object is refused for an object input", () => {
  fc.assert(
    fc.property(objectSchema, fc.oneof(nonString, fc.string()), ({ spec }, input) => {
      const error = assertInvalid(spec, input);
      if (input !== undefined) {
        assert.match(
          error.details.hint as string,
          /^input must be an object with the string fields/,
        );
      }
    }),
  );
});

Deno.test("__proto__, constructor and prototype keys are refused and pollute nothing", () => {
  fc.assert(
    fc.property(
      objectSchema.chain((o) => fc.tuple(fc.constant(o), validInput(o.names, o.required))),
      fc.constantFrom("__proto__", "constructor", "prototype"),
      fc.constantFrom('{"polluted":"yes"}', '"polluted"', '{"prototype":{"polluted":1}}'),
      ([{ spec }, input], key, value) => {
        const fields = Object.entries(input).map(([k, v]) =>
          `${JSON.stringify(k)}:${JSON.stringify(v)}`
        );
        const json = `{${[...fields, `"${key}":${value}`].join(",")}}`;
        const parsed = JSON.parse(json);
        assertInvalid(spec, parsed);
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
        assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"), false);
      },
    ),
  );
});

Deno.test("an accepted object is a plain object without a forbidden own key", () => {
  fc.assert(
    fc.property(
      objectSchema.chain((o) => fc.tuple(fc.constant(o), validInput(o.names, o.required))),
      ([{ spec }, input]) => {
        const out = validateInput(spec, JSON.parse(JSON.stringify(input))) as object;
        assert.equal(Object.getPrototypeOf(out), Object.prototype);
        for (const key of ["__proto__", "constructor", "prototype"]) {
          assert.ok(!Object.hasOwn(out, key));
        }
      },
    ),
  );
});
