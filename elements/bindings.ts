/**
 * The declarative bindings of `<aim-action>`: `click=`, `check=`, `uncheck=`, `fill=`
 * (with `commit=`) and `<aim-field fill>`, on the item an agent names (`items=`) or the page,
 * and `form=`. Loaded the first time one runs, so that pages pay for them only then; it imports
 * nothing, so that it shares no code with the chunks loaded up front (which would split them).
 *
 * @module
 */
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { InputValue } from "../bridge/wire/schemas.ts";
// Types only: open='s reading is the markup reader's, handed over as Readers.open.
import type { OpenGesture } from "../bridge/markup/open.ts";
import {
  type Control,
  doubleClick,
  fillForm,
  formProblem,
  formUrl,
  isSubmitButton,
  label,
  pressSubmit,
  rendered,
  setValue,
  whenReady,
  type Written,
} from "./gestures.ts";

export { NavigationWatch } from "./leaving.ts";
export type { Leaving } from "./leaving.ts";
export { invoke } from "./invoke.ts";

/** The items of an `items=` action now, each with its key (markup.ts's `actionItems`). */
export type Items = () => [Element, string | null][];

/** Selector resolution across shadow roots with `>>>` (bridge/markup/deep_selector.ts). */
export interface Deep {
  all(root: ParentNode, selector: string): Element[];
  first(root: ParentNode, selector: string): Element | null;
  /** The text a node shows, shadow roots and slots included (declaration.ts's `shownText`). */
  text(node: Node): string;
}

/** What a binding reads its markup with, handed over by `<aim-action>` (elements/aim_action.ts). */
export interface Readers {
  /** The items of an `items=` action now, each with its key. */
  items: Items;
  /** Selectors across shadow roots. */
  deep: Deep;
  /** The action's `open=` (bridge/markup/open.ts `readOpen`, the markup reader's). */
  open(action: Element): OpenGesture | undefined;
}

/**
 * How long what `open=` opens may take to be there, shown and enabled, in milliseconds.
 * @default {3000}
 */
export const OPEN_TIMEOUT_MS = 3000;

const EVENT = { bubbles: true, composed: true };

/**
 * Submits a form as a person does (its button pressed, see elements/gestures.ts `pressSubmit`);
 * when the browser then loads another page, the absolute URL it loads.
 *
 * @throws {Error} when the page stopped the submission: a click listener, the browser's
 * validation, or a `submit` listener that kept it and marked fields invalid (in its words).
 */
function submit(form: HTMLFormElement, submitter?: HTMLElement | null): string | undefined {
  const seen = pressSubmit(form, submitter);
  if (!seen) {
    const why = formProblem(form);
    throw new Error(
      `The page did not submit the form: ${why || "a listener of the page stopped the press"}.`,
    );
  }
  if (seen.defaultPrevented) {
    // Kept by the page (a script sends it): fields it marked invalid say it was refused.
    const why = formProblem(form);
    if (why) throw new Error(`The page refused the form: ${why}.`);
    return undefined;
  }
  // The button the browser saw pressed (the default one, when the action names none).
  return formUrl(form, seen.submitter as HTMLElement | null) ?? undefined;
}

/** Commits a filled control the way the page listens for it (`commit=`). */
function commit(how: string, control: Control, find: (selector: string) => Element) {
  if (how === "enter") {
    for (const type of ["keydown", "keypress", "keyup"]) {
      control.dispatchEvent(
        new KeyboardEvent(type, {
          key: "Enter",
          code: "Enter",
          keyCode: 13,
          which: 13,
          charCode: type === "keypress" ? 13 : 0,
          cancelable: true,
          ...EVENT,
        }),
      );
    }
  } else if (how === "blur") {
    control.dispatchEvent(new FocusEvent("blur"));
    control.dispatchEvent(new FocusEvent("focusout", EVENT));
  } else if (how === "submit") {
    if (!control.form) throw new Error('commit="submit": the control is in no form.');
    return submit(control.form);
  } else if (how.startsWith("click:")) {
    (find(how.slice(6)) as HTMLElement).click();
  }
}

