/**
 * Checking an `<aim-action>`'s bindings (items=, key=, click=, check=, open=, fill=, commit=,
 * `<aim-field>`) against a page's static HTML.
 *
 * @module
 */
import { type AnyNode, type Document, type Element, isTag } from "domhandler";
import { selectAll } from "css-select";
import { INPUT_ATTRIBUTES, itemKey } from "../markup/action.ts";
import { readOpen } from "../markup/open.ts";
import { SECRET_KEY } from "../markup/secrets.ts";
import { type AddProblem, type CheckProblem, deepPrefix, deepWarning } from "./check_problem.ts";
import { markupOf } from "./check_state.ts";

// ---------------------------------------------------------------------------------------------
// <aim-action>: its bindings (items=, key=, click=, check=, open=, fill=, commit=, <aim-field>) read
// against the static HTML. What a script may render (items, their parts, filled controls) only
// warns when it matches nothing; what can never work is an error.

/** The types a field may declare. */
const FIELD_TYPES = ["string", "number", "integer", "boolean", "array", "object"];
/** The attributes of a field's schema, by the types they fit (and every `items-…`: a list's). */
const FIELD_FITS: [string[], string[]][] = [
  [["minlength", "min-length", "maxlength", "max-length", "pattern"], ["string"]],
  [["minimum", "maximum"], ["number", "integer"]],
  [["min-items", "max-items", "unique-items"], ["array"]],
];

/** What `aim check` says of a field whose name looks like a secret's. */
const SECRET_WORDS =
  "looks like a secret, which an agent should never be asked for; it is also kept out of logs";

/** The elements matching `selector` inside `root` (the document: anywhere); null if invalid. */
function findAll(selector: string, root: AnyNode): Element[] | null {
  try {
    return selector.trim() ? selectAll<AnyNode, Element>(selector, root) : null;
  } catch {
    return null;
  }
}

/** Whether `type` fits the control a field is filled into; the message says why not. */
function typeMisfit(type: string, control: Element | undefined): string | undefined {
  if (!control) return undefined;
  const kind = control.name === "select"
    ? "select"
    : control.name === "input"
    ? (control.attribs.type ?? "text").toLowerCase()
    : control.name;
  if (type === "object") {
    return `a <${control.name}> takes one value; an object is filled into no control (a ` +
      "handler or an aim-invoke listener gets it)";
  }
  if (type === "array") {
    return (kind === "select" && control.attribs.multiple !== undefined) || kind === "checkbox"
      ? undefined
      : `a <${control.name}${kind === "select" ? "" : ` type="${kind}"`}> takes one value; ` +
        "only a <select multiple> or checkboxes take a list";
  }
  if (kind === "checkbox") return type === "boolean" ? undefined : "a checkbox takes a boolean";
  if (kind === "select" || kind === "radio") {
    return type === "string" ? undefined : `a <select> or radio buttons take one of their values`;
  }
  return type === "boolean"
    ? `a <${control.name}> takes text; only a checkbox takes a boolean`
    : undefined;
}

/**
 * Problems with one field's type and constraints: an `<aim-field>` (prefix "") or an action's
 * single input (prefix "input-"), filled into `control` when it is known.
 */
