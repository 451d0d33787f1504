/**
 * @module `<aim-action>`: one action of the page, declared in markup and run by a handler,
 * an `aim-invoke` event, or a declarative `click=` / `form=` binding. Renders nothing.
 */
import { MarkupError, readAction } from "../bridge/protocol/markup.ts";
import {
  type ActionSource,
  client,
  type Declaration as Registered,
  type WaitUntil,
  warn,
  Work,
} from "./client.ts";
import { Declaration } from "./declaration.ts";
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { InputValue } from "../bridge/protocol/schemas.ts";

/**
 * What `el.handler` is: the input in (already checked against the action's `input_schema`), a
 * JSON result (or a promise of one) out. `waitUntil(promise)` declares work the action started
 * that goes on after it returns (a reload, a render): the agent's answer waits for it.
 */
export type ActionHandler = (input: InputValue, context: { waitUntil: WaitUntil }) => unknown;

/** The detail of an `aim-invoke` event. */
export interface InvokeDetail {
  actionId: string;
  /** The agent's input, already checked against the action's `input_schema`. */
  input: InputValue;
  /** Answers the invocation: the result, or a promise of it; a rejection fails it. */
  respondWith(response: unknown): void;
  /** Declares work the action started: the agent's answer (and its state) waits for it. */
  waitUntil: WaitUntil;
}

type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/**
 * Fills a form's named fields the way typing does, so that frameworks see the values. The
 * bridge has checked the input against the form's fields: an object of strings.
 */
function fill(form: HTMLFormElement, input: InputValue): void {
  for (const [name, raw] of Object.entries(input)) {
    const value = String(raw);
    const item = form.elements.namedItem(name);
    for (const field of (item instanceof RadioNodeList ? item : [item]) as Field[]) {
      if (!field) continue;
      if (field.type === "checkbox" || field.type === "radio") {
        (field as HTMLInputElement).checked = field.type === "radio"
          ? field.value === value
          : value !== "";
      } else {
        // The prototype's setter: React and others track `value` on the instance.
        Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field), "value")?.set?.call(
          field,
          value,
        );
      }
      field.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
      field.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }
}

/**
 * `<aim-action>`: one action of the page. Its attributes, properties and events are in
 * docs/elements.md.
 */
export class AimAction extends Declaration implements ActionSource {
  static override properties = { disabled: { type: Boolean, reflect: true } };
  /** A disabled (or `hidden`) action is not registered. */
  declare disabled: boolean;
  /** Runs the action; wins over the event and the declarative bindings. */
  declare handler: ActionHandler | undefined;
  protected readonly set = client.actions;

  /** The declaration read from the markup; null when hidden, disabled or invalid. */
  declaration(): Registered | null {
    if (this.hidden || this.disabled) return null;
    try {
      return { ...readAction(this, document) };
    } catch (error) {
      if (!(error instanceof MarkupError)) throw error;
      warn(`<aim-action name="${this.name}">: ${error.message}`, this);
      return null;
    }
  }

  /**
   * Runs the action once with a validated input; resolves to its result. The work it declares
   * goes to `waitUntil`; without one, it resolves once that work is done too.
   */
  async run(input: InputValue, waitUntil?: WaitUntil): Promise<unknown> {
    if (!waitUntil) {
      const work = new Work();
      const result = await this.run(input, work.waitUntil);
      await work.done(client.settleMs);
      return result;
    }
    const actionId = this.name;
    if (this.handler) return await this.handler(input, { waitUntil });
    let response: unknown;
    const event = new CustomEvent<InvokeDetail>("aim-invoke", {
      bubbles: true,
      composed: true,
      cancelable: true,
      detail: {
        actionId,
        input,
        waitUntil,
        respondWith(value) {
          response = Promise.resolve(value);
          event.preventDefault();
        },
      },
    });
    this.dispatchEvent(event);
    if (response) return await response;
    if (event.defaultPrevented) throw new Error(`The page cancelled "${actionId}".`);
    // The declarative bindings are the event's default action.
    const click = this.getAttribute("click");
    const formRef = this.getAttribute("form");
    if (click) {
      const el = document.querySelector<HTMLButtonElement>(click);
      if (!el || el.disabled) throw new Error(`"${click}" is missing or disabled.`);
      el.click();
      return { clicked: click };
    }
    if (formRef) {
      const form = document.getElementById(formRef.replace(/^#/, "")) as HTMLFormElement;
      if (!form) throw new Error(`form="${formRef}" matches nothing on the page now.`);
      fill(form, input);
      const bad = [...form.elements].find((f) => (f as Field).checkValidity?.() === false);
      if (bad) throw new Error(`"${(bad as Field).name}": ${(bad as Field).validationMessage}`);
      form.requestSubmit();
      return { submitted: formRef };
    }
    throw new Error(`"${actionId}" has no handler, aim-invoke listener, click= or form= here.`);
  }
}
