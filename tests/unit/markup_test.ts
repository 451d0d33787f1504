/**
 * @module Property tests of the one reading of `<aim-action>` markup (readAction), on the
 * server's htmlparser2 tree and on a DOM-like tree, and of redactSecrets.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type ActionDeclaration,
  type MarkupDocument,
  type MarkupElement,
  MarkupError,
  readAction,
  redactSecrets,
  SECRET_KEY,
} from "../../bridge/protocol/markup.ts";
import { type ActionSpec, parseActionSpec } from "../../bridge/protocol/action_spec.ts";
import { validateInput } from "../../bridge/protocol/input.ts";
import { scanPage } from "../../bridge/site/catalog.ts";

// ---------------------------------------------------------------------------------------------
// A markup model, rendered two ways: as HTML text for scanPage, and as a DOM-like tree of
// FakeElements. Both come from the model, so neither is derived from the other's parser.

/** An element of the model: tag, attributes in order, children (text or elements). */
interface Node {
  tag: string;
  attrs: [string, string][];
  children: (Node | string)[];
  /** Raw text children (script): rendered without escaping. */
  raw?: boolean;
}

const VOID_TAGS = new Set(["input"]);

function el(tag: string, attrs: [string, string | null][], children: (Node | string)[] = []): Node {
  return {
    tag,
    attrs: attrs.filter((a): a is [string, string] => a[1] !== null),
    children,
  };
}

function escapeText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;");
}

function escapeAttr(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
}

function toHtml(node: Node | string, raw = false): string {
  if (typeof node === "string") return raw ? node : escapeText(node);
  const attrs = node.attrs.map(([k, v]) => (v === "" ? ` ${k}` : ` ${k}="${escapeAttr(v)}"`))
    .join("");
  if (VOID_TAGS.has(node.tag)) return `<${node.tag}${attrs}>`;
  const inner = node.children.map((c) => toHtml(c, node.raw)).join("");
  return `<${node.tag}${attrs}>${inner}</${node.tag}>`;
}

/** A DOM-like element over the model: what a browser `Element` offers readAction. */
class FakeElement implements MarkupElement {
  readonly tagName: string;
  readonly #attrs: Map<string, string>;
  readonly #kids: (FakeElement | string)[];
  constructor(tag: string, attrs: [string, string][], kids: (FakeElement | string)[]) {
    this.tagName = tag.toUpperCase();
    // Like the DOM, the first of two equal attributes wins.
    this.#attrs = new Map([...attrs].reverse());
    this.#kids = kids;
  }
  getAttribute(name: string): string | null {
    return this.#attrs.get(name.toLowerCase()) ?? null;
  }
  get children(): FakeElement[] {
    return this.#kids.filter((k): k is FakeElement => typeof k !== "string");
  }
  get textContent(): string {
    return this.#kids.map((k) => (typeof k === "string" ? k : k.textContent)).join("");
  }
  *walk(): Generator<FakeElement> {
    yield this;
    for (const child of this.children) yield* child.walk();
  }
}

class FakeDocument implements MarkupDocument {
  readonly documentElement: FakeElement;
  constructor(root: FakeElement) {
    this.documentElement = root;
  }
  getElementById(id: string): MarkupElement | null {
    if (id === "") return null;
    for (const e of this.documentElement.walk()) if (e.getAttribute("id") === id) return e;
    return null;
  }
}

function toFake(node: Node): FakeElement {
  return new FakeElement(
    node.tag,
    node.attrs,
    node.children.map((c) => (typeof c === "string" ? c : toFake(c))),
  );
}

// ---------------------------------------------------------------------------------------------
// Generators.

const CHARS = [..."abcxyzABZ019 -_.'\"&<>=/é漢\t\n#"];
const text = (maxLength = 16) => fc.string({ unit: fc.constantFrom(...CHARS), maxLength });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 3 });

/** A boolean attribute: absent, bare, or any spelling of true and false. */
const flagValue = fc.oneof(
  fc.constant(null),
  fc.constantFrom("", "false", " FALSE ", "False", "true", "0", "no"),
  text(6),
);

