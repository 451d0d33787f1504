/**
 * What a person's hand does to a page, for an agent's actions: a value written into a control as
 * typing, clicking or choosing writes it (so that the page's listeners and frameworks follow),
 * the fields of a form filled in the order a person fills them (top to bottom, waiting for what
 * the page enables, fills or checks in response), and a form submitted by pressing its button
 * (the button's `click()`: the page's click listeners run, then the browser submits). Used by the
 * declarative bindings (elements/bindings.ts) and by aim's WebMCP API for `<form toolname>`
 * (elements/webmcp_api.ts). It imports nothing, so that it shares no code with the chunks loaded
 * up front.
 *
 * @module
 */
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { FieldValue } from "../bridge/wire/schemas.ts";

/** A form control aim writes into. */
export type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** A value to write: one, or a list (the options of a multi-select, a checkbox group's values). */
export type Written = FieldValue | readonly FieldValue[];

const EVENT = { bubbles: true, composed: true };

/** Waits for the page to render what the action changed: a frame (a task when hidden). */
export function rendered(): Promise<void> {
  return new Promise((resolve) =>
    document.hidden ? setTimeout(resolve) : requestAnimationFrame(() => setTimeout(resolve))
  );
}

function isBox(control: Control): control is HTMLInputElement {
  return control.type === "checkbox" || control.type === "radio";
}

/**
 * Whether a checkbox or radio button of `group` must be checked for `value`: a list checks the
 * boxes whose values it holds; a radio button, or a box of a group of several, is checked by its
 * own value; a lone checkbox by `true` or any value but `false` and `""`.
 */
function wanted(box: HTMLInputElement, value: Written, group: number): boolean {
  if (Array.isArray(value)) return value.map(String).includes(box.value);
  if (box.type === "radio" || (group > 1 && typeof value === "string")) {
    return box.value === String(value);
  }
  return value === true || (value !== false && value !== "");
}

/**
 * Writes `value` into the controls of one field (one control, or a radio or checkbox group) as a
 * person would, so that the page sees it: a checkbox or radio button is clicked when its
 * checkedness must change (click, input and change events; a radio button is unchecked by
 * checking another, never by a click); a select's options are chosen; any other control gets the
 * value through its prototype's setter (React tracks `value` on the instance, and would otherwise
 * undo it). Then `input` and `change`, as typing or choosing fires them.
 *
 * @throws {Error} when a list is given to a control that takes one value.
 */
export function setValue(controls: readonly Control[], value: Written, name = ""): void {
  for (const control of controls) {
    if (isBox(control)) {
      const want = wanted(control, value, controls.length);
      if (control.checked !== want && (want || control.type === "checkbox")) control.click();
      continue;
    }
    if (control instanceof HTMLSelectElement && control.multiple) {
      const values = (Array.isArray(value) ? value : [value]).map(String);
      for (const option of control.options) option.selected = values.includes(option.value);
    } else {
      if (Array.isArray(value)) {
        throw new Error(`Field "${name || control.name}" takes one value, not a list.`);
      }
      Object.getOwnPropertyDescriptor(Object.getPrototypeOf(control), "value")?.set?.call(
        control,
        String(value),
      );
    }
    control.dispatchEvent(new Event("input", EVENT));
    control.dispatchEvent(new Event("change", EVENT));
  }
}

/**
 * Why the controls of a field do not hold `value` now, or "" when they do (or hold what the page
 * made of it: text a page formats as it is typed is the page's to keep).
 */
export function notHeld(controls: readonly Control[], value: Written, name: string): string {
  const field = `Field "${name}"`;
  if (!controls.length) return `${field} is not in the form now.`;
  if (controls.every((c) => c.disabled)) return `${field} is disabled: the page did not enable it.`;
  const values = (Array.isArray(value) ? value : [value]).map(String);
  for (const control of controls) {
    if (control.disabled) continue;
    if (isBox(control)) {
      if (control.checked !== wanted(control, value, controls.length) && control.type !== "radio") {
        return `${field}: the page kept "${control.value}" ${control.checked ? "" : "un"}checked.`;
      }
    } else if (control instanceof HTMLSelectElement) {
      const chosen = [...control.selectedOptions].map((o) => o.value);
      const missing = values.find((v) => !chosen.includes(v));
      if (missing !== undefined && (control.multiple || values.length === 1)) {
        const options = [...control.options].map((o) => JSON.stringify(o.value)).join(", ");
        return `${field} has no option ${JSON.stringify(missing)} now (its options: ${
          options || "none"
        }).`;
      }
    }
  }
  const radios = controls.filter((c) => c.type === "radio") as HTMLInputElement[];
  if (radios.length && !radios.some((r) => r.checked && values.includes(r.value))) {
    return `${field} has no choice ${JSON.stringify(values[0])} the page lets be chosen now.`;
  }
  return "";
}

/** The controls of `form` named `name`, in document order (a group has several). */
export function controlsOf(form: HTMLFormElement, name: string): Control[] {
  const named = form.elements.namedItem(name);
  if (!named) return [];
  return (named instanceof RadioNodeList ? [...named] : [named]).filter((c) =>
    c instanceof HTMLInputElement || c instanceof HTMLSelectElement ||
    c instanceof HTMLTextAreaElement
  ) as Control[];
}

/** How many rounds a form's fields get for the page to enable or fill what a choice unlocks. */
const ROUNDS = 3;

/**
 * Fills `form` with `fields` as a person does: in document order, each field once the page
 * reacted to the ones before it (a list it enables or fills only once an option is clicked); a
 * field the page has not made ready (still disabled, its option not there yet) is tried again
 * after the page rendered, up to three rounds.
 *
 * @throws {Error} naming the field, when the form still does not hold a value.
 */
export async function fillForm(
  form: HTMLFormElement,
  fields: Readonly<Record<string, Written>>,
): Promise<void> {
  const first = (name: string) => controlsOf(form, name)[0];
  // A person fills a form top to bottom; fields the form lacks sort last (and fail below).
  let pending = Object.keys(fields).sort((a, b) => {
    const [x, y] = [first(a), first(b)];
    if (!x || !y) return x ? -1 : y ? 1 : 0;
    return x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
  });
  let problem = "";
  for (let round = 0; round < ROUNDS && pending.length; round++) {
    if (round) await rendered();
    const next: string[] = [];
    for (const name of pending) {
      const controls = controlsOf(form, name);
      const value = fields[name]!;
      if (controls.length && !controls.every((c) => c.disabled)) {
        setValue(controls.filter((c) => !c.disabled), value, name);
        // The page's listeners and a framework's render (microtasks) react before the next field.
        await null;
        await null;
      }
      problem = notHeld(controlsOf(form, name), value, name);
      if (problem) next.push(name);
    }
    pending = next;
  }
  if (pending.length) throw new Error(problem);
}

/** Whether `el` submits its form when pressed. */
export function isSubmitButton(el: Element): el is HTMLButtonElement | HTMLInputElement {
  return (el instanceof HTMLButtonElement && el.type === "submit") ||
    (el instanceof HTMLInputElement && (el.type === "submit" || el.type === "image"));
}

/** The button Enter in a field presses: the form's first submit button (HTML's default button). */
export function defaultButton(form: HTMLFormElement): HTMLElement | null {
  return [...form.elements].find(isSubmitButton) ?? null;
}

/**
 * Where submitting `form` through `submitter` takes the tab, as an absolute URL: for `GET`, with
 * the form's fields as its query, password and hidden fields left out (the agent reads this URL:
 * no password, hidden token or autofilled secret goes in it). Null when the submission does not
 * load a page in this tab (`method="dialog"`, another target).
 */
export function formUrl(form: HTMLFormElement, submitter?: HTMLElement | null): string | null {
  const attr = (own: string, of: string) =>
    submitter?.hasAttribute(own) ? submitter.getAttribute(own) : form.getAttribute(of);
  const method = (attr("formmethod", "method") ?? "").toLowerCase();
  const target = (attr("formtarget", "target") ?? "").toLowerCase();
  if (method === "dialog" || !["", "_self"].includes(target)) return null;
  // Attributes, not form.action: a control named "action" would shadow the property.
  const url = new URL(attr("formaction", "action") || location.href, document.baseURI);
  if (method !== "post") {
    const data = new FormData(form, submitter);
    for (const control of form.elements as unknown as Control[]) {
      if ((control.type === "password" || control.type === "hidden") && control.name) {
        data.delete(control.name);
      }
    }
    url.search = new URLSearchParams(data as unknown as string[][]).toString();
  }
  return url.href;
}

/**
 * Why the page turned down a submission it kept (its `submit` listener prevented it and marked
 * fields invalid), in the page's words; "" when it shows no such problem.
 */
export function formProblem(form: HTMLFormElement): string {
  for (const control of form.elements as unknown as Control[]) {
    const marked = control.getAttribute?.("aria-invalid") === "true";
    if (!marked && control.validity?.valid !== false) continue;
    const ref = control.getAttribute("aria-errormessage") ??
      control.getAttribute("aria-describedby")?.split(/\s+/)[0];
    const said = (ref && document.getElementById(ref)?.textContent?.trim()) ||
      control.validationMessage || "it is invalid";
    return `"${control.name || control.id}": ${said.replace(/\s+/g, " ").slice(0, 500)}`;
  }
  return "";
}

/**
 * Submits `form` as a person does: clicks `submitter`, else the button Enter would press (the
 * form's first submit button), so that the page's own click listeners run before the browser
 * submits; a form with no submit button is submitted with `requestSubmit()`. Returns the `submit`
 * event the page got, or undefined when none came (a listener stopped the click, or the browser's
 * validation refused the form).
 *
 * @throws {Error} when the button to press is disabled.
 */
export function pressSubmit(
  form: HTMLFormElement,
  submitter?: HTMLElement | null,
): SubmitEvent | undefined {
  let seen: SubmitEvent | undefined;
  const spy = (e: Event) => e.target === form && (seen = e as SubmitEvent);
  const button = submitter ?? defaultButton(form);
  if ((button as HTMLButtonElement | null)?.disabled) {
    throw new Error(`The form's button "${label(button!)}" is disabled.`);
  }
  // Capturing on the window sees the event first, whatever its other listeners stop.
  addEventListener("submit", spy, true);
  try {
    if (button) button.click();
    else form.requestSubmit();
  } finally {
    removeEventListener("submit", spy, true);
  }
  return seen;
}

/** What a control or button says to a person: its label, text or value. */
export function label(el: Element): string {
  const control = el as HTMLInputElement;
  const text = el.getAttribute("aria-label") ?? control.labels?.[0]?.textContent ??
    (el.textContent?.trim() || control.value || el.getAttribute("title") ||
      el.getAttribute("name") || el.id);
  return (text ?? "").replace(/\s+/g, " ").trim().slice(0, 80);
}

/**
 * A person's double-click on `el`, as Chromium dispatches it to the page: the pointer comes over
 * it and moves, then two presses (`pointerdown`, `mousedown`, `pointerup`, `mouseup`, `click`),
 * the second with `detail` 2, then `dblclick`; each at the element's center, bubbling and
 * composed. Listeners of any of them (AngularJS's `ng-dblclick`, React's `onDoubleClick`) run.
 */
export function doubleClick(el: Element): void {
  const box = el.getBoundingClientRect();
  const at = {
    ...EVENT,
    cancelable: true,
    view: window,
    clientX: box.left + box.width / 2,
    clientY: box.top + box.height / 2,
    screenX: screenX + box.left + box.width / 2,
    screenY: screenY + box.top + box.height / 2,
    pointerId: 1,
    pointerType: "mouse",
    isPrimary: true,
  };
  const fire = (type: string, detail: number, buttons: number) => {
    // A pointer that presses no button (over, move) says -1; mouse events say the main one.
    const button = /^pointer(over|move)$/.test(type) ? -1 : 0;
    const init = { ...at, detail, buttons, button };
    // Pointer events, and click as Chromium and Firefox fire it, are PointerEvents.
    const pointer = /^pointer|^click$/.test(type) && typeof PointerEvent === "function";
    el.dispatchEvent(pointer ? new PointerEvent(type, init) : new MouseEvent(type, init));
  };
  for (const type of ["pointerover", "mouseover", "pointermove", "mousemove"]) fire(type, 0, 0);
  for (const detail of [1, 2]) {
    fire("pointerdown", 0, 1);
    fire("mousedown", detail, 1);
    fire("pointerup", 0, 0);
    fire("mouseup", detail, 0);
    fire("click", detail, 0);
  }
  fire("dblclick", 2, 0);
}

/** Whether a person could write into `el` now: rendered, seen (not transparent), not disabled. */
function ready(el: Element | null): boolean {
  return !!el && !(el as HTMLInputElement).disabled &&
    el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
}

/**
 * The element `find` returns once a person could write into it (it is there, shown and enabled),
 * looked for again after each frame the page renders; null when it is not by `ms` milliseconds:
 * what an opened editor takes to appear is the page's, bounded.
 */
export async function whenReady(find: () => Element | null, ms: number): Promise<Element | null> {
  const deadline = performance.now() + ms;
  for (;;) {
    const el = find();
    if (ready(el)) return el;
    if (performance.now() >= deadline) return null;
    await rendered();
  }
}
