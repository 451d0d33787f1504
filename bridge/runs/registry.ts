/**
 * The runs of one protocol on a bridge, each visible only to the AIM session that
 * created it: bounded per session, per client address and in all, in number, age and bytes.
 * ACP's run store and A2A's task store are each one registry.
 *
 * @module
 */
import type { Session } from "../core/session.ts";
import { AimError } from "../errors/aim_error.ts";
import { DEFAULTS } from "../core/limits.ts";
import type { TrackedRun } from "./run.ts";

/** The bounds of a registry; {@linkcode RUN_LIMITS} holds the defaults. */
export interface RunLimits {
  /**
   * Runs kept per AIM session, finished or not.
   *
   * @default {100}
   */
  maxRunsPerSession: number;
  /**
   * Runs under way (not finished) per AIM session; more are refused with 429.
   *
   * @default {16}
   */
  maxActiveRunsPerSession: number;
  /**
   * Runs under way per client address; more wait in line, then are refused with 429.
   *
   * @default {64}
   */
  maxActiveRunsPerClient: number;
  /**
   * How long a run over its session's or its address's bound waits in line for one of theirs to
   * end, ms; then 429. A client that sends more than its share at once waits for its turn
   * rather than spinning on refusals, which would cost the bridge as much as the runs.
   *
   * @default {1000}
   */
  lineWaitMs: number;
  /**
   * Runs of one client address that may wait in line at once; more are refused at once.
   *
   * @default {64}
   */
  maxWaitingPerClient: number;
  /**
   * Runs that may wait in line at once, in all.
   *
   * @default {1024}
   */
  maxWaiting: number;
  /**
   * Runs kept in all, as the ACP reference server keeps.
   *
   * @default {1000}
   */
  maxRuns: number;
  /**
   * How long a finished run is kept, ms: one hour, as the ACP reference server.
   *
   * @default {3600000}
   */
  ttlMs: number;
  /**
   * Bytes the runs of one AIM session keep (answers, errors, await requests, events); its
   * oldest finished runs make way. A single answer larger than this is not kept: the run fails
   * with `output_too_large`. 4 MiB.
   *
   * @default {4194304}
   */
  maxSessionBytes: number;
  /**
   * Bytes all runs keep (64 MiB); the finished runs of the heaviest sessions make way.
   * @default {67108864}
   */
  maxBytes: number;
}

/** The registry's defaults. */
export const RUN_LIMITS: Readonly<RunLimits> = {
  maxRunsPerSession: 100,
  maxActiveRunsPerSession: 16,
  maxActiveRunsPerClient: 64,
  lineWaitMs: DEFAULTS.lineWaitMs,
  maxWaitingPerClient: DEFAULTS.maxWaitingPerClient,
  maxWaiting: DEFAULTS.maxWaiting,
  maxRuns: 1000,
  ttlMs: 60 * 60 * 1000,
  maxSessionBytes: 4 * 1024 * 1024,
  maxBytes: 64 * 1024 * 1024,
};

/** Options of {@linkcode RunRegistry}; the limits default to {@linkcode RUN_LIMITS}. */
export interface RunRegistryOptions extends Partial<RunLimits> {
  /**
   * How long a run may take, from its creation, before it is stopped (failed, `run_deadline`),
   * awaiting the person included. Without it, the tab timeout plus the confirmation timeout
   * plus a tenth, at most 30 s (6 minutes with the core's defaults).
   */
  deadlineMs?: number | undefined;
  /** The clock; without it, `Date.now`. */
  now?: (() => number) | undefined;
}

/** How a protocol holds its runs in a registry. */
export interface RegistryHooks<R> {
  /** What the protocol calls a run in its messages: "run", "task". */
  noun: string;
  /** Told when a run is forgotten. */
  onDrop?: ((run: R) => void) | undefined;
}

/** The runs of one AIM session, oldest first, and what they keep. */
interface OwnerRecord<R> {
  runs: R[];
  bytes: number;
}

