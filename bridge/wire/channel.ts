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
export const TabAction: z.ZodObject<{ id: z.ZodString }, z.core.$loose> = z.looseObject({
  id: z.string().max(200),
});

/** The first message: which page this tab shows. */
export const HelloMessage: z.ZodObject<
  { type: z.ZodLiteral<"hello">; page: z.ZodString },
  z.core.$strict
> = z.strictObject({
  type: z.literal("hello"),
  page: z.string().min(1).max(2048).startsWith("/"),
});

/**
 * The tab moved to another page of the app without loading one (a single-page app's History
 * API navigation): the session follows it, with no reconnect and no lease wait.
 */
export const NavigateMessage: z.ZodObject<
  { type: z.ZodLiteral<"navigate">; page: z.ZodString },
  z.core.$strict
> = z.strictObject({
  type: z.literal("navigate"),
  page: z.string().min(1).max(2048).startsWith("/"),
});

/** Renews the lease (and the session); send every `leaseMs / 3`. */
export const HeartbeatMessage: z.ZodObject<{ type: z.ZodLiteral<"heartbeat"> }, z.core.$strict> = z
  .strictObject({ type: z.literal("heartbeat") });

/** Replaces the tab's registered actions. */
export const RegisterMessage: z.ZodObject<
  { type: z.ZodLiteral<"register">; actions: z.ZodArray<typeof TabAction> },
  z.core.$strict
> = z.strictObject({
  type: z.literal("register"),
  actions: z.array(TabAction).max(200),
});

/**
 * Any JSON value of a message. A message is JSON text parsed whole before it is checked, so each
 * of its values is JSON already: `z.json()` would walk the page's state again on every message
 * it sends, at more than the parse's own cost.
 */
const Json: z.ZodCustom<z.core.util.JSONType, z.core.util.JSONType> = z.custom<
  z.core.util.JSONType
>();

/** Replaces the tab's state snapshot. */
export const StateMessage: z.ZodObject<
  { type: z.ZodLiteral<"state">; state: z.ZodRecord<z.ZodString, typeof Json> },
  z.core.$strict
> = z.strictObject({
  type: z.literal("state"),
  state: z.record(z.string(), Json),
});

/** The answer to one `invoke`. */
export const ResultMessage: z.ZodObject<
  {
    type: z.ZodLiteral<"result">;
    id: z.ZodString;
    ok: z.ZodBoolean;
    result: z.ZodOptional<typeof Json>;
    error: z.ZodOptional<
      z.ZodObject<
        {
          code: z.ZodEnum<{ declined: "declined"; action_failed: "action_failed" }>;
          message: z.ZodString;
        },
        z.core.$strict
      >
    >;
    settled: z.ZodOptional<z.ZodBoolean>;
    state: z.ZodOptional<z.ZodRecord<z.ZodString, typeof Json>>;
    leaving: z.ZodOptional<z.ZodEnum<{ document: "document"; route: "route" }>>;
  },
  z.core.$strict
