/**
 * One run without a protocol: one invocation of one action for one AIM session, with a
 * deadline, a cancellation, the person's confirmation awaited, and what it keeps counted in
 * bytes. ACP runs (`acp/run.ts`) and A2A tasks (`a2a/task.ts`) are both made of it; each
 * records the run's changes in its own protocol's terms through the hooks.
 *
 * @module
 */
import type { BridgeCore, InvokeProtocol } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import { redactSecrets } from "../markup/secrets.ts";
import type { InvokeResult } from "../wire/schemas.ts";

/** Where a run is. `cancelling` lasts until the next microtask. */
export type RunPhase =
  | "created"
  | "working"
  | "awaiting"
  | "cancelling"
  | "completed"
  | "failed"
  | "cancelled";

const TERMINAL: ReadonlySet<RunPhase> = new Set(["completed", "failed", "cancelled"]);

/** What a run waiting for the person shows of it: bounded, secret-looking keys left out. */
export interface AwaitDetail {
  /** The action that waits. */
  actionId: string;
  /** The input, or a sentence saying how large it was when too large to show. */
  input: unknown;
  /** What the page told the person, cut at {@linkcode MAX_AWAIT_TEXT_CHARS}. */
  message: string;
}

/** What an await detail shows of the input at most, in bytes of JSON. */
export const MAX_AWAIT_INPUT_BYTES = 16 * 1024;
/** What an await detail shows of the page's message at most, in characters. */
export const MAX_AWAIT_TEXT_CHARS = 2000;

/**
 * Each problem of a run itself, and the HTTP status it is told with (in ACP's `data.status`):
 * it passed its deadline (504), its answer was larger than the run may keep (507), or the bridge
 * instance running it stopped (502).
 */
export const RUN_PROBLEM_STATUS = {
  run_deadline: 504,
  output_too_large: 507,
  instance_stopped: 502,
} as const;

/** One of the codes of {@linkcode RUN_PROBLEM_STATUS}. */
export type RunProblemCode = keyof typeof RUN_PROBLEM_STATUS;

/**
 * A failure of the run itself rather than of its action: it passed its deadline, its answer was
 * larger than the run may keep, or the bridge instance running it stopped (`runs/shared.ts`).
 * Each protocol words it as it words an AIM error; its status comes from
 * {@linkcode RUN_PROBLEM_STATUS}.
 */
export class RunProblem extends Error {
  /** What went wrong. */
  readonly code: RunProblemCode;
  /** The status {@linkcode RUN_PROBLEM_STATUS} gives the code. */
  readonly status: (typeof RUN_PROBLEM_STATUS)[RunProblemCode];
  /** Fields told beside the code and the message. */
  readonly details: Record<string, unknown>;

  /** A problem of `code`, saying `message`. */
  constructor(code: RunProblemCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "RunProblem";
    this.code = code;
    this.status = RUN_PROBLEM_STATUS[code];
    this.details = details;
  }
}

/** The length of a string in UTF-8, counted without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two UTF-16 units, four bytes.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/** What a value takes as JSON, in UTF-8 bytes. */
export function jsonBytes(value: unknown): number {
  return value === null || value === undefined ? 0 : utf8Length(JSON.stringify(value) ?? "");
}

/** The await detail of an invocation of `call`, for a page that said `text`. */
export function awaitDetail(call: unknown, text: string): AwaitDetail {
  const request = call as { actionId?: unknown; input?: unknown } | null;
  // The input is shown to the client again: keys that look like secrets are left out. What the
  // run keeps of it, and of the page's message, is bounded.
  let input = redactSecrets(request?.input ?? null);
  const inputBytes = jsonBytes(input);
  if (inputBytes > MAX_AWAIT_INPUT_BYTES) input = `(an input of ${inputBytes} bytes, not shown)`;
  return {
    actionId: String(request?.actionId),
    input,
    message: text.length > MAX_AWAIT_TEXT_CHARS ? `${text.slice(0, MAX_AWAIT_TEXT_CHARS)}…` : text,
  };
}

/** Options of a {@linkcode TrackedRun}. */
export interface TrackedRunOptions {
  /** The AIM session the run belongs to. */
  ownerId: string;
  /** The requesting client's address; "unknown" when not known. */
  client?: string | undefined;
  now: () => number;
  /** How long the run may take, from its creation, before it is stopped. */
  deadlineMs: number;
  /** Most bytes the run may keep; a larger answer or error is replaced by a problem. */
  maxBytes: number;
  /** What the run keeps from its creation on (its own fields), in bytes. */
  bytes: number;
  /** What keeping an answer takes besides the answer itself (its events), in bytes. */
  answerOverhead?: number;
  /** The invocation; called once, by {@linkcode TrackedRun.start}. */
  begin?: (() => void) | undefined;
}

