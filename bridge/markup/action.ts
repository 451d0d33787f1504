/**
 * @module How markup becomes a manifest action: the one reading of `<aim-action>` (and its
 * `<aim-field>` children) shared by the browser elements and the bridge's HTML scan. It imports
 * only import-free modules, so it bundles small.
 */
// Types only: erased from the browser bundle, which must carry no validator.
import type {
  ActionSpec,
  FieldSchema,
  FieldValue,
  InputSchema,
  ObjectSchema,
  StringSchema,
} from "../wire/schemas.ts";
import { deepAll, deepFirst } from "./deep_selector.ts";
import { parseUntrustedJson } from "../wire/json.ts";
import { OBJECT_NAMES } from "../wire/names.ts";

/** The part of a DOM element this module reads; a browser `Element` is one. */
export interface MarkupElement {
  readonly tagName: string;
  getAttribute(name: string): string | null;
  readonly children: ArrayLike<MarkupElement>;
  readonly textContent: string | null;
  /** The first descendant matching a CSS selector; a tree without it has no item keys. */
  querySelector?(selectors: string): MarkupElement | null;
}

/** The part of a document this module reads; a browser `Document` is one. */
export interface MarkupDocument {
  getElementById(id: string): MarkupElement | null;
  readonly documentElement: MarkupElement | null;
  /**
   * Every element matching a CSS selector, in document order; a tree without it finds no
   * controls for `fill=` (its inputs stay strings) and no items.
   */
  querySelectorAll?(selectors: string): ArrayLike<MarkupElement>;
}

/** A string input or string field, as JSON Schema: the wire schema's type. */
export type StringInput = StringSchema;

/** One field of an object input, or an input that is not an object: the wire schema's type. */
export type FieldInput = FieldSchema;

/** A flat object of fields, as JSON Schema: the wire schema's type. */
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

/** Options of {@linkcode readAction}. */
export interface ReadActionOptions {
  /**
   * List the keys of the items present now as the `enum` of an `items=` action's key, and take
   * its example from them: the tab's reading, for the session manifest. The static HTML's
   * reading (the public manifest) leaves them out, since scripts render most lists.
   * @default false
   */
  keys?: boolean;
}

/**
 * The input schema of an action that takes nothing: an object without fields (JSON Schema's
 * `required` is empty when left out). Its example is `{}`.
 */
export function noInput(): ObjectInput {
  return { type: "object", properties: {}, additionalProperties: false };
}

/** A declaration that cannot become an action; the message names the attribute at fault. */
export class MarkupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MarkupError";
  }
}

const FIELD_TAGS = new Set(["INPUT", "SELECT", "TEXTAREA"]);
const SKIPPED_INPUT_TYPES = new Set(["submit", "button", "reset", "image", "file", "hidden"]);
/** The most keys an `items=` action lists as its key's enum, and the longest key listed. */
const MAX_KEYS = 100;
const MAX_KEY_LENGTH = 200;

function flag(el: MarkupElement, name: string): boolean {
  const value = el.getAttribute(name);
  return value !== null && value.trim().toLowerCase() !== "false";
}