function checkFieldType(
  el: Element,
  prefix: string,
  control: Element | undefined,
  say: (message: string, severity?: CheckProblem["severity"]) => void,
): void {
  const declared = el.attribs[`${prefix}type`]?.trim().toLowerCase();
  // Strings stay the default, but a number control fed "example" keeps nothing: say so.
  const numeric = control?.name === "input" && /^(number|range)$/i.test(control.attribs.type ?? "");
  if (numeric && !declared) {
    say(
      `it fills an <input type="${control!.attribs.type}"> as a string: declare ` +
        `${prefix}type="number" or "integer" so that the agent sends a number`,
      "warning",
    );
  }
  const isBox = control?.name === "input" && control.attribs.type?.toLowerCase() === "checkbox";
  const type = declared || (isBox ? "boolean" : "string");
  // A type that is none of these is refused by the wire schema, reported with the catalog's.
  if (!FIELD_TYPES.includes(type)) return;
  const misfit = typeMisfit(type, control);
  if (misfit) say(`${prefix}type="${type}" does not fit its control: ${misfit}`);
  for (const [names, types] of FIELD_FITS) {
    for (const name of names.map((n) => prefix + n)) {
      if (el.attribs[name] !== undefined && !types.includes(type)) {
        say(`${name} does not fit ${prefix}type="${type}" (it is for ${types.join(" and ")})`);
      }
    }
  }
  // A list's items are read from `items-…`: on a field that is no list, they say nothing.
  const itemsPrefix = `${prefix}items-`;
  for (const name of Object.keys(el.attribs).filter((n) => n.startsWith(itemsPrefix))) {
    if (type !== "array") say(`${name} does not fit ${prefix}type="${type}" (it is for array)`);
  }
  for (const name of ["minimum", "maximum"].map((n) => prefix + n)) {
    const raw = el.attribs[name];
    if (raw !== undefined && (raw.trim() === "" || !Number.isFinite(Number(raw)))) {
      say(`${name}="${raw}" is not a number`);
    }
  }
  // A list's items, as a field of their own: a <select multiple> or checkboxes hold strings.
  if (type === "array") checkFieldType(el, itemsPrefix, undefined, say);
}

/** The `<aim-field>` children of an element. */
function fieldsOf(el: Element): Element[] {
  return el.children.filter((c): c is Element => isTag(c) && c.name === "aim-field");
}

/**
 * Problems with the fields of the field `field` at `path` (`lines`, `lines.sku`): those of an
 * object (`type="object"`) or of a list of objects (`items-type="object"`), checked as an
 * action's fields are, each named by its path; `<aim-field>` children that another type ignores.
 */
function checkInnerFields(field: Element, path: string, say: AddProblem, label: string): void {
  const type = (field.attribs.type ?? "").trim().toLowerCase();
  const itemsType = (field.attribs["items-type"] ?? "").trim().toLowerCase();
  const inner = fieldsOf(field);
  const named = `${label}: <aim-field name="${path}">`;
  if (type !== "object" && !(type === "array" && itemsType === "object")) {
    if (inner.length) {
      say(
        field,
        `${named} has <aim-field> children, which only type="object" or items-type="object" ` +
          "reads: they are ignored",
        "warning",
      );
    }
    return;
  }
  if (!inner.length) {
    const what = type === "object" ? "an object" : "a list of objects";
    say(
      field,
      `${named} is ${what} without <aim-field> children: it takes only {} (give it its fields)`,
      "warning",
    );
    return;
  }
  const names = new Set<string>();
  for (const child of inner) {
    const name = (child.attribs.name ?? "").trim();
    const at = `${path}.${name}`;
    const say2 = (message: string, severity?: CheckProblem["severity"]) =>
      say(child, `${label}: <aim-field name="${at}"> ${message}`, severity);
    if (names.has(name)) say2("is declared twice");
    names.add(name);
    if (name && SECRET_KEY.test(name)) say2(SECRET_WORDS, "warning");
    if (child.attribs.fill !== undefined) {
      say2(
        "has fill=, which a field of an object ignores: only an action's own <aim-field>s " +
          "are filled",
        "warning",
      );
    }
    checkFieldType(child, "", undefined, say2);
    checkInnerFields(child, at, say, label);
  }
}

