/**
 * A form's controls read as an action's input schema: their types, constraints, labels and
 * options.
 *
 * @module
 */
import { OBJECT_NAMES } from "../wire/object_names.ts";
// Types only: erased from the browser bundle, which must carry no validator.
import type { InputSchema } from "../wire/schemas.ts";
import { type MarkupDocument, type MarkupElement, MarkupError, tagOf } from "./element.ts";
import {
  descendants,
  FIELD_TAGS,
  flag,
  integer,
  labelText,
  SKIPPED_INPUT_TYPES,
  textOf,
} from "./reading.ts";

/** A string input or string field, as JSON Schema: the wire schema's type. */
export type StringInput = InputSchema;

/** One field of an object input, or an input that is not an object: the wire schema's type. */
export type FieldInput = InputSchema;

/** An object of fields, as JSON Schema: the wire schema's type. */
export type ObjectInput = InputSchema & { properties: Record<string, InputSchema> };

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
      if (tagOf(el) === "LABEL" && el.getAttribute("for") === id) return labelText(el);
    }
  }
  // A label that wraps the field.
  for (const el of descendants(form)) {
    if (tagOf(el) !== "LABEL") continue;
    for (const inner of descendants(el)) if (inner === field) return labelText(el);
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
 * checkbox, a list for a `<select multiple>` or several checkboxes), with the lengths and
 * pattern of a string, the bounds of a number, the values of `enum=` (separated by commas) or
 * of the `<select>`, radio buttons or checkboxes it is filled into; a list's items read the
 * same way from `items-…` attributes (`items-type`, `items-enum`…), with `min-items`,
 * `max-items` and `unique-items`; an object's fields are its own `<aim-field>` children (`fields`), as are
 * those of a list of objects. `aim check` reports what does not fit (a number filled into a
 * checkbox, `minimum` on a string).
 */
export function fieldSchema(
  el: MarkupElement,
  prefix: string,
  controls: MarkupElement[],
  fields?: () => ObjectInput,
  item?: boolean,
): FieldInput {
  const control = controls[0];
  const kind = control ? tagOf(control) === "SELECT" ? "select" : controlType(control) : "";
  // Several values at once: a <select multiple>, or checkboxes of one name.
  const many = !item &&
    (kind === "select"
      ? control!.getAttribute("multiple") !== null
      : kind === "checkbox" && controls.length > 1);
  const attr = (name: string) => el.getAttribute(prefix + name);
  const type = attr("type")?.trim().toLowerCase() ||
    (many ? "array" : kind === "checkbox" && !item ? "boolean" : "string");
  const schema = { type } as FieldInput;
  const values = attr("enum")?.split(",").map((v) => v.trim());
  if (type === "array") {
    // A multiple control's items are its values; a list of objects', its fields.
    schema.items = fieldSchema(el, `${prefix}items-`, many ? controls : [], fields, true);
    const min = integer(el, `${prefix}min-items`);
    const max = integer(el, `${prefix}max-items`);
    if (min !== undefined) schema.minItems = min;
    if (max !== undefined) schema.maxItems = max;
    if (many || flag(el, `${prefix}unique-items`)) schema.uniqueItems = true;
  } else if (type === "object") {
    if (fields) Object.assign(schema, fields());
  } else if (type === "string") {
    Object.assign(schema, stringConstraints(el, prefix));
    const choices = kind === "select"
      ? optionValues(control!)
      : /radio|checkbox/.test(kind)
      ? controls.map((c) => c.getAttribute("value") ?? "on")
      : values ?? [];
    if (choices.length) schema.enum = [...new Set(choices)];
  } else if (type !== "boolean") {
    // Not a number (NaN) is refused by the wire schema, and `aim check` names the attribute.
    for (const bound of ["minimum", "maximum"] as const) {
      const raw = attr(bound);
      if (raw !== null) schema[bound] = Number(raw);
    }
    if (values) schema.enum = values.map(Number);
  }
  // The control's own words where the markup has none (a label would cost a walk of the page).
  const description = attr("description") ?? control?.getAttribute("aria-label") ??
    control?.getAttribute("placeholder");
  if (description) schema.description = description;
  return schema;
}

/** A field name that code might look up on a plain object is never one. */
export function checkName(name: string, what: string): string {
  if (OBJECT_NAMES.has(name.toLowerCase())) {
    throw new MarkupError(`the ${what} name "${name}" is not allowed`);
  }
  return name;
}

/**
 * The object of fields that a form's named controls make: strings (a `<select multiple>` or
 * several checkboxes of one name: a list of their values), unless an `<aim-field name type>` of
 * `types` (the action's) gives a field of the form another type.
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
  // An <aim-field name type> of the action's gives a field of the form its type, and a
  // <select multiple> or checkboxes of one name are a list of their values.
  for (const [name, own] of Object.entries(controls)) {
    const field = types.find((t) => t.getAttribute("name") === name);
    // Without a field: the form itself, read with a prefix no attribute has (its controls alone).
    const schema = fieldSchema(field ?? form, field ? "" : "\0", own);
    if (!field && schema.type !== "array") continue;
    const label = properties[name]!.description;
    properties[name] = schema;
    if (label && !schema.description && !own[1]) schema.description = label;
  }
  return { type: "object", properties, required, additionalProperties: false };
}
