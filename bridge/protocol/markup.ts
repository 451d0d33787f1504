/**
 * @module How markup becomes a manifest action: the one reading of `<aim-action>` shared by
 * the browser elements and the bridge's HTML scan. It imports only import-free modules, so it bundles small.
 */
// Types only: erased from the browser bundle, which must carry no validator.
import type { ActionSpec, ObjectSchema, StringSchema } from "./schemas.ts";
import { parseUntrustedJson } from "./json.ts";
import { OBJECT_NAMES } from "./wire.ts";

/** The part of a DOM element this module reads; a browser `Element` is one. */
export interface MarkupElement {
  readonly tagName: string;
  getAttribute(name: string): string | null;
  readonly children: ArrayLike<MarkupElement>;
  readonly textContent: string | null;
}

/** The part of a document this module reads; a browser `Document` is one. */
export interface MarkupDocument {
  getElementById(id: string): MarkupElement | null;
  readonly documentElement: MarkupElement | null;
}

/** A string input or string field, as JSON Schema: the wire schema's type. */
export type StringInput = StringSchema;

/** A flat object of string fields, as JSON Schema: the wire schema's type. */
export type ObjectInput = ObjectSchema;

/**
 * What one `<aim-action>` declares: an action spec whose example is not checked yet (the bridge
 * validates the whole declaration against the zod schema).
 */
export type ActionDeclaration = Omit<ActionSpec, "input_example" | "read_only"> & {
  input_example: unknown;
  /** `read-only`: the action only reads (MCP hosts see `readOnlyHint`). */
  read_only?: boolean;
};

/** A declaration that cannot become an action; the message names the attribute at fault. */
export class MarkupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MarkupError";
  }
}

const FIELD_TAGS = new Set(["INPUT", "SELECT", "TEXTAREA"]);
const SKIPPED_INPUT_TYPES = new Set(["submit", "button", "reset", "image", "file", "hidden"]);

function flag(el: MarkupElement, name: string): boolean {
  const value = el.getAttribute(name);
  return value !== null && value.trim().toLowerCase() !== "false";
}

function text(el: MarkupElement | null): string {
  return (el?.textContent ?? "").replace(/\s+/g, " ").trim();
}

function integer(el: MarkupElement, name: string): number | undefined {
  const raw = el.getAttribute(name);
  if (raw === null) return undefined;
  if (!/^\s*\d{1,7}\s*$/.test(raw)) {
    throw new MarkupError(`${name}="${raw}" is not a whole number`);
  }
  return Number(raw);
}

function* descendants(el: MarkupElement): Generator<MarkupElement> {
  const children = Array.from(el.children);
  for (const child of children) {
    yield child;
    yield* descendants(child);
  }
}

/** The child `<script type="application/json">` of an element, parsed, or undefined. */
export function readJsonChild(el: MarkupElement): unknown {
  for (const child of Array.from(el.children)) {
    if (
      child.tagName.toUpperCase() === "SCRIPT" &&
      (child.getAttribute("type") ?? "").trim().toLowerCase() === "application/json"
    ) {
      const parsed = parseUntrustedJson(child.textContent ?? "");
      if (parsed.ok) return parsed.value;
      // A "__proto__" key would silently vanish from the schema; say so instead.
      if (parsed.problem === "proto") {
        throw new MarkupError('the child JSON may not use the key "__proto__"');
      }
      throw new MarkupError(
        parsed.problem === "depth"
          ? 'the child <script type="application/json"> nests too deep'
          : 'the child <script type="application/json"> is not valid JSON',
      );
    }
  }
  return undefined;
}

function stringConstraints(el: MarkupElement, prefix: string): Omit<StringInput, "type"> {
  const out: Omit<StringInput, "type"> = {};
  const minLength = integer(el, `${prefix}minlength`) ?? integer(el, `${prefix}min-length`);
  const maxLength = integer(el, `${prefix}maxlength`) ?? integer(el, `${prefix}max-length`);
  const pattern = el.getAttribute(`${prefix}pattern`);
  if (minLength !== undefined) out.minLength = minLength;
  if (maxLength !== undefined) out.maxLength = maxLength;
  // As HTML's pattern attribute, `pattern` and `input-pattern` match the whole value (JSON
  // Schema's pattern matches anywhere, so it is anchored here).
  if (pattern !== null && pattern !== "") out.pattern = `^(?:${pattern})$`;
  return out;
}

function labelOf(field: MarkupElement, doc: MarkupDocument, form: MarkupElement): string {
  const id = field.getAttribute("id");
  if (id) {
    for (const el of descendants(doc.documentElement ?? form)) {
      if (el.tagName.toUpperCase() === "LABEL" && el.getAttribute("for") === id) return text(el);
    }
  }
  // A label that wraps the field.
  for (const el of descendants(form)) {
    if (el.tagName.toUpperCase() !== "LABEL") continue;
    for (const inner of descendants(el)) if (inner === field) return text(el);
  }
  return field.getAttribute("aria-label") ?? field.getAttribute("placeholder") ?? "";
}