/** A length attribute: whole numbers (maybe padded) and things that are not. */
const lengthAttr = maybe(
  fc.oneof(
    fc.nat(40).map(String),
    fc.nat(40).map((n) => ` ${n} `),
    fc.constantFrom("-1", "1.5", "abc", "", "12345678", "1e3", "0x10", "9999999"),
  ),
);

const patternAttr = maybe(
  fc.constantFrom("", "[a-z]+", "\\d{3}", "req-\\d+", ".*", "(", "[", "a|b", "\\p{L}+"),
);

const FIELD_NAMES = [
  "item",
  "quantity",
  "a",
  "_b",
  "x.y",
  "",
  "__proto__",
  "constructor",
  "toString",
  "bad name",
  "1",
];
const INPUT_TYPES = [
  "text",
  "email",
  "password",
  "number",
  "radio",
  "checkbox",
  "hidden",
  "HIDDEN",
  "submit",
  "button",
  "reset",
  "image",
  "file",
  "File",
];

interface FieldModel {
  tag: "input" | "select" | "textarea" | "button";
  type: string | null;
  name: string | null;
  id: string | null;
  label: "none" | "for" | "wrap" | "aria" | "placeholder";
  labelText: string;
  required: boolean;
  minLength: string | null;
  maxLength: string | null;
  pattern: string | null;
  value: string | null;
  options: { value: string | null; text: string }[];
  content: string;
}

const fieldModel: fc.Arbitrary<FieldModel> = fc.record({
  tag: fc.constantFrom("input", "input", "select", "textarea", "button"),
  // Rendered on inputs only.
  type: maybe(fc.constantFrom(...INPUT_TYPES)),
  name: maybe(fc.constantFrom(...FIELD_NAMES)),
  id: maybe(fc.constantFrom("f1", "f2", "f3")),
  label: fc.constantFrom("none", "for", "wrap", "aria", "placeholder"),
  labelText: text(12),
  required: fc.boolean(),
  minLength: lengthAttr,
  maxLength: lengthAttr,
  pattern: patternAttr,
  value: maybe(text(6)),
  options: fc.array(fc.record({ value: maybe(text(5)), text: text(8) }), { maxLength: 4 }),
  // Textarea content: plain text, since it is RCDATA to an HTML parser.
  content: fc.string({ unit: fc.constantFrom(..."abc xyz"), maxLength: 6 }),
});

function fieldNodes(f: FieldModel): Node[] {
  let control: Node;
  const common: [string, string | null][] = [["name", f.name], ["id", f.id]];
  if (f.label === "aria") common.push(["aria-label", f.labelText]);
  if (f.label === "placeholder") common.push(["placeholder", f.labelText]);
  if (f.required) common.push(["required", ""]);
  if (f.tag === "select") {
    control = el(
      "select",
      common,
      f.options.map((o) => el("option", [["value", o.value]], [o.text])),
    );
  } else if (f.tag === "button") {
    control = el("button", common, [f.labelText]);
  } else {
    const constraints: [string, string | null][] = [
      ["minlength", f.minLength],
      ["maxlength", f.maxLength],
      ["pattern", f.pattern],
    ];
    control = f.tag === "textarea"
      ? el("textarea", [...common, ...constraints], f.content ? [f.content] : [])
      : el("input", [["type", f.type], ...common, ...constraints, ["value", f.value]]);
  }
  if (f.label === "wrap") return [el("label", [], [f.labelText, control])];
  if (f.label === "for") return [el("label", [["for", f.id ?? "nowhere"]], [f.labelText]), control];
  return [control];
}

const SKIPPED = new Set(["submit", "button", "reset", "image", "file", "hidden"]);

/** The controls that should become fields: named ones, minus buttons, hidden and file inputs. */
function countedFields(fields: FieldModel[]): FieldModel[] {
  return fields
    .filter((f) => f.tag !== "button" && f.name)
    .filter((f) => f.tag !== "input" || !SKIPPED.has((f.type ?? "text").toLowerCase()));
}

