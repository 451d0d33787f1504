/**
 * A markup model for property tests of readAction: pages of `<aim-action>` markup
 * rendered two ways, as HTML text for the server's scan and as a DOM-like tree of
 * FakeElements, so that neither reading is derived from the other's parser.
 *
 * @module
 */
import fc from "fast-check";
import {
  type ActionDeclaration,
  type MarkupDocument,
  type MarkupElement,
  MarkupError,
  readAction,
} from "../../bridge/markup/action.ts";
import { type ActionSpec, parseActionSpec } from "../../bridge/input/action_spec.ts";

// ---------------------------------------------------------------------------------------------
// A markup model, rendered two ways: as HTML text for scanPage, and as a DOM-like tree of
// FakeElements. Both come from the model, so neither is derived from the other's parser.

/** An element of the model: tag, attributes in order, children (text or elements). */
export interface Node {
  tag: string;
  attrs: [string, string][];
  children: (Node | string)[];
  /** Raw text children (script): rendered without escaping. */
  raw?: boolean;
}

export const VOID_TAGS = new Set(["input"]);

export function el(
  tag: string,
  attrs: [string, string | null][],
  children: (Node | string)[] = [],
): Node {
  return {
    tag,
    attrs: attrs.filter((a): a is [string, string] => a[1] !== null),
    children,
  };
}

export function escapeText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;");
}

export function escapeAttr(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
}

export function toHtml(node: Node | string, raw = false): string {
  if (typeof node === "string") return raw ? node : escapeText(node);
  const attrs = node.attrs.map(([k, v]) => (v === "" ? ` ${k}` : ` ${k}="${escapeAttr(v)}"`))
    .join("");
  if (VOID_TAGS.has(node.tag)) return `<${node.tag}${attrs}>`;
  const inner = node.children.map((c) => toHtml(c, node.raw)).join("");
  return `<${node.tag}${attrs}>${inner}</${node.tag}>`;
}

/** A DOM-like element over the model: what a browser `Element` offers readAction. */
export class FakeElement implements MarkupElement {
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

export class FakeDocument implements MarkupDocument {
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

export function toFake(node: Node): FakeElement {
  return new FakeElement(
    node.tag,
    node.attrs,
    node.children.map((c) => (typeof c === "string" ? c : toFake(c))),
  );
}

// ---------------------------------------------------------------------------------------------
// Generators.

export const CHARS = [..."abcxyzABZ019 -_.'\"&<>=/é漢\t\n#"];
export const text = (maxLength = 16) => fc.string({ unit: fc.constantFrom(...CHARS), maxLength });
export const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 3 });

/** A boolean attribute: absent, bare, or any spelling of true and false. */
export const flagValue = fc.oneof(
  fc.constant(null),
  fc.constantFrom("", "false", " FALSE ", "False", "true", "0", "no"),
  text(6),
);

/** A length attribute: whole numbers (maybe padded) and things that are not. */
export const lengthAttr = maybe(
  fc.oneof(
    fc.nat(40).map(String),
    fc.nat(40).map((n) => ` ${n} `),
    fc.constantFrom("-1", "1.5", "abc", "", "12345678", "1e3", "0x10", "9999999"),
  ),
);

export const patternAttr = maybe(
  fc.constantFrom("", "[a-z]+", "\\d{3}", "req-\\d+", ".*", "(", "[", "a|b", "\\p{L}+"),
);

export const FIELD_NAMES = [
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
export const INPUT_TYPES = [
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

export interface FieldModel {
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

export const fieldModel: fc.Arbitrary<FieldModel> = fc.record({
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

export function fieldNodes(f: FieldModel): Node[] {
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

export const SKIPPED = new Set(["submit", "button", "reset", "image", "file", "hidden"]);

/** The controls that should become fields: named ones, minus buttons, hidden and file inputs. */
export function countedFields(fields: FieldModel[]): FieldModel[] {
  return fields
    .filter((f) => f.tag !== "button" && f.name)
    .filter((f) => f.tag !== "input" || !SKIPPED.has((f.type ?? "text").toLowerCase()));
}

/** The names a form's controls should give its object input. */
export function expectedFieldNames(fields: FieldModel[]): Set<string> {
  return new Set(countedFields(fields).map((f) => f.name!));
}

/** JSON child schemas: valid ones, almost-valid ones, and junk. */
export const jsonChild = fc.oneof(
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

export interface ActionModel {
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

export const actionId = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,12}$/);

export const actionModel: fc.Arbitrary<ActionModel> = fc.record({
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
export function pageTree(m: ActionModel): Node {
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

export function pageHtml(m: ActionModel): string {
  return "<!doctype html>" + (pageTree(m).children as Node[]).map((c) => toHtml(c)).join("");
}

export function fakeAction(m: ActionModel): { el: FakeElement; doc: FakeDocument } {
  const root = toFake(pageTree(m));
  const doc = new FakeDocument(root);
  const action = [...root.walk()].find((e) => e.tagName === "AIM-ACTION")!;
  return { el: action, doc };
}

/** readAction on a tree; any exception but MarkupError is a failure of the property. */
export function read(el: MarkupElement, doc: MarkupDocument): ActionDeclaration | MarkupError {
  try {
    return readAction(el, doc);
  } catch (error) {
    if (error instanceof MarkupError) return error;
    throw new Error(`readAction threw ${error} instead of a MarkupError`, { cause: error });
  }
}

/** The outcome of parseActionSpec on a declaration: a spec or a MarkupError, nothing else. */
export function check(declaration: ActionDeclaration | MarkupError): ActionSpec | MarkupError {
  if (declaration instanceof MarkupError) return declaration;
  try {
    return parseActionSpec(declaration);
  } catch (error) {
    if (error instanceof MarkupError) return error;
    throw new Error(`parseActionSpec threw ${error} instead of a MarkupError`, { cause: error });
  }
}

export function expectedFlag(value: string | null): boolean {
  return value !== null && value.trim().toLowerCase() !== "false";
}

export const RUNS = { numRuns: 400 };
