/**
 * @module ACP runs without HTTP: each invokes one action through `BridgeCore.invoke` and records
 * the reference server's events; kept per AIM session, bounded in number, time, age and bytes.
 */
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/sessions.ts";
import { jsonProblemMessage, parseUntrustedJson } from "../protocol/json.ts";
import { redactSecrets } from "../protocol/markup.ts";
import type { InvokeResult } from "../protocol/schemas.ts";
import { AcpHttpError, runError } from "./errors.ts";
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

/** Options of {@linkcode RunStore}; the defaults are {@linkcode RUN_LIMITS}. */
export interface RunStoreOptions {
  /** Runs kept per AIM session, finished or not. Default 100. */
  maxRunsPerSession?: number;
  /** Runs under way (not finished) per AIM session; more are refused with 429. Default 16. */
  maxActiveRunsPerSession?: number;
  /** Runs under way per client address; more are refused with 429. Default 64. */
  maxActiveRunsPerClient?: number;
  /** Runs kept in all. Default 1000, as the reference server. */
  maxRuns?: number;
  /** How long a finished run is kept. Default one hour, as the reference server. */
  ttlMs?: number;
  /**
   * How long a run may take, from its creation, before the bridge stops it (failed,
   * `run_deadline`), awaiting the person included. Default: the tab timeout plus the
   * confirmation timeout plus a tenth, at most 30 s (6 minutes with the core's defaults).
   */
  deadlineMs?: number;
  /**
   * Bytes the runs of one AIM session keep (outputs, errors, await requests, events); its
   * oldest finished runs make way. A single answer larger than this is not kept: the run fails
   * with `output_too_large`. Default 4 MiB.
   */
  maxSessionBytes?: number;
  /** Bytes all runs keep; the finished runs of the heaviest sessions make way. Default 64 MiB. */
  maxBytes?: number;
  now?: () => number;
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

/** An action invocation read from a message. */
interface Call {
  actionId: string;
  input?: unknown;
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
function jsonBytes(value: unknown): number {
  return value === null || value === undefined ? 0 : utf8Length(JSON.stringify(value));
}

/**
 * What a run's own fields and each of its events' own fields take, in bytes: an estimate of
 * the fixed part. Outputs, errors and await requests are counted by their size as JSON, once
 * (events share them with the run).
 */
const RUN_BYTES = 1024;
const EVENT_BYTES = 256;
/** What an await request shows of the input and of the page's message, at most. */
const MAX_AWAIT_INPUT_BYTES = 16 * 1024;
const MAX_AWAIT_TEXT_CHARS = 2000;

/** How {@linkcode RunStore.create} makes a run. */
export interface AcpRunOptions {
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
  /** Told each time what the run keeps grew, after its creation. */
  onChange?: (run: AcpRun, grewBy: number) => void;
  /** Runs the invocation; called once, by {@linkcode AcpRun.start}. */
  start: (run: AcpRun) => void;
}

/** One run: its state, its events, and the waiters on them. */
export class AcpRun {
  readonly id: string = crypto.randomUUID();
  readonly ownerId: string;
  /** The address of the client that created it. */
  readonly client: string;
  /** When the run is stopped if it has not finished, in ms of the store's clock. */
  readonly deadline: number;
  readonly #deadlineMs: number;
  readonly #maxBytes: number;
  readonly #run: Run;
  readonly #events: Event[] = [];
  #wake: (() => void)[] = [];
  #start: ((run: AcpRun) => void) | null;
  #cancelling = false;
  readonly #abort = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #bytes = RUN_BYTES;
  #onChange: ((run: AcpRun, grewBy: number) => void) | undefined;

  /** Aborted when the run is cancelled or passes its deadline. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }
  readonly #now: () => number;
  /** Resolves once the run is completed, failed or cancelled. */
  readonly finished: Promise<Run>;
  #finish!: (run: Run) => void;

