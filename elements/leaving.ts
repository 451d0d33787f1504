/**
 * What happens to the page while an agent's action runs: whether it leaves for another page (a
 * link's click, a form's `submit`, and a script setting `location` through the Navigation API's
 * `navigate`, which Chromium and Firefox have; without it, such a navigation is seen when the page
 * is hidden), moves to another route of a single-page app, or whether the page stopped a
 * navigation the action started: a `beforeunload` guard (unsaved changes) or the browser's
 * validation of a form. No `beforeunload` listener of its own: Chromium tells its browser process
 * of each one added or removed, which would cost every invocation.
 *
 * The person must never be left with a browser dialog the agent caused. Before a navigation the
 * action started goes ahead, the page's `beforeunload` guard is asked (its listeners run on an
 * event of aim's, as they would run on the browser's); when it would stop the navigation, the
 * navigation is cancelled there (a click's or a submission's default, or the Navigation API's
 * `navigate` event) and the agent is told why, in the page's words, instead of Chromium asking
 * the person "Leave site?". A browser's validation bubble is kept off the page the same way.
 *
 * Loaded with the bindings (elements/bindings.ts re-exports it): the client imports it for the
 * first invocation.
 *
 * @module
 */
import { formUrl, isSubmitButton } from "./gestures.ts";
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { TabMessage } from "../bridge/wire/channel.ts";

/** Where an action took the page: another document (`to`: its URL, when known), or a route. */
export interface Leaving {
  kind: "document" | "route";
  to: string | null;
}

/** The Navigation API's `navigate` event, as far as it is read here. */
interface NavigateEvent extends Event {
  destination: { url: string; sameDocument: boolean };
}

/**
 * Whether the page's `beforeunload` guard would stop leaving it now: null when it would not,
 * else its message ("" when it gives none). Its listeners run on an event of aim's, dispatched on
 * the window, and its `onbeforeunload` handler is called for the value it returns (a string
 * returned from an event handler counts only on the browser's own event).
 */
export function guardMessage(): string | null {
  let value = "";
  let returned: unknown;
  const probe = new Event("beforeunload", { cancelable: true });
  // BeforeUnloadEvent's returnValue is a string, and cannot be made: this one keeps a string too.
  Object.defineProperty(probe, "returnValue", {
    get: () => value,
    set: (v: unknown) => value = v === true || v === false ? (v ? "" : " ") : String(v ?? ""),
  });
  const own = globalThis.onbeforeunload;
  // Replaced in place (the handler keeps its turn among the listeners), then restored.
  if (typeof own === "function") {
    globalThis.onbeforeunload = function (this: unknown, e: Event) {
      returned = own.call(this as Window, e as BeforeUnloadEvent);
    } as typeof own;
  }
  try {
    dispatchEvent(probe);
  } finally {
    if (typeof own === "function") globalThis.onbeforeunload = own;
  }
  if (returned !== undefined && returned !== null) return String(returned).trim();
  return probe.defaultPrevented || value ? value.trim() : null;
}

/** The link a click follows in this tab, if it leaves for another document. */
function linkOf(e: Event): HTMLAnchorElement | HTMLAreaElement | undefined {
  const link = e.composedPath().find((n) =>
    (n instanceof HTMLAnchorElement || n instanceof HTMLAreaElement) && n.hasAttribute("href")
  ) as HTMLAnchorElement | undefined;
  if (!link || link.hasAttribute("download") || !/^https?:$/.test(link.protocol)) return;
  if (!["", "_self"].includes(link.target.toLowerCase())) return;
  const here = new URL(location.href);
  const there = new URL(link.href);
  here.hash = there.hash = "";
  // Only the fragment differs: the page scrolls, it stays.
  if (here.href === there.href && link.href.includes("#")) return;
  return link;
}

/** The watch of the action running now: the window's listeners (added once) serve it. */
let watching: NavigationWatch | null = null;
let listening = false;

/**
 * Adds the listeners the watches use, once: adding and removing them for every invocation costs
 * Chromium tens of microseconds each. With no action running they do nothing.
 */
function listen(): void {
  if (listening) return;
  listening = true;
  addEventListener("click", (e) => watching?.onClick(e));
  addEventListener("submit", (e) => watching?.onSubmit(e));
  addEventListener("invalid", (e) => watching?.onInvalid(e), true);
  (globalThis as { navigation?: EventTarget }).navigation?.addEventListener(
    "navigate",
    (e) => watching?.onNavigate(e),
  );
}

/** A cut sentence of the page's own words. */
function words(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 500);
}

/**
 * Watches the page while one action runs: {@linkcode NavigationWatch.end} says where it went, or
 * why the page stopped it. `onLeave` is called when the page is hidden for good before the
 * action's answer went out ({@linkcode NavigationWatch.hidden}): the answer must go now, or never.
 */