/** The names a form's controls should give its object input. */
function expectedFieldNames(fields: FieldModel[]): Set<string> {
  return new Set(countedFields(fields).map((f) => f.name!));
}

/** JSON child schemas: valid ones, almost-valid ones, and junk. */
const jsonChild = fc.oneof(
  fc.record({
    type: fc.constant("string"),
    minLength: fc.nat(5),
    maxLength: fc.integer({ min: 5, max: 20 }),
  }, { requiredKeys: ["type"] }).map((s) => JSON.stringify(s)),
  fc.uniqueArray(fc.constantFrom(...FIELD_NAMES), { maxLength: 4 }).chain((names) =>
    fc.subarray(names).map((required) =>
      JSON.stringify({
        type: "object",
        properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])),
        required,
      })
    )
  ),
  fc.constantFrom(
    '{"type":"object","properties":{},"required":5}',
    '{"type":"object","properties":null}',
    '{"type":"string","minLength":1e10}',
    '{"type":"string","minLength":"999999999"}',
    '{"type":"string","minLength":1e400}',
    '{"type":"object","properties":{"a":{"type":"string","minLength":1e12}},"required":["a"]}',
    '{"type":"object","properties":{"a":5},"required":["a"]}',
    '{"type":"string","enum":"abc"}',
    '{"type":"string","enum":[]}',
    '{"type":"string","pattern":"("}',
    '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}',
    "{",
    "[]",
    "null",
    '"string"',
  ),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
).map((json) => json.replaceAll("<", "\\u003c"));

interface ActionModel {
  name: string | null;
  description: string | null;
  consequential: string | null;
  protected: string | null;
  inputExample: string | null;
  inputDescription: string | null;
  minLength: string | null;
  maxLength: string | null;
  pattern: string | null;
  json: string | null;
  otherScript: boolean;
  formRef: string | null;
  /** A click= binding. */
  click: string | null;
  formBefore: boolean;
  fields: FieldModel[];
}

const actionId = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,12}$/);

const actionModel: fc.Arbitrary<ActionModel> = fc.record({
  name: fc.oneof(
    { arbitrary: actionId, weight: 16 },
    { arbitrary: actionId.map((n) => ` ${n} `), weight: 1 },
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: text(10), weight: 1 },
  ),
  description: fc.oneof(
    { arbitrary: text(30).filter((d) => d.trim() !== ""), weight: 16 },
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: fc.constant("x".repeat(2001)), weight: 1 },
    { arbitrary: fc.constantFrom("", "  "), weight: 1 },
  ),
  consequential: flagValue,
  protected: flagValue,
  inputExample: fc.oneof(
    { arbitrary: fc.constant(null), weight: 3 },
    { arbitrary: text(12), weight: 2 },
    {
      arbitrary: fc.dictionary(fc.constantFrom(...FIELD_NAMES), text(6), { maxKeys: 3 })
        .map((o) => JSON.stringify(o)),
      weight: 2,
    },
    { arbitrary: fc.constantFrom("not json", "[]", "5", '{"a":1}'), weight: 1 },
  ),
  inputDescription: maybe(text(20)),
  minLength: lengthAttr,
  maxLength: lengthAttr,
  pattern: patternAttr,
  json: fc.option(jsonChild, { nil: null, freq: 2 }),
  otherScript: fc.boolean(),
  formRef: fc.oneof(fc.constant(null), fc.constantFrom("#order", "order", "#missing", "#", "")),
  click: fc.option(fc.constantFrom("#go", ""), { nil: null, freq: 3 }),
  formBefore: fc.boolean(),
  fields: fc.array(fieldModel, { maxLength: 6 }),
});

