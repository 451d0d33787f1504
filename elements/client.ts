/**
 * The tab client, one per page: opens the session, holds the tab channel, registers
 * the page's actions and state, runs invocations, and tells the page and the panel how it is.
 * Where the browser has WebMCP (`document.modelContext`), it loads elements/webmcp.ts, which
 * offers the same actions to agents in the browser. Both load `<aim-action>`'s markup reader
 * (elements/load_markup.ts) before they first read the actions.
 *
 * @module
 */
import { redactSecrets } from "../bridge/markup/secrets.ts";
import { fitState } from "../bridge/wire/state_limit.ts";
import { CREDENTIAL_PROTOCOL_PREFIX, manifestPath, TAB_PROTOCOL } from "../bridge/wire/names.ts";
import type { ConfirmRequest } from "./confirm_dialog.ts";
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { z } from "zod";
import type { BridgeMessage, TabMessage } from "../bridge/wire/channel.ts";
import type { InputValue, SessionGrant, SessionRequest } from "../bridge/wire/schemas.ts";
import { type Timer, type WaitUntil, Work } from "./work.ts";
import { warn } from "./warnings.ts";
import { store, stored } from "./session_storage.ts";
import { loadActionMarkup, markupPending } from "./load_markup.ts";

/** Where the client is: see {@linkcode AimClient.status}. */
export type Status = "connecting" | "waiting" | "connected" | "disconnected" | "ended";

/**
 * Why a session ended: the bridge's `ended` reasons (the `disconnect` action, idle expiry, the
 * bridge stopping), `gone` when a restarted bridge no longer knows it, `unavailable` when the
 * bridge refused this page. The same as the wire's (tests/unit/elements_types_test.ts).
 */
export type EndReason = "disconnected" | "expired" | "shutdown" | "gone" | "unavailable";

/**
 * One thing an agent did, as the bridge reports it (the `aim-activity` event's detail): the
 * tab channel's `activity` message (tests/unit/elements_types_test.ts keeps them the same).
 */
export interface Activity {
  /** The message's type. */
  type: "activity";
  /** When it was answered (ISO 8601). */
  at: string;
  /** The action run. */
  actionId: string;
  /** The HTTP status the agent was answered with. */
  status: number;
  /** `ok`, or the error code the agent was answered with. */
  outcome: string;
  /** How long it took, in milliseconds. */
  durationMs: number;
  /** `"webmcp"` for an agent in the browser (the elements fire those themselves). */
  via?: "webmcp" | undefined;
}

/**
 * The session, as the bridge tells the tab that holds it: the tab channel's `session` message
 * less `settle` (tests/unit/elements_types_test.ts keeps them the same).
 */
export interface SessionInfo {
  /** The message's type. */
  type: "session";
  /** The session's public id. */
  id: string;
  /** The page the session is on, as the bridge names it. */
  page: string;
  /** When the session expires unless used (ISO 8601). */
  expiresAt: string;
  /** Whether someone signed in. */
  authenticated: boolean;
  /** Who signed in, or null. */
  user: { username: string; name?: string | undefined } | null;
  /** Sent as `X-Aim-Tab` to the page's own API (see `requireSession`); never show it. */
  tabKey: string;
  /** The largest state snapshot the bridge keeps whole; the tab cuts what is over it. */
  maxStateBytes: number;
  /** How long the bridge waits for the page to finish reacting to an action, ms. */
  settleMs?: number | undefined;
}

export type { WaitUntil };

/** An action as the tab registers it (the bridge checks it again). */
export type Declaration = Extract<TabMessage, { type: "register" }>["actions"][number];

/** What the tab tells the bridge of a run by an agent in the browser (elements/webmcp.ts). */
export type RunReport = Omit<Extract<TabMessage, { type: "run" }>, "type">;

export type { ConfirmRequest };

/** An `<aim-action>` as the client sees it. */
export interface ActionSource extends Element {
  /** The action's id. */
  name: string;
  /**
   * The declaration to register, or null when the element is not available now.
   *
   * @internal The client's.
   */
  declaration(): Declaration | null;
  /** Runs the action with a validated input; the work it starts goes to `waitUntil`. */
  run(input: InputValue, waitUntil?: WaitUntil): Promise<unknown>;
  /** What the action will act on with `input`, which the person's prompt shows; see `Target`. */
  target?(input: InputValue): Promise<Target | undefined>;
}

