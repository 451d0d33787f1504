/**
 * @module The tab client, one per page: opens the session, holds the tab channel, registers
 * the page's actions and state, runs invocations, and tells the page and the panel how it is.
 */
import { redactSecrets } from "../bridge/protocol/markup.ts";
import { fitState } from "../bridge/protocol/state_limit.ts";
import { CREDENTIAL_PROTOCOL_PREFIX, TAB_PROTOCOL } from "../bridge/protocol/wire.ts";
import type { ConfirmRequest } from "./confirm_dialog.ts";
// Types only: the bundle must not carry zod.
import type { BridgeMessage, TabMessage } from "../bridge/protocol/channel.ts";

/** Where the client is: see {@linkcode AimClient.status}. */
export type Status = "connecting" | "waiting" | "connected" | "disconnected" | "ended";

/** Why a session ended, as the bridge says; `gone` when the bridge no longer knows it. */
export type EndReason = "disconnected" | "expired" | "shutdown" | "gone" | "unavailable";

/** One thing the agent did, as the bridge reports it. */
export type Activity = Extract<BridgeMessage, { type: "activity" }>;

type Invoke = Extract<BridgeMessage, { type: "invoke" }>;
type Timer = ReturnType<typeof setTimeout> | undefined;

export type { ConfirmRequest };

/** An `<aim-action>` as the client sees it. */
export interface ActionSource extends Element {
  name: string;
  /** The declaration to register, or null when the element is not available now. */
  declaration(): Record<string, unknown> | null;
  run(input: unknown): Promise<unknown>;
}

/** An `<aim-state>` as the client sees it: `undefined` publishes nothing. */
export interface StateSource extends Element {
  name: string;
  read(): unknown;
}

const warned = new Set<string>();

/** Warns a page author (in the console) once per distinct message. */
export function warn(message: string, el?: Element): void {
  if (!warned.has(message)) console.warn(`[aim] ${message}`, el ?? "");
  warned.add(message);
}

function toJson(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

function post(url: string, body: unknown, token?: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

/**
 * Where the tab keeps its session across reloads and navigations: this tab's own storage, of
 * this origin only. Cookies would not do: another port or a sibling subdomain can plant them.
 */
const STORE_KEY = "aim.session";

interface StoredSession {
  token: string;
  credential: string;
}

function stored(): StoredSession | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(STORE_KEY) ?? "null");
    return value?.token && value?.credential ? value : null;
  } catch {
    return null;
  }
}

function store(value: StoredSession | null): void {
  try {
    if (value) sessionStorage.setItem(STORE_KEY, JSON.stringify(value));
    else sessionStorage.removeItem(STORE_KEY);
  } catch {
    // Storage refused (private mode): the session then lasts as long as the page.
  }
}

/** The manifest path of a page, as the bridge names it. */
export function manifestPath(page: string): string {
  return `${page === "/" ? "/index" : page}.json`;
}

/**
 * The tab's side of the protocol. It fires `change` on itself when its status or its
 * registered actions change, and `aim-status`, `aim-activity` and `aim-session` (login changes)
 * on the document for the page.
 */
export class AimClient extends EventTarget {
  status: Status = "connecting";
  endReason: EndReason | null = null;
  /** A sentence about the status, for people; a countdown to `until` may follow it. */
  detail = "";
  token = "";
  page = location.pathname;
  /** When the holder's lease runs out (waiting), or the next reconnect (disconnected). */
  until = 0;
  /** The bridge's word on the session: its page and whether someone signed in (`aim-session`). */
  session: Extract<BridgeMessage, { type: "session" }> | null = null;
  /** The declarations last registered. */
  declarations: Record<string, unknown>[] = [];
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
  readonly actions = new Set<ActionSource>();
  readonly states = new Set<StateSource>();
  #socket: WebSocket | null = null;
  #heartbeat: Timer;
  #retry: Timer;
  #attempts = 0;
  #sent = ["", ""];
  #queued = false;
  /** The tab credential: opens the channel; never shown, never sent anywhere else. */
  #credential = "";