/**
 * One run. The state machine, the deadline, the cancellation and the byte count are here; a
 * protocol subclass records each change through the `on…` hooks (called after the phase
 * changed). The run counts its answer, its failure and its await request; the subclass counts
 * what it keeps besides (its events) with {@linkcode TrackedRun.keep}.
 *
 * `Failure` is how the protocol keeps a failure; `Awaiting` what it keeps of a confirmation.
 */
export abstract class TrackedRun<Failure, Awaiting> {
  readonly id: string = crypto.randomUUID();
  readonly ownerId: string;
  /** The address of the client that created it. */
  readonly client: string;
  /** When the run is stopped if it has not finished, in ms of the run's clock. */
  readonly deadline: number;
  /** Resolves once the run is completed, failed or cancelled. */
  readonly ended: Promise<void>;
  protected readonly now: () => number;
  readonly #deadlineMs: number;
  readonly #maxBytes: number;
  readonly #answerOverhead: number;
  #phase: RunPhase = "created";
  #begin: (() => void) | null;
  #cancelling = false;
  readonly #abort = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #finishedAt: number | null = null;
  #end!: () => void;
  #bytes: number;
  #reported: number;
  #onGrowth: ((grewBy: number) => void) | undefined;
  #onChange: (() => void) | undefined;

