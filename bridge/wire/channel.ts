/**
 * The tab channel's messages (`GET /__aim/tab`), as zod schemas: what a tab sends
 * and what the bridge sends. See docs/channel.md.
 *
 * @module
 */
import { z } from "zod";
import { RUN_STATUS, type RunOutcome } from "./run_status.ts";
import { ActionId, InputValue } from "./schemas.ts";

export { CloseCode, CREDENTIAL_PROTOCOL_PREFIX, TAB_PROTOCOL } from "./names.ts";

/** An action as a tab registers it: checked again by the bridge before it is listed. */
export const TabAction = z.looseObject({ id: z.string().max(200) });

/** The first message: which page this tab shows. */
export const HelloMessage = z.strictObject({
  type: z.literal("hello"),
  page: z.string().min(1).max(2048).startsWith("/"),
});

/**
 * The tab moved to another page of the app without loading one (a single-page app's History
 * API navigation): the session follows it, with no reconnect and no lease wait.
 */
export const NavigateMessage = z.strictObject({
  type: z.literal("navigate"),
  page: z.string().min(1).max(2048).startsWith("/"),
});

/** Renews the lease (and the session); send every `leaseMs / 3`. */
export const HeartbeatMessage = z.strictObject({ type: z.literal("heartbeat") });

/** Replaces the tab's registered actions. */
export const RegisterMessage = z.strictObject({
  type: z.literal("register"),
  actions: z.array(TabAction).max(200),
});

/**
 * Any JSON value of a message. A message is JSON text parsed whole before it is checked, so each
 * of its values is JSON already: `z.json()` would walk the page's state again on every message
 * it sends, at more than the parse's own cost.
 */
const Json = z.custom<z.core.util.JSONType>();

/** Replaces the tab's state snapshot. */
export const StateMessage = z.strictObject({
  type: z.literal("state"),
  state: z.record(z.string(), Json),
});

/** The answer to one `invoke`. */
export const ResultMessage = z.strictObject({
  type: z.literal("result"),
  id: z.string().min(1).max(100),
  ok: z.boolean(),
  result: Json.optional(),
  error: z.strictObject({
    code: z.enum(["action_failed", "declined"]),
    message: z.string().max(2000),
  }).optional(),
  /**
   * Whether the page finished the work it declared for the action (`waitUntil`) before its
   * `state`; false when it gave up after the session's `settleMs`. Absent counts as true.
   */
  settled: z.boolean().optional(),
  /**
   * The page's state once settled, as a `state` message sent just before would carry it (it
   * replaces the snapshot; absent: the snapshot is unchanged). One message instead of two on the
   * answer's path. A bridge older than this field refuses such a result (1008).
   */
  state: z.record(z.string(), Json).optional(),
  /**
   * The action took the page elsewhere: `document`, it is loading another page (its URL is the
   * result's `navigating_to`; the bridge answers once the next page holds the session), or
   * `route`, a single-page app's History API navigation (the `navigate` message went first).
   */
  leaving: z.enum(["document", "route"]).optional(),
}).refine((m) => m.ok || m.error !== undefined, "A failed result carries an error");

/**
 * The invocation `id` waits for the person (a confirmation prompt); the bridge then waits up
 * to its confirmation timeout instead of the tab timeout, and ACP runs show `awaiting`.
 */
export const AwaitingMessage = z.strictObject({
  type: z.literal("awaiting"),
  id: z.string().min(1).max(100),
  message: z.string().max(1000),
});

/**
 * The page finished reacting to the session change whose `session` message carried
 * `settle: id` (a sign-in or sign-out), after pushing its state: the bridge answers the
 * server action that made the change with that state.
 */
export const SettledMessage = z.strictObject({
  type: z.literal("settled"),
  id: z.string().min(1).max(100),
});

/** How a run by an agent in the browser ended: `ok`, or the error code it was answered with. */
export const RUN_OUTCOMES = Object.keys(RUN_STATUS) as [RunOutcome, ...RunOutcome[]];

/**
 * An agent in the browser ran one of this tab's actions through WebMCP
 * (`document.modelContext`), not through the bridge: the bridge records it in the session's
 * audit log (`/__aim/activity`) with `"via": "webmcp"`. `input` only once it passed the
 * action's schema; the bridge removes secret-looking keys, as for every invocation.
 */
