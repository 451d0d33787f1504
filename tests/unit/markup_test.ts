/**
 * Property tests of the one reading of `<aim-action>` markup (readAction), on the
 * server's htmlparser2 tree and on a DOM-like tree, and of redactSecrets.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { MarkupError } from "../../bridge/markup/action.ts";
import { redactSecrets, SECRET_KEY } from "../../bridge/markup/secrets.ts";
import { validateInput } from "../../bridge/input/validate.ts";
import { scanPage } from "../../bridge/site/catalog.ts";
import { OBJECT_NAMES } from "../../bridge/wire/object_names.ts";
import {
  actionId,
  type ActionModel,
  actionModel,
  check,
  countedFields,
  expectedFieldNames,
  expectedFlag,
  fakeAction,
  fieldModel,
  lengthAttr,
  maybe,
  pageHtml,
  patternAttr,
  read,
  RUNS,
  text,
} from "../helpers/markup_model.ts";

Deno.test("readAction() gives the same action on the server and in a DOM-like tree", () => {
  fc.assert(
    fc.property(actionModel, (m) => {
      const { el, doc } = fakeAction(m);
      const direct = check(read(el, doc));
      const info = scanPage(pageHtml(m), "/p", "p.html");
      assert.equal(info.agentEnabled, true);
      if (direct instanceof MarkupError) {
        assert.deepEqual(info.actions, []);
        assert.deepEqual(info.problems.map((p) => p.message), [direct.message]);
      } else {
        assert.deepEqual(info.problems, []);
        assert.deepEqual(info.actions, [direct]);
      }
    }),
    RUNS,
  );
});

Deno.test("readAction() either throws a MarkupError or gives a declaration parseActionSpec judges", () => {
  fc.assert(
    fc.property(actionModel, (m) => {
      const { el, doc } = fakeAction(m);
      // read() and check() fail the property on any other exception.
      check(read(el, doc));
    }),
    RUNS,
  );
});

Deno.test("the consequential and protected flags map exactly, '=\"false\"' included", () => {
  fc.assert(
    fc.property(actionModel, (m) => {
      const { el, doc } = fakeAction(m);
      const declaration = read(el, doc);
      if (declaration instanceof MarkupError) return;
      assert.equal(declaration.consequential, expectedFlag(m.consequential));
      assert.equal(declaration.protected, expectedFlag(m.protected));
      assert.equal(declaration.id, m.name!.trim());
      assert.equal(declaration.description, m.description!.trim());
    }),
    RUNS,
  );
});

Deno.test("an action with click= either takes nothing or is refused for ignoring its input", () => {
  fc.assert(
    fc.property(actionModel, (m) => {
      const { el, doc } = fakeAction({ ...m, click: "#go" });
      const result = check(read(el, doc));
      const declared = [m.inputExample, m.inputDescription, m.minLength, m.maxLength, m.pattern]
        .some((v) => v !== null) || m.json !== null || Boolean(m.formRef);
      if (declared && m.name?.trim() && m.description?.trim()) {
        assert.ok(result instanceof MarkupError);
        assert.match(result.message, /click= ignores the input/);
      } else if (!(result instanceof MarkupError)) {
        assert.deepEqual(result.input_schema, {
          type: "object",
          properties: {},
          additionalProperties: false,
        });
      }
    }),
    RUNS,
  );
});

const WHOLE = /^\s*\d{1,7}\s*$/;

Deno.test("a string input carries its description, lengths and pattern through", () => {
  const stringAction = fc.record({
    id: actionId,
    inputExample: maybe(text(12)),
    inputDescription: maybe(text(20)),
    minLength: lengthAttr,
    maxLength: lengthAttr,
    pattern: patternAttr,
  });
  fc.assert(
    fc.property(stringAction, (s) => {
      const m: ActionModel = {
        name: s.id,
        description: "Do it",
        consequential: null,
        protected: null,
        inputExample: s.inputExample,
        inputDescription: s.inputDescription,
        minLength: s.minLength,
        maxLength: s.maxLength,
        pattern: s.pattern,
        json: null,
        otherScript: false,
        formRef: null,
        click: null,
        formBefore: false,
        fields: [],
      };
      const { el, doc } = fakeAction(m);
      const declared = [s.inputExample, s.inputDescription, s.minLength, s.maxLength, s.pattern]
        .some((v) => v !== null);
      const result = read(el, doc);
      if (s.minLength !== null && !WHOLE.test(s.minLength)) {
        assert.ok(result instanceof MarkupError);
        assert.ok(result.message.includes(`input-min-length="${s.minLength}"`));
        return;
      }
      if (s.maxLength !== null && !WHOLE.test(s.maxLength)) {
        assert.ok(result instanceof MarkupError);
        assert.ok(result.message.includes(`input-max-length="${s.maxLength}"`));
        return;
      }
      if (!declared) {
        assert.ok(!(result instanceof MarkupError));
        assert.deepEqual(result.input_schema, {
          type: "object",
          properties: {},
          additionalProperties: false,
        });
        // The bridge makes the example ({}).
        assert.equal(result.input_example, undefined);
        return;
      }
      assert.ok(!(result instanceof MarkupError), String(result));
      const expected: Record<string, unknown> = { type: "string" };
      if (s.inputDescription) expected.description = s.inputDescription;
      if (s.minLength !== null) expected.minLength = Number(s.minLength);
      if (s.maxLength !== null) expected.maxLength = Number(s.maxLength);
      // input-pattern, like HTML's pattern attribute, matches the whole value: it is anchored,
      // in a group only where one is needed (an alternative; not a whole pattern by itself).
      if (s.pattern) {
        const group = s.pattern.includes("|") || s.pattern === "(" || s.pattern === "[";
        expected.pattern = group ? `^(?:${s.pattern})$` : `^${s.pattern}$`;
      }
      assert.deepEqual(result.input_schema, expected);
      if (s.inputExample !== null) assert.equal(result.input_example, s.inputExample);
    }),
    RUNS,
  );
});

Deno.test("a string input without input-example gets an example that fits its lengths", () => {
  fc.assert(
    fc.property(actionId, fc.nat(30), fc.nat(30), (id, a, b) => {
      const [min, max] = a <= b ? [a, b] : [b, a];
      const m: ActionModel = {
        name: id,
        description: "Do it",
        consequential: null,
        protected: null,
        inputExample: null,
        inputDescription: "what",
        minLength: String(min),
        maxLength: String(max),
        pattern: null,
        json: null,
        otherScript: false,
        formRef: null,
        click: null,
        formBefore: false,
        fields: [],
      };
      const { el, doc } = fakeAction(m);
      const spec = check(read(el, doc));
      assert.ok(!(spec instanceof MarkupError), String(spec));
      const example = spec.input_example as string;
      assert.ok(example.length >= min && example.length <= max);
    }),
  );
});

Deno.test("a form's input is exactly its named controls, without buttons, hidden or file inputs", () => {
  fc.assert(
    fc.property(fc.array(fieldModel, { maxLength: 8 }), fc.boolean(), (fields, before) => {
      const m: ActionModel = {
        name: "place_order",
        description: "Place an order",
        consequential: null,
        protected: null,
        inputExample: null,
        inputDescription: null,
        minLength: null,
        maxLength: null,
        pattern: null,
        json: null,
        otherScript: false,
        formRef: "#order",
        click: null,
        formBefore: before,
        fields,
      };
      const { el, doc } = fakeAction(m);
      const names = expectedFieldNames(fields);
      const result = read(el, doc);
      if (result instanceof MarkupError) {
        // Fails only for a form without named fields, a field named like a prototype key, a
        // constraint that is not a number, or a required patterned field, for which no example
        // can be made up.
        const counted = countedFields(fields);
        const forbidden = counted.some((f) => OBJECT_NAMES.has(f.name!.toLowerCase()));
        const patterned = counted.some((f) =>
          f.pattern && counted.some((g) => g.name === f.name && g.required)
        );
        const badNumber = counted.some((f) =>
          f.tag !== "select" &&
          !(f.tag === "input" && ["radio", "checkbox"].includes(f.type ?? "")) &&
          [f.minLength, f.maxLength].some((v) => v !== null && !WHOLE.test(v))
        );
        assert.ok(names.size === 0 || badNumber || patterned || forbidden, result.message);
        if (forbidden && !badNumber) {
          assert.match(result.message, /the form field name "\w+" is not allowed/);
        }
        if (names.size === 0) assert.match(result.message, /no named fields/);
        return;
      }
      const schema = result.input_schema;
      assert.equal(schema.type, "object");
      if (schema.type !== "object") return;
      assert.deepEqual(new Set(Object.keys(schema.properties!)), names);
      assert.equal(Object.getPrototypeOf(schema.properties!), Object.prototype);
      const counted = countedFields(fields);
      const required = counted.filter((f) => f.required).map((f) => f.name!);
      assert.deepEqual(new Set(schema.required), new Set(required));
      assert.equal(schema.required!.length, new Set(schema.required).size);
      for (const f of counted) {
        if (f.tag !== "select" || f.options.length === 0) continue;
        if (counted.filter((g) => g.name === f.name).length > 1) continue;
        // Every option of a select is among its field's allowed values.
        const field = schema.properties![f.name!];
        const allowed = field?.type === "string" ? field.enum ?? [] : [];
        for (const o of f.options) {
          assert.ok(allowed.includes(o.value ?? o.text.replace(/\s+/g, " ").trim()));
        }
      }
    }),
    RUNS,
  );
});

Deno.test("the example validates against the schema whenever parseActionSpec accepts", () => {
  fc.assert(
    fc.property(actionModel, (m) => {
      const { el, doc } = fakeAction(m);
      const spec = check(read(el, doc));
      if (spec instanceof MarkupError) return;
      if (spec.input_example === undefined) {
        // Left out only where no string the bridge made matches a pattern.
        assert.match(JSON.stringify(spec.input_schema), /"pattern"/);
        return;
      }
      assert.deepEqual(validateInput(spec, spec.input_example), spec.input_example);
    }),
    RUNS,
  );
});

Deno.test("a page whose schema asks for an impossible example length still scans", () => {
  for (
    const json of [
      '{"type":"string","minLength":1e10}',
      '{"type":"string","minLength":1e400}',
      '{"type":"object","properties":{"a":{"type":"string","minLength":"999999999"}},"required":["a"]}',
      '{"type":"object","properties":{},"required":5}',
    ]
  ) {
    const html = `<aim-action name="a" description="d"><script type="application/json">${json}` +
      `</script></aim-action><aim-action name="b" description="fine"></aim-action>`;
    const info = scanPage(html, "/", "index.html");
    assert.deepEqual(info.actions.map((a) => a.id), ["b"]);
    assert.equal(info.problems.length, 1);
  }
});

Deno.test("a form field named __proto__ reaches neither the action nor any prototype", () => {
  for (const required of ["", " required"]) {
    const html = `<form id="f"><input name="__proto__"${required}><input name="ok"></form>` +
      `<aim-action name="a" description="d" form="#f"></aim-action>`;
    const info = scanPage(html, "/", "index.html");
    assert.equal(({} as Record<string, unknown>).type, undefined);
    for (const action of info.actions) {
      assert.ok(action.input_schema.type === "object");
      assert.deepEqual(Object.keys(action.input_schema.properties!), ["ok"]);
      assert.equal(Object.getPrototypeOf(action.input_schema.properties), Object.prototype);
    }
    assert.equal(info.actions.length + info.problems.length, 1);
  }
});

// ---------------------------------------------------------------------------------------------
// redactSecrets

/** A JSON tree as entries, so keys such as __proto__ become own keys once parsed. */
type Tree = string | number | boolean | null | Tree[] | { entries: [string, Tree][] };