/** The flat object of string fields that a form's named controls make. */
export function readFormInput(form: MarkupElement, doc: MarkupDocument): ObjectInput {
  const properties: Record<string, StringInput> = {};
  const required: string[] = [];
  for (const field of descendants(form)) {
    const tag = field.tagName.toUpperCase();
    const name = field.getAttribute("name");
    if (!FIELD_TAGS.has(tag) || !name) continue;
    const type = (field.getAttribute("type") ?? "text").toLowerCase();
    if (tag === "INPUT" && SKIPPED_INPUT_TYPES.has(type)) continue;
    if (OBJECT_NAMES.has(name.toLowerCase())) {
      throw new MarkupError(`the form field name "${name}" is not allowed`);
    }
    const label = labelOf(field, doc, form);
    const schema: StringInput = { type: "string" };
    if (label) schema.description = label;
    if (tag === "SELECT") {
      const values = [...descendants(field)]
        .filter((o) => o.tagName.toUpperCase() === "OPTION")
        .map((o) => o.getAttribute("value") ?? text(o));
      if (values.length) schema.enum = [...new Set(values)];
    } else if (type === "radio" || type === "checkbox") {
      const value = field.getAttribute("value") ?? "on";
      const previous = properties[name]?.enum ?? (type === "checkbox" ? [""] : []);
      schema.enum = [...new Set([...previous, value])];
    } else {
      Object.assign(schema, stringConstraints(field, ""));
    }
    properties[name] = { ...properties[name], ...schema };
    if (field.getAttribute("required") !== null && !required.includes(name)) required.push(name);
  }
  if (Object.keys(properties).length === 0) {
    throw new MarkupError("the form has no named fields to fill");
  }
  return { type: "object", properties, required, additionalProperties: false };
}

function normalizeSchema(raw: unknown): StringInput | ObjectInput {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new MarkupError("the JSON schema must be an object");
  }
  const schema = raw as Record<string, unknown>;
  if (schema.type === "object" && schema.additionalProperties === undefined) {
    return { ...schema, additionalProperties: false } as unknown as ObjectInput;
  }
  return schema as unknown as StringInput | ObjectInput;
}

/** A declared length, when it is one the wire schema allows; parseActionSpec reports others. */
function length(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 &&
      (value as number) <= 1_000_000
    ? value as number
    : undefined;
}

function exampleFor(schema: StringInput): string | undefined {
  if (schema.enum) return schema.enum[0];
  if (schema.pattern) return undefined;
  const base = "example";
  // A JSON schema may declare any length (1e10, "9"): padding to it would throw or exhaust memory.
  const min = length(schema.minLength) ?? 0;
  const max = length(schema.maxLength) ?? Infinity;
  const padded = base.length >= min ? base : base.padEnd(min, "x");
  return padded.slice(0, max);
}

function synthesizeExample(schema: StringInput | ObjectInput): unknown {
  if (schema.type === "string") return exampleFor(schema);
  const example: Record<string, string> = {};
  // `required` of a JSON schema may be anything; parseActionSpec names what is wrong with it.
  for (const name of Array.isArray(schema.required) ? schema.required : []) {
    const field = schema.properties?.[name];
    const value = field ? exampleFor(field) : undefined;
    if (value === undefined) return undefined;
    example[name] = value;
  }
  return example;
}

/** The attributes that declare an `<aim-action>`'s string input. */
const INPUT_ATTRIBUTES = [
  "input-example",
  "input-description",
  "input-min-length",
  "input-minlength",
  "input-max-length",
  "input-maxlength",
  "input-pattern",
];

/** Whether an `<aim-action>` declares an input: input-* attributes, a JSON schema or form=. */
function declaresInput(el: MarkupElement): boolean {
  return INPUT_ATTRIBUTES.some((name) => el.getAttribute(name) !== null) ||
    Boolean(el.getAttribute("form")) ||
    Array.from(el.children).some((child) =>
      child.tagName.toUpperCase() === "SCRIPT" &&
      (child.getAttribute("type") ?? "").trim().toLowerCase() === "application/json"
    );
}

