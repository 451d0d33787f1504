/**
 * The declarative bindings of `<aim-action>`: `click=`, `check=`, `uncheck=`, `fill=`
 * (with `commit=`) and `<aim-field fill>`, on the item an agent names (`items=`) or the page,
 * and `form=`. Loaded the first time one runs, so that pages pay for them only then; it imports
 * nothing, so that it shares no code with the chunks loaded up front (which would split them).
 *
 * @module
 */
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { FieldValue, InputValue } from "../bridge/wire/schemas.ts";

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** The items of an `items=` action now, each with its key (markup.ts's `actionItems`). */
export type Items = () => [Element, string | null][];

/** Selector resolution across shadow roots with `>>>` (bridge/markup/deep_selector.ts). */
export interface Deep {
  all(root: ParentNode, selector: string): Element[];
  first(root: ParentNode, selector: string): Element | null;
  /** The text a node shows, shadow roots and slots included (declaration.ts's `shownText`). */
  text(node: Node): string;
}

const EVENT = { bubbles: true, composed: true };

/**
 * Writes a value into a control as a person would, so that frameworks see it: a checkbox or
 * radio button is clicked when its checkedness must change (click, input and change events);
 * any other control gets the value through its prototype's setter (React tracks `value` on the
 * instance, and would otherwise undo it), then `input` and `change`.
 */
function setValue(control: Control, value: FieldValue): void {
  const type = control.type;
  if (type === "checkbox" || type === "radio") {
    const want = type === "radio"
      ? control.value === String(value)
      : value === true || (value !== false && value !== "");
    // A radio button is unchecked by checking another one, never by a click.
    if ((control as HTMLInputElement).checked !== want && (want || type === "checkbox")) {
      control.click();
    }
    return;
  }
  Object.getOwnPropertyDescriptor(Object.getPrototypeOf(control), "value")?.set?.call(
    control,
    String(value),
  );
  control.dispatchEvent(new Event("input", EVENT));
  control.dispatchEvent(new Event("change", EVENT));
}

/**
 * Submits a form as its submit button would (`requestSubmit`, so the page's listeners run);
 * when no listener prevents it, the absolute URL the tab then loads.
 */
function submit(form: HTMLFormElement): string | undefined {
  let seen: Event | undefined;
  const spy = (e: Event) => e.target === form && (seen = e);
  // Capturing on the window sees the event first, whatever its other listeners stop.
  addEventListener("submit", spy, true);
  try {
    form.requestSubmit();
  } finally {
    removeEventListener("submit", spy, true);
  }
  const method = (form.getAttribute("method") ?? "").toLowerCase();
  if (!seen || seen.defaultPrevented || method === "dialog") return undefined;
  // Attributes, not form.action: a control named "action" would shadow the property.
  const url = new URL(form.getAttribute("action") || location.href, document.baseURI);
  if (method !== "post") {
    // The agent reads this URL: no password, hidden token or autofilled secret goes in it.
    const data = new FormData(form);
    for (const control of form.elements as unknown as Control[]) {
      if ((control.type === "password" || control.type === "hidden") && control.name) {
        data.delete(control.name);
      }
    }
    url.search = new URLSearchParams(data as unknown as string[][]).toString();
  }
  return url.href;
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

/** Waits for the page to render what the action changed: a frame (a task when hidden). */
function rendered(): Promise<void> {
  return new Promise((resolve) =>
    document.hidden ? setTimeout(resolve) : requestAnimationFrame(() => setTimeout(resolve))
  );
}

/**
 * Runs the declarative binding of `action` with a validated input; resolves to its result.
 * `deep` resolves its selectors, which may cross shadow roots with `>>>`.
 *
 * @throws {Error} when the markup's targets are missing now, or nothing binds the action.
 */
export async function runBinding(
  action: Element,
  input: InputValue,
  items: Items,
  deep: Deep,
): Promise<unknown> {
  const attr = (name: string) => action.getAttribute(name) || "";
  const fields = input as Record<string, FieldValue>;
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
  const find = (selector: string): Element => {
    const el = selector === ":scope" && item ? item : deep.first(scope, selector);
    if (!el || (el as HTMLButtonElement).disabled) {
      throw new Error(
        `"${selector}" is missing or disabled${item ? ` in the item ${JSON.stringify(key)}` : ""}.`,
      );
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
    for (const [name, value] of Object.entries(fields)) {
      const named = form.elements.namedItem(name);
      for (const control of (named instanceof RadioNodeList ? named : [named]) as Control[]) {
        if (control) setValue(control, value);
      }
    }
    const bad = [...form.elements].find((f) => (f as Control).checkValidity?.() === false);
    if (bad) throw new Error(`"${(bad as Control).name}": ${(bad as Control).validationMessage}`);
    const to = submit(form);
    result = { submitted: formRef, ...(to && { navigating_to: to }) };
  } else {
    // What to fill: fill= takes the input (an item's: its value); <aim-field fill> the fields.
    const fills = [...action.children].filter((f) =>
      f.localName === "aim-field" && f.getAttribute("fill")
    );
    const writes: [string, string, FieldValue][] = fill
      ? [[fill, fill, item ? fields.value! : input as FieldValue]]
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
    const filled: Record<string, FieldValue> = {};
    let last: Control | undefined;
    for (const [name, selector, value] of writes) {
      last = find(selector) as Control;
      // Radio buttons: the selector names the group, and the value picks one.
      const group = last.type === "radio" ? deep.all(scope, selector) as Control[] : [last];
      for (const control of group) setValue(control, value);
      // A password goes in, never back out.
      filled[name] = last.type === "password" ? "(hidden)" : value;
    }
    const committed = attr("commit") || (last?.form ? "submit" : "enter");
    // As a person's keystroke or click comes after the page rendered what was typed: a framework
    // that renders later (Lit) sees the value before the commit clears it.
    if (committed !== "change") await rendered();
    const to = last && commit(committed, last, find);
    result = { filled: item ? fill : filled, committed, ...(to && { navigating_to: to }) };
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
