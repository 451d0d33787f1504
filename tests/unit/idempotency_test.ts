/**
 * Unit tests of bridge/core/idempotency.ts: a call under an `Idempotency-Key` runs once, whether
 * this instance keeps the session's answers (a retry gets the first answer, another request under
 * the key is refused, a refused call may run when retried, the oldest keys and answers go past
 * their bounds) or a shared store holds the claim (each state it may answer, and what is kept).
 *
 * @module
 */
import assert from "node:assert/strict";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { fingerprint, type IdempotentCall, runOnce } from "../../bridge/core/idempotency.ts";
import type { IdempotentEntry, Session } from "../../bridge/core/session.ts";
import type { IdempotencyClaim, KeptOutcome } from "../../bridge/share/share.ts";
import type { InvokeResult } from "../../bridge/wire/schemas.ts";

/** The part of a session idempotency reads. */
function session(): Session {
  return {
    tokenHash: "hash",
    idempotency: new Map<string, IdempotentEntry>(),
    idempotencyBytes: 0,
  } as unknown as Session;
}

/** An answer of the action `n`. */
const answer = (n: number) => ({ ok: true, actionId: "a", result: n }) as unknown as InvokeResult;

/** A call under `key` asking `print`, that counts its runs and answers with `outcome(run)`. */
function call(
  key: string,
  more: Partial<IdempotentCall> & { outcome?: (run: number) => Promise<InvokeResult> } = {},
): IdempotentCall & { runs: number } {
  const made: IdempotentCall & { runs: number } = {
    key,
    print: fingerprint("a", 1),
    runs: 0,
    run: (): Promise<InvokeResult> =>
      (more.outcome ?? ((n: number) => Promise.resolve(answer(n))))(++made.runs),
    dispatched: () => true,
    sessions: {
      share: { shared: false },
      idleMs: 60_000,
      maxIdempotencyKeys: 256,
      maxIdempotencyBytes: 1 << 20,
    } as IdempotentCall["sessions"],
    waitMs: 1_000,
    ...more,
  };
  return made;
}

/** Asserts that `promise` rejects with the AimError `code`. */
async function rejectsWith(promise: Promise<unknown>, code: string): Promise<AimError> {
  let caught: unknown;
  await promise.catch((error) => caught = error);
  assert.ok(caught instanceof AimError, String(caught));
  assert.equal(caught.code, code);
  return caught;
}

Deno.test("fingerprint() is the action and its input, an absent input as null", () => {
  assert.equal(fingerprint("a", { b: 1 }), '["a",{"b":1}]');
  assert.equal(fingerprint("a", undefined), fingerprint("a", null));
  assert.notEqual(fingerprint("a", 1), fingerprint("b", 1));
});

Deno.test("a retry under the same key gets the first answer, and the action runs once", async () => {
  const s = session();
  const first = call("k");
  assert.deepEqual(await runOnce(s, first), answer(1));
  const retry = call("k");
  assert.deepEqual(await runOnce(s, retry), answer(1));
  assert.equal(retry.runs, 0);
  // Under way: the retry waits for the same answer.
  let release!: (r: InvokeResult) => void;
  const slow = call("slow", { outcome: () => new Promise((resolve) => release = resolve) });
  const both = [runOnce(s, slow), runOnce(s, call("slow"))];
  release(answer(7));
  assert.deepEqual(await Promise.all(both), [answer(7), answer(7)]);
  assert.equal(slow.runs, 1);
});

Deno.test("another request under a key is refused idempotency_key_reused, and nothing runs", async () => {
  const s = session();
  await runOnce(s, call("k"));
  const other = call("k", { print: fingerprint("a", 2) });
  const error = await rejectsWith(runOnce(s, other), "idempotency_key_reused");
  assert.equal(error.status, 422);
  assert.equal(other.runs, 0);
});

Deno.test("a call refused before it ran is not kept: retried, it runs; one that ran and failed is kept", async () => {
  const s = session();
  const refused = call("k", {
    dispatched: () => false,
    outcome: () => Promise.reject(new AimError("login_required", "Sign in.")),
  });
  await rejectsWith(runOnce(s, refused), "login_required");
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(s.idempotency.has("k"), false);
  const retry = call("k");
  assert.deepEqual(await runOnce(s, retry), answer(1));
  assert.equal(retry.runs, 1);
  const failed = call("f", {
    outcome: () => Promise.reject(new AimError("action_failed", "The page failed.")),
  });
  await rejectsWith(runOnce(s, failed), "action_failed");
  const again = call("f");
  await rejectsWith(runOnce(s, again), "action_failed");
  assert.equal(again.runs, 0);
});

