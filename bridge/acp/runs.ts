/**
 * @module ACP runs without HTTP: each invokes one action through `BridgeCore.invoke` and records
 * the reference server's events. The run machinery (deadline, cancel, awaiting, bytes) and the
 * bounds per session, client and bridge are shared with A2A (`bridge/runs/`). With several
 * bridge instances sharing a store, a run is read and cancelled from any of them: the instance
 * running it mirrors its view and events (`runs/shared.ts`).
 */
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/sessions.ts";
import { AimError } from "../wire/errors.ts";
import { jsonProblemMessage, parseUntrustedJson } from "../wire/json.ts";
import type { InvokeResult } from "../wire/schemas.ts";
import { RunRegistry, type RunRegistryOptions } from "../runs/registry.ts";
import { type AwaitDetail, jsonBytes, type RunProblem, TrackedRun } from "../runs/run.ts";
import { RunMirror, type SharedRun, WriteLanes } from "../runs/shared.ts";
import { AcpHttpError, fromAimError, runError } from "./errors.ts";
import {
  type AcpError,
  type AcpSession,
  type AwaitRequest,
  CLOSING_EVENTS,
  type Event,
  type Message,
  type MessagePart,
  type Run,
  type RunStatus,
  TERMINAL_STATUSES,
} from "./schemas.ts";

export { RUN_LIMITS } from "../runs/registry.ts";
export { utf8Length } from "../runs/run.ts";

/** Options of {@linkcode RunStore}: the shared registry's, defaults in `RUN_LIMITS`. */
export interface RunStoreOptions extends RunRegistryOptions {
  /** Told when mirroring a run to the other bridge instances failed (the store unreachable). */
  onError?: ((error: unknown) => void) | undefined;
}

/** What a client asked to run. */
export interface RunRequest {
  /** The agent asked for. */
  agentName: string;
  /** The agent of the session's page, if the page is still an agent. */
  sessionAgent: string | undefined;
  /** The client's ACP session, if it named one. */
  sessionId?: string | null | undefined;
  input: Message[];
  /** The requesting client's address; "unknown" when not known. */
  client?: string | undefined;
}

function mediaType(part: MessagePart): string {
  // `split` always yields at least one item.
  return (part.content_type ?? "text/plain").split(";")[0]!.trim().toLowerCase();
}

function invalid(message: string): AcpHttpError {
  return new AcpHttpError(422, "invalid_input", message);
}

const HOW =
  'Send the action as the last message\'s application/json part {"actionId": "<id>", "input": <input>}, or as a text/plain part "<id> <input>".';

