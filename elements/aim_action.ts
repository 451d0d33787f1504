/**
 * `<aim-action>`: one action of the page, declared in markup and run by a handler,
 * an `aim-invoke` event, or a declarative binding (`click=`, `check=`, `fill=`, `form=`, on
 * the item an agent names with `items=`; see elements/bindings.ts). Renders nothing.
 *
 * @module
 */
import { collectRoots, deepAll, deepFirst } from "../bridge/markup/deep_selector.ts";
import {
  type ActionSource,
  client,
  type Declaration as Registered,
  type Target,
  type WaitUntil,
} from "./client.ts";
import type { Readers } from "./bindings.ts";
import { Work } from "./work.ts";
import { warn } from "./warnings.ts";
import { Declaration, shownText, Watch } from "./declaration.ts";
import { actionMarkup } from "./load_markup.ts";
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { InputValue } from "../bridge/wire/schemas.ts";

/**
 * What `el.handler` is: the input in (already checked against the action's `input_schema`), a
 * JSON result (or a promise of one) out. `waitUntil(promise)` declares work the action started
 * that goes on after it returns (a reload, a render): the agent's answer waits for it.
 */
export type ActionHandler = (input: InputValue, context: { waitUntil: WaitUntil }) => unknown;

/** The detail of an `aim-invoke` event. */
export interface InvokeDetail {
  /** The action's id (the element's `name`). */
  actionId: string;
  /** The agent's input, already checked against the action's `input_schema`. */
  input: InputValue;
  /** Answers the invocation: the result, or a promise of it; a rejection fails it. */
  respondWith(response: unknown): void;
  /** Declares work the action started: the agent's answer (and its state) waits for it. */
  waitUntil: WaitUntil;
}

/**
 * `<aim-action>`: one action of the page. Its attributes, properties and events are in
 * docs/elements.md.
 */
export class AimAction extends Declaration implements ActionSource {
  /** Lit's reactive properties: `disabled`, reflected to its attribute. */
  static override properties = { disabled: { type: Boolean, reflect: true } };
  /** A disabled (or `hidden`) action is not registered. */
  declare disabled: boolean;
  /** Runs the action; wins over the event and the declarative bindings. */
  declare handler: ActionHandler | undefined;
  /**
   * The client's set of actions, which the element joins while connected.
   *
   * @internal
   */
  protected readonly set: Set<ActionSource> = client.actions;
  /**
   * An `items=` action lists the keys present now: it registers again when they change, in the
   * document or in the shadow roots its selectors cross.
   */
  #items = new Watch(() => this.changed());

  /** Leaves the client's actions and stops watching its items. */
  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#items.set([]);
  }

  /**
   * The declaration read from the markup; null when hidden, disabled or invalid, and until the
   * markup reader is loaded (elements/load_markup.ts: whoever needs the declarations loads it).
   *
   * @internal The client's.
   */
  declaration(): Registered | null {
    const reader = actionMarkup();
    if (this.hidden || this.disabled || !reader) return null;
    const key = this.getAttribute("key-attribute");
    const roots = new Set<Node>([document.documentElement]);
    try {
      return { ...collectRoots(roots, () => reader.readAction(this, document, { keys: true })) };
    } catch (error) {
      // A MarkupError, or a selector the browser cannot read: the author's, said once. A form
      // a framework has not rendered yet is no error while the page still loads.
      const message = (error as Error).message;
      if (!(/^form=/.test(message) && document.readyState !== "complete")) {
        warn("action-markup", [this.name, message], this);
      }
      return null;
    } finally {
      this.#items.set(this.getAttribute("items") ? [...roots] : [], {
        childList: true,
        subtree: true,
        characterData: true,
        // What items= may select by (`li:not(.done)`, `[hidden]`), and the key's attribute.
        attributeFilter: key ? ["class", "hidden", key] : ["class", "hidden"],
      });
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
    // The declarative bindings are the event's default action; their code loads on first use.
    return (await this.#binding()).runBinding(this, input, this.#readers());
  }

  /**
   * What the binding will act on with `input` (the person's prompt outlines it), if known.
   *
   * @internal The prompt's.
   */
  async target(input: InputValue): Promise<Target | undefined> {
    return (await this.#binding()).targetOf(this, input, this.#readers());
  }

  /** The bindings' chunk, loaded on first use (the client loads it for an invocation too). */
  #binding(): Promise<typeof import("./bindings.ts")> {
    return import("./bindings.ts");
  }

  /** The markup reader's readings (loaded: the action was registered before it ran). */
  #readers(): Readers {
    return {
      items: () =>
        (actionMarkup()?.actionItems(this, document) ?? []) as [Element, string | null][],
      deep: { all: deepAll, first: deepFirst, text: shownText },
      open: (action) => actionMarkup()?.readOpen(action),
    };
  }
}
