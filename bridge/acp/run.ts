/**
 * One ACP run: its state as ACP shows it, its events, and its answer or await request as
 * messages.
 *
 * @module
 */
import type { InvokeResult } from "../wire/schemas.ts";
import { type AwaitDetail, TrackedRun } from "../runs/run.ts";
import { AcpHttpError, runError } from "./errors.ts";
import {
  type AcpError,
  type AwaitRequest,
  CLOSING_EVENTS,
  type Event,
  type Message,
  type Run,
  type RunStatus,
  TERMINAL_STATUSES,
} from "./schemas.ts";

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * What a run's own fields and each of its events' own fields take, in bytes: an estimate of
 * the fixed part. Outputs, errors and await requests are counted by their size as JSON, once
 * (events share them with the run).
 */
const RUN_BYTES = 1024;
const EVENT_BYTES = 256;

/** How {@linkcode RunStore.create} makes a run. */
interface AcpRunOptions {
  /** The AIM session the run belongs to. */
  ownerId: string;
  agentName: string;
  /** The ACP session. */
  sessionId: string;
  /** The requesting client's address; "unknown" when not known. */
  client?: string;
  now: () => number;
  /** How long the run may take, from its creation, before the bridge stops it. */
  deadlineMs: number;
  /** Most bytes the run may keep; a larger output or error is replaced by an error. */
  maxBytes: number;
  /** Runs the invocation; called once, by {@linkcode AcpRun.start}. */
  start: (run: AcpRun) => void;
}

/** The ACP status of each phase of a run. */
const STATUS = {
  created: "created",
  working: "in-progress",
  awaiting: "awaiting",
  cancelling: "cancelling",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
} as const satisfies Record<TrackedRun<unknown, unknown>["phase"], RunStatus>;

/** One run: its state as ACP shows it, its events, and the waiters on them. */
export class AcpRun extends TrackedRun<AcpError, AwaitRequest> {
  readonly #run: Run;
  readonly #events: Event[] = [];
  #wake: (() => void)[] = [];
  readonly #role: string;
  /** Resolves once the run is completed, failed or cancelled. */
  readonly finished: Promise<Run>;

