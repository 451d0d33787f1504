/**
 * SessionShare: what several bridge instances share (sessions, leases, idempotent
 * answers, login throttling, activity) and how an invocation reaches the instance whose socket
 * holds a session's tab. The core talks only to this interface; `LocalShare` keeps everything
 * in this process (the default), `RedisShare` (bridge/share/redis.ts) keeps it in Redis.
 *
 * @module
 */
import { z } from "zod";
import { EndReason } from "../wire/channel.ts";
import type { ActionSpec } from "../input/action_spec.ts";
import { InvokeResult } from "../wire/schemas.ts";

/** The `cause` of the 409 `forward` rejects with when no instance received the call. */
export const NOT_SENT = "not_sent";

/** Who signed in on a session, set by the server only. */
export interface Identity {
  /** The name the user signed in with. */
  username: string;
  /** The user's name as the page shows it (`state.user.name`), when the user store has one. */
  name?: string;
}

/**
 * A session as every instance sees it. Secrets are kept only as hashes: the token's (the key),
 * the tab credential's and the tab key's.
 */
export interface SessionRecord {
  id: string;
  page: string;
  client: string;
  createdAt: number;
  identity: Identity | null;
  credentialHash: string;
  tabKeyHash: string;
  version: number;
  /** The state and actions of the tab that holds the lease (or held it last). */
  state: Record<string, unknown>;
  actions: ActionSpec[];
  /** The instance whose socket holds the lease; "" when none does. */
  holder: string;
  /**
   * The id of the tab connection whose reported state `state` is: the lease holder's, once it
   * sent one; "" before any. Another instance waiting for the next page of a tab that left
   * (bridge/core/arrival.ts) reads here that it came.
   */
  stateTab: string;
  /** An agent used it, or a tab bound it: it keeps its full idle time. */
  inUse: boolean;
}

/** What one instance tells the others about a session. */
export const SessionSignal: z.ZodDiscriminatedUnion<
  [
    z.ZodObject<{ type: z.ZodLiteral<"changed">; version: z.ZodNumber }, z.core.$strip>,
    z.ZodObject<{ type: z.ZodLiteral<"ended">; reason: typeof EndReason }, z.core.$strip>,
    z.ZodObject<{ type: z.ZodLiteral<"released"> }, z.core.$strip>,
    z.ZodObject<{ type: z.ZodLiteral<"credential">; credential: z.ZodString }, z.core.$strip>,
  ],
  "type"
> = z.discriminatedUnion("type", [
  z.object({ type: z.literal("changed"), version: z.number() }),
  z.object({ type: z.literal("ended"), reason: EndReason }),
  z.object({ type: z.literal("released") }),
  z.object({ type: z.literal("credential"), credential: z.string() }),
]);
export type SessionSignal = z.infer<typeof SessionSignal>;

/** An invocation sent to the instance that holds the session's tab. */
export const ForwardedCall: z.ZodObject<
  {
    body: z.ZodUnknown;
    client: z.ZodOptional<z.ZodString>;
    idempotencyKey: z.ZodOptional<z.ZodString>;
    ifMatch: z.ZodOptional<z.ZodNumber>;
    timeoutMs: z.ZodOptional<z.ZodNumber>;
  },
  z.core.$strip
> = z.object({
  body: z.unknown(),
  client: z.string().optional(),
  idempotencyKey: z.string().optional(),
  ifMatch: z.number().optional(),
  /** What is left of the tab timeout: the time counts from the agent's request. */
  timeoutMs: z.number().optional(),
});
export type ForwardedCall = z.infer<typeof ForwardedCall>;

/** What runs a forwarded call on the instance that holds the tab. */
export type ForwardHandler = (
  tokenHash: string,
  call: ForwardedCall,
  options: { onAwaiting: (message: string) => void; signal: AbortSignal },
) => Promise<InvokeResult>;

/** Options of {@linkcode SessionShare.forward}. */
export interface ForwardOptions {
  /** How long to wait for an answer; an `awaiting` message restarts it with `confirmMs`. */
  timeoutMs: number;
  confirmMs: number;
  onAwaiting?: ((message: string) => void) | undefined;
  signal?: AbortSignal | undefined;
}

