/**
 * @module Checking a page's declarations as a linter would: every problem with the file,
 * line and column it is at.
 */
import { parseDocument } from "htmlparser2";
import { type AnyNode, type Element, isTag } from "domhandler";
import { selectOne } from "css-select";
import { scanPage } from "./catalog.ts";

/** One problem found by {@linkcode checkPage}. */
export interface CheckProblem {
  file: string;
  line: number;
  column: number;
  message: string;
}

const ELEMENTS_SCRIPT = /(^|\/)__aim\/elements(\.[A-Za-z0-9_-]+)?\.js(\?.*)?$/;

function position(html: string, offset: number): { line: number; column: number } {
  const before = html.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

function elements(node: AnyNode, out: Element[] = []): Element[] {
  if (isTag(node)) out.push(node);
  if ("children" in node) { for (const child of node.children) elements(child, out); }
  return out;
}

/** Every problem with the declarations of one page's HTML. */
export function checkPage(html: string, file: string): CheckProblem[] {
  const info = scanPage(html, "/", file);
  const problems: CheckProblem[] = info.problems.map((p) => ({ file, ...p }));
  const doc = parseDocument(html, { withStartIndices: true });
  const all = elements(doc);
  const at = (el: Element) => position(html, el.startIndex ?? 0);
  const add = (el: Element, message: string) => problems.push({ file, ...at(el), message });
  const matches = (selector: string): boolean | "invalid" => {
    try {
      return selectOne(selector, doc) !== null;
    } catch {
      return "invalid";
    }
  };
  const declarations = all.filter((el) => el.name === "aim-action" || el.name === "aim-state");
  for (const el of declarations) {
    const label = `<${el.name}${el.attribs.name ? ` name="${el.attribs.name}"` : ""}>`;
    // form= is checked by readAction itself, through the catalog scan above.
    for (const attr of ["click", "from"]) {
      const selector = el.attribs[attr];
      if (selector === undefined) continue;
      const found = matches(selector);
      if (found === "invalid") add(el, `${label}: ${attr}="${selector}" is not a valid selector`);
      else if (!found) add(el, `${label}: ${attr}="${selector}" matches nothing in the page`);
    }
    if (el.name === "aim-action" && el.attribs.consequential !== undefined) {
      const description = (el.attribs.description ?? "").trim();
      if (description && description.split(/\s+/).length < 3) {
        add(el, `${label} is consequential: describe what it changes in a full sentence`);
      }
    }
  }
  const hasScript = all.some((el) =>
    el.name === "script" && ELEMENTS_SCRIPT.test(el.attribs.src ?? "")
  );
  if (declarations.length > 0 && !hasScript) {
    add(
      declarations[0],
      'the page uses the aim elements but lacks <script type="module" src="/__aim/elements.js"></script>',
    );
  }
  return problems.sort((a, b) => a.line - b.line || a.column - b.column);
}