> = z.strictObject({
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
export const AwaitingMessage: z.ZodObject<
  { type: z.ZodLiteral<"awaiting">; id: z.ZodString; message: z.ZodString },
  z.core.$strict
> = z.strictObject({
  type: z.literal("awaiting"),
  id: z.string().min(1).max(100),
  message: z.string().max(1000),
});

/**
 * The page finished reacting to the session change whose `session` message carried
 * `settle: id` (a sign-in or sign-out), after pushing its state: the bridge answers the
 * server action that made the change with that state.
 */
export const SettledMessage: z.ZodObject<
  { type: z.ZodLiteral<"settled">; id: z.ZodString },
  z.core.$strict
> = z.strictObject({
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
export const RunMessage: z.ZodObject<
  {
    type: z.ZodLiteral<"run">;
    via: z.ZodLiteral<"webmcp">;
    actionId: z.ZodString;
    input: z.ZodOptional<typeof InputValue>;
    outcome: z.ZodEnum<z.core.util.ToEnum<RunOutcome>>;
    durationMs: z.ZodNumber;
  },
  z.core.$strict
> = z.strictObject({
  type: z.literal("run"),
  via: z.literal("webmcp"),
  actionId: ActionId,
  input: InputValue.optional(),
  outcome: z.enum(RUN_OUTCOMES),
  /** Any length: a prompt left open for days is recorded as a day (the bridge clamps it). */
  durationMs: z.number().min(0),
});

/** Everything a tab may send. */
export const TabMessage: z.ZodDiscriminatedUnion<
  [
    typeof HelloMessage,
    typeof NavigateMessage,
    typeof HeartbeatMessage,
    typeof RegisterMessage,
    typeof StateMessage,
    typeof ResultMessage,
    typeof AwaitingMessage,
    typeof SettledMessage,
    typeof RunMessage,
  ],
  "type"
> = z.discriminatedUnion("type", [
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
/** A message a tab may send: what {@linkcode TabMessage} parses. */
export type TabMessage = z.infer<typeof TabMessage>;

/** Lease status: granted to this tab, waiting for another to let go, or expired. */
export const LeaseMessage: z.ZodObject<
  {
    type: z.ZodLiteral<"lease">;
    status: z.ZodEnum<{ granted: "granted"; waiting: "waiting"; expired: "expired" }>;
    leaseMs: z.ZodInt;
    expiresAt: z.ZodISODateTime;
  },
  z.core.$strict
> = z.strictObject({
  type: z.literal("lease"),
  status: z.enum(["granted", "waiting", "expired"]),
  leaseMs: z.int(),
  expiresAt: z.iso.datetime(),
});

/** The session this channel belongs to: sent on grant and when the identity changes. */
export const SessionMessage: z.ZodObject<
  {
    type: z.ZodLiteral<"session">;
    id: z.ZodString;
    page: z.ZodString;
    expiresAt: z.ZodISODateTime;
    authenticated: z.ZodBoolean;
    user: z.ZodNullable<
      z.ZodObject<{ username: z.ZodString; name: z.ZodOptional<z.ZodString> }, z.core.$strict>
    >;
    tabKey: z.ZodString;
    maxStateBytes: z.ZodInt;
    settleMs: z.ZodOptional<z.ZodInt>;
    settle: z.ZodOptional<z.ZodString>;
  },
  z.core.$strict
> = z.strictObject({
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
/** The `session` message: what {@linkcode SessionMessage} parses. */
export type SessionMessage = z.infer<typeof SessionMessage>;

/**
 * The session's new tab credential, after a sign-in or sign-out: the tab keeps it in place of
 * the old one, which no longer opens the channel.
 */
export const CredentialMessage: z.ZodObject<
  { type: z.ZodLiteral<"credential">; credential: z.ZodString },
  z.core.$strict
> = z.strictObject({
  type: z.literal("credential"),
  credential: z.string(),
});

/** Which of the registered actions the bridge accepted. */
export const RegisteredMessage: z.ZodObject<
  {
    type: z.ZodLiteral<"registered">;
    accepted: z.ZodArray<z.ZodString>;
    rejected: z.ZodArray<z.ZodObject<{ id: z.ZodString; reason: z.ZodString }, z.core.$strict>>;
  },
  z.core.$strict
> = z.strictObject({
  type: z.literal("registered"),
  accepted: z.array(z.string()),
  rejected: z.array(z.strictObject({ id: z.string(), reason: z.string() })),
});

/** Run one action; answer with a `result` of the same `id`. */
export const InvokeMessage: z.ZodObject<
  {
    type: z.ZodLiteral<"invoke">;
    id: z.ZodString;
    actionId: z.ZodString;
    input: typeof InputValue;
    consequential: z.ZodBoolean;
  },
  z.core.$strict
> = z.strictObject({
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
export const CancelMessage: z.ZodObject<
  { type: z.ZodLiteral<"cancel">; id: z.ZodString },
  z.core.$strict
> = z.strictObject({
  type: z.literal("cancel"),
  id: z.string(),
});

/**
 * What an agent did, for the panel's log. The elements fire the same as `aim-activity` for a
 * run by an agent in the browser, with `"via": "webmcp"`; the bridge sends it without `via`.
 */
export const ActivityMessage: z.ZodObject<
  {
    type: z.ZodLiteral<"activity">;
    at: z.ZodISODateTime;
    actionId: z.ZodString;
    status: z.ZodInt;
    outcome: z.ZodString;
    durationMs: z.ZodNumber;
    via: z.ZodOptional<z.ZodLiteral<"webmcp">>;
  },
  z.core.$strict
> = z.strictObject({
  type: z.literal("activity"),
  at: z.iso.datetime(),
  actionId: z.string(),
  status: z.int(),
  outcome: z.string(),
  durationMs: z.number(),
  via: z.literal("webmcp").optional(),
});

/** Why a session ended: the `disconnect` action, idle expiry, or the bridge stopping. */
export const EndReason: z.ZodEnum<
  { expired: "expired"; disconnected: "disconnected"; shutdown: "shutdown" }
> = z.enum(["disconnected", "expired", "shutdown"]);
/** Why a session ended: what {@linkcode EndReason} parses. */
export type EndReason = z.infer<typeof EndReason>;

/** The session ended; the bridge closes the channel after this. */
export const EndedMessage: z.ZodObject<
  { type: z.ZodLiteral<"ended">; reason: typeof EndReason },
  z.core.$strict
> = z.strictObject({
  type: z.literal("ended"),
  reason: EndReason,
});

/**
 * The page a `hello` or `navigate` put this tab on, as the bridge names it (normalized, with only
 * the query parameters that are part of a page's identity): where its manifest is.
 */
export const PageMessage: z.ZodObject<
  { type: z.ZodLiteral<"page">; page: z.ZodString },
  z.core.$strict
> = z.strictObject({
  type: z.literal("page"),
  page: z.string(),
});

/** Everything the bridge may send. */
export const BridgeMessage: z.ZodDiscriminatedUnion<
  [
    typeof LeaseMessage,
    typeof SessionMessage,
    typeof CredentialMessage,
    typeof RegisteredMessage,
    typeof InvokeMessage,
    typeof CancelMessage,
    typeof ActivityMessage,
    typeof EndedMessage,
    typeof PageMessage,
  ],
  "type"
> = z.discriminatedUnion("type", [
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
/** A message the bridge may send: what {@linkcode BridgeMessage} parses. */
export type BridgeMessage = z.infer<typeof BridgeMessage>;
