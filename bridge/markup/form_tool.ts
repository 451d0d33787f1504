/**
 * A declarative WebMCP tool, `<form toolname="…" tooldescription="…">`, read as Chromium reads
 * it: each named field a property (`toolparamdescription`, else its label's text, as its
 * description; `required`; a `<select>`'s options or a radio group's values as an enum; a
 * checkbox a boolean; a number input a number of step 1 unless `step="any"`). One function for
 * the bridge's catalog (the public manifest and site map) and for aim's own WebMCP API in the
 * page (elements/webmcp_api.ts), on the markup tree both have (bridge/markup/action.ts).
 *
 * @module
 */
import type { MarkupElement } from "./action.ts";
import { labelText } from "./reading.ts";
import type { WebMcpToolInfo } from "../wire/webmcp_tools.ts";

/** Input types that are no fields of the tool. */
const SKIPPED = new Set(["submit", "button", "reset", "image", "file", "hidden"]);

function tagOf(el: MarkupElement): string {
  return el.tagName.toLowerCase();
}

function words(text: string | null | undefined): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

/** Every element under `root`, in document order, with the `<label>` each is inside of. */
function* walk(
  root: MarkupElement,
  label: MarkupElement | null = null,
): Generator<[MarkupElement, MarkupElement | null]> {
  for (const child of Array.from(root.children)) {
    yield [child, label];
    yield* walk(child, tagOf(child) === "label" ? child : label);
  }
}

/** The tool a `<form toolname>` declares, as `getTools()` would list it. */
export function formToolOf(form: MarkupElement): WebMcpToolInfo {
  const byFor = new Map<string, string>();
  for (const [el] of walk(form)) {
    const target = tagOf(el) === "label" ? el.getAttribute("for") : null;
    if (target && !byFor.has(target)) byFor.set(target, labelText(el));
  }
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const [el, label] of walk(form)) {
    const tag = tagOf(el);
    if (!["input", "select", "textarea"].includes(tag)) continue;
    const name = el.getAttribute("name");
    const type = tag === "input" ? (el.getAttribute("type") ?? "text").toLowerCase() : tag;
    if (!name || SKIPPED.has(type)) continue;
    const field: Record<string, unknown> = properties[name] ?? { type: "string" };
    if (type === "checkbox") field.type = "boolean";
    else if (type === "number" || type === "range") {
      field.type = "number";
      if ((el.getAttribute("step") ?? "").toLowerCase() !== "any") field.multipleOf = 1;
    } else if (type === "select") {
      field.enum = [
        ...new Set(
          [...walk(el)].filter(([o]) => tagOf(o) === "option")
            .map(([o]) => o.getAttribute("value") ?? words(o.textContent)),
        ),
      ];
    } else if (type === "radio") {
      const value = el.getAttribute("value") ?? "on";
      field.enum = [...new Set([...(field.enum as string[] | undefined) ?? [], value])];
    }
    const id = el.getAttribute("id");
    const description = words(el.getAttribute("toolparamdescription")) ||
      (label ? labelText(label) : "") || (id ? byFor.get(id) ?? "" : "");
    if (description && field.description === undefined) field.description = description;
    properties[name] = field;
    if (el.getAttribute("required") !== null && !required.includes(name)) required.push(name);
  }
  return {
    name: words(form.getAttribute("toolname")),
    description: words(form.getAttribute("tooldescription")),
    inputSchema: { type: "object", properties, ...(required.length ? { required } : {}) },
  };
}
