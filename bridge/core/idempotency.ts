/**
 * Idempotent invocations: a retry under the same `Idempotency-Key` gets the first answer and
 * never runs the action twice, whether the session's answers are kept by this instance (within
 * a count of keys and a byte budget) or the key is claimed in the shared store.
 *
 * @module
 */
import { AimError, errorFromBody } from "../errors/aim_error.ts";
import type { InvokeResult } from "../wire/schemas.ts";
import type { KeptOutcome } from "../share/share.ts";
import type { IdempotentEntry, Session } from "./session.ts";
import type { SessionStore } from "./sessions.ts";

/** One call under an `Idempotency-Key`, for {@linkcode runOnce}. */
export interface IdempotentCall {
  /** The key the agent sent. */
  key: string;
  /** What the call asks ({@linkcode fingerprint}): a retry must ask the same. */
  print: string;
  /** Runs the call: at most once per key. */
  run(): Promise<InvokeResult>;
  /** Whether the action was started: only then is its answer kept for retries. */
  dispatched(): boolean;
  /** Where answers are kept, and their bounds. */
  sessions: Pick<
    SessionStore,
    "share" | "idleMs" | "maxIdempotencyKeys" | "maxIdempotencyBytes"
  >;
  /** How long a retry waits for the first call under its key to answer (shared stores), ms. */
  waitMs: number;
}

/** What a call asks, as one text: its action and its input. */
export function fingerprint(actionId: string, input: unknown): string {
  return JSON.stringify([actionId, input ?? null]);
}

/**
 * Runs `call` once for its key in `session`: a retry asking the same gets the first answer (or
 * waits for it), one asking something else is refused (409 `idempotency_key_reused`), one whose
 * answer is no longer kept is refused too (409 `idempotency_key_expired`).
 *
 * @throws {AimError} the first answer's error, or why the key cannot be used.
 */
export function runOnce(session: Session, call: IdempotentCall): Promise<InvokeResult> {
  return call.sessions.share.shared ? onceShared(session, call) : onceHere(session, call);
}

/** An idempotent call whose answers this instance keeps, in the session. */
async function onceHere(session: Session, call: IdempotentCall): Promise<InvokeResult> {
  const { key, print, sessions } = call;
  const seen = session.idempotency.get(key);
  if (seen) {
    if (seen.fingerprint !== print) throw keyReused();
    if (seen.outcome) return await (seen.outcome as Promise<InvokeResult>);
    throw keyExpired();
  }
  const outcome = call.run();
  const entry: IdempotentEntry = { fingerprint: print, outcome, bytes: 0 };
  session.idempotency.set(key, entry);
  const keep = (answer: unknown) => {
    if (session.idempotency.get(key) !== entry) return;
    entry.bytes = JSON.stringify(answer)?.length ?? 0;
    session.idempotencyBytes += entry.bytes;
    trim(session, sessions.maxIdempotencyBytes);
  };
  outcome.then(keep, (error) => {
    // Only answers of an action that ran are kept; a refused request may be retried.
    if (!call.dispatched()) {
      if (session.idempotency.get(key) === entry) session.idempotency.delete(key);
    } else keep(error instanceof AimError ? error.toJSON() : null);
  });
  if (session.idempotency.size > sessions.maxIdempotencyKeys) {
    const [oldest, dropped] = session.idempotency.entries().next().value!;
    session.idempotencyBytes -= dropped.outcome ? dropped.bytes : 0;
    session.idempotency.delete(oldest);
  }
  return await outcome;
}

/**
 * An idempotent call in a shared store: the key is claimed there first, so that a retry on
 * any instance gets the first answer, and an action whose instance died is never run again.
 */
async function onceShared(session: Session, call: IdempotentCall): Promise<InvokeResult> {
  const { key, print } = call;
  const { share, idleMs, maxIdempotencyBytes, maxIdempotencyKeys } = call.sessions;
  let claim = await share.claim(session.tokenHash, key, print, {
    ttlMs: idleMs,
    maxKeys: maxIdempotencyKeys,
  });
  if (claim.state === "running") {
    claim = await share.outcome(session.tokenHash, key, call.waitMs);
  }
  switch (claim.state) {
    case "reused":
      throw keyReused();
    case "running":
    case "lost":
      throw new AimError(
        "idempotency_key_expired",
        "The first request under this Idempotency-Key was cut off or its answer is not kept (too large, or the bridge running it stopped): its action may or may not have run. Read the manifest for the current state before deciding anything.",
      );
    case "done": {
      const { outcome } = claim;
      if (outcome.ok) return outcome.result;
      throw errorFromBody(outcome.body, outcome.headers);
    }
  }
  const keep = (outcome: KeptOutcome | undefined, ran: boolean) =>
    share.settle(session.tokenHash, key, outcome, {
      ttlMs: idleMs,
      ran,
      maxBytes: maxIdempotencyBytes,
    }).catch(() => {});
  try {
    const result = await call.run();
    await keep({ ok: true, result }, true);
    return result;
  } catch (error) {
    const kept: KeptOutcome | undefined = error instanceof AimError
      ? { ok: false, status: error.status, body: error.toJSON(), headers: error.headers }
      : undefined;
    // Only answers of an action that ran are kept; a refused request may be retried.
    await keep(kept, call.dispatched());
    throw error;
  }
}

/**
 * Keeps a session's idempotent answers within its byte budget: the oldest answers are
 * dropped first, their keys kept, so that a retry is refused rather than run again.
 */
function trim(session: Session, maxBytes: number): void {
  for (const entry of session.idempotency.values()) {
    if (session.idempotencyBytes <= maxBytes) return;
    if (!entry.outcome || entry.bytes === 0) continue;
    entry.outcome = undefined;
    session.idempotencyBytes -= entry.bytes;
  }
}

function keyReused(): AimError {
  return new AimError(
    "idempotency_key_reused",
    "This Idempotency-Key was used with another request; use a new key.",
  );
}

function keyExpired(): AimError {
  return new AimError(
    "idempotency_key_expired",
    "The action ran once under this Idempotency-Key, but its answer is no longer kept; read the manifest for the current state.",
  );
}