/** An element's text, whitespace collapsed: what a key, a label or an item reads as. */
export function textOf(el: MarkupElement | null): string {
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

function tagOf(el: MarkupElement): string {
  return el.tagName.toUpperCase();
}

function* descendants(el: MarkupElement): Generator<MarkupElement> {
  const children = Array.from(el.children);
  for (const child of children) {
    yield child;
    yield* descendants(child);
  }
}

/** The child JSON script of an element, when it has one. */
function jsonScript(el: MarkupElement): MarkupElement | undefined {
  return Array.from(el.children).find((child) =>
    tagOf(child) === "SCRIPT" &&
    (child.getAttribute("type") ?? "").trim().toLowerCase() === "application/json"
  );
}

/** The child `<script type="application/json">` of an element, parsed, or undefined. */
export function readJsonChild(el: MarkupElement): unknown {
  const child = jsonScript(el);
  if (!child) return undefined;
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

/** The `<aim-field>` children of an element. */
export function fieldsOf(el: MarkupElement): MarkupElement[] {
  return Array.from(el.children).filter((child) => tagOf(child) === "AIM-FIELD");
}

function stringConstraints(el: MarkupElement, prefix: string): Omit<StringInput, "type"> {
  const out: Omit<StringInput, "type"> = {};
  const minLength = integer(el, `${prefix}minlength`) ?? integer(el, `${prefix}min-length`);
  const maxLength = integer(el, `${prefix}maxlength`) ?? integer(el, `${prefix}max-length`);
  const pattern = el.getAttribute(`${prefix}pattern`);
  if (minLength !== undefined) out.minLength = minLength;
  if (maxLength !== undefined) out.maxLength = maxLength;
  if (pattern !== null && pattern !== "") out.pattern = anchorPattern(pattern);
  return out;
}

/**
 * A pattern attribute's source as JSON Schema's `pattern`: as HTML's `pattern`, `pattern` and
 * `input-pattern` match the whole value, whereas JSON Schema's matches anywhere, so it is
 * anchored, `^(?:source)$`. The group is left out (`^source$`, the same language) only when it
 * cannot change what the pattern means: the source has no `|` at all (escaped, in a class or
 * not), does not start with a quantifier, and its groups and classes are all closed within it,
 * never closing the group around it, with no `\` left to escape the `)` after it.
 */
export function anchorPattern(source: string): string {
  return groupNeeded(source) ? `^(?:${source})$` : `^${source}$`;
}

/** Whether `^source$` might not mean what `^(?:source)$` means (see anchorPattern). */
function groupNeeded(source: string): boolean {
  if (source.includes("|") || /^[*+?{]/.test(source)) return true;
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      // A `\` at the end would escape the `)` (or the `$`) after it.
      if (++i === source.length) return true;
    } else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")" && --depth < 0) return true;
  }
  return depth !== 0 || inClass;
}

function labelOf(field: MarkupElement, doc: MarkupDocument, form: MarkupElement): string {
  const id = field.getAttribute("id");
  if (id) {
    for (const el of descendants(doc.documentElement ?? form)) {
      if (tagOf(el) === "LABEL" && el.getAttribute("for") === id) return textOf(el);
    }
  }
  // A label that wraps the field.
  for (const el of descendants(form)) {
    if (tagOf(el) !== "LABEL") continue;
    for (const inner of descendants(el)) if (inner === field) return textOf(el);
  }
  return field.getAttribute("aria-label") ?? field.getAttribute("placeholder") ?? "";
}

/** The values a `<select>` offers. */
function optionValues(select: MarkupElement): string[] {
  return [...descendants(select)]
    .filter((o) => tagOf(o) === "OPTION")
    .map((o) => o.getAttribute("value") ?? textOf(o));
}

/** The type of an `<input>` (`text` when it has none), in lower case. */
export function controlType(control: MarkupElement): string {
  return (control.getAttribute("type") ?? "text").toLowerCase();
}

/**
 * The schema of one field (`<aim-field>`, prefix "") or of an action's single input
 * (`<aim-action>`, prefix "input-"): the declared `type` (a string by default, a boolean for a
 * checkbox), with the lengths and pattern of a string or the bounds of a number, and the
 * values of a `<select>` or radio buttons it is filled into. `aim check` reports what does not
 * fit (a number filled into a checkbox, `minimum` on a string).
 */
function fieldSchema(el: MarkupElement, prefix: string, controls: MarkupElement[]): FieldInput {
  const control = controls[0];
  const kind = control ? tagOf(control) === "SELECT" ? "select" : controlType(control) : "";
  const attr = (name: string) => el.getAttribute(prefix + name);
  const type = attr("type")?.trim().toLowerCase() || (kind === "checkbox" ? "boolean" : "string");
  const schema = { type } as FieldInput;
  if (schema.type === "string") {
    Object.assign(schema, stringConstraints(el, prefix));
    const choices = kind === "select"
      ? optionValues(control!)
      : kind === "radio"
      ? controls.map((c) => c.getAttribute("value") ?? "on")
      : [];
    if (choices.length) schema.enum = [...new Set(choices)];
  } else if (schema.type !== "boolean") {
    // Not a number (NaN) is refused by the wire schema, and `aim check` names the attribute.
    for (const bound of ["minimum", "maximum"] as const) {
      const raw = attr(bound);
      if (raw !== null) schema[bound] = Number(raw);
    }
  }
  // The control's own words where the markup has none (a label would cost a walk of the page).
  const description = attr("description") ?? control?.getAttribute("aria-label") ??
    control?.getAttribute("placeholder");
  if (description) schema.description = description;
  return schema;
}