const KEYS = [
  "password",
  "Password",
  "passwd",
  "api_key",
  "apiKey",
  "x-api-key",
  "authorization",
  "auth",
  "sessionId",
  "session_id",
  "cookie",
  "privateKey",
  "credentials",
  "accessToken",
  "secret",
  "name",
  "title",
  "status",
  "author",
  "items",
  "constructor",
  "prototype",
  "toString",
  "__proto__",
  // Secret words added later, and ordinary keys that share their letters.
  "pwd",
  "passcode",
  "pin",
  "userPin",
  "PIN_CODE",
  "otp",
  "jwt",
  "bearer",
  "card_number",
  "cardNumber",
  "ssn",
  "cvv",
  "refresh",
  "pinned",
  "spinner",
  "shipping",
  "opinion",
  "refreshed_at",
  "className",
];

const key = fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 8 }));

const { tree } = fc.letrec<{ tree: Tree; leaf: Tree; node: Tree }>((tie) => ({
  tree: fc.oneof({ depthSize: "small", withCrossShrink: true }, tie("leaf"), tie("node")),
  leaf: fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  ),
  node: fc.oneof(
    fc.array(tie("tree"), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie("tree")), { maxLength: 4 }).map((entries) => ({ entries })),
  ),
}));

function isSecret(k: string): boolean {
  return SECRET_KEY.test(k) || k === "__proto__";
}