/**
 * The default deadline of a run of `owner`: the tab's timeout and the person's confirmation
 * timeout, which the core applies to one invocation, plus a tenth (at most 30 s) for the rest.
 * A tab that keeps saying "awaiting" restarts the core's confirmation timer; not this one.
 */
function defaultDeadline(owner: Session): number {
  const core = owner.tab.tabTimeoutMs + owner.tab.confirmTimeoutMs;
  return core + Math.min(30_000, Math.round(core / 10));
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** 429 `too_many_requests`, with `Retry-After`. */
function busy(message: string): AimError {
  return new AimError("too_many_requests", message, { headers: { "Retry-After": "1" } });
}

/** Whether `error` is a refusal for want of room (429), which a caller may wait out in line. */
function isBusy(error: unknown): error is AimError {
  return error instanceof AimError && error.code === "too_many_requests";
}

/** A caller waiting in line for a run under way to end. */
interface LineWaiter {
  ownerId: string;
  client: string;
  /** Tries to admit the caller again: true when it was (and is answered). */
  retry(): boolean;
}

/**
 * The runs of a bridge for one protocol, each visible only to the AIM session that created it.
 *
 * Bounds, so that no session or client can take what others need: a session may have
 * {@linkcode RunLimits.maxActiveRunsPerSession} runs under way and a client address
 * {@linkcode RunLimits.maxActiveRunsPerClient} (more wait in a bounded line, at most
 * {@linkcode RunLimits.lineWaitMs}, for one of theirs to end, then are refused with 429), far
 * below the bridge's {@linkcode RunLimits.maxRuns}; every run ends by its deadline; a session
 * keeps at most {@linkcode RunLimits.maxSessionBytes} of answers and events, its oldest
 * finished runs making way; when the registry is full, the finished runs of the sessions that
 * hold the most go first.
 *
 * With several bridge instances sharing a store, each instance's registry holds (and bounds)
 * only the runs that instance runs: the bounds are per instance, so a cluster of N instances
 * admits up to N times as many runs under way per session and per client. Other instances read
 * a run through its shared document (`runs/shared.ts`).
 */
export class RunRegistry<R extends TrackedRun<unknown, unknown>> {
  readonly limits: Readonly<RunLimits>;
  readonly now: () => number;
  readonly #runs = new Map<string, R>();
  readonly #owners = new Map<string, OwnerRecord<R>>();
  readonly #deadlineMs: number | undefined;
  readonly #noun: string;
  readonly #onDrop: ((run: R) => void) | undefined;
  #bytes = 0;
  /** Callers waiting for a run under way to end, longest waiting first. */
  readonly #line = new Set<LineWaiter>();
  readonly #waitingPerClient = new Map<string, number>();

  constructor(options: RunRegistryOptions = {}, hooks: RegistryHooks<R> = { noun: "run" }) {
    const { now, deadlineMs, ...limits } = options;
    this.limits = { ...RUN_LIMITS, ...dropUndefined(limits) };
    this.#deadlineMs = deadlineMs;
    this.now = now ?? Date.now;
    this.#noun = hooks.noun;
    this.#onDrop = hooks.onDrop;
  }

  /** Runs held now. */
  get size(): number {
    return this.#runs.size;
  }

  /** What all runs keep now, in bytes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** What the runs of an AIM session keep now, in bytes. */
  bytesOf(ownerId: string): number {
    return this.#owners.get(ownerId)?.bytes ?? 0;
  }

  /** How long a new run of `owner` may take. */
  deadlineFor(owner: Session): number {
    return this.#deadlineMs ?? defaultDeadline(owner);
  }

  /**
   * Makes room for a new run of `ownerId` from `client`: stops runs past their deadline, drops
   * finished runs past their time to live, then the oldest finished ones past the counts.
   *
   * @throws {AimError} 429 `too_many_requests` when the session, the client or the registry
   * has all the runs under way it may have.
   */
  admit(ownerId: string, client: string): void {
    this.#sweep();
    const limits = this.limits;
    const runs = `${this.#noun}s`;
    const mine = this.#owners.get(ownerId)?.runs ?? [];
    // Runs under way are bounded per session and per client first, so that the registry's own
    // bound is out of reach of a handful of sessions.
    const active = mine.filter((r) => !r.terminal).length;
    if (active >= limits.maxActiveRunsPerSession) {
      throw busy(
        `This session has ${active} ${runs} under way, the most one session may have; wait for one to finish (or cancel one) and retry.`,
      );
    }
    let fromClient = 0;
    for (const run of this.#runs.values()) if (!run.terminal && run.client === client) fromClient++;
    if (fromClient >= limits.maxActiveRunsPerClient) {
      throw busy(
        `Your address has ${fromClient} ${runs} under way, the most one client may have; wait for one to finish and retry.`,
      );
    }
    if (mine.length >= limits.maxRunsPerSession) {
      const oldest = mine.find((r) => r.terminal);
      if (!oldest) {
        throw busy(`At most ${limits.maxRunsPerSession} ${runs} may be kept per session`);
      }
      this.#drop(oldest);
    }
    if (this.#runs.size >= limits.maxRuns) {
      const victim = this.#oldestFinished((record) => record.runs.length);
      if (!victim) throw busy(`At most ${limits.maxRuns} ${runs} may be under way on this bridge`);
      this.#drop(victim);
    }
  }

  /**
   * {@linkcode RunRegistry.admit}, waiting in line when the session or the client has all the
   * runs under way it may have: the caller is admitted when one of theirs ends (the longest
   * waiting first), or refused after {@linkcode RunLimits.lineWaitMs}. A caller whose address
   * already has {@linkcode RunLimits.maxWaitingPerClient} waiting (or the line
   * {@linkcode RunLimits.maxWaiting}) is refused at once; one with others of its address waiting
   * joins the line behind them.
   *
   * @throws {AimError} 429 `too_many_requests` as {@linkcode RunRegistry.admit} does.
   */
  admitInTurn(ownerId: string, client: string, signal?: AbortSignal): Promise<void> {
    let refusal: AimError;
    try {
      if (!this.#waitingPerClient.has(client)) return Promise.resolve(this.admit(ownerId, client));
      refusal = busy(
        `Your address has ${this.limits.maxActiveRunsPerClient} ${this.#noun}s under way or waiting; wait for one to finish and retry.`,
      );
    } catch (error) {
      if (!isBusy(error)) return Promise.reject(error);
      refusal = error;
    }
    const waiting = this.#waitingPerClient.get(client) ?? 0;
    if (
      signal?.aborted || waiting >= this.limits.maxWaitingPerClient ||
      this.#line.size >= this.limits.maxWaiting || this.limits.lineWaitMs <= 0
    ) {
      return Promise.reject(refusal);
    }
    return new Promise((resolve, reject) => {
      const leave = () => {
        this.#line.delete(waiter);
        clearTimeout(timer);
        signal?.removeEventListener("abort", refuse);
        const left = (this.#waitingPerClient.get(client) ?? 1) - 1;
        if (left > 0) this.#waitingPerClient.set(client, left);
        else this.#waitingPerClient.delete(client);
      };
      const refuse = () => {
        leave();
        reject(refusal);
      };
      const waiter: LineWaiter = {
        ownerId,
        client,
        retry: () => {
          try {
            this.admit(ownerId, client);
          } catch (error) {
            if (isBusy(error)) return false;
            leave();
            reject(error);
            return true;
          }
          leave();
          resolve();
          return true;
        },
      };
      const timer = setTimeout(refuse, this.limits.lineWaitMs);
      signal?.addEventListener("abort", refuse, { once: true });
      this.#line.add(waiter);
      this.#waitingPerClient.set(client, waiting + 1);
    });
  }

  /** Callers waiting in line now, of one client address or in all. */
  waiting(client?: string): number {
    return client === undefined ? this.#line.size : this.#waitingPerClient.get(client) ?? 0;
  }

  /**
   * A run of `ended` ended: its place goes to the longest waiting caller of its session or its
   * address that it lets in (one: a run ended frees one place).
   */
  #turn(ended: R): void {
    for (const waiter of this.#line) {
      if (waiter.ownerId !== ended.ownerId && waiter.client !== ended.client) continue;
      if (waiter.retry()) return;
    }
  }

  /** Holds a new run (after {@linkcode RunRegistry.admit}) and counts what it keeps. */
  add(run: R): void {
    this.#runs.set(run.id, run);
    let mine = this.#owners.get(run.ownerId);
    if (!mine) this.#owners.set(run.ownerId, mine = { runs: [], bytes: 0 });
    mine.runs.push(run);
    mine.bytes += run.bytes;
    this.#bytes += run.bytes;
    run.onGrowth((grew) => this.#grew(run, grew));
    // Its end is the turn of whoever waits for a place of its session or its address.
    run.ended.then(() => this.#turn(run));
  }

  /** A run of `ownerId`'s, or undefined (another session's run is not told apart from none). */
  get(ownerId: string, id: string): R | undefined {
    const run = this.#runs.get(id);
    if (!run || run.ownerId !== ownerId) return undefined;
    run.expireIfDue();
    return run;
  }

  /** The runs of `ownerId`, oldest first. */
  runsOf(ownerId: string): readonly R[] {
    return this.#owners.get(ownerId)?.runs ?? [];
  }

  /** Forgets a run at once (one that never started: its request was refused). */
  remove(run: R): void {
    this.#drop(run);
    this.#turn(run);
  }

  /** Drops finished runs past their time to live; stops runs past their deadline. */
  #sweep(): void {
    const now = this.now();
    for (const run of [...this.#runs.values()]) {
      const finished = run.finishedAt;
      if (finished !== null) {
        if (now - finished > this.limits.ttlMs) this.#drop(run);
      } else if (now >= run.deadline) {
        run.expire();
      }
    }
  }

  /**
   * The oldest finished run of the session that holds the most by `weight`, not `spare`:
   * when the registry is full, the sessions that take the most make way first.
   */
  #oldestFinished(weight: (record: OwnerRecord<R>) => number, spare?: R): R | undefined {
    let best: R | undefined;
    let heaviest = -1;
    for (const record of this.#owners.values()) {
      const w = weight(record);
      if (w <= heaviest) continue;
      const oldest = record.runs.find((r) => r.terminal && r !== spare);
      if (!oldest) continue;
      best = oldest;
      heaviest = w;
    }
    return best;
  }

  /** A run keeps more: its session's (then the registry's) oldest finished runs make way. */
  #grew(run: R, grew: number): void {
    const mine = this.#owners.get(run.ownerId);
    if (!mine || this.#runs.get(run.id) !== run) return;
    mine.bytes += grew;
    this.#bytes += grew;
    while (mine.bytes > this.limits.maxSessionBytes) {
      const oldest = mine.runs.find((r) => r.terminal && r !== run);
      if (!oldest) break;
      this.#drop(oldest);
    }
    while (this.#bytes > this.limits.maxBytes) {
      const victim = this.#oldestFinished((record) => record.bytes, run);
      if (!victim) break;
      this.#drop(victim);
    }
  }

  #drop(run: R): void {
    if (!this.#runs.delete(run.id)) return;
    this.#bytes -= run.bytes;
    const mine = this.#owners.get(run.ownerId);
    if (mine) {
      mine.runs = mine.runs.filter((r) => r !== run);
      mine.bytes -= run.bytes;
      if (mine.runs.length === 0) this.#owners.delete(run.ownerId);
    }
    this.#onDrop?.(run);
  }
}