/** The whole page of a model, as a model tree. */
function pageTree(m: ActionModel): Node {
  const scripts: Node[] = [];
  if (m.otherScript) {
    scripts.push({ ...el("script", [["type", "text/plain"]], ["{}"]), raw: true });
  }
  if (m.json !== null) {
    scripts.push({ ...el("script", [["type", "application/json"]], [m.json]), raw: true });
  }
  const action = el("aim-action", [
    ["name", m.name],
    ["description", m.description],
    ["consequential", m.consequential],
    ["protected", m.protected],
    ["input-example", m.inputExample],
    ["input-description", m.inputDescription],
    ["input-min-length", m.minLength],
    ["input-max-length", m.maxLength],
    ["input-pattern", m.pattern],
    ["form", m.formRef],
    ["click", m.click],
  ], scripts);
  const form = el("form", [["id", "order"]], m.fields.flatMap(fieldNodes));
  const body = el("body", [], m.formBefore ? [form, action] : [action, form]);
  return el("#document", [], [el("html", [], [el("head", [], [el("title", [], ["T"])]), body])]);
}

function pageHtml(m: ActionModel): string {
  return "<!doctype html>" + (pageTree(m).children as Node[]).map((c) => toHtml(c)).join("");
}

function fakeAction(m: ActionModel): { el: FakeElement; doc: FakeDocument } {
  const root = toFake(pageTree(m));
  const doc = new FakeDocument(root);
  const action = [...root.walk()].find((e) => e.tagName === "AIM-ACTION")!;
  return { el: action, doc };
}

/** readAction on a tree; any exception but MarkupError is a failure of the property. */
function read(el: MarkupElement, doc: MarkupDocument): ActionDeclaration | MarkupError {
  try {
    return readAction(el, doc);
  } catch (error) {
    if (error instanceof MarkupError) return error;
    throw new Error(`readAction threw ${error} instead of a MarkupError`, { cause: error });
  }
}

/** The outcome of parseActionSpec on a declaration: a spec or a MarkupError, nothing else. */
function check(declaration: ActionDeclaration | MarkupError): ActionSpec | MarkupError {
  if (declaration instanceof MarkupError) return declaration;
  try {
    return parseActionSpec(declaration);
  } catch (error) {
    if (error instanceof MarkupError) return error;
    throw new Error(`parseActionSpec threw ${error} instead of a MarkupError`, { cause: error });
  }
}

function expectedFlag(value: string | null): boolean {
  return value !== null && value.trim().toLowerCase() !== "false";
}

const RUNS = { numRuns: 400 };

// ---------------------------------------------------------------------------------------------

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
          required: [],
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
          required: [],
          additionalProperties: false,
        });
        assert.deepEqual(result.input_example, {});
        return;
      }
      if (result instanceof MarkupError) {
        // Only a pattern without an example leaves nothing to synthesize.
        assert.ok(s.inputExample === null && s.pattern);
        return;
      }
      const expected: Record<string, unknown> = { type: "string" };
      if (s.inputDescription) expected.description = s.inputDescription;
      if (s.minLength !== null) expected.minLength = Number(s.minLength);
      if (s.maxLength !== null) expected.maxLength = Number(s.maxLength);
      // input-pattern, like HTML's pattern attribute, matches the whole value: it is anchored.
      if (s.pattern) expected.pattern = `^(?:${s.pattern})$`;
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
        const forbidden = counted.some((f) =>
          ["__proto__", "constructor", "prototype"].includes(f.name!)
        );
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
      assert.deepEqual(new Set(Object.keys(schema.properties)), names);
      assert.equal(Object.getPrototypeOf(schema.properties), Object.prototype);
      const counted = countedFields(fields);
      const required = counted.filter((f) => f.required).map((f) => f.name!);
      assert.deepEqual(new Set(schema.required), new Set(required));
      assert.equal(schema.required!.length, new Set(schema.required).size);
      for (const f of counted) {
        if (f.tag !== "select" || f.options.length === 0) continue;
        if (counted.filter((g) => g.name === f.name).length > 1) continue;
        // Every option of a select is among its field's allowed values.
        const allowed = schema.properties[f.name!]?.enum ?? [];
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
      assert.deepEqual(Object.keys(action.input_schema.properties), ["ok"]);
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
  // Secret words added for issue 9, and ordinary keys that share their letters.
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