/** An invocation that failed, as another instance or a retry is told: its status, body, headers. */
export const FailedOutcome: z.ZodObject<
  {
    ok: z.ZodLiteral<false>;
    status: z.ZodInt;
    body: z.ZodRecord<z.ZodString, z.ZodUnknown>;
    headers: z.ZodRecord<z.ZodString, z.ZodString>;
  },
  z.core.$strip
> = z.object({
  ok: z.literal(false),
  status: z.int().min(400).max(599),
  body: z.record(z.string(), z.unknown()),
  headers: z.record(z.string(), z.string()),
});

/** The first outcome of an `Idempotency-Key`, as kept for retries. */
export const KeptOutcome: z.ZodDiscriminatedUnion<
  [
    z.ZodObject<{ ok: z.ZodLiteral<true>; result: typeof InvokeResult }, z.core.$strip>,
    typeof FailedOutcome,
  ],
  "ok"
> = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), result: InvokeResult }),
  FailedOutcome,
]);
export type KeptOutcome = z.infer<typeof KeptOutcome>;

/** What a claim of an `Idempotency-Key` found. */
export type IdempotencyClaim =
  | { state: "new" }
  | { state: "reused" }
  | { state: "done"; outcome: KeptOutcome }
  /** Another call under this key runs now, on a live instance. */
  | { state: "running" }
  /** The answer was not kept (too large), or the instance running it stopped. */
  | { state: "lost" };

/** Failures of one key, for login throttling. */
export interface Attempts {
  count: number;
  last: number;
}