export class NavigationWatch {
  /** Where the page is going, once known. */
  leaving: Leaving | null = null;
  /** Why the page stopped a navigation the action started, in its words. */
  stopped = "";
  /** The first field the browser's validation refused, with its message. */
  invalid = "";
  /** The action's result once it ran (the client sets it), before the page settled. */
  ran?: { result: unknown; settled: boolean };
  #ended?: { leaving: Leaving | null; error: string };
  readonly #from = location.pathname + location.search;
  readonly #onLeave: () => void;
  #done = false;
  /** A submit button was pressed, and whether the form was then submitted. */
  #pressed = false;
  #submitted = false;

  constructor(onLeave: () => void) {
    this.#onLeave = onLeave;
    listen();
    watching = this;
  }

  /**
   * A navigation the action started: the page's guard is asked first; when it would stop it, the
   * navigation is cancelled here (no "Leave site?" dialog) and the action fails with its words.
   */
  #leave(to: string | null, e: Event): void {
    if (this.leaving || this.stopped) {
      // Decided already (a click, then its `navigate`); a second stop wins.
      if (this.stopped) e.preventDefault();
      return;
    }
    const message = guardMessage();
    if (message === null) {
      this.leaving = { kind: "document", to };
      return;
    }
    e.preventDefault();
    this.stopped = message
      ? `The page stopped leaving it: "${words(message)}"`
      : "The page stopped leaving it: it asks the person to confirm leaving (unsaved changes?).";
  }

  /**
   * A click, after the page's own listeners (the window's bubbling ones come last): unless they
   * prevented it, a link's leaves the page, a submit button's presses its form.
   */
  onClick = (e: Event): void => {
    this.#pressed ||= isSubmitButton(e.target as Element);
    const link = !e.defaultPrevented && linkOf(e);
    if (link) this.#leave(link.href, e);
  };

  /** A submission the page did not prevent loads the form's action (unless another target). */
  onSubmit = (e: Event): void => {
    this.#submitted = true;
    if (e.defaultPrevented) return;
    const form = e.target as HTMLFormElement;
    const to = formUrl(form, (e as SubmitEvent).submitter as HTMLElement | null);
    if (to !== null) this.#leave(to, e);
  };

  /** The Navigation API's `navigate`: a script's navigation, or a route of a single-page app. */
  onNavigate = (event: Event): void => {
    const e = event as NavigateEvent;
    // A route of a single-page app: the page stays (`end` sees where it went).
    if (e.destination.sameDocument || !e.cancelable) return;
    // A form's submission was decided at its `submit` (with the fields the agent may read).
    this.#leave(e.destination.url, e);
  };

  /** A field the browser's validation refused: its message is the agent's, not a bubble. */
  onInvalid = (e: Event): void => {
    const control = e.target as HTMLInputElement;
    this.invalid ||= `"${control.name || control.id}": ${words(control.validationMessage)}`;
    // The agent reads the message; the person is not shown the browser's bubble for it.
    e.preventDefault();
  };

  /**
   * The page is hidden for good (its `pagehide`, which the client passes on before it closes the
   * channel: a window's listeners run in the order they were added, capturing or not).
   */
  hidden(): void {
    this.leaving ??= { kind: "document", to: null };
    if (!this.#done) this.#onLeave();
  }

  /**
   * Stops watching once the action ran: where the page went (another document, another route),
   * or the error to answer with when the page stopped the navigation or refused the form.
   */
  end(): { leaving: Leaving | null; error: string } {
    if (this.#ended) return this.#ended;
    this.#done = true;
    if (watching === this) watching = null;
    // A button pressed, and the browser's validation refused the form before any submit event.
    const refused = this.invalid && this.#pressed && !this.#submitted;
    const error = this.stopped || (refused ? `The page refused the form: ${this.invalid}` : "");
    if (!this.leaving && location.pathname + location.search !== this.#from) {
      this.leaving = { kind: "route", to: location.href };
    }
    return this.#ended = { leaving: error ? null : this.leaving, error };
  }

  /**
   * The tab's answer to invocation `id`: the page's refusal when it stopped what the action
   * started, else `failure` (the action threw), else its result; one that left the page says
   * where to (`navigating_to`, and `leaving` for the bridge, which then waits for the next page).
   */
  answer(id: string, failure?: string): Extract<TabMessage, { type: "result" }> {
    const { leaving, error } = this.end();
    if (error || failure !== undefined) {
      return {
        type: "result",
        id,
        ok: false,
        error: { code: "action_failed", message: error || failure! },
      };
    }
    let result = this.ran?.result ?? null;
    if (leaving) {
      const to = { navigating_to: leaving.to };
      result = result === null
        ? to
        : typeof result === "object" && !Array.isArray(result)
        ? { ...to, ...result }
        : { value: result, ...to };
    }
    return {
      type: "result",
      id,
      ok: true,
      result: result as null,
      settled: this.ran?.settled ?? false,
      ...(leaving && { leaving: leaving.kind }),
    };
  }
}