  constructor(options: AcpRunOptions) {
    this.ownerId = options.ownerId;
    this.client = options.client ?? "unknown";
    this.#now = options.now;
    this.#start = options.start;
    this.#deadlineMs = options.deadlineMs;
    this.#maxBytes = options.maxBytes;
    this.finished = new Promise((resolve) => this.#finish = resolve);
    const now = this.#now();
    this.deadline = now + options.deadlineMs;
    this.#run = {
      run_id: this.id,
      agent_name: options.agentName,
      session_id: options.sessionId,
      status: "created",
      await_request: null,
      output: [],
      error: null,
      created_at: iso(now),
      finished_at: null,
    };
    this.#emitRun("run.created");
    // Only growth after creation is reported: the store counts the run as it takes it in.
    this.#onChange = options.onChange;
  }

  get status(): RunStatus {
    return this.#run.status;
  }

  get sessionId(): string {
    return this.#run.session_id!;
  }

  /** What the run keeps (its output, error, await request and events), in bytes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** When the run finished, in ms, or null. */
  get finishedAt(): number | null {
    return this.#run.finished_at === null ? null : Date.parse(this.#run.finished_at);
  }

  get terminal(): boolean {
    return TERMINAL_STATUSES.has(this.#run.status);
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
      if (this.terminal) return;
      await new Promise<void>((resolve) => this.#wake.push(resolve));
    }
  }

  /** The run once it stopped: finished, or awaiting someone (the reference's sync answer). */
  async stopped(): Promise<Run> {
    for await (const _ of this.follow()) { /* until a closing event */ }
    return this.view();
  }

  /** Starts the run, once; it is stopped at its deadline if it has not finished by then. */
  start(): void {
    const start = this.#start;
    this.#start = null;
    if (!start || this.#cancelling || this.terminal) return;
    const left = this.deadline - this.#now();
    if (left <= 0) return this.expire();
    const timer = setTimeout(() => this.expire(), left);
    // A run under way does not keep a bridge that is shutting down alive.
    Deno.unrefTimer(timer);
    this.#timer = timer;
    this.#set("in-progress");
    this.#emitRun("run.in-progress");
    start(this);
  }

  /** The action waits for the person at the page to confirm it. */
  awaiting(request: AwaitRequest): void {
    if (this.#cancelling || this.#run.status !== "in-progress") return;
    this.#run.await_request = request;
    // Kept by the run.awaiting event after the run leaves `awaiting`, so counted for good.
    this.#bytes += jsonBytes(request);
    this.#set("awaiting");
    this.#emitRun("run.awaiting");
  }

  /**
   * The action answered. An answer larger than the run may keep is replaced by an error that
   * says so: the run fails with `output_too_large`, though the action ran.
   */
  complete(message: Message): void {
    if (!this.#resume()) return;
    const size = jsonBytes(message);
    if (this.#bytes + size + 4 * EVENT_BYTES > this.#maxBytes) {
      this.#run.error = tooLarge(
        `The action ran, but its answer of ${size} bytes is more than the ${this.#maxBytes} bytes the bridge keeps for a run, so it was not kept. Read the page's state (its manifest) for the outcome.`,
        size,
        this.#maxBytes,
      );
      this.#bytes += jsonBytes(this.#run.error);
      this.#end("failed", "run.failed");
      return;
    }
    this.#bytes += size;
    const part = message.parts[0];
    this.#emit({ type: "message.created", message: { ...message, parts: [], completed_at: null } });
    // An answer has one part (see `answer`).
    if (part) this.#emit({ type: "message.part", part });
    this.#emit({ type: "message.completed", message });
    this.#run.output.push(message);
    this.#end("completed", "run.completed");
  }

  /** The action (or reading the request) failed. An error too large to keep is replaced. */
  fail(error: AcpError): void {
    if (!this.#resume()) return;
    const size = jsonBytes(error);
    this.#run.error = this.#bytes + size + EVENT_BYTES > this.#maxBytes
      ? tooLarge(
        `The run failed with an error of ${size} bytes, more than the ${this.#maxBytes} bytes the bridge keeps for a run, so it was not kept.`,
        size,
        this.#maxBytes,
      )
      : error;
    this.#bytes += jsonBytes(this.#run.error);
    this.#end("failed", "run.failed");
  }

  /**
   * Stops a run that did not finish by its deadline: it fails with `run_deadline`, and its
   * invocation is withdrawn as on cancel (a queued one dropped, a confirmation prompt removed).
   */
  expire(): void {
    if (this.terminal || this.#cancelling) return;
    const waited = this.#run.status === "awaiting";
    this.#start = null;
    this.#cancelling = true;
    this.#abort.abort();
    const seconds = Math.round(this.#deadlineMs / 1000);
    this.#run.await_request = null;
    this.#run.error = {
      code: "server_error",
      message: `The run did not finish within ${seconds} seconds${
        waited ? " (the person at the page did not answer the confirmation)" : ""
      }, so the bridge stopped it and withdrew the invocation. If the page had already started the action, it may have run: read the page's state before starting a new run.`,
      data: { error: "run_deadline", status: 504, deadline_seconds: seconds },
    };
    this.#bytes += jsonBytes(this.#run.error);
    this.#end("failed", "run.failed");
  }

  /**
   * Cancels the run: `cancelling` now, `cancelled` right after. An invocation still queued is
   * dropped; one the tab runs is withdrawn (a confirmation prompt disappears, a later answer is
   * ignored), though a handler already running cannot be stopped.
   *
   * @throws {AcpHttpError} 403 for a finished run, as the reference server.
   */
  cancel(): Run {
    if (this.terminal) {
      throw new AcpHttpError(
        403,
        "server_error",
        `Run in terminal status ${this.#run.status} can't be cancelled`,
      );
    }
    if (!this.#cancelling) {
      this.#cancelling = true;
      this.#start = null;
      // The tab is told to withdraw the invocation: a prompt disappears, its answer is ignored.
      this.#abort.abort();
      this.#set("cancelling");
      queueMicrotask(() => {
        if (this.terminal) return;
        this.#run.await_request = null;
        this.#end("cancelled", "run.cancelled");
      });
    }
    return this.view();
  }

  /** Leaves `awaiting` for `in-progress` (as the reference does on resume); false when over. */
  #resume(): boolean {
    if (this.#cancelling || this.terminal || this.#run.status === "created") return false;
    if (this.#run.status === "awaiting") {
      this.#run.await_request = null;
      this.#set("in-progress");
      this.#emitRun("run.in-progress");
    }
    return true;
  }

  #set(status: RunStatus): void {
    this.#run.status = status;
  }

  #end(
    status: "completed" | "failed" | "cancelled",
    type: "run.completed" | "run.failed" | "run.cancelled",
  ): void {
    clearTimeout(this.#timer);
    this.#run.finished_at = iso(this.#now());
    this.#set(status);
    this.#emitRun(type);
    this.#finish(this.view());
  }

  #emitRun(type: Extract<Event, { run: Run }>["type"]): void {
    // A snapshot, as the reference freezes a copy of the run with each event. Messages, errors
    // and await requests are replaced, never changed, so a shallow copy shares them safely.
    this.#emit({ type, run: { ...this.#run, output: [...this.#run.output] } });
  }

  #emit(event: Event): void {
    this.#events.push(event);
    this.#bytes += EVENT_BYTES;
    this.#report();
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }

  #reported = 0;

  /** Tells the store how much more the run keeps since it last told it. */
  #report(): void {
    const grew = this.#bytes - this.#reported;
    this.#reported = this.#bytes;
    if (grew !== 0) this.#onChange?.(this, grew);
  }
}

function tooLarge(message: string, bytes: number, limit: number): AcpError {
  return {
    code: "server_error",
    message,
    data: { error: "output_too_large", status: 507, bytes, limit_bytes: limit },
  };
}

interface SessionRecord {
  id: string;
  runs: string[];
}

/** The runs of one AIM session, oldest first, and what they keep. */
interface OwnerRecord {
  runs: AcpRun[];
  bytes: number;
}

/** The run store's defaults. */
export const RUN_LIMITS = {
  maxRunsPerSession: 100,
  maxActiveRunsPerSession: 16,
  maxActiveRunsPerClient: 64,
  maxRuns: 1000,
  ttlMs: 60 * 60 * 1000,
  maxSessionBytes: 4 * 1024 * 1024,
  maxBytes: 64 * 1024 * 1024,
} as const;

/**
 * The default deadline of a run of `owner`: the tab's timeout and the person's confirmation
 * timeout, which the core applies to one invocation, plus a tenth (at most 30 s) for the rest.
 * A tab that keeps saying "awaiting" restarts the core's confirmation timer; not this one.
 */
function defaultDeadline(owner: Session): number {
  const core = owner.tab.tabTimeoutMs + owner.tab.confirmTimeoutMs;
  return core + Math.min(30_000, Math.round(core / 10));
}

/**
 * The runs of a bridge, each visible only to the AIM session that created it.
 *
 * Bounds, so that no session or client can take what others need: a session may have
 * {@linkcode RunStoreOptions.maxActiveRunsPerSession} runs under way and a client address
 * {@linkcode RunStoreOptions.maxActiveRunsPerClient} (more are refused with 429, never queued),
 * far below the bridge's {@linkcode RunStoreOptions.maxRuns}; every run ends by its deadline; a
 * session keeps at most {@linkcode RunStoreOptions.maxSessionBytes} of outputs and events, its
 * oldest finished runs making way; when the bridge is full, the finished runs of the sessions
 * that hold the most go first.
 */
export class RunStore {
  readonly #core: BridgeCore;
  readonly #runs = new Map<string, AcpRun>();
  readonly #owners = new Map<string, OwnerRecord>();
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #limits: Required<Omit<RunStoreOptions, "now" | "deadlineMs">>;
  readonly #deadlineMs: number | undefined;
  readonly #now: () => number;
  #bytes = 0;