  constructor(options: AcpRunOptions) {
    super({
      ownerId: options.ownerId,
      client: options.client,
      now: options.now,
      deadlineMs: options.deadlineMs,
      maxBytes: options.maxBytes,
      bytes: RUN_BYTES,
      // message.created, message.part, message.completed and run.completed.
      answerOverhead: 4 * EVENT_BYTES,
      begin: () => options.start(this),
    });
    this.#role = `agent/${options.agentName}`;
    this.finished = this.ended.then(() => this.view());
    this.#run = {
      run_id: this.id,
      agent_name: options.agentName,
      session_id: options.sessionId,
      status: "created",
      await_request: null,
      output: [],
      error: null,
      created_at: iso(this.now()),
      finished_at: null,
    };
    this.#emitRun("run.created");
  }

  get status(): RunStatus {
    return this.#run.status;
  }

  get sessionId(): string {
    return this.#run.session_id!;
  }

  /** A copy of the run now. */
  view(): Run {
    return structuredClone(this.#run);
  }

  /** A copy of every event so far. */
  events(): Event[] {
    return structuredClone(this.#events);
  }

  /**
   * The events from index `from` on, as they happen, ending after the first one that closes a
   * stream (`run.awaiting` or a terminal event), as the reference server's streams do.
   */
  async *follow(from = 0): AsyncGenerator<Event> {
    let index = from;
    while (true) {
      while (index < this.#events.length) {
        const event = this.#events[index++]!;
        yield structuredClone(event);
        if (CLOSING_EVENTS.has(event.type)) return;
      }
      if (TERMINAL_STATUSES.has(this.#run.status)) return;
      await new Promise<void>((resolve) => this.#wake.push(resolve));
    }
  }

  /** The run once it stopped: finished, or awaiting someone (the reference's sync answer). */
  async stopped(): Promise<Run> {
    for await (const _ of this.follow()) { /* until a closing event */ }
    return this.view();
  }

  /**
   * Cancels the run: `cancelling` now, `cancelled` right after (see
   * {@linkcode TrackedRun.requestCancel}).
   *
   * @throws {AcpHttpError} 403 for a finished run, as the reference server.
   */
  cancel(): Run {
    if (!this.requestCancel()) throw notCancellable(this.#run.status);
    return this.view();
  }

  protected override failureOf(error: unknown): AcpError {
    return runError(error);
  }

  protected override awaitOf(detail: AwaitDetail): AwaitRequest {
    return awaitRequest(this.#role, detail, this.now());
  }

  protected override onWorking(): void {
    this.#status();
    this.#emitRun("run.in-progress");
  }

  protected override onAwaiting(request: AwaitRequest): void {
    this.#run.await_request = request;
    this.#status();
    this.#emitRun("run.awaiting");
  }

  protected override onResumed(): void {
    // As the reference does on resume: back to in-progress.
    this.#run.await_request = null;
    this.#status();
    this.#emitRun("run.in-progress");
  }

  protected override onCompleted(result: InvokeResult): void {
    const message = answer(this.#role, result, this.now());
    const part = message.parts[0];
    this.#emit({ type: "message.created", message: { ...message, parts: [], completed_at: null } });
    // An answer has one part (see `answer`).
    if (part) this.#emit({ type: "message.part", part });
    this.#emit({ type: "message.completed", message });
    this.#run.output.push(message);
    this.#end("run.completed");
  }

  protected override onFailed(failure: AcpError): void {
    this.#run.await_request = null;
    this.#run.error = failure;
    this.#end("run.failed");
  }

  protected override onCancelling(): void {
    this.#status();
    this.changed();
  }

  protected override onCancelled(): void {
    this.#run.await_request = null;
    this.#end("run.cancelled");
  }

  #status(): void {
    this.#run.status = STATUS[this.phase];
  }

  #end(type: "run.completed" | "run.failed" | "run.cancelled"): void {
    this.#run.finished_at = iso(this.finishedAt ?? this.now());
    this.#status();
    this.#emitRun(type);
  }

  #emitRun(type: Extract<Event, { run: Run }>["type"]): void {
    // A snapshot, as the reference freezes a copy of the run with each event. Messages, errors
    // and await requests are replaced, never changed, so a shallow copy shares them safely.
    this.#emit({ type, run: { ...this.#run, output: [...this.#run.output] } });
  }

  #emit(event: Event): void {
    this.#events.push(event);
    this.keep(EVENT_BYTES);
    this.changed();
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }
}

/** 403 for a run that already finished, as the reference server answers. */
export function notCancellable(status: RunStatus): AcpHttpError {
  return new AcpHttpError(
    "run_refused",
    `Run in terminal status ${status} can't be cancelled`,
  );
}
/** The run's answer: one message holding the invocation's answer as JSON. */
function answer(role: string, result: InvokeResult, now: number): Message {
  return {
    role,
    parts: [{
      name: null,
      content_type: "application/json",
      content: JSON.stringify(result),
      content_encoding: "plain",
      content_url: null,
    }],
    created_at: iso(now),
    completed_at: iso(now),
  };
}

/** What an awaiting run waits for: the person's confirmation of one action, in the panel. */
function awaitRequest(role: string, detail: AwaitDetail, now: number): AwaitRequest {
  const { actionId, input, message: text } = detail;
  return {
    type: "message",
    message: {
      role,
      parts: [
        {
          name: null,
          content_type: "text/plain",
          content: `"${actionId}" waits for the person at the page to confirm it in the AIM panel${
            text ? `: ${text}` : ""
          }. The run goes on when they answer; an agent cannot approve it.`,
          content_encoding: "plain",
          content_url: null,
        },
        {
          name: "aim-confirmation",
          content_type: "application/json",
          content: JSON.stringify({ awaiting: "confirmation", actionId, input, message: text }),
          content_encoding: "plain",
          content_url: null,
        },
      ],
      created_at: iso(now),
      completed_at: iso(now),
    },
  };
}
