/**
 * The tab client, one per page: on its link to the bridge (elements/client_link.ts: the session,
 * the channel, the lease), it registers the page's actions and state, runs invocations, and
 * tells the page and the panel how it is. Where the browser has WebMCP
 * (`document.modelContext`), it loads elements/webmcp.ts, which offers the same actions to
 * agents in the browser. Both load `<aim-action>`'s markup reader (elements/load_markup.ts)
 * before they first read the actions.
 *
 * @module
 */
import { manifestPath } from "../bridge/wire/names.ts";
import type { ConfirmRequest } from "./confirm_dialog.ts";
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { BridgeMessage, TabMessage } from "../bridge/wire/channel.ts";
import type { InputValue } from "../bridge/wire/schemas.ts";
import { type WaitUntil, Work } from "./work.ts";
import type { ActionSource, Declaration, StateSource } from "./client_types.ts";
import { ClientLink } from "./client_link.ts";
import { warn } from "./warnings.ts";
import { redactSecrets } from "../bridge/markup/secrets.ts";
import { fitState } from "../bridge/wire/state_limit.ts";
import { loadActionMarkup, markupPending } from "./load_markup.ts";

export type {
  ActionSource,
  Activity,
  Declaration,
  EndReason,
  SessionInfo,
  StateSource,
  Status,
  Target,
} from "./client_types.ts";
export type { ConfirmRequest, WaitUntil };
export { manifestPath };

