/**
 * What RedisShare keeps in and sends through Redis, as zod schemas: every message and record read
 * back is checked against its schema, never cast (another writer, a bug or an older instance may
 * have put anything there). A session record as hash fields, the calls forwarded to the instance
 * holding a tab and their replies, and the claims of an `Idempotency-Key`.
 *
 * @module
 */
import { z } from "zod";
import { AimError } from "../errors/aim_error.ts";
import { ActionSpec, InvokeResult } from "../wire/schemas.ts";
import { FailedOutcome, ForwardedCall, KeptOutcome } from "./share.ts";
import type { Identity, SessionRecord } from "./share.ts";

/** A reply to a forwarded call, or a note that it waits for the person. */
export const Reply: z.ZodUnion<
  readonly [
    z.ZodObject<
      { id: z.ZodString; type: z.ZodLiteral<"awaiting">; message: z.ZodString },
      z.core.$strip
    >,
    z.ZodObject<
      {
        id: z.ZodString;
        type: z.ZodLiteral<"answer">;
        ok: z.ZodLiteral<true>;
        result: typeof InvokeResult;
      },
      z.core.$strip
    >,
    z.ZodObject<
      {
        ok: z.ZodLiteral<false>;
        status: z.ZodInt;
        body: z.ZodRecord<z.ZodString, z.ZodUnknown>;
        headers: z.ZodRecord<z.ZodString, z.ZodString>;
        id: z.ZodString;
        type: z.ZodLiteral<"answer">;
      },
      z.core.$strip
    >,
  ]
> = z.union([
  z.object({ id: z.string(), type: z.literal("awaiting"), message: z.string() }),
  z.object({
    id: z.string(),
    type: z.literal("answer"),
    ok: z.literal(true),
    result: InvokeResult,
  }),
  FailedOutcome.extend({ id: z.string(), type: z.literal("answer") }),
]);
export type Reply = z.infer<typeof Reply>;

/** What comes on an instance's call channel: a topic's message, a cancel, or a call. */
export const CallMessage: z.ZodUnion<
  readonly [
    z.ZodObject<{ topic: z.ZodString; message: z.ZodUnknown }, z.core.$strip>,
    z.ZodObject<{ id: z.ZodString; from: z.ZodString; cancel: z.ZodLiteral<true> }, z.core.$strip>,
    z.ZodObject<
      { id: z.ZodString; from: z.ZodString; tokenHash: z.ZodString; call: typeof ForwardedCall },
      z.core.$strip
    >,
  ]
> = z.union([
  z.object({ topic: z.string(), message: z.unknown() }),
  z.object({ id: z.string(), from: z.string(), cancel: z.literal(true) }),
  z.object({ id: z.string(), from: z.string(), tokenHash: z.string(), call: ForwardedCall }),
]);
export type CallMessage = z.infer<typeof CallMessage>;

/** An `Idempotency-Key`'s claim: whose call it is, and its outcome once known. */
export const KeptClaim: z.ZodObject<
  {
    fingerprint: z.ZodString;
    owner: z.ZodString;
    outcome: z.ZodOptional<typeof KeptOutcome>;
    lost: z.ZodOptional<z.ZodLiteral<true>>;
  },
  z.core.$strip
> = z.object({
  fingerprint: z.string(),
  owner: z.string(),
  outcome: KeptOutcome.optional(),
  lost: z.literal(true).optional(),
});
export type KeptClaim = z.infer<typeof KeptClaim>;

/**
 * `text` read as JSON and checked against `schema`; undefined when it is not JSON or does not
 * fit (the caller drops it, or fails closed).
 */
export function parseMessage<T>(schema: z.ZodType<T>, text: string): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** An {@linkcode Identity} as a session record keeps it. */
const StoredIdentity: z.ZodType<Identity> = z.object({
  username: z.string(),
  name: z.string().exactOptional(),
});

/** The fields of a session record held as JSON in its hash. */
const RecordJson = {
  identity: StoredIdentity.nullable(),
  state: z.record(z.string(), z.json()),
  actions: z.array(ActionSpec),
};

export interface Waiting {
  resolve: (result: InvokeResult) => void;
  reject: (error: unknown) => void;
  onAwaiting?: ((message: string) => void) | undefined;
  restart: (ms: number) => void;
  /** How long to wait once the person is asked. */
  confirmMs: number;
}

/**
 * The session record of a hash's fields; null when there is none, or when a field held as JSON
 * does not fit its schema (a record nobody can trust serves no one).
 */
export function record(fields: Record<string, string>): SessionRecord | null {
  if (!fields.id) return null;
  const identity = fields.identity ? parseMessage(RecordJson.identity, fields.identity) : null;
  const state = fields.state ? parseMessage(RecordJson.state, fields.state) : {};
  const actions = fields.actions ? parseMessage(RecordJson.actions, fields.actions) : [];
  if (identity === undefined || state === undefined || actions === undefined) return null;
  return {
    id: fields.id,
    page: fields.page ?? "/",
    client: fields.client ?? "unknown",
    createdAt: Number(fields.createdAt ?? 0),
    identity,
    credentialHash: fields.credentialHash ?? "",
    tabKeyHash: fields.tabKeyHash ?? "",
    version: Number(fields.version ?? 1),
    state,
    actions,
    holder: fields.holder ?? "",
    stateTab: fields.stateTab ?? "",
    inUse: fields.inUse === "1",
  };
}

/** The hash fields of (part of) a session record. */
export function fieldsOf(part: Partial<SessionRecord>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(part)) {
    if (value === undefined) continue;
    if (name === "identity" || name === "state" || name === "actions") {
      out.push(name, JSON.stringify(value));
    } else if (name === "inUse") out.push(name, value ? "1" : "0");
    else out.push(name, String(value));
  }
  return out;
}

export function notConnected(message: string): AimError {
  return new AimError("browser_not_connected", message);
}
