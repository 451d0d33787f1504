/**
 * Checking a page's declarations as a linter would: every problem with the file,
 * line and column it is at, and warnings about what is allowed but risky.
 *
 * @module
 */
import { parseDocument } from "htmlparser2";
import { type AnyNode, type Element, isTag } from "domhandler";
import { selectOne } from "css-select";
import { scanPage } from "./catalog.ts";
import { BUILTIN_ACTION_IDS } from "../input/action_spec.ts";
import { backtrackingRisk } from "./backtracking.ts";
import { type CheckProblem, deepPrefix, deepWarning } from "./check_problem.ts";
import { checkState, patternsOf } from "./check_state.ts";
import { checkActionBindings } from "./check_bindings.ts";
import { anchorPattern } from "../markup/form.ts";

export { type CheckProblem, deepPrefix, deepWarning } from "./check_problem.ts";

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

function flag(value: string | undefined): boolean {
  return value !== undefined && value.trim().toLowerCase() !== "false";
}
/** Every problem with the declarations of one page's HTML. */
export function checkPage(html: string, file: string): CheckProblem[] {
  const info = scanPage(html, "/", file);
  const problems: CheckProblem[] = info.problems.map((p) =>
    // A form a script renders (React, Lit) is not in the static HTML: the public manifest
    // leaves its action out until then, and the page's tab registers it once it renders.
    /^form="[^"]*" matches no element$/.test(p.message)
      ? {
        file,
        ...p,
        message: `${p.message} in the static page (fine if a script renders the form; the ` +
          "public manifest leaves the action out)",
        severity: "warning",
      }
      : { file, ...p, severity: "error" }
  );
  const doc = parseDocument(html, { withStartIndices: true });
  const all = elements(doc);
  const at = (el: Element) => position(html, el.startIndex ?? 0);
  const add = (el: Element, message: string, severity: CheckProblem["severity"] = "error") =>
    problems.push({ file, ...at(el), message, severity });
  const matches = (selector: string): boolean | "invalid" => {
    try {
      return selectOne(selector, doc) !== null;
    } catch {
      return "invalid";
    }
  };
  const declarations = all.filter((el) => el.name === "aim-action" || el.name === "aim-state");
  const analyzed = new Set<string>();
  for (const el of declarations) {
    const label = `<${el.name}${el.attribs.name ? ` name="${el.attribs.name}"` : ""}>`;
    // form= is checked by readAction itself, through the catalog scan above, and so are a
    // click= with a declared input and patterns the bridge cannot run.
    for (const attr of ["click", "from"]) {
      const selector = el.attribs[attr];
      // With items=, click= names a part of the item: checkActionBindings reads it there.
      if (selector === undefined || (attr === "click" && el.attribs.items)) continue;
      const deep = deepPrefix(selector);
      const found = deep === undefined
        ? matches(selector)
        : deep === null
        ? "invalid"
        : deep
        ? matches(deep)
        : true;
      if (typeof deep === "string" && found === true) {
        add(el, `${label}: ${deepWarning(attr, selector, deep)}`, "warning");
      }
      if (found === "invalid") add(el, `${label}: ${attr}="${selector}" is not a valid selector`);
      // Apps that render with a script (React, Lit, innerHTML) draw it later: a warning.
      else if (!found) {
        add(
          el,
          `${label}: ${attr}="${selector}" matches nothing in the page (fine if a script renders it)`,
          "warning",
        );
      }
    }
    if (el.name === "aim-state") checkState(el, doc, add, label);
    if (el.name !== "aim-action") continue;
    checkActionBindings(el, doc, add, label);
    const id = (el.attribs.name ?? "").trim();
    const consequential = flag(el.attribs.consequential);
    if (consequential) {
      const description = (el.attribs.description ?? "").trim();
      if (description && description.split(/\s+/).length < 3) {
        add(el, `${label} is consequential: describe what it changes in a full sentence`);
      }
    }
    if (consequential && flag(el.attribs["no-confirm"])) {
      add(
        el,
        `${label} has no-confirm: the person is not asked before this consequential action runs`,
        "warning",
      );
    }
    if (BUILTIN_ACTION_IDS.includes(id)) {
      add(el, `${label}: "${id}" is a server action of the bridge, which never lists this one`);
    }
    // The first declaration of an id is the catalog's; a second is reported as declared twice.
    const spec = analyzed.has(id) ? undefined : info.actions.find((a) => a.id === id);
    analyzed.add(id);
    for (const [where, pattern] of spec ? patternsOf(spec.input_schema) : []) {
      const risk = backtrackingRisk(pattern);
      if (risk?.kind === "catastrophic") {
        add(
          el,
          `${label}: ${where} ${JSON.stringify(pattern)} can backtrack catastrophically in a ` +
            "backtracking regex engine (a browser checking a form field, an agent's " +
            `validator): text that ${JSON.stringify(risk.atom)} matches can be split among ` +
            "its repetitions in exponentially many ways; rewrite it so that each character " +
            "can be matched one way only (a+ rather than (a+)+, a rather than (a|a))",
        );
      } else if (risk?.kind === "unknown") {
        add(
          el,
          `${label}: ${where} ${JSON.stringify(pattern)} is too large for aim check to tell ` +
            "whether it can backtrack catastrophically in a backtracking regex engine",
          "warning",
        );
      }
    }
  }
  const hasScript = all.some((el) =>
    el.name === "script" && ELEMENTS_SCRIPT.test(el.attribs.src ?? "")
  );
  const first = declarations[0];
  if (first && !hasScript) {
    add(
      first,
      'the page uses the aim elements but lacks <script type="module" src="/__aim/elements.js"></script>',
    );
  }
  const written = patternsAsWritten(all);
  return problems
    .map((p) => ({ ...p, message: written(p.message) }))
    .sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * Messages with each pattern as the page writes it: the manifest anchors a `pattern` or
 * `input-pattern` attribute (`^\d+$` becomes `^^\d+$$`), and the messages made from the
 * manifest's schema show that form, JSON-escaped or not, which is not what the author wrote.
 */
function patternsAsWritten(all: Element[]): (message: string) => string {
  const sources = new Set<string>();
  for (const el of all) {
    for (const [name, value] of Object.entries(el.attribs)) {
      if ((name === "pattern" || name.endsWith("-pattern")) && value !== "") sources.add(value);
    }
  }
  const forms = new Map<string, string>();
  for (const source of sources) {
    const anchored = anchorPattern(source);
    forms.set(JSON.stringify(anchored), `"${source}"`);
    forms.set(anchored, source);
  }
  if (forms.size === 0) return (message) => message;
  // One pass, longest first: one anchored pattern may hold another, and a pattern put back
  // must not be read again.
  const any = new RegExp(
    [...forms.keys()].sort((a, b) => b.length - a.length)
      .map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"),
    "g",
  );
  return (message) => message.replace(any, (form) => forms.get(form)!);
}
