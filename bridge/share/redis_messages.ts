/**
 * What RedisShare keeps in and sends through Redis: a session record as hash fields, and the
 * replies to a call forwarded to the instance holding a tab.
 *
 * @module
 */
import { AimError } from "../wire/errors.ts";
import type { InvokeResult } from "../wire/schemas.ts";
import type { SessionRecord } from "./share.ts";

/** A reply to a forwarded call, or a note that it waits for the person. */
export type Reply =
  | { id: string; type: "awaiting"; message: string }
  | { id: string; type: "answer"; ok: true; result: InvokeResult }
  | {
    id: string;
    type: "answer";
    ok: false;
    status: number;
    body: Record<string, unknown>;
    headers: Record<string, string>;
  };

export interface Waiting {
  resolve: (result: InvokeResult) => void;
  reject: (error: unknown) => void;
  onAwaiting?: ((message: string) => void) | undefined;
  restart: (ms: number) => void;
  /** How long to wait once the person is asked. */
  confirmMs: number;
}

export function record(fields: Record<string, string>): SessionRecord | null {
  if (!fields.id) return null;
  return {
    id: fields.id,
    page: fields.page ?? "/",
    client: fields.client ?? "unknown",
    createdAt: Number(fields.createdAt ?? 0),
    identity: fields.identity ? JSON.parse(fields.identity) : null,
    credentialHash: fields.credentialHash ?? "",
    tabKeyHash: fields.tabKeyHash ?? "",
    version: Number(fields.version ?? 1),
    state: fields.state ? JSON.parse(fields.state) : {},
    actions: fields.actions ? JSON.parse(fields.actions) : [],
    holder: fields.holder ?? "",
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
  return new AimError(409, "browser_not_connected", message);
}