function toJson(t: Tree, keep: (k: string) => boolean = () => true): string {
  if (t === null || typeof t !== "object") return JSON.stringify(t);
  if (Array.isArray(t)) return `[${t.map((v) => toJson(v, keep)).join(",")}]`;
  const parts = t.entries.filter(([k]) => keep(k)).map(([k, v]) =>
    `${JSON.stringify(k)}:${toJson(v, keep)}`
  );
  return `{${parts.join(",")}}`;
}

function walkObjects(value: unknown, visit: (o: object) => void): void {
  if (typeof value !== "object" || value === null) return;
  visit(value);
  for (const v of Object.values(value)) walkObjects(v, visit);
}

Deno.test("redactSecrets() leaves no key that looks like a secret, at any depth", () => {
  fc.assert(
    fc.property(tree, (t) => {
      const out = redactSecrets(JSON.parse(toJson(t)));
      walkObjects(out, (o) => {
        for (const k of Object.keys(o)) assert.ok(!isSecret(k), `key ${k} survived`);
        assert.ok(!Object.hasOwn(o, "__proto__"));
        if (!Array.isArray(o)) assert.equal(Object.getPrototypeOf(o), Object.prototype);
      });
    }),
    RUNS,
  );
});

Deno.test("redactSecrets() equals the same value with the secret entries left out", () => {
  fc.assert(
    fc.property(tree, (t) => {
      const out = redactSecrets(JSON.parse(toJson(t)));
      assert.deepStrictEqual(out, JSON.parse(toJson(t, (k) => !isSecret(k))));
    }),
    RUNS,
  );
});

Deno.test("redactSecrets() never sets __proto__ nor pollutes Object.prototype", () => {
  fc.assert(
    fc.property(tree, fc.array(key, { maxLength: 3 }), (t, path) => {
      let json = `{"__proto__":{"polluted":true,"password":"x"},"v":${toJson(t)}}`;
      for (const k of path) json = `{${JSON.stringify(k)}:${json},"__proto__":{"polluted":1}}`;
      const out = redactSecrets(JSON.parse(json)) as Record<string, unknown>;
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      walkObjects(out, (o) => {
        if (!Array.isArray(o)) assert.equal(Object.getPrototypeOf(o), Object.prototype);
        assert.equal((o as Record<string, unknown>).polluted, undefined);
      });
    }),
  );
});