  constructor(options: TrackedRunOptions) {
    this.ownerId = options.ownerId;
    this.client = options.client ?? "unknown";
    this.now = options.now;
    this.#deadlineMs = options.deadlineMs;
    this.#maxBytes = options.maxBytes;
    this.#answerOverhead = options.answerOverhead ?? 0;
    this.#begin = options.begin ?? null;
    this.#bytes = this.#reported = options.bytes;
    this.deadline = this.now() + options.deadlineMs;
    this.ended = new Promise((resolve) => this.#end = resolve);
  }

  get phase(): RunPhase {
    return this.#phase;
  }

  get terminal(): boolean {
    return TERMINAL.has(this.#phase);
  }

  /** Aborted when the run is cancelled or passes its deadline: the invocation is withdrawn. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** What the run keeps, in bytes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** When the run finished, in ms of its clock, or null. */
  get finishedAt(): number | null {
    return this.#finishedAt;
  }

  /** Told each time what the run keeps grows from now on; set by the store that holds it. */
  onGrowth(listener: (grewBy: number) => void): void {
    this.#reported = this.#bytes;
    this.#onGrowth = listener;
  }

  /**
   * Told after each change of what the run shows (its status, events, answer); set by the store
   * that mirrors it to other bridge instances.
   */
  onChange(listener: () => void): void {
    this.#onChange = listener;
  }

  /** Tells the store that what the run shows changed; the subclass calls it on each change. */
  protected changed(): void {
    this.#onChange?.();
  }

  /** Counts `bytes` more kept by the run, and tells the store. */
  protected keep(bytes: number): void {
    this.#bytes += bytes;
    const grew = this.#bytes - this.#reported;
    this.#reported = this.#bytes;
    if (grew !== 0) this.#onGrowth?.(grew);
  }

  /** Starts the run, once: `working`, its deadline armed, then its invocation. */
  start(): void {
    const begin = this.#begin;
    this.#begin = null;
    if (this.#phase !== "created" || this.#cancelling) return;
    const left = this.deadline - this.now();
    if (left <= 0) return this.expire();
    const timer = setTimeout(() => this.expire(), left);
    // A run under way does not keep a bridge that is shutting down alive.
    Deno.unrefTimer(timer);
    this.#timer = timer;
    this.#phase = "working";
    this.onWorking();
    begin?.();
  }

  /**
   * Invokes `call` for `owner` through the core, as `POST /__aim/invoke` does, and ends the run
   * with its answer: the tab's word that the person is asked makes it `awaiting`.
   */
  invoke(
    core: BridgeCore,
    owner: Session,
    call: unknown,
    options: { client?: string; protocol?: InvokeProtocol } = {},
  ): void {
    core.invoke(owner, call, {
      ...(options.client === undefined ? {} : { client: options.client }),
      protocol: options.protocol,
      onAwaiting: (text) => this.awaiting(this.awaitOf(awaitDetail(call, text))),
      signal: this.signal,
    }).then(
      (result) => this.complete(result),
      (error) => this.fail(this.failureOf(error)),
    ).catch((error) => {
      // A hook that threw while ending the run (a listener, a store): the run still ends.
      if (this.terminal) return;
      this.fail(this.failureOf(error));
    }).catch(() => {});
  }

  /** The action waits for the person at the page to confirm it. */
  awaiting(request: Awaiting): void {
    if (this.#cancelling || this.#phase !== "working") return;
    this.#phase = "awaiting";
    // Kept after the run leaves `awaiting` (its events show it), so counted for good.
    this.keep(jsonBytes(request));
    this.onAwaiting(request);
  }

  /**
   * The action answered. An answer larger than the run may keep is replaced by a problem that
   * says so: the run fails with `output_too_large`, though the action ran.
   */
  complete(result: InvokeResult): void {
    if (!this.#resume()) return;
    const size = jsonBytes(result);
    if (this.#bytes + size + this.#answerOverhead > this.#maxBytes) {
      return this.#fail(
        this.failureOf(
          new RunProblem(
            "output_too_large",
            `The action ran, but its answer of ${size} bytes is more than the ${this.#maxBytes} bytes the bridge keeps for a run, so it was not kept. Read the page's state (its manifest) for the outcome.`,
            { bytes: size, limit_bytes: this.#maxBytes },
          ),
        ),
      );
    }
    this.keep(size);
    this.#finish("completed");
    this.onCompleted(result);
    this.#end();
  }

  /** The action (or reading the request) failed. A failure too large to keep is replaced. */
  fail(failure: Failure): void {
    if (!this.#resume()) return;
    this.#fail(failure);
  }

  #fail(failure: Failure): void {
    const size = jsonBytes(failure);
    const kept = this.#bytes + size + this.#answerOverhead > this.#maxBytes
      ? this.failureOf(
        new RunProblem(
          "output_too_large",
          `The run failed with an error of ${size} bytes, more than the ${this.#maxBytes} bytes the bridge keeps for a run, so it was not kept.`,
          { bytes: size, limit_bytes: this.#maxBytes },
        ),
      )
      : failure;
    this.keep(jsonBytes(kept));
    this.#finish("failed");
    this.onFailed(kept);
    this.#end();
  }

  /**
   * Stops a run that did not finish by its deadline: it fails with `run_deadline`, and its
   * invocation is withdrawn as on cancel (a queued one dropped, a confirmation prompt removed).
   */
  expire(): void {
    if (this.terminal || this.#cancelling) return;
    const waited = this.#phase === "awaiting";
    this.#begin = null;
    this.#cancelling = true;
    this.#abort.abort();
    const seconds = Math.round(this.#deadlineMs / 1000);
    const failure = this.failureOf(
      new RunProblem(
        "run_deadline",
        `The run did not finish within ${seconds} seconds${
          waited ? " (the person at the page did not answer the confirmation)" : ""
        }, so the bridge stopped it and withdrew the invocation. If the page had already started the action, it may have run: read the page's state before starting a new run.`,
        { deadline_seconds: seconds },
      ),
    );
    this.keep(jsonBytes(failure));
    this.#finish("failed");
    this.onFailed(failure);
    this.#end();
  }

  /** Stops the run now if it is past its deadline on its clock (a stopped timer, a test clock). */
  expireIfDue(): void {
    if (!this.terminal && this.now() >= this.deadline) this.expire();
  }

  /**
   * Cancels the run: `cancelling` now, `cancelled` right after. An invocation still queued is
   * dropped; one the tab runs is withdrawn (a confirmation prompt disappears, a later answer is
   * ignored), though a handler already running cannot be stopped. False when the run had
   * already ended.
   */
  requestCancel(): boolean {
    if (this.terminal) return false;
    if (!this.#cancelling) {
      this.#cancelling = true;
      this.#begin = null;
      // The tab is told to withdraw the invocation: a prompt disappears, its answer is ignored.
      this.#abort.abort();
      this.#phase = "cancelling";
      this.onCancelling();
      queueMicrotask(() => {
        if (this.terminal) return;
        this.#finish("cancelled");
        this.onCancelled();
        this.#end();
      });
    }
    return true;
  }

  /** Leaves `awaiting` for `working`; false when the run is over or was never started. */
  #resume(): boolean {
    if (this.#cancelling || this.terminal || this.#phase === "created") return false;
    if (this.#phase === "awaiting") {
      this.#phase = "working";
      this.onResumed();
    }
    return true;
  }

  #finish(phase: "completed" | "failed" | "cancelled"): void {
    clearTimeout(this.#timer);
    this.#finishedAt = this.now();
    this.#phase = phase;
  }

  /** How the protocol keeps what an invocation threw, or a {@linkcode RunProblem}. */
  protected abstract failureOf(error: unknown): Failure;
  /** How the protocol shows that the person is asked. */
  protected abstract awaitOf(detail: AwaitDetail): Awaiting;
  /** `created` → `working`. */
  protected onWorking(): void {}
  /** → `awaiting`. */
  protected onAwaiting(_request: Awaiting): void {}
  /** `awaiting` → `working`: the person answered. */
  protected onResumed(): void {}
  /** → `completed`. */
  protected onCompleted(_result: InvokeResult): void {}
  /** → `failed`, deadline and byte problems included. */
  protected onFailed(_failure: Failure): void {}
  /** → `cancelling`. */
  protected onCancelling(): void {}
  /** `cancelling` → `cancelled`. */
  protected onCancelled(): void {}
}