  constructor(core: BridgeCore, options: RunStoreOptions = {}) {
    this.#core = core;
    const { now, deadlineMs, ...limits } = options;
    this.#limits = { ...RUN_LIMITS, ...dropUndefined(limits) };
    this.#deadlineMs = deadlineMs;
    this.#now = now ?? Date.now;
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
  bytesOf(owner: Session): number {
    return this.#owners.get(owner.id)?.bytes ?? 0;
  }

  /**
   * A new run in `created`; {@linkcode AcpRun.start} runs it.
   *
   * @throws {AcpHttpError} 429 when the session, the client or the bridge has all the runs
   * under way it may have.
   */
  create(owner: Session, request: RunRequest): AcpRun {
    const client = request.client ?? "unknown";
    this.#sweep();
    this.#makeRoom(owner.id, client);
    const sessionId = request.sessionId ?? crypto.randomUUID();
    const run = new AcpRun({
      ownerId: owner.id,
      agentName: request.agentName,
      sessionId,
      client,
      now: this.#now,
      deadlineMs: this.#deadlineMs ?? defaultDeadline(owner),
      maxBytes: this.#limits.maxSessionBytes,
      onChange: (run, grew) => this.#grew(run, grew),
      start: (run) => this.#execute(run, owner, request),
    });
    this.#runs.set(run.id, run);
    let mine = this.#owners.get(owner.id);
    if (!mine) this.#owners.set(owner.id, mine = { runs: [], bytes: 0 });
    mine.runs.push(run);
    mine.bytes += run.bytes;
    this.#bytes += run.bytes;
    const key = `${owner.id} ${sessionId}`;
    let record = this.#sessions.get(key);
    if (!record) this.#sessions.set(key, record = { id: sessionId, runs: [] });
    record.runs.push(run.id);
    return run;
  }

  /** A run of `owner`'s, or undefined (another session's run is not told apart from none). */
  get(owner: Session, runId: string): AcpRun | undefined {
    const run = this.#runs.get(runId);
    if (!run || run.ownerId !== owner.id) return undefined;
    if (!run.terminal && this.#now() >= run.deadline) run.expire();
    return run;
  }

  /** An ACP session of `owner`'s. */
  session(owner: Session, id: string): AcpSession | undefined {
    const record = this.#sessions.get(`${owner.id} ${id}`);
    return record ? { id: record.id, history: [], state: null, runs: [...record.runs] } : undefined;
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
    const actionId = (call as Call | null)?.actionId;
    const role = `agent/${request.agentName}`;
    this.#core.invoke(owner, call, {
      ...(request.client === undefined ? {} : { client: request.client }),
      onAwaiting: (text) =>
        run.awaiting(awaitRequest(role, String(actionId), call, text, this.#now())),
      signal: run.signal,
    }).then(
      (result) => run.complete(answer(role, result, this.#now())),
      (error) => run.fail(runError(error)),
    );
  }

  /** Drops finished runs past their time to live; stops runs past their deadline. */
  #sweep(): void {
    const now = this.#now();
    for (const run of [...this.#runs.values()]) {
      const finished = run.finishedAt;
      if (finished !== null) {
        if (now - finished > this.#limits.ttlMs) this.#drop(run);
      } else if (now >= run.deadline) {
        run.expire();
      }
    }
  }

  #makeRoom(ownerId: string, client: string): void {
    const limits = this.#limits;
    const mine = this.#owners.get(ownerId)?.runs ?? [];
    // Runs under way are bounded per session and per client first, so that the bridge's own
    // bound is out of reach of a handful of sessions.
    const active = mine.filter((r) => !r.terminal).length;
    if (active >= limits.maxActiveRunsPerSession) {
      throw busy(
        `This session has ${active} runs under way, the most one session may have; wait for one to finish (or cancel one) and retry.`,
      );
    }
    let fromClient = 0;
    for (const run of this.#runs.values()) if (!run.terminal && run.client === client) fromClient++;
    if (fromClient >= limits.maxActiveRunsPerClient) {
      throw busy(
        `Your address has ${fromClient} runs under way, the most one client may have; wait for one to finish and retry.`,
      );
    }
    if (mine.length >= limits.maxRunsPerSession) {
      const oldest = mine.find((r) => r.terminal);
      if (!oldest) {
        throw busy(`At most ${limits.maxRunsPerSession} runs may be kept per session`);
      }
      this.#drop(oldest);
    }
    if (this.#runs.size >= limits.maxRuns) {
      const victim = this.#oldestFinished((record) => record.runs.length);
      if (!victim) throw busy(`At most ${limits.maxRuns} runs may be under way on this bridge`);
      this.#drop(victim);
    }
  }

  /**
   * The oldest finished run of the session that holds the most by `weight`, not `spare`:
   * when the bridge is full, the sessions that take the most make way first.
   */
  #oldestFinished(weight: (record: OwnerRecord) => number, spare?: AcpRun): AcpRun | undefined {
    let best: AcpRun | undefined;
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

  /** A run keeps more: its session's (then the bridge's) oldest finished runs make way. */
  #grew(run: AcpRun, grew: number): void {
    const mine = this.#owners.get(run.ownerId);
    if (!mine || this.#runs.get(run.id) !== run) return;
    mine.bytes += grew;
    this.#bytes += grew;
    while (mine.bytes > this.#limits.maxSessionBytes) {
      const oldest = mine.runs.find((r) => r.terminal && r !== run);
      if (!oldest) break;
      this.#drop(oldest);
    }
    while (this.#bytes > this.#limits.maxBytes) {
      const victim = this.#oldestFinished((record) => record.bytes, run);
      if (!victim) break;
      this.#drop(victim);
    }
  }

  #drop(run: AcpRun): void {
    if (!this.#runs.delete(run.id)) return;
    this.#bytes -= run.bytes;
    const mine = this.#owners.get(run.ownerId);
    if (mine) {
      mine.runs = mine.runs.filter((r) => r !== run);
      mine.bytes -= run.bytes;
      if (mine.runs.length === 0) this.#owners.delete(run.ownerId);
    }
    const key = `${run.ownerId} ${run.sessionId}`;
    const record = this.#sessions.get(key);
    if (!record) return;
    record.runs = record.runs.filter((id) => id !== run.id);
    if (record.runs.length === 0) this.#sessions.delete(key);
  }
}

function dropUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function busy(message: string): AcpHttpError {
  return new AcpHttpError(429, "server_error", message, { headers: { "Retry-After": "1" } });
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
function awaitRequest(
  role: string,
  actionId: string,
  call: unknown,
  text: string,
  now: number,
): AwaitRequest {
  // The input is shown to the client again: keys that look like secrets are left out. What the
  // run keeps of it, and of the page's message, is bounded.
  let input = redactSecrets((call as Call).input ?? null);
  const inputBytes = jsonBytes(input);
  if (inputBytes > MAX_AWAIT_INPUT_BYTES) input = `(an input of ${inputBytes} bytes, not shown)`;
  if (text.length > MAX_AWAIT_TEXT_CHARS) text = `${text.slice(0, MAX_AWAIT_TEXT_CHARS)}…`;
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