/** The input schema an `<aim-action>` declares. */
export function readInputSchema(el: MarkupElement, doc: MarkupDocument): StringInput | ObjectInput {
  const formRef = el.getAttribute("form");
  const json = readJsonChild(el);
  if (json !== undefined) return normalizeSchema(json);
  if (formRef) {
    const id = formRef.replace(/^#/, "");
    const form = doc.getElementById(id);
    if (!form) throw new MarkupError(`form="${formRef}" matches no element`);
    return readFormInput(form, doc);
  }
  const description = el.getAttribute("input-description");
  if (!INPUT_ATTRIBUTES.some((name) => el.getAttribute(name) !== null)) {
    // An action that takes nothing: an empty object.
    return { type: "object", properties: {}, required: [], additionalProperties: false };
  }
  const schema: StringInput = { type: "string" };
  if (description) schema.description = description;
  Object.assign(schema, stringConstraints(el, "input-"));
  return schema;
}

/**
 * Reads one `<aim-action>` element into an action declaration.
 *
 * @throws {MarkupError} when the markup cannot make an action.
 */
export function readAction(el: MarkupElement, doc: MarkupDocument): ActionDeclaration {
  const id = (el.getAttribute("name") ?? "").trim();
  if (!id) throw new MarkupError("the name attribute is missing");
  const description = (el.getAttribute("description") ?? "").trim();
  if (!description) throw new MarkupError(`action "${id}" has no description attribute`);
  // A click= binding runs whatever the input (the elements click the button first), so a
  // declared input would be advertised to the agent as if it mattered.
  if (el.getAttribute("click") && declaresInput(el)) {
    throw new MarkupError(
      `action "${id}": click= ignores the input; remove the input-* attributes, or run the ` +
        "action with a handler",
    );
  }
  const input_schema = readInputSchema(el, doc);
  const rawExample = el.getAttribute("input-example");
  let input_example: unknown;
  if (rawExample === null) {
    input_example = synthesizeExample(input_schema);
    if (input_example === undefined) {
      throw new MarkupError(`action "${id}" needs an input-example`);
    }
  } else if (input_schema.type === "object") {
    try {
      input_example = JSON.parse(rawExample);
    } catch {
      throw new MarkupError(
        `action "${id}": input-example must be a JSON object for object inputs`,
      );
    }
  } else {
    input_example = rawExample;
  }
  return {
    id,
    description,
    input_schema,
    input_example,
    consequential: flag(el, "consequential"),
    protected: flag(el, "protected"),
    read_only: flag(el, "read-only"),
  };
}

/** `source` (letters and `[-_]?`, `(…|…)`, `^`, `$`) matching its letters in either case. */
function anyCase(source: string): string {
  return source.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
}

/**
 * Words as a key spells them (`pin`, `Pin` or `PIN`, several words joined by `_`, `-`, `.` or
 * nothing, or in camelCase), matched only where they are whole words of the key: `userPin`,
 * `pin_code`, `PINCode` and `card-number` hold one; `spinner`, `pinned`, `shipping` and
 * `className` do not. Built without lookbehind, which older browsers lack.
 */
function wholeWords(...phrases: string[][]): string {
  const forms: string[] = [];
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  for (const words of phrases) {
    const lower = words.join("[-_. ]?");
    const camel = [words[0], ...words.slice(1).map(cap)].join("[-_. ]?");
    const pascal = words.map(cap).join("[-_. ]?");
    const upper = words.map((w) => w.toUpperCase()).join("[-_. ]?");
    // A word starts the key, follows a non-letter, or (capitalized) follows a lower-case letter;
    // it ends the key, comes before a non-letter, or before the capital of the next word.
    forms.push(`(?:^|[^A-Za-z])(?:${lower}|${camel})(?![a-z])`);
    forms.push(`(?:^|[^A-Z])${pascal}(?![a-z])`);
    forms.push(`(?:^|[^A-Z])${upper}(?![a-z]|[A-Z][^a-z]|[A-Z]$)`);
  }
  return forms.join("|");
}

/**
 * Key names that look like secrets: never published in state. Substrings that are never
 * innocent (`password`, `token`, `secret`, …) match anywhere; short words (`pin`, `otp`,
 * `ssn`, `cvv`, …) only as whole words of the key; `refresh` only as the whole key (a
 * `refresh_token` holds `token`; `refreshed_at` and `auto_refresh` are ordinary).
 */
export const SECRET_KEY: RegExp = new RegExp(
  [
    anyCase(
      "^pass$|pass(word|wd|phrase|code)|secret|token|api[-_]?key|auth(orization)?$|cookie|" +
        "credential|private[-_]?key|session[-_]?id|^refresh$",
    ),
    wholeWords(
      ["pwd"],
      ["pin"],
      ["pincode"],
      ["otp"],
      ["totp"],
      ["hotp"],
      ["jwt"],
      ["bearer"],
      ["ssn"],
      ["cvv"],
      ["cvc"],
      ["card", "number"],
      ["card", "num"],
      ["card", "no"],
      ["cc", "number"],
    ),
  ].join("|"),
);

/** A copy of a JSON value without keys that look like secrets, at any depth. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 32) return null;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (SECRET_KEY.test(key) || key === "__proto__") continue;
    out[key] = redactSecrets(v, depth + 1);
  }
  return out;
}
