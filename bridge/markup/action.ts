/**
 * How markup becomes a manifest action: the one reading of `<aim-action>` (and its
 * `<aim-field>` children) shared by the browser elements and the bridge's HTML scan. It imports
 * only import-free modules, so it bundles small.
 *
 * @module
 */
// Types only: erased from the browser bundle, which must carry no validator.
import type { ActionSpec, InputSchema } from "../wire/schemas.ts";
import { deepAll, deepFirst } from "./deep_selector.ts";
import { parseUntrustedJson } from "../wire/json.ts";
import {
  jsonScript,
  type MarkupDocument,
  type MarkupElement,
  MarkupError,
  readJsonChild,
} from "./element.ts";
import { fieldsOf, flag, MAX_KEY_LENGTH, MAX_KEYS, textOf } from "./reading.ts";
import { readOpen } from "./open.ts";
import {
  checkName,
  controlType,
  type FieldInput,
  fieldSchema,
  type ObjectInput,
  readFormInput,
  type StringInput,
} from "./form.ts";

// The types and the error every reader of markup names, defined where nothing imports back.
export {
  type MarkupDocument,
  type MarkupElement,
  MarkupError,
  type MarkupNode,
} from "./element.ts";
export type { FieldInput, ObjectInput, StringInput } from "./form.ts";

/**
 * What one `<aim-action>` declares: an action spec whose example is not checked yet (the bridge
 * validates the whole declaration against the zod schema, and makes an example from the schema
 * where the markup gives none).
 */
export type ActionDeclaration = Omit<ActionSpec, "input_example" | "read_only"> & {
  input_example?: unknown;
  /** `read-only`: the action only reads (MCP hosts see `readOnlyHint`). */
  read_only?: boolean;
};

/** Options of {@linkcode readAction}. */
export interface ReadActionOptions {
  /**
   * List the keys of the items present now as the `enum` of an `items=` action's key, and take
   * its example from them: the tab's reading, for the session manifest. The static HTML's
   * reading (the public manifest) leaves them out, since scripts render most lists.
   * @default {false}
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

/** A child JSON schema: an object, checked whole by the bridge (bridge/wire/input_schema.ts). */
function schemaOf(raw: unknown): InputSchema {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new MarkupError("the JSON schema must be an object");
  }
  return raw as InputSchema;
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
  if (json !== undefined) return { schema: schemaOf(json) };
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
    } else if (keys[0] !== undefined && fill) {
      // Too many to list: the first shows the bridge which key its example names.
      key.examples = [keys[0]];
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
  /** The object of `<aim-field>`s, each maybe a list or an object of its own fields. */
  const objectOf = (fields: MarkupElement[]): ObjectInput => {
    const properties: Record<string, FieldInput> = {};
    for (const field of fields) {
      const name = checkName(field.getAttribute("name") ?? "", "field");
      properties[name] = fieldSchema(
        field,
        "",
        controls(field.getAttribute("fill")),
        () => objectOf(fieldsOf(field)),
      );
    }
    const required = fields.filter((f) => flag(f, "required")).map((f) => f.getAttribute("name")!);
    return object(properties, required);
  };
  if (fields.length) return { schema: objectOf(fields) };
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
  // open= must read, or the action would fill what it never opened (an edit the app never began).
  readOpen(el);
  const { schema: input_schema, first } = readInput(el, doc, options);
  const rawExample = el.getAttribute("input-example");
  let input_example: unknown;
  const valueSchema = input_schema.properties?.value;
  if (el.getAttribute("items") && !valueSchema) {
    // An items= action's key: the first one now, listed or not (100 keys are, at most).
    input_example = first ?? "example";
  } else if (rawExample !== null) {
    // With items= and fill=, input-example is the value's example.
    const schema = valueSchema && el.getAttribute("items") ? valueSchema : input_schema;
    const value = schema.type === "string" ? rawExample : jsonValue(rawExample);
    if (value === undefined) {
      throw new MarkupError(
        `action "${id}": input-example must be ${
          schema.type === "object" ? "a JSON object" : "JSON"
        } for ${schema.type ?? "such"} inputs`,
      );
    }
    input_example = schema === valueSchema ? { item: first ?? "example", value } : value;
  }
  return {
    id,
    description,
    input_schema,
    ...(input_example !== undefined && { input_example }),
    consequential: flag(el, "consequential"),
    protected: flag(el, "protected"),
    read_only: flag(el, "read-only"),
  };
}