/** Problems with an `items=` action's items, keys and targets in the static HTML. */
function checkItems(
  el: Element,
  doc: Document,
  binding: string | undefined,
  say: AddProblem,
  label: string,
): Element | undefined {
  const deep = deepPrefix(el.attribs.items!);
  const items = deep === undefined ? findAll(el.attribs.items!, doc) : deep === null ? null : [];
  if (!items) {
    return say(el, `${label}: items="${el.attribs.items}" is not a valid selector`), undefined;
  }
  if (!binding || binding === "form") {
    say(el, `${label}: items= needs click=, check=, uncheck= or fill= to act on the item`);
  }
  // What items= makes of the input: the key (and, with fill=, the value).
  const ignored = [
    ...(el.attribs["input-example"] !== undefined && binding !== "fill"
      ? ["input-example (the example is a key)"]
      : []),
    ...(binding === "fill"
      ? []
      : INPUT_ATTRIBUTES.filter((n) =>
        n !== "input-description" && n !== "input-example" && el.attribs[n] !== undefined
      )),
    ...(el.children.some((c) => isTag(c) && c.name === "aim-field")
      ? ["<aim-field> children"]
      : []),
  ];
  for (const what of ignored) {
    say(el, `${label}: ${what} is ignored: an items= action takes the item's key`, "warning");
  }
  if (deep !== undefined) {
    say(el, `${label}: ${deepWarning("items", el.attribs.items!, deep!)}`, "warning");
    return undefined;
  }
  if (!items.length) {
    say(
      el,
      `${label}: items="${el.attribs.items}" matches nothing in the static page (fine if a script renders the items)`,
      "warning",
    );
    return undefined;
  }
  const key = el.attribs.key ?? "";
  const keyDeep = deepPrefix(key);
  if (keyDeep !== undefined) {
    if (keyDeep === null) say(el, `${label}: key="${key}" is not a valid selector`);
    else say(el, `${label}: ${deepWarning("key", key, keyDeep)}`, "warning");
    return items[0];
  }
  const attribute = el.attribs["key-attribute"];
  const keyEls = key ? items.map((item) => findAll(key, item)) : items.map((item) => [item]);
  if (keyEls.some((found) => found === null)) {
    say(el, `${label}: key="${key}" is not a valid selector`);
    return items[0];
  }
  // Keys as the elements read them (markup.ts's itemKey): a password never counts as one.
  const action = markupOf(el, doc);
  const keys = items.map((item) => itemKey(action, markupOf(item, doc)) || null);
  const missing = keys.filter((k) => k === null).length;
  if (missing) {
    const what = attribute
      ? `key-attribute="${attribute}"`
      : key
      ? `key="${key}"`
      : "the item's own text";
    say(
      el,
      `${label}: ${what} finds no key in ${missing} of the ${items.length} static items, which an agent then cannot name`,
      "warning",
    );
  }
  const seen = new Set<string>();
  for (const k of keys) {
    if (k === null) continue;
    if (seen.has(k)) {
      say(
        el,
        `${label}: several static items have the key ${
          JSON.stringify(k)
        }; naming it acts on the first`,
        "warning",
      );
      break;
    }
    seen.add(k);
  }
  return items[0];
}