/**
 * Runs the declarative binding of `action` with a validated input; resolves to its result.
 * `readers.deep` resolves its selectors, which may cross shadow roots with `>>>`.
 *
 * @throws {Error} when the markup's targets are missing now (what `open=` opens: not within
 * {@linkcode OPEN_TIMEOUT_MS}), or nothing binds the action.
 */
export async function runBinding(
  action: Element,
  input: InputValue,
  readers: Readers,
): Promise<unknown> {
  const { items, deep } = readers;
  const attr = (name: string) => action.getAttribute(name) || "";
  const fields = input as Record<string, Written>;
  let key = "";
  let item: Element | undefined;
  /** The keys before the action: an element now showing one of them was reused, not renamed. */
  let before = new Set<string | null>();
  if (attr("items")) {
    key = String(typeof input === "object" ? fields.item : input);
    const all = items();
    before = new Set(all.map(([, k]) => k));
    item = all.find(([, k]) => k === key)?.[0];
    if (!item) {
      const keys = all.flatMap(([, k]) => k ? [JSON.stringify(k)] : []).join(", ");
      throw new Error(
        `No item has the key ${JSON.stringify(key)}; ` +
          (keys
            ? `the keys now: ${keys.length > 500 ? keys.slice(0, 500) + "…" : keys}.`
            : "there are no items now."),
      );
    }
  }
  const scope: ParentNode = item ?? document;
  const inItem = item ? ` in the item ${JSON.stringify(key)}` : "";
  const first = (selector: string) =>
    selector === ":scope" && item ? item : deep.first(scope, selector);
  const find = (selector: string): Element => {
    const el = first(selector);
    if (!el || (el as HTMLButtonElement).disabled) {
      throw new Error(`"${selector}" is missing or disabled${inItem}.`);
    }
    return el;
  };
  const [click, check, uncheck, fill, formRef] = ["click", "check", "uncheck", "fill", "form"]
    .map(attr) as [string, string, string, string, string];
  let result: Record<string, unknown>;
  if (click) {
    (find(click) as HTMLElement).click();
    result = { clicked: click };
  } else if (check || uncheck) {
    const box = find(check || uncheck) as HTMLInputElement;
    if (box.checked !== !!check) box.click();
    result = check ? { checked: check } : { unchecked: uncheck };
  } else if (formRef) {
    const form = document.getElementById(formRef.replace(/^#/, "")) as HTMLFormElement | null;
    if (!form) throw new Error(`form="${formRef}" matches nothing on the page now.`);
    const button = attr("submitter");
    const submitter = button ? document.querySelector<HTMLElement>(button) : null;
    if (button && !submitter) {
      throw new Error(`submitter="${button}" matches nothing on the page now.`);
    }
    if (submitter && (!isSubmitButton(submitter) || submitter.form !== form)) {
      throw new Error(`submitter="${button}" is not a submit button of form="${formRef}".`);
    }
    await fillForm(form, fields);
    // The browser's own validation, unless the form or its button skips it: said to the agent,
    // never shown to the person as the browser's bubble.
    if (!form.noValidate && !submitter?.hasAttribute("formnovalidate")) {
      const bad = [...form.elements].find((f) => (f as Control).checkValidity?.() === false);
      if (bad) {
        throw new Error(`"${(bad as Control).name}": ${(bad as Control).validationMessage}`);
      }
    }
    const to = submit(form, submitter);
    result = {
      submitted: formRef,
      ...(button && { submitter: button }),
      ...(to && { navigating_to: to }),
    };
  } else {
    // What to fill: fill= takes the input (an item's: its value); <aim-field fill> the fields.
    const fills = [...action.children].filter((f) =>
      f.localName === "aim-field" && f.getAttribute("fill")
    );
    const writes: [string, string, Written][] = fill
      ? [[fill, fill, item ? fields.value! : input as Written]]
      : fills.flatMap((f) => {
        const name = f.getAttribute("name") ?? "";
        return Object.hasOwn(fields, name) ? [[name, f.getAttribute("fill")!, fields[name]!]] : [];
      });
    if (!fill && !fills.length) {
      const id = attr("name");
      throw new Error(
        `"${id}" has no handler, aim-invoke listener, click= or form= here, nor check= or fill=.`,
      );
    }
    const filled: Record<string, Written> = {};
    let last: Control | undefined;
    // open=: a person opens the editor first (TodoMVC's double-click on the label), then writes
    // into it once it is there: what the app renders for it may take a while, bounded.
    const opening = readers.open(action);
    const opened = opening && `${opening.gesture}:${opening.selector}`;
    if (opening) {
      const el = find(opening.selector);
      if (opening.gesture === "dblclick") doubleClick(el);
      else (el as HTMLElement).click();
    }
    for (const [name, selector, value] of writes) {
      const shown = opening && await whenReady(() => first(selector), OPEN_TIMEOUT_MS);
      if (opening && !shown) {
        throw new Error(
          `open="${opened}" did not open "${selector}"${inItem} within ${
            OPEN_TIMEOUT_MS / 1000
          } s: it is not there, not shown or disabled.`,
        );
      }
      last = (shown || find(selector)) as Control;
      // Radio buttons and checkboxes: the selector may name a group, and the value picks in it.
      const all = deep.all(scope, selector) as Control[];
      const group = /^(radio|checkbox)$/.test(last.type) && all.length > 1 ? all : [last];
      setValue(group, value, name);
      // A password goes in, never back out.
      filled[name] = last.type === "password" ? "(hidden)" : value;
    }
    const committed = attr("commit") || (last?.form ? "submit" : "enter");
    // As a person's keystroke or click comes after the page rendered what was typed: a framework
    // that renders later (Lit) sees the value before the commit clears it.
    if (committed !== "change") await rendered();
    const to = last && commit(committed, last, find);
    result = {
      ...(opened && { opened }),
      filled: item ? fill : filled,
      committed,
      ...(to && { navigating_to: to }),
    };
  }
  if (!item) return result;
  await rendered();
  // The item again, by its key first (a framework may have reused its element for another
  // item); else the same element, if the action gave it a new key (a rename), not another's.
  const later = items();
  const now = later.find(([, k]) => k === key)?.[0] ??
    later.find(([el, k]) => el === item && !before.has(k))?.[0];
  // What a person sees of it, across shadow roots and slots.
  const shown = now && seenText(now);
  return { item: key, ...result, after: now ? shown!.replace(/\s+/g, " ").trim() : null };
}

/** What a binding will act on, to show the person while they are asked (client.ts `Target`). */
export interface BindingTarget {
  elements: Element[];
  words: string;
}

/**
 * What the binding of `action` will act on with `input`, for the person's prompt: the item's
 * row (or item), the form with the fields the input fills and the button it presses, the control
 * it fills or the element it clicks; and what it will do, in words. Undefined when it cannot say
 * now (the item is gone, a handler runs the action): the prompt then shows the input alone.
 */
export function targetOf(
  action: Element,
  input: InputValue,
  readers: Readers,
): BindingTarget | undefined {
  const { items, deep } = readers;
  const attr = (name: string) => action.getAttribute(name) || "";
  const fields = (typeof input === "object" ? input : {}) as Record<string, Written>;
  let item: Element | undefined;
  let where = "";
  if (attr("items")) {
    const key = String(typeof input === "object" ? fields.item : input);
    item = items().find(([, k]) => k === key)?.[0];
    if (!item) return undefined;
    where = ` on the ${item.localName === "tr" ? "row" : "item"} ${key}`;
  }
  const scope: ParentNode = item ?? document;
  const first = (selector: string) =>
    selector === ":scope" && item ? item : deep.first(scope, selector) ?? undefined;
  const quoted = (el: Element) => `“${label(el)}”`;
  const click = attr("click") || attr("check") || attr("uncheck");
  const formRef = attr("form");
  const at = (els: (Element | null | undefined)[], words: string): BindingTarget => ({
    elements: [...new Set([item, ...els].filter((e): e is Element => !!e))],
    words: words + where,
  });
  if (click) {
    const el = first(click);
    if (!el) return item ? at([], "act") : undefined;
    const verb = attr("check")
      ? "check"
      : attr("uncheck")
      ? "uncheck"
      : el.closest("a[href]")
      ? "follow the link"
      : "press";
    return at([el], `${verb} ${quoted(el)}`);
  }
  if (formRef) {
    const form = document.getElementById(formRef.replace(/^#/, "")) as HTMLFormElement | null;
    if (!form) return undefined;
    const names = Object.keys(fields).filter((name) => form.elements.namedItem(name));
    const controls = names.flatMap((name) => {
      const named = form.elements.namedItem(name)!;
      return named instanceof RadioNodeList ? [...named] as Element[] : [named as Element];
    });
    const button = attr("submitter")
      ? document.querySelector(attr("submitter"))
      : [...form.elements].find(isSubmitButton);
    const what = form.getAttribute("aria-label") || form.getAttribute("name") || formRef;
    return at(
      [form, ...controls, button],
      `fill the form “${what}”${names.length ? ` (${names.join(", ")})` : ""}${
        button ? ` and press ${quoted(button)}` : " and submit it"
      }`,
    );
  }
  const selectors = attr("fill")
    ? [attr("fill")]
    : [...action.children].flatMap((f) =>
      f.localName === "aim-field" && f.getAttribute("fill") &&
        Object.hasOwn(fields, f.getAttribute("name") ?? "")
        ? [f.getAttribute("fill")!]
        : []
    );
  const controls = selectors.map(first).filter((el): el is Element => !!el);
  // open=: what a person presses first; what it opens may not be there yet.
  const opening = readers.open(action);
  const opener = opening && first(opening.selector);
  const opens = opener
    ? `${opening.gesture === "dblclick" ? "double-click" : "press"} ${quoted(opener)}, then `
    : "";
  if (!controls.length) return opener ? at([opener], `${opens}fill what it opens`) : undefined;
  return at([opener, ...controls], `${opens}fill ${controls.map(quoted).join(", ")}`);
}

/**
 * Whether a person cannot see `el`: not rendered, `visibility: hidden`, transparent, or
 * visually hidden for screen readers (positioned out of the flow at 1px or less, or clipped
 * away: the `sr-only` and `visually-hidden` classes of CSS frameworks).
 */
function unseen(el: Element): boolean {
  const style = getComputedStyle(el);
  if (style.display === "contents") return false;
  if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return true;
  if (style.position !== "absolute" && style.position !== "fixed") return false;
  const box = el.getBoundingClientRect();
  return box.width <= 1 || box.height <= 1 ||
    /^rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)$/.test(style.clip) ||
    style.clipPath === "inset(50%)";
}

/**
 * The text a person sees of a node: what is not rendered or is visually hidden (a button shown
 * on hover, a "Mark as complete" label for screen readers only) is left out; blocks are kept
 * apart by a space; shadow roots and slots show what they render.
 */
function seenText(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return (node as Text).data;
  if (node.nodeType !== Node.ELEMENT_NODE) return "";
  const el = node as Element;
  if (/^(style|script|template)$/.test(el.localName) || unseen(el)) return "";
  const slotted = el instanceof HTMLSlotElement ? el.assignedNodes({ flatten: true }) : [];
  const kids = slotted.length ? slotted : (el.shadowRoot ?? el).childNodes;
  const text = Array.from(kids, seenText).join("");
  return getComputedStyle(el).display.startsWith("inline") ? text : ` ${text} `;
}