export const RunMessage = z.strictObject({
  type: z.literal("run"),
  via: z.literal("webmcp"),
  actionId: ActionId,
  input: InputValue.optional(),
  outcome: z.enum(RUN_OUTCOMES),
  /** Any length: a prompt left open for days is recorded as a day (the bridge clamps it). */
  durationMs: z.number().min(0),
});

/** Everything a tab may send. */
export const TabMessage = z.discriminatedUnion("type", [
  HelloMessage,
  NavigateMessage,
  HeartbeatMessage,
  RegisterMessage,
  StateMessage,
  ResultMessage,
  AwaitingMessage,
  SettledMessage,
  RunMessage,
]);
export type TabMessage = z.infer<typeof TabMessage>;

/** Lease status: granted to this tab, waiting for another to let go, or expired. */
export const LeaseMessage = z.strictObject({
  type: z.literal("lease"),
  status: z.enum(["granted", "waiting", "expired"]),
  leaseMs: z.int(),
  expiresAt: z.iso.datetime(),
});

/** The session this channel belongs to: sent on grant and when the identity changes. */
export const SessionMessage = z.strictObject({
  type: z.literal("session"),
  id: z.string(),
  page: z.string(),
  expiresAt: z.iso.datetime(),
  authenticated: z.boolean(),
  user: z.strictObject({ username: z.string(), name: z.string().optional() }).nullable(),
  /** The page sends it as `X-Aim-Tab` to its own API (see `requireSession`); never show it. */
  tabKey: z.string(),
  /** The largest state snapshot the bridge keeps whole; the tab cuts what is over it. */
  maxStateBytes: z.int(),
  /**
   * How long the bridge waits for a page to finish reacting (the settle timeout, ms): the
   * longest a tab waits for the work an action declares before it answers.
   */
  settleMs: z.int().optional(),
  /**
   * Present when a server action changed the session (sign-in, sign-out) and the bridge waits
   * for the page to react: answer with a `settled` message of this id once done.
   */
  settle: z.string().optional(),
});
export type SessionMessage = z.infer<typeof SessionMessage>;

/**
 * The session's new tab credential, after a sign-in or sign-out: the tab keeps it in place of
 * the old one, which no longer opens the channel.
 */
export const CredentialMessage = z.strictObject({
  type: z.literal("credential"),
  credential: z.string(),
});

/** Which of the registered actions the bridge accepted. */
export const RegisteredMessage = z.strictObject({
  type: z.literal("registered"),
  accepted: z.array(z.string()),
  rejected: z.array(z.strictObject({ id: z.string(), reason: z.string() })),
});

/** Run one action; answer with a `result` of the same `id`. */
export const InvokeMessage = z.strictObject({
  type: z.literal("invoke"),
  id: z.string(),
  actionId: z.string(),
  input: InputValue,
  consequential: z.boolean(),
});

/**
 * The bridge no longer waits for invocation `id` (cancelled, or timed out): withdraw a prompt
 * still waiting for the person, and do not run it. Its answer, if one comes, is ignored.
 */
export const CancelMessage = z.strictObject({
  type: z.literal("cancel"),
  id: z.string(),
});

/**
 * What an agent did, for the panel's log. The elements fire the same as `aim-activity` for a
 * run by an agent in the browser, with `"via": "webmcp"`; the bridge sends it without `via`.
 */
export const ActivityMessage = z.strictObject({
  type: z.literal("activity"),
  at: z.iso.datetime(),
  actionId: z.string(),
  status: z.int(),
  outcome: z.string(),
  durationMs: z.number(),
  via: z.literal("webmcp").optional(),
});

/** Why a session ended: the `disconnect` action, idle expiry, or the bridge stopping. */
export const EndReason = z.enum(["disconnected", "expired", "shutdown"]);
export type EndReason = z.infer<typeof EndReason>;

/** The session ended; the bridge closes the channel after this. */
export const EndedMessage = z.strictObject({
  type: z.literal("ended"),
  reason: EndReason,
});

/**
 * The page a `hello` or `navigate` put this tab on, as the bridge names it (normalized, with only
 * the query parameters that are part of a page's identity): where its manifest is.
 */
export const PageMessage = z.strictObject({
  type: z.literal("page"),
  page: z.string(),
});

/** Everything the bridge may send. */
export const BridgeMessage = z.discriminatedUnion("type", [
  LeaseMessage,
  SessionMessage,
  CredentialMessage,
  RegisteredMessage,
  InvokeMessage,
  CancelMessage,
  ActivityMessage,
  EndedMessage,
  PageMessage,
]);
export type BridgeMessage = z.infer<typeof BridgeMessage>;