/** Problems with one `<aim-action>`'s bindings, fields and types, beyond what readAction says. */
export function checkActionBindings(
  el: Element,
  doc: Document,
  say: AddProblem,
  label: string,
): void {
  const attr = (name: string) => el.attribs[name] || undefined;
  const bound = ["click", "check", "uncheck", "fill", "form"].filter(attr);
  const binding = bound[0];
  const clicks = ["click", "check", "uncheck"].includes(binding ?? "");
  // readAction refuses a click= (check=, uncheck=) with more, unless on an item.
  if (bound.length > 1 && (!clicks || attr("items"))) {
    say(el, `${label}: ${bound.map((b) => `${b}=`).join(" and ")} bind one action twice; keep one`);
  }
  const item = attr("items") ? checkItems(el, doc, binding, say, label) : undefined;
  /** The first control a selector names: in the first static item, else in the page. */
  const target = (name: string, selector: string, at: Element): Element | undefined => {
    const scope = attr("items") ? item : doc;
    const deep = deepPrefix(selector);
    if (deep !== undefined) {
      if (deep === null) say(at, `${label}: ${name}="${selector}" is not a valid selector`);
      else say(at, `${label}: ${deepWarning(name, selector, deep)}`, "warning");
      return undefined;
    }
    const found = selector === ":scope" && item ? [item] : findAll(selector, scope ?? doc);
    if (!found) {
      return say(at, `${label}: ${name}="${selector}" is not a valid selector`), undefined;
    }
    if (scope && !found.length) {
      const where = attr("items") ? "in the first static item" : "in the static page";
      say(
        at,
        `${label}: ${name}="${selector}" matches nothing ${where} (fine if a script renders it)`,
        "warning",
      );
    }
    return found[0];
  };
  // click= without items= is checked with from= above.
  for (const name of attr("items") ? ["click", "check", "uncheck"] : ["check", "uncheck"]) {
    const selector = attr(name);
    if (selector) target(name, selector, el);
  }
  const fields = fieldsOf(el);
  const filled = fields.filter((f) => f.attribs.fill !== undefined);
  let last: Element | undefined;
  if (binding === "fill") {
    last = target("fill", attr("fill")!, el);
    checkFieldType(
      el,
      "input-",
      last,
      (message, severity) => say(el, `${label}: ${message}`, severity),
    );
  } else if (!clicks && !attr("form") && !fields.length) {
    // A handler's string input: its type is checked all the same.
    checkFieldType(el, "input-", undefined, (message) => say(el, `${label}: ${message}`));
  }
  const formId = attr("form")?.replace(/^#/, "");
  // A form= that matches nothing is readAction's error, reported with the catalog's.
  const form = formId === undefined
    ? undefined
    : findAll("form", doc)?.find((f) => f.attribs.id === formId) ?? null;
  const names = new Set<string>();
  for (const field of fields) {
    const name = (field.attribs.name ?? "").trim();
    const named = `${label}: <aim-field name="${name}">`;
    const say2 = (message: string, severity?: CheckProblem["severity"]) =>
      say(field, `${named} ${message}`, severity);
    if (names.has(name)) say2("is declared twice");
    names.add(name);
    if (name && SECRET_KEY.test(name)) say2(SECRET_WORDS, "warning");
    let control: Element | undefined;
    if (form !== undefined) {
      control = findAll("input, select, textarea", form ?? doc)?.find((c) =>
        c.attribs.name === name
      );
      if (form && !control) say2("names no field of the form");
      if (field.attribs.fill !== undefined) {
        say2(
          "has fill=, which a form= action ignores: it fills the form's field of that name",
          "warning",
        );
      }
    } else if (field.attribs.fill !== undefined) {
      control = target("fill", field.attribs.fill, field);
      last = control ?? last;
    } else if (filled.length || binding) {
      say2(`is never filled: it has no fill=`, "warning");
    }
    checkFieldType(field, "", control, (message, severity) => say2(message, severity));
    checkInnerFields(field, name, say, label);
  }
  // open='s spelling is readAction's error (reported with the catalog's); its element is ours.
  const opening = (() => {
    try {
      return readOpen(markupOf(el, doc));
    } catch {
      return undefined;
    }
  })();
  if (opening) target("open", opening.selector, el);
  const commit = el.attribs.commit;
  if (commit !== undefined) {
    if (binding !== "fill" && !filled.length) {
      say(el, `${label}: commit= does nothing without fill= or <aim-field fill>`, "warning");
    } else if (!/^(enter|change|blur|submit|click:.+)$/.test(commit)) {
      say(
        el,
        `${label}: commit="${commit}" is not enter, change, blur, submit or click:<selector>`,
      );
    } else if (commit.startsWith("click:")) {
      target("commit", commit.slice(6), el);
    } else if (commit === "submit" && last && !hasForm(last)) {
      say(el, `${label}: commit="submit" but the filled control is in no form`, "warning");
    }
  }
}

/** Whether a control is inside a form (or names one with form=). */
function hasForm(control: Element): boolean {
  if (control.attribs.form) return true;
  for (let up = control.parent; up; up = up.parent) {
    if (isTag(up) && up.name === "form") return true;
  }
  return false;
}