  /** Opens the session and the channel. */
  start(): void {
    // Leaving the page lets the next page (or the reload) take the lease at once.
    addEventListener("pagehide", () => this.#close());
    addEventListener("pageshow", (e) => e.persisted && this.status !== "ended" && this.#open());
    this.#open();
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
   * Ends the session through the bridge's `disconnect` action, with this page's cookie; the
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

  #end(reason: EndReason, detail = `The session ended (${reason}).`): void {
    this.endReason = reason;
    store(null);
    this.#close();
    this.#set("ended", detail);
  }

  #close(): void {
    clearInterval(this.#heartbeat);
    clearTimeout(this.#retry);
    this.#heartbeat = undefined;
    this.#socket?.close(1000);
    this.#socket = null;
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
        { page: location.pathname, ...(mine ? { resume: mine.credential } : {}) },
        mine?.token,
      ).catch(() => null);
      if (!res) return this.#backoff(() => this.#open());
      const body = await res.json().catch(() => ({}));
      if (!res.ok) return this.#end("unavailable", body.message);
      this.token = body.sessionToken;
      this.#credential = body.resumed && mine ? mine.credential : body.tabCredential;
      this.page = body.page;
      store({ token: this.token, credential: this.#credential });
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
      this.#send({ type: "hello", page: location.pathname });
      this.#flush(true);
    };
    socket.onmessage = (e) => this.#receive(JSON.parse(e.data));
    socket.onclose = async (e) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
      if (e.code === 4001) return this.#end(this.endReason ?? "disconnected");
      // A message the bridge refused (malformed, too large) would be sent again: stop here.
      if (e.code === 1008 || e.code === 1009) {
        return this.#end("unavailable", `The bridge refused this page: ${e.reason}`);
      }
      // The bridge says why it closes (a bad message, an expired lease, a shutdown).
      if (e.reason) warn(`channel closed: ${e.reason}`);
      // A channel that never opened: is the bridge away, or has it forgotten the session?
      const res = opened || await fetch(manifestPath(this.page)).catch(() => null);
      if ((res as Response)?.status === 401) {
        return this.#end("gone", "The bridge restarted; this session is gone.");
      }
      this.#backoff(() => this.#connect());
    };
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
        } else if (message.status === "waiting") {
          this.#set(
            "waiting",
            "Another tab has this session; taking over within",
            Date.parse(message.expiresAt),
          );
        }
        return;
      case "registered":
        for (const { id, reason } of message.rejected) warn(`"${id}" was rejected: ${reason}`);
        return;
      case "invoke":
        // The bridge sends one at a time; a new one means it gave up waiting on the last.
        this.#invoke(message);
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
      case "session":
        if (message.type === "session") this.session = message;
        document.dispatchEvent(new CustomEvent(`aim-${message.type}`, { detail: message }));
        return;
      case "ended":
        this.endReason = message.reason;
        // Sessions live in the bridge's memory: reconnecting tells whether it came back.
        if (message.reason === "shutdown") this.#set("disconnected", "The bridge stopped.");
    }
  }

  /** Runs one action of the page; resolves to its result as JSON. */
  async run(actionId: string, input: unknown): Promise<unknown> {
    const el = [...this.actions].find((a) => a.name === actionId && a.declaration());
    if (!el) throw new Error(`No action "${actionId}" is on the page now.`);
    const result = toJson(await el.run(input));
    // Renders that follow the handler (Lit, frameworks) run as microtasks; let them land.
    await null;
    await null;
    return result;
  }

  async #invoke({ id, actionId, input, consequential }: Invoke): Promise<void> {
    let answer: TabMessage;
    const withdrawn = new AbortController();
    const onCancel = (e: Event) => (e as CustomEvent).detail === id && withdrawn.abort();
    this.addEventListener("cancel", onCancel);
    try {
      // Fail closed: a consequential action waits for the person, unless the page's own element
      // says `no-confirm` (not `no-confirm="false"`).
      const el = consequential
        ? [...this.actions].find((a) => a.name === actionId && a.declaration())
        : undefined;
      const optOut = el?.getAttribute("no-confirm")?.trim().toLowerCase();
      if (consequential && (optOut === undefined || optOut === "false")) {
        // The person may take longer than the tab timeout: the bridge then waits longer.
        this.#send({ type: "awaiting", id, message: "Asking the person." });
        // A panel on the page asks; while its module loads, wait for it, not for the modal.
        if (!this.confirmer && document.querySelector("aim-panel")) {
          await customElements.whenDefined("aim-panel");
        }
        const request = { id, actionId, input };
        const approved = this.confirmer
          ? await this.confirmer(request, withdrawn.signal)
          : await (await import("./confirm_dialog.ts")).confirmInDialog(
            request,
            String(el?.declaration()?.description ?? ""),
            withdrawn.signal,
          );
        if (approved !== true) throw "declined";
      }
      const result = await this.run(actionId, input) as null;
      answer = { type: "result", id, ok: true, result };
    } catch (error) {
      const declined = error === "declined";
      const message = declined
        ? `The person declined "${actionId}".`
        : String((error as Error)?.message ?? error).slice(0, 2000);
      answer = {
        type: "result",
        id,
        ok: false,
        error: { code: declined ? "declined" : "action_failed", message },
      };
    }
    this.removeEventListener("cancel", onCancel);
    // The bridge answers with the state it last got: send it first.
    this.#flush();
    this.#send(answer);
  }

  /** What the page declares changed: register and push state within a frame (or 100 ms). */
  changed(): void {
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
    if (actions) {
      this.#queued = false;
      this.declarations = [...this.actions].map((a) => a.declaration()).filter((d) => d !== null);
    }
    [
      actions && `{"type":"register","actions":${JSON.stringify(this.declarations)}}`,
      `{"type":"state","state":${JSON.stringify(this.snapshot())}}`,
    ].forEach((text, i) => {
      if (!text || text === this.#sent[i] || this.#socket?.readyState !== 1) return;
      this.#sent[i] = text;
      this.#socket.send(text);
      // The panel's instructions take their example from the actions.
      if (!i) this.dispatchEvent(new Event("change"));
    });
  }

  /** The state snapshot: every `<aim-state>`, without secrets. */
  snapshot(): Record<string, unknown> {
    const raw: Record<string, unknown> = {};
    for (const el of this.states) {
      try {
        const value = el.read();
        if (el.name && value !== undefined) raw[el.name] = toJson(value);
      } catch {
        warn(`<aim-state name="${el.name}"> is not JSON`, el);
      }
    }
    const limit = this.session?.maxStateBytes ?? 256 * 1024;
    const fitted = fitState(redactSecrets(raw) as Record<string, unknown>, limit);
    if (fitted.truncated) {
      warn(`the state is over ${limit} bytes: the agent sees it cut (see its "_truncated" key)`);
    }
    return fitted.state;
  }
}

/** The page's one client. */
export const client: AimClient = new AimClient();
