/**
 * ClientLink: the tab client's link to its bridge, which elements/client.ts builds on: the
 * session opened, or resumed after a reload; the tab channel, its heartbeat and its reconnects
 * with back-off; the lease shared with the session's other tabs; the page the session follows;
 * and how the session ends.
 *
 * @module
 */
import { CREDENTIAL_PROTOCOL_PREFIX, manifestPath, TAB_PROTOCOL } from "../bridge/wire/names.ts";
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { z } from "zod";
import type { BridgeMessage, TabMessage } from "../bridge/wire/channel.ts";
import type { InputValue, SessionGrant, SessionRequest } from "../bridge/wire/schemas.ts";
import type { EndReason, SessionInfo, Status } from "./client_types.ts";
import type { Timer } from "./work.ts";
import { warn } from "./warnings.ts";
import { store, stored } from "./session_storage.ts";

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

/**
 * A short tag of a token (FNV-1a, 32 bits): the name under which the tabs of one session talk
 * to each other, without passing the token itself around.
 */
function tag(token: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) hash = Math.imul(hash ^ token.charCodeAt(i), 16777619);
  return (hash >>> 0).toString(36);
}

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
 * The tab's link to its bridge. It fires `change` on itself when its status changes, and
 * `aim-status` on the document for the page. What the page declares and the invocations it runs
 * are the client's ({@linkcode AimClient}), told of the channel through the hooks below.
 *
 * The tabs of one session (a tab opened from another copies its `sessionStorage`) share one
 * `BroadcastChannel`, so that a waiting tab can ask the holder to let go
 * ({@linkcode ClientLink.takeOver}).
 */
export abstract class ClientLink extends EventTarget {
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
  #socket: WebSocket | null = null;
  #heartbeat: Timer;
  #retry: Timer;
  #attempts = 0;
  /** The tab credential: opens the channel; never shown, never sent anywhere else. */
  #credential = "";
  /** The other tabs of this session (see `takeOver`). */
  #peers: BroadcastChannel | null = null;
  /** Set while this tab lets go of the lease for another; it then joins the line again. */
  #yielding = false;
  /** The page the bridge was last told this tab shows (`hello`, `navigate`). */
  #at = here();

  /**
   * The channel opened (and said `hello`): send what the page declares now.
   *
   * @internal The client's.
   */
  protected abstract onOpen(): void;
  /**
   * The channel is gone: the bridge no longer waits for the invocation in progress.
   *
   * @internal The client's.
   */
  protected abstract onLost(): void;
  /**
   * The session moved with the tab to another route: what the page declares goes again.
   *
   * @internal The client's.
   */
  protected abstract onMoved(): void;
  /**
   * A message of the bridge's about the page (not the channel's own): the client's to handle.
   *
   * @internal The client's.
   */
  protected abstract onMessage(message: BridgeMessage): void;
  /**
   * What the channel waits for before it opens, if anything (the session is open by then):
   * the client's reader of what the page declares, so that the bridge, and an agent given the
   * token once the tab holds the session, never finds the page without its actions.
   *
   * @internal The client's.
   */
  protected abstract beforeChannel(): Promise<void> | undefined;

  /** Opens the session and the channel, and follows the tab's pages and its leaving. */
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
      () => this.follow(),
    );
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
    this.onLost();
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
    // Once the session is open (the bridge is there to load from), not in parallel with it:
    // a chunk that failed to load is not loaded again before a reload.
    const ready = this.beforeChannel();
    if (ready) await ready;
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
      this.send({ type: "hello", page: this.#at = here() });
      this.onOpen();
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
  protected follow(): void {
    if (here() === this.#at) return;
    this.send({ type: "navigate", page: this.#at = here() });
    this.onMoved();
  }

  /**
   * Sends `message` on the channel, when it is open: elements/webmcp.ts reports with it a run
   * by an agent in the browser, which the bridge records in the session's audit log.
   *
   * @internal The client's and elements/webmcp.ts's.
   */
  send(message: TabMessage): void {
    if (this.#socket?.readyState === 1) this.#socket.send(JSON.stringify(message));
  }

  #receive(message: BridgeMessage): void {
    switch (message.type) {
      case "lease":
        this.#heartbeat ||= setInterval(
          () => this.send({ type: "heartbeat" }),
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
      case "credential":
        // Signing in or out replaced what binds this tab: keep the new one for reloads.
        this.#credential = message.credential;
        store({ token: this.token, credential: this.#credential });
        return;
      case "ended":
        // The token no longer works, whatever the reason: sessions live in the bridge's memory,
        // so a bridge that stops ends them too.
        this.#end(message.reason);
        return;
      default:
        this.onMessage(message);
    }
  }

  /** Whether the channel to the bridge is open. */
  protected get channelOpen(): boolean {
    return this.#socket?.readyState === 1;
  }

  /** Sends `text`, a message already in JSON, when the channel is open; true when it was. */
  protected sendText(text: string): boolean {
    const socket = this.#socket;
    if (socket?.readyState !== 1) return false;
    socket.send(text);
    return true;
  }

  /** How long an answer waits for the work the page declares: the bridge's settle timeout. */
  get settleMs(): number {
    return this.session?.settleMs ?? 3000;
  }
}
