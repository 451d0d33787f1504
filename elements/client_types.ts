/**
 * What the tab client (elements/client.ts) and the page tell each other, as types: the client's
 * status and why a session ended, the bridge's word on the session and on what an agent did,
 * and an `<aim-action>` or `<aim-state>` as the client sees it. Types only: nothing of it is in
 * the bundle.
 *
 * @module
 */
// Types only, derived from the zod schemas: the bundle must not carry zod.
import type { TabMessage } from "../bridge/wire/channel.ts";
import type { InputValue } from "../bridge/wire/schemas.ts";
import type { WaitUntil } from "./work.ts";

/** Where the client is: see `AimClient.status`. */
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

/** An action as the tab registers it (the bridge checks it again). */
export type Declaration = Extract<TabMessage, { type: "register" }>["actions"][number];

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