/** How failures make a key wait (see `AttemptLimiter`). */
export interface AttemptPolicy {
  now: number;
  windowMs: number;
  max: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Options of {@linkcode SessionShare.create}. */
export interface CreateLimits {
  ttlMs: number;
  maxSessions: number;
  maxFreshPerClient: number;
}

/** Sessions as every instance sees them: records kept by the hash of their token, expiring when idle. */
export interface SessionRecords {
  /** Stores a new session; returns the token hashes of the sessions that had to end for room. */
  create(tokenHash: string, record: SessionRecord, limits: CreateLimits): Promise<string[]>;
  load(tokenHash: string): Promise<SessionRecord | null>;
  /** The token hash a tab credential's or tab key's hash belongs to. */
  alias(kind: "credential" | "tabKey", hash: string): Promise<string | null>;
  /**
   * Writes fields of a live session (never re-creating one that ended); with `bump`, the
   * version increases and the new one is returned (0 when the session is gone).
   */
  update(
    tokenHash: string,
    fields: Partial<SessionRecord>,
    options?: { bump?: boolean; replaces?: Pick<SessionRecord, "credentialHash" | "tabKeyHash"> },
  ): Promise<number>;
  /** Renews the idle expiry of the session and its aliases. */
  touch(
    tokenHash: string,
    record: Pick<SessionRecord, "credentialHash" | "tabKeyHash" | "client">,
    ttlMs: number,
  ): Promise<void>;
  /** The session is in use: it no longer counts among those nobody used. */
  inUse(tokenHash: string, client: string): Promise<void>;
  remove(
    tokenHash: string,
    record: Pick<SessionRecord, "id" | "credentialHash" | "tabKeyHash" | "client">,
    reason: EndReason,
  ): Promise<void>;
}

/** Which instance's socket holds a session's tab, and which instances are alive. */
export interface Leases {
  /**
   * Takes the lease of a session for this instance: 0 when taken, else how long the lease a
   * live instance holds lasts (ms).
   */
  acquire(tokenHash: string, ms: number): Promise<number>;
  /** Renews this instance's lease; false when it no longer holds it. */
  renew(tokenHash: string, ms: number): Promise<boolean>;
  release(tokenHash: string): Promise<void>;
  /** Whether an instance is alive. */
  alive(instance: string): Promise<boolean>;
}

/** What one instance tells the others about a session. */
export interface SessionSignals {
  /** Tells the instances watching a session. */
  signal(sessionId: string, signal: SessionSignal): void;
  /** Watches a session's signals; returns what stops it. */
  watch(sessionId: string, onSignal: (signal: SessionSignal) => void): () => void;
}

/** How an invocation reaches the instance holding the tab, and comes back. */
export interface TabRouter {
  /**
   * Runs a call on `instance` and returns its answer; rejects with the `AimError` it failed with,
   * or with 409 `browser_not_connected` when that instance is gone.
   */
  forward(
    instance: string,
    tokenHash: string,
    call: ForwardedCall,
    options: ForwardOptions,
  ): Promise<InvokeResult>;
  /** Sets what runs calls forwarded to this instance. */
  serve(handler: ForwardHandler): void;
}

/** `Idempotency-Key` answers, kept so that an action never runs twice, wherever the retry lands. */
export interface IdempotentAnswers {
  /**
   * Claims `key` of a session for a request with this fingerprint; past `maxKeys` keys in the
   * session, its oldest are forgotten.
   */
  claim(
    tokenHash: string,
    key: string,
    fingerprint: string,
    options: { ttlMs: number; maxKeys: number },
  ): Promise<IdempotencyClaim>;
  /** Waits for the outcome of a claim another call holds, up to `ms`. */
  outcome(tokenHash: string, key: string, ms: number): Promise<IdempotencyClaim>;
  /**
   * Keeps the outcome of a claim within the session's `maxBytes` of answers (undefined, or past
   * them: kept as lost); one refused before it ran (`ran: false`) is forgotten.
   */
  settle(
    tokenHash: string,
    key: string,
    outcome: KeptOutcome | undefined,
    options: { ttlMs: number; ran: boolean; maxBytes: number },
  ): Promise<void>;
}

/** Login failures, counted by every instance together. */
export interface LoginAttempts {
  /** Login throttling: one key's failures. */
  attempts(key: string): Promise<Attempts | null>;
  /**
   * Checks and counts login attempts atomically: 0 when no key must wait (each failure is then
   * counted), else the longest wait in seconds.
   */
  claimAttempts(keys: string[], policy: AttemptPolicy): Promise<number>;
  /** Records a failure; returns the key's failures after it. */
  fail(key: string, windowMs: number, now: number): Promise<Attempts>;
  forgive(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

/** Small documents other instances need, and messages to one instance. */
export interface SharedDocuments {
  /**
   * Small documents other instances need (an MCP session's opening, an ACP run's view), under
   * `kind:id`, expiring after `ttlMs`.
   */
  put(kind: string, id: string, value: unknown, ttlMs: number): Promise<void>;
  get(kind: string, id: string): Promise<unknown | null>;
  del(kind: string, id: string): Promise<void>;
  /** Sends a message on `topic` to `instance`; false when that instance is gone. */
  tell(instance: string, topic: string, message: unknown): Promise<boolean>;
  /** Handles the messages on `topic` other instances send to this one. */
  listen(topic: string, handler: (message: unknown) => void): void;
}

/** What `/__aim/activity` shows, wherever the invocation ran. */
export interface ActivityLog {
  /** Activity shown to the page: the newest entries of a session, kept with it. */
  record(
    sessionId: string,
    entry: unknown,
    options: { keep: number; ttlMs: number },
  ): Promise<void>;
  activity(sessionId: string, limit: number): Promise<unknown[]>;
}

/**
 * Where sessions live beyond one process, and how a request reaches its tab: one small
 * interface per concern.
 */
export interface SessionShare
  extends
    SessionRecords,
    Leases,
    SessionSignals,
    TabRouter,
    IdempotentAnswers,
    LoginAttempts,
    SharedDocuments,
    ActivityLog {
  /** This instance's id, safe to show (`X-Aim-Instance`). */
  readonly instance: string;
  /**
   * False when this process holds every session: its own memory is the truth, and the methods
   * that read or write shared records are never called.
   */
  readonly shared: boolean;
  /** Resolves once the store can be used. */
  ready(): Promise<void>;
  /** Closes the store's connections; the sessions it shares live on in it. */
  close(): Promise<void>;
}