/** A field name that code might look up on a plain object is never one. */
function checkName(name: string, what: string): string {
  if (OBJECT_NAMES.has(name.toLowerCase())) {
    throw new MarkupError(`the ${what} name "${name}" is not allowed`);
  }
  return name;
}

/**
 * The flat object of fields that a form's named controls make: strings, unless an
 * `<aim-field name type>` of `types` (the action's) gives a field of the form another type.
 */
export function readFormInput(
  form: MarkupElement,
  doc: MarkupDocument,
  types: MarkupElement[] = [],
): ObjectInput {
  const properties: Record<string, FieldInput> = {};
  const controls: Record<string, MarkupElement[]> = {};
  const required: string[] = [];
  for (const field of descendants(form)) {
    const tag = tagOf(field);
    const name = field.getAttribute("name");
    if (!FIELD_TAGS.has(tag) || !name) continue;
    const type = controlType(field);
    if (tag === "INPUT" && SKIPPED_INPUT_TYPES.has(type)) continue;
    checkName(name, "form field");
    (controls[name] ??= []).push(field);
    const label = labelOf(field, doc, form);
    const schema: StringInput = { type: "string" };
    if (label) schema.description = label;
    if (tag === "SELECT") {
      const values = optionValues(field);
      if (values.length) schema.enum = [...new Set(values)];
    } else if (type === "radio" || type === "checkbox") {
      const value = field.getAttribute("value") ?? "on";
      const previous = (properties[name] as StringInput | undefined)?.enum ??
        (type === "checkbox" ? [""] : []);
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
  // A name the form lacks changes nothing here; `aim check` reports it.
  for (const field of types) {
    const name = field.getAttribute("name") ?? "";
    const own = controls[name];
    if (!own) continue;
    const label = properties[name]!.description;
    const schema = properties[name] = fieldSchema(field, "", own);
    if (label && !schema.description) schema.description = label;
  }
  return { type: "object", properties, required, additionalProperties: false };
}

function normalizeSchema(raw: unknown): InputSchema {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new MarkupError("the JSON schema must be an object");
  }
  const schema = raw as Record<string, unknown>;
  if (schema.type === "object" && schema.additionalProperties === undefined) {
    return { ...schema, additionalProperties: false } as unknown as ObjectInput;
  }
  return schema as unknown as InputSchema;
}

/** A declared length, when it is one the wire schema allows; parseActionSpec reports others. */
function length(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 &&
      (value as number) <= 1_000_000
    ? value as number
    : undefined;
}

function exampleFor(schema: FieldInput): FieldValue | undefined {
  if (schema.type === "boolean") return true;
  if (schema.type !== "string") {
    // 1 where it fits, else the bound nearest to it (a JSON schema may declare anything:
    // parseActionSpec names what is wrong with it).
    const { minimum: min = -Infinity, maximum: max = Infinity } = schema;
    const value = Math.min(Math.max(1, min), max);
    return Number.isFinite(value) && (schema.type === "number" || Number.isInteger(value))
      ? value
      : undefined;
  }
  if (schema.enum) return schema.enum[0];
  if (schema.pattern) return undefined;
  const base = "example";
  // A JSON schema may declare any length (1e10, "9"): padding to it would throw or exhaust memory.
  const min = length(schema.minLength) ?? 0;
  const max = length(schema.maxLength) ?? Infinity;
  const padded = base.length >= min ? base : base.padEnd(min, "x");
  return padded.slice(0, max);
}

function synthesizeExample(schema: InputSchema): unknown {
  if (schema.type !== "object") return exampleFor(schema);
  const example: Record<string, FieldValue> = {};
  // `required` of a JSON schema may be anything; parseActionSpec names what is wrong with it.
  for (const name of Array.isArray(schema.required) ? schema.required : []) {
    const field = schema.properties?.[name];
    const value = field ? exampleFor(field) : undefined;
    if (value === undefined) return undefined;
    example[name] = value;
  }
  return example;
}

/** A JSON value written in an attribute, or undefined when it is not one. */
function jsonValue(text: string): unknown {
  const parsed = parseUntrustedJson(text);
  return parsed.ok ? parsed.value : undefined;
}

/** The attributes that declare an `<aim-action>`'s single input. */
export const INPUT_ATTRIBUTES = [
  "input-example",
  "input-description",
  "input-type",
  "input-min-length",
  "input-minlength",
  "input-max-length",
  "input-maxlength",
  "input-pattern",
  "input-minimum",
  "input-maximum",
];

/** Whether an `<aim-action>` declares an input: input-*, a JSON schema, fields, fill= or form=. */
function declaresInput(el: MarkupElement): boolean {
  return INPUT_ATTRIBUTES.some((name) => el.getAttribute(name) !== null) ||
    Boolean(el.getAttribute("form") || el.getAttribute("fill")) ||
    fieldsOf(el).length > 0 || jsonScript(el) !== undefined;
}

/** The key of one item of an `items=` action (`key=`, `key-attribute=`); null when it has none. */
export function itemKey(action: MarkupElement, item: MarkupElement): string | null {
  const key = action.getAttribute("key");
  const attribute = action.getAttribute("key-attribute");
  const el = key ? deepFirst<MarkupElement>(item, key) : item;
  // A password field's value attribute never reaches a manifest, as a key or otherwise.
  if (!el || controlType(el) === "password") return null;
  return attribute ? el.getAttribute(attribute) : textOf(el);
}

/**
 * The items of an `items=` action now, each with its key. Selectors may cross open shadow roots
 * with `>>>` (deep_selector.ts); a parsed tree has none, so what follows a `>>>` finds nothing.
 */
export function actionItems(
  action: MarkupElement,
  doc: MarkupDocument,
): [MarkupElement, string | null][] {
  return deepAll<MarkupElement>(doc, action.getAttribute("items") ?? "")
    .map((item) => [item, itemKey(action, item)]);
}

/**
 * The input schema an `<aim-action>` declares.
 *
 * @throws {MarkupError} naming what does not fit.
 */
export function readInputSchema(
  el: MarkupElement,
  doc: MarkupDocument,
  options: ReadActionOptions = {},
): InputSchema {
  return readInput(el, doc, options).schema;
}

/**
 * The items of the static HTML, for the public reading: none when a selector cannot be read
 * there (`aim check` says which), since the page's own browser may still read it.
 */
function staticItems(action: MarkupElement, doc: MarkupDocument): [MarkupElement, string | null][] {
  try {
    return actionItems(action, doc);
  } catch {
    return [];
  }
}

/** The input schema an `<aim-action>` declares, and the first key of its items now, if any. */
function readInput(
  el: MarkupElement,
  doc: MarkupDocument,
  options: ReadActionOptions,
): { schema: InputSchema; first?: string | undefined } {
  const formRef = el.getAttribute("form");
  const json = readJsonChild(el);
  // The input of an action on a named item is the item's key (and fill='s value): nothing else.
  if (el.getAttribute("items") && (json !== undefined || formRef)) {
    throw new MarkupError(
      `items= takes the item's key as input: remove ${formRef ? "form=" : "the JSON schema"}`,
    );
  }
  if (json !== undefined) return { schema: normalizeSchema(json) };
  const fields = fieldsOf(el);
  if (formRef) {
    const id = formRef.replace(/^#/, "");
    const form = doc.getElementById(id);
    if (!form) throw new MarkupError(`form="${formRef}" matches no element`);
    return { schema: readFormInput(form, doc, fields) };
  }
  const fill = el.getAttribute("fill");
  const controls = (selector: string | null, item?: MarkupElement | undefined) =>
    !selector
      ? []
      : item
      ? [deepFirst<MarkupElement>(item, selector)].filter((c) => c) as MarkupElement[]
      : deepAll<MarkupElement>(doc, selector);
  const object = (properties: Record<string, FieldInput>, required: string[]): ObjectInput => ({
    type: "object",
    properties,
    required,
    additionalProperties: false,
  });
  if (el.getAttribute("items")) {
    const items = options.keys ? actionItems(el, doc) : staticItems(el, doc);
    // Keys are the session's to list: the static HTML's items are not the page's.
    const keys = options.keys
      ? [...new Set(items.map(([, key]) => key).filter((key) => key))] as string[]
      : [];
    const key: StringInput = {
      type: "string",
      description: (!fill && el.getAttribute("input-description")) ||
        "The key of the item to act on",
    };
    if (keys.length && keys.length <= MAX_KEYS && keys.every((k) => k.length <= MAX_KEY_LENGTH)) {
      key.enum = keys;
    }
    // fill= names a control inside the item: read from the first item, never the document.
    const item = items[0]?.[0];
    const value = fill &&
      fieldSchema(el, "input-", item ? controls(fill, item) : []);
    return {
      schema: value ? object({ item: key, value }, ["item", "value"]) : key,
      first: keys[0],
    };
  }
  if (fields.length) {
    const properties: Record<string, FieldInput> = {};
    for (const field of fields) {
      const name = checkName(field.getAttribute("name") ?? "", "field");
      properties[name] = fieldSchema(field, "", controls(field.getAttribute("fill")));
    }
    const required = fields.filter((f) => flag(f, "required")).map((f) => f.getAttribute("name")!);
    return { schema: object(properties, required) };
  }
  return {
    schema: fill || INPUT_ATTRIBUTES.some((name) => el.getAttribute(name) !== null)
      ? fieldSchema(el, "input-", controls(fill))
      : noInput(),
  };
}

/**
 * Reads one `<aim-action>` element into an action declaration.
 *
 * @throws {MarkupError} when the markup cannot make an action.
 */
export function readAction(
  el: MarkupElement,
  doc: MarkupDocument,
  options: ReadActionOptions = {},
): ActionDeclaration {
  const id = (el.getAttribute("name") ?? "").trim();
  if (!id) throw new MarkupError("the name attribute is missing");
  const description = (el.getAttribute("description") ?? "").trim();
  if (!description) throw new MarkupError(`action "${id}" has no description attribute`);
  // A click= (check=, uncheck=) binding runs whatever the input (the elements click first), so
  // a declared input would be advertised to the agent as if it mattered. On the item an agent
  // names (items=), the input is the item's key.
  const click = ["click", "check", "uncheck"].find((name) => el.getAttribute(name));
  if (click && !el.getAttribute("items") && declaresInput(el)) {
    throw new MarkupError(
      `action "${id}": ${click}= ignores the input; remove the input-* attributes, or run the ` +
        "action with a handler",
    );
  }
  const { schema: input_schema, first } = readInput(el, doc, options);
  const rawExample = el.getAttribute("input-example");
  let input_example: unknown;
  if (el.getAttribute("items")) {
    // An items= action's key: the first one now, listed or not (100 keys are, at most); with
    // fill=, input-example is the value's example, for patterns no example can be made for.
    const key = first ?? "example";
    if (input_schema.type !== "object") input_example = key;
    else {
      const valueSchema = input_schema.properties.value;
      const value = rawExample === null || !valueSchema
        ? valueSchema && exampleFor(valueSchema)
        : valueSchema.type === "string"
        ? rawExample
        : jsonValue(rawExample);
      if (value === undefined) throw new MarkupError(`action "${id}" needs an input-example`);
      input_example = { item: key, value };
    }
  } else if (rawExample === null) {
    input_example = synthesizeExample(input_schema);
    if (input_example === undefined) {
      throw new MarkupError(`action "${id}" needs an input-example`);
    }
  } else if (input_schema.type !== "string") {
    try {
      input_example = JSON.parse(rawExample);
    } catch {
      throw new MarkupError(
        `action "${id}": input-example must be ${
          input_schema.type === "object" ? "a JSON object" : "JSON"
        } for ${input_schema.type} inputs`,
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