/**
 * What an action will act on: the elements to outline while the person is asked (the item's
 * row, the form and its fields, the button; the first is scrolled into view), and what it does
 * to them in words, for the prompt ("press “Approve” on the row req-3").
 */
export interface Target {
  /** The elements to outline, the first scrolled into view. */
  elements: Element[];
  /** What the action does to them, in words. */
  words: string;
}

/** An `<aim-state>` as the client sees it: `undefined` publishes nothing. */
export interface StateSource extends Element {
  /** The state's key. */
  name: string;
  /** The value to publish now; undefined publishes nothing. */
  read(): unknown;
}

function toJson(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

function post(
  url: string,
  body: z.input<typeof SessionRequest> | { actionId: string; input: InputValue },
  token?: string,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

export { manifestPath };

/**
 * A short tag of a token (FNV-1a, 32 bits): the name under which the tabs of one session talk
 * to each other, without passing the token itself around.
 */
function tag(token: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) hash = Math.imul(hash ^ token.charCodeAt(i), 16777619);
  return (hash >>> 0).toString(36);
}

/**
 * Up to this many characters, a result and its state go as one message: under the bridge's
 * default message limit (1 MiB of UTF-8, at most 3 bytes a character) whatever they hold.
 */
const ONE_MESSAGE_CHARS = 256 * 1024;

/** The page this tab shows: its path and its query (the bridge keeps the declared parameters). */
function here(): string {
  return location.pathname + location.search;
}

/** What the panel says when the bridge ends the session, by reason. */
const ENDED: Record<string, string> = {
  disconnected: "Disconnected: the token no longer works.",
  expired: "The session expired: the token no longer works.",
  shutdown: "The bridge stopped, ending this session: the token no longer works.",
};

/**
 * The tab's side of the protocol. It fires `change` on itself when its status or its
 * registered actions change, and `aim-status`, `aim-activity` and `aim-session` (login changes)
 * on the document for the page.
 *
 * The tabs of one session (a tab opened from another copies its `sessionStorage`) share one
 * `BroadcastChannel`, so that a waiting tab can ask the holder to let go
 * ({@linkcode AimClient.takeOver}).
 */
export class AimClient extends EventTarget {
  /** Where the client is: opening the session, waiting for another tab, connected… */
  status: Status = "connecting";
  /** Why the session ended, once it did (`status` is then `ended`). */
  endReason: EndReason | null = null;
  /** A sentence about the status, for people; a countdown to `until` may follow it. */
  detail = "";
  /** The session's token, for the person to give an agent ("" until the bridge gave one). */
  token = "";
  /** The page as the bridge names it (its manifest is at `manifestPath(page)`). */
  page: string = location.pathname;
  /** When the next reconnect is tried (disconnected); 0 when none is due. */
  until = 0;
  /**
   * The bridge's word on the session, sent to the tab that holds it: its page and whether
   * someone signed in (`aim-session`). Null until this tab first held it, and once it ended.
   */
  session: SessionInfo | null = null;
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
  #socket: WebSocket | null = null;
  #heartbeat: Timer;
  #retry: Timer;
  #attempts = 0;
  #sent = ["", ""];
  /** The declarations' JSON text, to tell when they change. */
  #declared = "[]";
  /** A flush is due (a frame or 100 ms after a change). */
  #queued = false;
  /** An action's element said it changed since the declarations were last read. */
  #actionsChanged = false;
  /** The tab credential: opens the channel; never shown, never sent anywhere else. */
  #credential = "";
  /** The other tabs of this session (see `takeOver`). */
  #peers: BroadcastChannel | null = null;
  /** The invocation in progress: the bridge stops waiting for it when the channel closes. */
  #current = "";
  /** Set while this tab lets go of the lease for another; it then joins the line again. */
  #yielding = false;
  /** The page the bridge was last told this tab shows (`hello`, `navigate`). */
  #at = here();
  /** The bindings' chunk: it runs invocations (elements/invoke.ts). */
  #gestures: Promise<typeof import("./bindings.ts")> | undefined;

  /** Opens the session and the channel. */
  start(): void {
    // Leaving the page lets the next page (or the reload) take the lease at once; an invocation
    // in progress (elements/invoke.ts) answers first, hearing it on the client.
    addEventListener("pagehide", () => (this.dispatchEvent(new Event("pagehide")), this.#close()));
    addEventListener("pageshow", (e) => e.persisted && this.status !== "ended" && this.#open());
    this.#open();
    // A single-page app moves between pages with the History API, without loading one: the
    // session follows the tab (`navigate`), with no reconnect. The Navigation API says when;
    // without it, an action that moved it says so before its answer.
    (globalThis as { navigation?: EventTarget }).navigation?.addEventListener(
      "currententrychange",
      () => this.#follow(),
    );
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
   * Asks the tab that holds this session to let go, so that this waiting tab gets the lease:
   * the holder closes its channel (withdrawing a prompt it shows) and joins the line again.
   */
  takeOver(): void {
    if (this.status === "waiting") this.#peers?.postMessage("release");
  }

  /** Starts over with a new session, after the last one ended. */
  newSession(): void {
    this.token = "";
    this.#credential = "";
    store(null);
    this.#attempts = 0;
    this.#open();
  }

  /**
   * Ends the session through the bridge's `disconnect` action, with the session's token; the
   * bridge then tells the tab that the session ended.
   */
  disconnect(): void {
    post("/__aim/invoke", { actionId: "disconnect", input: {} }, this.token).catch(() => {});
  }

  #set(status: Status, detail = "", until = 0): void {
    const changed = status !== this.status;
    Object.assign(this, { status, detail, until });
    this.dispatchEvent(new Event("change"));
    if (changed) {
      document.dispatchEvent(
        new CustomEvent("aim-status", { detail: { status, reason: this.endReason } }),
      );
    }
  }

  #end(reason: EndReason, detail = ENDED[reason] ?? `The session ended (${reason}).`): void {
    this.endReason = reason;
    this.session = null;
    store(null);
    this.#close();
    this.#peers?.close();
    this.#peers = null;
    this.#set("ended", detail);
  }

  #close(): void {
    clearTimeout(this.#retry);
    this.#socket?.close(1000);
    this.#socket = null;
    this.#lost();
  }

  /** The channel is gone: the bridge no longer waits for the invocation in progress. */
  #lost(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    if (this.#current) this.oncancel?.(this.#current);
  }

  /** Another tab of this session asks for the lease: let go, and wait in line behind it. */
  #release(): void {
    if (this.status !== "connected" || !this.#socket) return;
    this.#yielding = true;
    this.#socket.close(1000);
  }

  async #open(): Promise<void> {
    this.#close();
    this.endReason = null;
    this.#set("connecting");
    if (!this.token) {
      // This tab's own session, if it opened one before this reload or navigation.
      const mine = stored();
      const res = await post(
        "/__aim/session",
        { page: here(), ...(mine ? { resume: mine.credential } : {}) },
        mine?.token,
      ).catch(() => null);
      if (!res) return this.#backoff(() => this.#open());
      const body: SessionGrant & { message?: string } = await res.json().catch(() => ({}));
      if (!res.ok) return this.#end("unavailable", body.message);
      this.token = body.sessionToken;
      this.#credential = body.resumed && mine ? mine.credential : body.tabCredential ?? "";
      this.page = body.page;
      store({ token: this.token, credential: this.#credential });
      this.#peers?.close();
      this.#peers = new BroadcastChannel(`aim.${tag(this.token)}`);
      this.#peers.onmessage = (e) => e.data === "release" && this.#release();
    }
    this.#connect();
  }

  #backoff(again: () => void): void {
    // 0.5 s, 1 s, 2 s … up to 15 s, with jitter so that many tabs do not come back at once.
    const delay = Math.min(15_000, 500 * 2 ** this.#attempts++) * (0.75 + Math.random() / 4);
    this.#set("disconnected", "The bridge is away; retrying in", Date.now() + delay);
    this.#retry = setTimeout(again, delay);
  }

  #connect(): void {
    // http: becomes ws:, https: wss:
    const socket = this.#socket = new WebSocket(`ws${location.origin.slice(4)}/__aim/tab`, [
      TAB_PROTOCOL,
      CREDENTIAL_PROTOCOL_PREFIX + this.#credential,
    ]);
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.#sent = ["", ""];
      this.#send({ type: "hello", page: this.#at = here() });
      // The actions before the state, here: the bridge holds a page as arrived (an action that
      // led here answered) once its state is in and the actions sent before it registered.
      if (this.#markupFirst()) return;
      this.#register();
      this.#flush();
    };
    socket.onmessage = (e) => this.#receive(JSON.parse(e.data));
    socket.onclose = async (e) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#lost();
      // Let go for another tab of this session: back in line at once, behind it.
      if (this.#yielding) {
        this.#yielding = false;
        return this.#connect();
      }
      if (e.code === 4001) return this.#end(this.endReason ?? "disconnected");
      // A message the bridge refused (malformed, too large) would be sent again: stop here.
      if (e.code === 1008 || e.code === 1009) {
        return this.#end("unavailable", `The bridge refused this page: ${e.reason}`);
      }
      // The bridge says why it closes (a bad message, an expired lease, a shutdown).
      if (e.reason) warn("channel-closed", [e.reason]);
      // A channel that never opened: is the bridge away, or has it forgotten the session?
      const res = opened || await fetch(manifestPath(this.page)).catch(() => null);
      if ((res as Response)?.status === 401) {
        return this.#end("gone", "The bridge restarted; this session is gone.");
      }
      this.#backoff(() => this.#connect());
    };
  }

  /** Moves the session with the tab, when a single-page app changed its route. */
  #follow(): void {
    if (here() === this.#at) return;
    // The bridge withdraws what the old page registered: the actions go again, the same too.
    this.#sent[0] = "";
    this.#send({ type: "navigate", page: this.#at = here() });
    this.changed();
  }

  #send(message: TabMessage): void {
    if (this.#socket?.readyState === 1) this.#socket.send(JSON.stringify(message));
  }

  #receive(message: BridgeMessage): void {
    switch (message.type) {
      case "lease":
        this.#heartbeat ||= setInterval(
          () => this.#send({ type: "heartbeat" }),
          message.leaseMs / 3,
        );
        if (message.status === "granted") {
          this.#attempts = 0;
          this.endReason = null;
          if (this.status !== "connected") this.#set("connected");
        } else if (message.status === "waiting" && this.status !== "waiting") {
          // The holder's heartbeats push its expiry on for as long as it lives: no countdown.
          this.#set("waiting", "Another tab has this session; this one takes over when it closes.");
        }
        return;
      case "page":
        // Where this tab is now, as the bridge names it: the panel shows that page's manifest.
        this.page = message.page;
        this.dispatchEvent(new Event("change"));
        return;
      case "registered":
        for (const { id, reason } of message.rejected) warn("action-rejected", [id, reason]);
        return;
      case "invoke":
        // The bridge sends one at a time; a new one means it gave up waiting on the last. Runs
        // in the bindings' chunk (elements/invoke.ts), loaded by the first one.
        this.#current = message.id;
        (this.#gestures ??= import("./bindings.ts")).then(
          (m) =>
            m.invoke(this, message, (m) => m.type === "result" ? this.#reply(m) : this.#send(m)),
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
      case "credential":
        // Signing in or out replaced what binds this tab: keep the new one for reloads.
        this.#credential = message.credential;
        store({ token: this.token, credential: this.#credential });
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
          if (settle) this.#send({ type: "settled", id: settle });
        });
        return;
      }
      case "ended":
        // The token no longer works, whatever the reason: sessions live in the bridge's memory,
        // so a bridge that stops ends them too.
        this.#end(message.reason);
    }
  }

  /** How long an answer waits for the work the page declares: the bridge's settle timeout. */
  get settleMs(): number {
    return this.session?.settleMs ?? 3000;
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

  /**
   * Tells the bridge that an agent in the browser ran one of the page's actions, when this tab
   * holds a session: the bridge records it in the session's audit log (`/__aim/activity`).
   *
   * @internal elements/webmcp.ts calls it.
   */
  reportRun(report: RunReport): void {
    this.#send({ type: "run", ...report });
  }

  /** Sends the answer to the invocation in progress, with the state: once, when it is still due. */
  #reply(answer: Extract<TabMessage, { type: "result" }>): void {
    if (this.#current !== answer.id) return;
    this.#current = "";
    // A route the action moved the page to counts before its answer.
    this.#follow();
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
    if (this.#socket?.readyState === 1) this.#socket.send(text);
    // What no observer tells (a form's fields) is read again in the next frame, off the
    // answer's path.
    this.changed(false);
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
   * Whether the bridge waits for `<aim-action>`'s markup reader, a chunk loaded once a session's
   * channel opens: the actions, then the state, go once it is loaded, so that an agent never
   * sees the page without its actions first.
   */
  #markupFirst(): boolean {
    if (this.#socket?.readyState !== 1 || !markupPending(this.actions)) return false;
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
    if (text === this.#sent[kind] || this.#socket?.readyState !== 1) return;
    this.#sent[kind] = text;
    this.#socket.send(text);
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