Deno.test("past maxIdempotencyKeys the oldest key is forgotten; past the byte budget the oldest answer goes, its key kept", async () => {
  const s = session();
  const bounds = { share: { shared: false }, idleMs: 60_000, maxIdempotencyKeys: 2 };
  const sessions = { ...bounds, maxIdempotencyBytes: 1 << 20 } as IdempotentCall["sessions"];
  for (const key of ["a", "b", "c"]) await runOnce(s, call(key, { sessions }));
  assert.deepEqual([...s.idempotency.keys()], ["b", "c"]);
  const forgotten = call("a", { sessions });
  await runOnce(s, forgotten);
  assert.equal(forgotten.runs, 1, "a forgotten key runs again");
  // Each answer is about 40 bytes as JSON: a budget of 60 keeps one.
  const t = session();
  const tight = { ...bounds, maxIdempotencyKeys: 256, maxIdempotencyBytes: 60 };
  for (const key of ["x", "y"]) {
    await runOnce(t, call(key, { sessions: tight as IdempotentCall["sessions"] }));
  }
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.ok(t.idempotencyBytes <= 60, String(t.idempotencyBytes));
  const expired = call("x", { sessions: tight as IdempotentCall["sessions"] });
  const error = await rejectsWith(runOnce(t, expired), "idempotency_key_expired");
  assert.equal(error.status, 409);
  assert.equal(expired.runs, 0);
  assert.deepEqual(await runOnce(t, call("y")), answer(1), "the newest answer is kept");
});

/** A shared store that answers `claims` in turn and keeps what is settled. */
function sharedStore(claims: IdempotencyClaim[]) {
  const settled: { outcome: KeptOutcome | undefined; ran: boolean }[] = [];
  const asked: string[] = [];
  const share = {
    shared: true,
    claim: (_hash: string, key: string, print: string) => {
      asked.push(`claim ${key} ${print}`);
      return Promise.resolve(claims.shift()!);
    },
    outcome: (_hash: string, key: string, ms: number) => {
      asked.push(`outcome ${key} ${ms}`);
      return Promise.resolve(claims.shift()!);
    },
    settle: (
      _hash: string,
      _key: string,
      outcome: KeptOutcome | undefined,
      o: { ran: boolean },
    ) => {
      settled.push({ outcome, ran: o.ran });
      return Promise.resolve();
    },
  };
  const sessions = {
    share,
    idleMs: 60_000,
    maxIdempotencyKeys: 256,
    maxIdempotencyBytes: 1 << 20,
  } as unknown as IdempotentCall["sessions"];
  return { sessions, settled, asked };
}

Deno.test("in a shared store, a new claim runs and keeps its answer, or its error when it ran", async () => {
  const store = sharedStore([{ state: "new" }, { state: "new" }, { state: "new" }]);
  const first = call("k", { sessions: store.sessions });
  assert.deepEqual(await runOnce(session(), first), answer(1));
  assert.deepEqual(store.settled, [{ outcome: { ok: true, result: answer(1) }, ran: true }]);
  assert.deepEqual(store.asked, [`claim k ${fingerprint("a", 1)}`]);
  await rejectsWith(
    runOnce(
      session(),
      call("f", {
        sessions: store.sessions,
        outcome: () => Promise.reject(new AimError("declined", "No.")),
      }),
    ),
    "declined",
  );
  assert.equal(store.settled[1]!.ran, true);
  assert.equal((store.settled[1]!.outcome as { status: number }).status, 403);
  await rejectsWith(
    runOnce(
      session(),
      call("r", {
        sessions: store.sessions,
        dispatched: () => false,
        outcome: () => Promise.reject(new AimError("login_required", "Sign in.")),
      }),
    ),
    "login_required",
  );
  assert.equal(store.settled[2]!.ran, false, "a call refused before it ran is forgotten");
});

Deno.test("in a shared store, each other claim answers without running the action", async () => {
  const kept: KeptOutcome = {
    ok: false,
    status: 403,
    body: { error: "declined", message: "No." },
    headers: {},
  } as unknown as KeptOutcome;
  const cases: [IdempotencyClaim[], string | InvokeResult][] = [
    [[{ state: "reused" }], "idempotency_key_reused"],
    [[{ state: "lost" }], "idempotency_key_expired"],
    [[{ state: "running" }, { state: "running" }], "idempotency_key_expired"],
    [
      [{ state: "running" }, { state: "done", outcome: { ok: true, result: answer(5) } }],
      answer(5),
    ],
    [[{ state: "done", outcome: kept }], "declined"],
  ];
  for (const [claims, expected] of cases) {
    const store = sharedStore([...claims]);
    const made = call("k", { sessions: store.sessions });
    if (typeof expected === "string") await rejectsWith(runOnce(session(), made), expected);
    else assert.deepEqual(await runOnce(session(), made), expected);
    assert.equal(made.runs, 0, JSON.stringify(claims));
    assert.deepEqual(store.settled, [], JSON.stringify(claims));
    // A claim another call holds is waited for, as long as the call says.
    if (claims.length === 2) assert.equal(store.asked[1], "outcome k 1000");
  }
});