function toJson(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

/**
 * Up to this many characters, a result and its state go as one message: under the bridge's
 * default message limit (1 MiB of UTF-8, at most 3 bytes a character) whatever they hold.
 */
const ONE_MESSAGE_CHARS = 256 * 1024;
/**
 * While an agent's calls keep coming, what no observer tells is read again at most this often
 * after the answers, ms.
 */
const RECHECK_MS = 250;

/**
 * Whether `DOMContentLoaded` has fired: deferred and module scripts run while the document is
 * already "interactive", before it, so the ready state alone cannot tell.
 */
function contentLoaded(): boolean {
  if (document.readyState === "complete") return true;
  const [timing] = performance.getEntriesByType("navigation") as PerformanceNavigationTiming[];
  return timing ? timing.domContentLoadedEventStart > 0 : document.readyState !== "loading";
}

/**
 * The tab's side of the protocol. It fires `change` on itself when its status or its
 * registered actions change, and `aim-status`, `aim-activity` and `aim-session` (login changes)
 * on the document for the page.
 */
export class AimClient extends ClientLink {
  /**
   * The page's declarations now (a `change` event says when they change).
   *
   * @internal The client's and the panel's.
   */
  declarations: Declaration[] = [];
  /**
   * Asks the person before a consequential action runs: true, or a promise of true, is their
   * approval; anything else declines. `signal` aborts when the bridge stops waiting (a `cancel`
   * event on the client, fired by `oncancel`): the prompt must go. A connected `<aim-panel>`
   * sets it; while it is null, the elements ask in their own modal dialog
   * (elements/confirm_dialog.ts). Only `no-confirm` on the `<aim-action>` skips asking.
   */
  confirmer: ((request: ConfirmRequest, signal: AbortSignal) => boolean | Promise<boolean>) | null =
    null;
  /** Called when the bridge no longer waits for an invocation: a prompt for it must go. */
  oncancel: ((id: string) => void) | null = null;
  /**
   * The `<aim-action>` elements connected now.
   *
   * @internal The elements join it.
   */
  readonly actions: Set<ActionSource> = new Set();
  /**
   * The `<aim-state>` elements connected now.
   *
   * @internal The elements join it.
   */
  readonly states: Set<StateSource> = new Set();
  #sent = ["", ""];
  /** The declarations' JSON text, to tell when they change. */
  #declared = "[]";
  /** A flush is due (a frame or 100 ms after a change). */
  #queued = false;
  /** An action's element said it changed since the declarations were last read. */
  #actionsChanged = false;
  /** The invocation in progress: the bridge stops waiting for it when the channel closes. */
  #current = "";
  /** The bindings' chunk: it runs invocations (elements/invoke.ts). */
  #gestures: Promise<typeof import("./bindings.ts")> | undefined;
  /** When what no observer tells was last read again after an answer (`performance.now()`). */
  #rechecked = -Infinity;
  /** The timer of the next such reading, while calls keep coming. */
  #recheckTimer: ReturnType<typeof setTimeout> | undefined;

  /** Opens the session and the channel; where the browser has WebMCP, offers it the actions. */
  override start(): void {
    super.start();
    // Agents in the browser (WebMCP) get the same actions, and remote agents the page's own
    // tools (elements/page_tools.ts, which adds them to `actions`); without the API nothing
    // loads. A polyfill may come later, from a module or a framework: look again at `load`.
    let webmcp: unknown;
    const startWebMcp = () => {
      if ("modelContext" in document) {
        // The tools follow the declarations (`change`): read again once the markup reader loaded.
        webmcp ??= Promise.all([import("./webmcp.ts"), loadActionMarkup()])
          .then(([m]) => (m.startWebMcp(this), this.changed()));
      }
    };
    startWebMcp();
    addEventListener("load", startWebMcp);
  }

  /**
   * The channel opened: the state and the actions go again, whatever was sent before.
   *
   * @internal
   */
  protected override onOpen(): void {
    this.#sent = ["", ""];
    // The actions before the state, here: the bridge holds a page as arrived (an action that
    // led here answered) once its state is in and the actions sent before it registered.
    if (this.#markupFirst()) return;
    this.#register();
    this.#flush();
  }

  /**
   * The channel opens once the document is parsed (`DOMContentLoaded`: the page's deferred and
   * module scripts ran) and `<aim-action>`'s markup reader has loaded (or could not): its `hello`
   * is then followed at once by the page's actions, before the bridge grants this tab the
   * session. Opened first, the tab would say it is connected (and the panel show the token)
   * while the bridge holds the page without its actions, and an agent's first call would find
   * none of them.
   *
   * @internal
   */
  protected override beforeChannel(): Promise<void> | undefined {
    const markup = () => markupPending(this.actions) ? loadActionMarkup() : undefined;
    if (contentLoaded()) return markup();
    // Nor before the document is parsed and its deferred and module scripts ran: until then the
    // page's own listeners and state may not be there, and an agent's first click would do
    // nothing (a person cannot click what is not drawn yet; an agent reads the manifest at once).
    return new Promise<void>((resolve) => {
      document.addEventListener("DOMContentLoaded", () => resolve(), { once: true });
    }).then(markup);
  }

  /**
   * The channel is gone: a prompt for the invocation in progress must go.
   *
   * @internal
   */
  protected override onLost(): void {
    if (this.#current) this.oncancel?.(this.#current);
  }

  /**
   * The bridge withdraws what the old page registered: the actions go again, the same too.
   *
   * @internal
   */
  protected override onMoved(): void {
    this.#sent[0] = "";
    this.changed();
  }

  /**
   * What the bridge says of the page: rejected actions, invocations, activity, the session.
   *
   * @internal
   */
  protected override onMessage(message: BridgeMessage): void {
    switch (message.type) {
      case "registered":
        for (const { id, reason } of message.rejected) warn("action-rejected", [id, reason]);
        return;
      case "invoke":
        // The bridge sends one at a time; a new one means it gave up waiting on the last. Runs
        // in the bindings' chunk (elements/invoke.ts), loaded by the first one.
        this.#current = message.id;
        (this.#gestures ??= import("./bindings.ts")).then(
          (m) =>
            m.invoke(this, message, (m) => m.type === "result" ? this.#reply(m) : this.send(m)),
          (error) => {
            // Tried again by the next invocation; this one is answered, not left to time out.
            this.#gestures = undefined;
            this.#reply({
              type: "result",
              id: message.id,
              ok: false,
              error: {
                code: "action_failed",
                message: `The page could not load aim's code: ${error}`,
              },
            });
          },
        );
        return;
      case "cancel":
        this.oncancel?.(message.id);
        return;
      case "activity":
        document.dispatchEvent(new CustomEvent("aim-activity", { detail: message }));
        return;
      case "session": {
        // Signed in or out (or this tab got the session): the page reacts, and may say what
        // it started with waitUntil, on the event or its detail.
        const { settle, ...session } = message;
        this.session = session;
        const work = new Work();
        const { waitUntil } = work;
        const event = new CustomEvent("aim-session", { detail: { ...session, waitUntil } });
        document.dispatchEvent(Object.assign(event, { waitUntil }));
        // Once it is done, its state first, then the word that it settled: the bridge answers
        // the sign-in or sign-out with that state (or says it could not wait that long).
        work.done().then(async () => {
          // While the markup reader loads, the actions and the state wait for it: so does the word.
          if (this.#markupFirst()) await loadActionMarkup();
          this.#flush(true);
          if (settle) this.send({ type: "settled", id: settle });
        });
        return;
      }
    }
  }

  /**
   * Runs one action of the page, then waits for the work it declared (`waitUntil`) up to
   * {@linkcode AimClient.settleMs}: its result as JSON, and whether that work was done. With a
   * `watch` (elements/leaving.ts), the result is kept on it as soon as there is one, and a page
   * the watch saw leave is not waited for.
   */
  async run(
    actionId: string,
    input: InputValue,
    watch?: { leaving: unknown; ran?: unknown },
  ): Promise<{ result: unknown; settled: boolean }> {
    const el = [...this.actions].find((a) => a.name === actionId && a.declaration());
    if (!el) throw new Error(`No action "${actionId}" is on the page now.`);
    const work = new Work();
    const result = toJson(await el.run(input, work.waitUntil));
    const ran = { result, settled: false };
    if (watch) watch.ran = ran;
    // A page on its way out renders nothing more: its answer goes at once.
    ran.settled = !!watch?.leaving || await work.done(this.settleMs);
    return ran;
  }

  /**
   * Asks the person whether the agent may run a consequential action: true once they approve,
   * false when they decline or `signal` aborts first (the agent stopped waiting: the prompt
   * goes). Fail closed: only `no-confirm` on the page's own `<aim-action>` (not
   * `no-confirm="false"`) skips asking. `onAsk` is called before the person is asked. One
   * prompt at a time, whichever agent asks: a request waits for the answer to the one before.
   */
  async approve(
    request: ConfirmRequest,
    signal: AbortSignal,
    onAsk?: () => void,
  ): Promise<boolean> {
    const el = [...this.actions].find((a) => a.name === request.actionId && a.declaration());
    const optOut = el?.getAttribute("no-confirm")?.trim().toLowerCase();
    if (optOut !== undefined && optOut !== "false") return true;
    onAsk?.();
    // Asking is on demand (elements/confirm_dialog.ts): most pages never ask.
    return await (await import("./confirm_dialog.ts")).ask(this, request, el, signal);
  }

  /** Sends the answer to the invocation in progress, with the state: once, when it is still due. */
  #reply(answer: Extract<TabMessage, { type: "result" }>): void {
    if (this.#current !== answer.id) return;
    this.#current = "";
    // A route the action moved the page to counts before its answer.
    this.follow();
    // The bridge answers with the actions it holds when the result comes: when an action said
    // it changed (an item the action added is a key the agent may name next), they go first.
    if (this.#actionsChanged) this.#register();
    // The state rides in the result (one message), when it changed since the last one sent;
    // a large pair goes as two messages, each within the bridge's message limit as before.
    let text = JSON.stringify(answer);
    const state = `{"type":"state","state":${JSON.stringify(this.snapshot())}}`;
    if (text.length + state.length > ONE_MESSAGE_CHARS) this.#sendOnce(1, state);
    else if (state !== this.#sent[1]) {
      this.#sent[1] = state;
      text = `${text.slice(0, -1)},${state.slice(16)}`;
    }
    this.sendText(text);
    this.#recheck();
  }

  /**
   * What no observer tells (a form's fields) is read again after an answer, off the answer's
   * path: in the next frame after a pause, and while an agent's calls keep coming at most every
   * RECHECK_MS. Read in the frame after every answer, it (and the state read with it)
   * held up back-to-back calls on the tab's thread (docs/mcp.md). What observers do
   * tell (the state, an action's element) still goes within a frame.
   */
  #recheck(): void {
    if (this.#recheckTimer !== undefined) return;
    const run = () => {
      this.#recheckTimer = undefined;
      this.#rechecked = performance.now();
      this.changed(false);
    };
    const wait = this.#rechecked + RECHECK_MS - performance.now();
    if (wait > 0) this.#recheckTimer = setTimeout(run, wait);
    else run();
  }

  /**
   * What the page declares changed: push the state and read the actions again within a frame
   * (or 100 ms). `actions`: an action's element changed, so an answer sent before then reads
   * the actions first.
   */
  changed(actions = true): void {
    this.#actionsChanged ||= actions;
    if (this.#queued) return;
    this.#queued = true;
    const run = () => this.#queued && this.#flush(true);
    requestAnimationFrame(run);
    setTimeout(run, 100);
  }

  /**
   * Sends the state (a `state` message), and with `actions` the actions (a `register`), each
   * only when its text differs from the last one sent.
   */
  #flush(actions?: boolean): void {
    if (this.#markupFirst()) return;
    // The state first: it is cheap to read, and on its way while the actions are read (a form's
    // fields, the keys of items); the bridge holds both before it reads a `result` sent after.
    this.#sendOnce(1, `{"type":"state","state":${JSON.stringify(this.snapshot())}}`);
    if (actions) this.#register();
  }

  /**
   * Whether the bridge waits for `<aim-action>`'s markup reader, loaded before the channel opens
   * (`beforeChannel`) but not yet when an `<aim-action>` came after that: the actions, then the
   * state, go once it is loaded, so that an agent never sees the page without its actions first.
   */
  #markupFirst(): boolean {
    if (!this.channelOpen || !markupPending(this.actions)) return false;
    loadActionMarkup().then(() => (this.#register(), this.#flush()));
    return true;
  }

  /** Reads the declarations, and sends a `register` when they differ from the last one sent. */
  #register(): void {
    this.#queued = this.#actionsChanged = false;
    const declarations = [...this.actions].map((a) => a.declaration()).filter((d) => d !== null);
    const text = JSON.stringify(declarations);
    if (text !== this.#declared) {
      this.#declared = text;
      this.declarations = declarations;
      // The panel's instructions and the WebMCP tools follow the actions, bridge or not.
      this.dispatchEvent(new Event("change"));
    }
    this.#sendOnce(0, `{"type":"register","actions":${this.#declared}}`);
  }

  /** Sends `text` when the channel is open and it differs from the last text of its `kind`. */
  #sendOnce(kind: 0 | 1, text: string): void {
    if (text !== this.#sent[kind] && this.sendText(text)) this.#sent[kind] = text;
  }

  /** The state snapshot: every `<aim-state>`, without secrets. */
  snapshot(): Record<string, unknown> {
    const raw: Record<string, unknown> = {};
    for (const el of this.states) {
      try {
        const value = el.read();
        if (el.name && value !== undefined) raw[el.name] = toJson(value);
      } catch {
        warn("state-not-json", [el.name], el);
      }
    }
    const limit = this.session?.maxStateBytes ?? 256 * 1024;
    const fitted = fitState(redactSecrets(raw) as Record<string, unknown>, limit);
    if (fitted.truncated) {
      warn("state-too-large", [limit]);
    }
    return fitted.state;
  }
}

/** The page's one client. */
export const client: AimClient = new AimClient();