function partText(part: MessagePart): string {
  if (part.content_url !== null && part.content_url !== undefined) {
    throw invalid(`The bridge does not fetch content_url; send the content inline. ${HOW}`);
  }
  if (part.content === null || part.content === undefined) {
    throw invalid(`The ${mediaType(part)} part has no content. ${HOW}`);
  }
  if (part.content_encoding !== "base64") return part.content;
  try {
    const bytes = Uint8Array.from(atob(part.content), (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid(`The ${mediaType(part)} part is not valid base64 of UTF-8 text.`);
  }
}

/**
 * The invocation a message asks for: its first `application/json` part taken as
 * `{"actionId", "input"}` (checked by the core like a `/__aim/invoke` body), else its first
 * `text/plain` part as an action id and the rest as the input. An object action's input may be
 * given as JSON after the id.
 */
export function readCall(message: Message, isObjectAction: (id: string) => boolean): unknown {
  const json = message.parts.find((p) => mediaType(p) === "application/json");
  if (json) {
    const parsed = parseUntrustedJson(partText(json));
    if (!parsed.ok) {
      const why = jsonProblemMessage(parsed.problem, "The application/json part");
      throw invalid(parsed.problem === "syntax" ? `${why} ${HOW}` : why);
    }
    return parsed.value;
  }
  const text = message.parts.find((p) => mediaType(p) === "text/plain");
  if (!text) {
    throw invalid(`The last message has no application/json or text/plain part. ${HOW}`);
  }
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(partText(text).trim());
  if (!match) throw invalid(`The text/plain part is empty. ${HOW}`);
  // Group 1 always takes part in a match; group 2 may not.
  const actionId = match[1]!;
  const rest = match[2];
  if (rest === undefined) return { actionId };
  if (rest.startsWith("{") && isObjectAction(actionId)) {
    const parsed = parseUntrustedJson(rest);
    if (parsed.ok) return { actionId, input: parsed.value };
  }
  return { actionId, input: rest };
}

function iso(ms: number): string {
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
function notCancellable(status: RunStatus): AcpHttpError {
  return new AcpHttpError(
    403,
    "server_error",
    `Run in terminal status ${status} can't be cancelled`,
  );
}

interface SessionRecord {
  id: string;
  runs: string[];
}

/** What other bridge instances read of a run: its view, and its events unless too large. */
export interface SharedAcpRun extends SharedRun {
  view: Run;
  /** Null when the events take more than a run may keep: only the view is mirrored. */
  events: Event[] | null;
}

/** What other bridge instances read of an ACP session: the runs of it, on any instance. */
interface SharedSession {
  owner: string;
  runs: string[];
}

/** The shared document of `run`: its view, and its events when they fit in `maxBytes`. */
function sharedRun(run: AcpRun, instance: string, maxBytes: number): SharedAcpRun {
  const view = run.view();
  const events = run.events();
  // Events repeat the answer (message.part, message.completed, run.completed): as JSON they may
  // take several times what the run keeps in memory, where they share it.
  const fits = jsonBytes(view) + jsonBytes(events) <= maxBytes;
  return { owner: run.ownerId, instance, view, events: fits ? events : null };
}

/** The shared document of a run that can no longer finish: failed with `problem`. */
function stoppedRun(doc: SharedAcpRun, problem: RunProblem, now: number): SharedAcpRun {
  const view: Run = {
    ...doc.view,
    status: "failed",
    await_request: null,
    error: runError(problem),
    finished_at: iso(now),
  };
  const events = doc.events && [...doc.events, { type: "run.failed" as const, run: view }];
  return { ...doc, view, events };
}

/**
 * The ACP runs of a bridge, each visible only to the AIM session that created it, bounded as
 * the shared {@linkcode RunRegistry} bounds them; and the ACP sessions they belong to.
 *
 * With a shared store (`core.share.shared`), the runs this instance runs are mirrored there
 * after each change, and the async methods ({@linkcode RunStore.view},
 * {@linkcode RunStore.events}, {@linkcode RunStore.cancel}, {@linkcode RunStore.findSession})
 * answer for runs other instances run too. The bounds on runs under way stay per instance.
 */
export class RunStore {
  readonly #core: BridgeCore;
  readonly #registry: RunRegistry<AcpRun>;
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #mirror: RunMirror<SharedAcpRun> | undefined;
  readonly #sessionWrites: WriteLanes | undefined;
  /** How long a shared ACP session is kept: a run's time to live after its longest deadline. */
  #sessionTtlMs: number;

  constructor(core: BridgeCore, options: RunStoreOptions = {}) {
    const { onError, ...limits } = options;
    this.#core = core;
    this.#registry = new RunRegistry<AcpRun>(limits, {
      noun: "run",
      onDrop: (run) => this.#forget(run),
    });
    this.#sessionTtlMs = this.#registry.limits.ttlMs;
    if (!core.share.shared) return;
    this.#sessionWrites = new WriteLanes({ onError });
    this.#mirror = new RunMirror<SharedAcpRun>(core.share, {
      kind: "acp-run",
      topic: "acp.cancel",
      noun: "run",
      ttlMs: this.#registry.limits.ttlMs,
      finished: (doc) => TERMINAL_STATUSES.has(doc.view.status),
      stopped: (doc, problem) => stoppedRun(doc, problem, this.#registry.now()),
      cancel: (id, owner) => {
        const run = this.#registry.get(owner, id);
        run?.requestCancel();
        return Promise.resolve();
      },
      onError,
    });
  }

  /** Runs held now. */
  get size(): number {
    return this.#registry.size;
  }

  /** What all runs keep now, in bytes. */
  get bytes(): number {
    return this.#registry.bytes;
  }

  /** What the runs of an AIM session keep now, in bytes. */
  bytesOf(owner: Session): number {
    return this.#registry.bytesOf(owner.id);
  }

  /**
   * A new run in `created`; {@linkcode AcpRun.start} runs it.
   *
   * @throws {AcpHttpError} 429 when the session, the client or the bridge has all the runs
   * under way it may have.
   */
  create(owner: Session, request: RunRequest): AcpRun {
    const client = request.client ?? "unknown";
    try {
      // Counted on this instance only: with several instances, each admits its own share.
      this.#registry.admit(owner.id, client);
    } catch (error) {
      throw error instanceof AimError ? fromAimError(error) : error;
    }
    const sessionId = request.sessionId ?? crypto.randomUUID();
    const deadlineMs = this.#registry.deadlineFor(owner);
    const run = new AcpRun({
      ownerId: owner.id,
      agentName: request.agentName,
      sessionId,
      client,
      now: this.#registry.now,
      deadlineMs,
      maxBytes: this.#registry.limits.maxSessionBytes,
      start: (run) => this.#execute(run, owner, request),
    });
    this.#registry.add(run);
    const key = `${owner.id} ${sessionId}`;
    let record = this.#sessions.get(key);
    if (!record) this.#sessions.set(key, record = { id: sessionId, runs: [] });
    record.runs.push(run.id);
    const mirror = this.#mirror;
    if (mirror) {
      const maxBytes = this.#registry.limits.maxSessionBytes;
      const publish = () => mirror.publish(run.id, () => sharedRun(run, mirror.instance, maxBytes));
      run.onChange(publish);
      publish();
      this.#sessionTtlMs = Math.max(this.#sessionTtlMs, this.#registry.limits.ttlMs + deadlineMs);
      this.#shareSession(owner.id, sessionId, { add: run.id });
    }
    return run;
  }

  /** A run of `owner`'s, or undefined (another session's run is not told apart from none). */
  get(owner: Session, runId: string): AcpRun | undefined {
    return this.#registry.get(owner.id, runId);
  }

  /**
   * Resolves once what other instances read of `run` (its document, its ACP session's) shows
   * it as it is now; at once without a shared store. Awaited before answering, so that the
   * next request finds the run on whichever instance it reaches.
   */
  async settled(run: AcpRun): Promise<void> {
    if (!this.#mirror || !this.#sessionWrites) return;
    await Promise.all([
      this.#mirror.settled(run.id),
      this.#sessionWrites.settled(`${run.ownerId} ${run.sessionId}`),
    ]);
  }

  /** A run of `owner`'s as it is now, held here or (with a shared store) elsewhere. */
  async view(owner: Session, runId: string): Promise<Run | undefined> {
    const run = this.get(owner, runId);
    if (run) return run.view();
    return (await this.#elsewhere(owner, runId))?.view;
  }

  /**
   * Every event so far of a run of `owner`'s, held here or (with a shared store) elsewhere.
   *
   * @throws {AcpHttpError} 503 for a run of another instance whose events were too large to
   * share: a retry may reach the instance that runs it.
   */
  async events(owner: Session, runId: string): Promise<Event[] | undefined> {
    const run = this.get(owner, runId);
    if (run) return run.events();
    const shared = await this.#elsewhere(owner, runId);
    if (!shared) return undefined;
    if (shared.events) return shared.events;
    throw new AcpHttpError(
      503,
      "server_error",
      `The events of run ${runId} are too large to be shared between the bridge's instances, and another instance runs it; retry (the next request may reach it), or read GET /runs/${runId} for its status and output.`,
      { headers: { "Retry-After": "1" } },
    );
  }

  /**
   * Cancels a run of `owner`'s (see {@linkcode AcpRun.cancel}); one another instance runs is
   * asked to, and answered `cancelling` from its shared view.
   *
   * @throws {AcpHttpError} 403 for a finished run, and for one whose instance stopped.
   */
  async cancel(owner: Session, runId: string): Promise<Run | undefined> {
    const run = this.get(owner, runId);
    if (run) {
      const view = run.cancel();
      await this.settled(run);
      return view;
    }
    const shared = await this.#elsewhere(owner, runId);
    if (!shared || !this.#mirror) return undefined;
    if (TERMINAL_STATUSES.has(shared.view.status)) throw notCancellable(shared.view.status);
    const { sent, document } = await this.#mirror.cancel(runId, shared);
    if (!sent) {
      throw new AcpHttpError(
        403,
        "server_error",
        `Run ${runId} can't be cancelled: ${document.view.error?.message}`,
      );
    }
    return { ...document.view, status: "cancelling" };
  }

  /** An ACP session of `owner`'s, as this instance holds it. */
  session(owner: Session, id: string): AcpSession | undefined {
    const record = this.#sessions.get(`${owner.id} ${id}`);
    return record ? { id: record.id, history: [], state: null, runs: [...record.runs] } : undefined;
  }

  /** An ACP session of `owner`'s with its runs on every instance (with a shared store). */
  async findSession(owner: Session, id: string): Promise<AcpSession | undefined> {
    const here = this.session(owner, id);
    if (!this.#sessionWrites) return here;
    const found = await this.#core.share.get("acp-session", `${owner.id} ${id}`);
    const shared = isSharedSession(found) && found.owner === owner.id ? found.runs : [];
    const runs = [...new Set([...shared, ...here?.runs ?? []])];
    return runs.length ? { id, history: [], state: null, runs } : undefined;
  }

  /** The shared document of a run of `owner`'s that another instance runs. */
  async #elsewhere(owner: Session, runId: string): Promise<SharedAcpRun | undefined> {
    return await this.#mirror?.read(owner.id, runId);
  }

  /**
   * Adds a run to (or removes one from) the shared ACP session, one change after another on
   * this instance. Two instances adding runs to one ACP session at the same moment may lose one
   * of them from the shared list (the store offers no atomic append); each instance still lists
   * its own.
   */
  #shareSession(ownerId: string, sessionId: string, change: { add?: string; remove?: string }) {
    const share = this.#core.share;
    const key = `${ownerId} ${sessionId}`;
    this.#sessionWrites?.enqueue(key, async () => {
      const found = await share.get("acp-session", key);
      const runs = isSharedSession(found) && found.owner === ownerId ? found.runs : [];
      const next = runs.filter((id) => id !== change.remove);
      if (change.add && !next.includes(change.add)) next.push(change.add);
      if (next.length === 0) return await share.del("acp-session", key);
      const doc: SharedSession = { owner: ownerId, runs: next };
      await share.put("acp-session", key, doc, this.#sessionTtlMs);
    });
  }

  #execute(run: AcpRun, owner: Session, request: RunRequest): void {
    if (request.agentName !== request.sessionAgent) {
      const page = owner.page;
      run.fail({
        code: "invalid_input",
        message: request.sessionAgent
          ? `This session token belongs to the page ${page}, whose agent is "${request.sessionAgent}"; run that agent, or ask the person for a token from the page of "${request.agentName}".`
          : `This session token belongs to the page ${page}, which is no longer an agent; ask the person for a new token.`,
        data: { error: "page_mismatch", connected_page: page },
      });
      return;
    }
    let call: unknown;
    try {
      const last = request.input.at(-1);
      if (!last) throw invalid(`The input holds no message. ${HOW}`);
      call = readCall(
        last,
        (id) =>
          this.#core.sessionActions(owner).some((a) =>
            a.id === id && a.input_schema.type === "object"
          ),
      );
    } catch (error) {
      run.fail(runError(error));
      return;
    }
    run.invoke(
      this.#core,
      owner,
      call,
      request.client === undefined ? {} : {
        client: request.client,
      },
    );
  }

  /** An ACP session with no runs left is forgotten with its last run, here and in the store. */
  #forget(run: AcpRun): void {
    this.#mirror?.forget(run.id);
    this.#shareSession(run.ownerId, run.sessionId, { remove: run.id });
    const key = `${run.ownerId} ${run.sessionId}`;
    const record = this.#sessions.get(key);
    if (!record) return;
    record.runs = record.runs.filter((id) => id !== run.id);
    if (record.runs.length === 0) this.#sessions.delete(key);
  }
}

/** Whether a value read from the store is a shared ACP session. */
function isSharedSession(value: unknown): value is SharedSession {
  const doc = value as Partial<SharedSession> | null;
  return typeof doc === "object" && doc !== null && typeof doc.owner === "string" &&
    Array.isArray(doc.runs) && doc.runs.every((id) => typeof id === "string");
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
