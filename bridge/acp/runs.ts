/**
 * @module ACP runs without HTTP: each invokes one action through `BridgeCore.invoke` and records
 * the reference server's events; kept per AIM session, bounded in number and age.
 */
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/sessions.ts";
import { parseUntrustedJson } from "../protocol/json.ts";
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

/** Options of {@linkcode RunStore}. */
export interface RunStoreOptions {
  /** Runs kept per AIM session. Default 100. */
  maxRunsPerSession?: number;
  /** Runs kept in all. Default 1000, as the reference server. */
  maxRuns?: number;
  /** How long a finished run is kept. Default one hour, as the reference server. */
  ttlMs?: number;
  now?: () => number;
}

/** What a client asked to run. */
export interface RunRequest {
  /** The agent asked for. */
  agentName: string;
  /** The agent of the session's page, if the page is still an agent. */
  sessionAgent: string | undefined;
  /** The client's ACP session, if it named one. */
  sessionId?: string | null;
  input: Message[];
}

/** An action invocation read from a message. */
interface Call {
  actionId: string;
  input?: unknown;
}

function mediaType(part: MessagePart): string {
  return (part.content_type ?? "text/plain").split(";")[0].trim().toLowerCase();
}

function invalid(message: string): AcpHttpError {
  return new AcpHttpError(422, "invalid_input", message);
}

const HOW =
  'Send the action as the last message\'s application/json part {"actionId": "<id>", "input": <input>}, or as a text/plain part "<id> <input>".';

function partText(part: MessagePart): string {
  if (part.content_url != null) {
    throw invalid(`The bridge does not fetch content_url; send the content inline. ${HOW}`);
  }
  if (part.content == null) throw invalid(`The ${mediaType(part)} part has no content. ${HOW}`);
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
      throw invalid(
        parsed.problem === "proto"
          ? 'Keys named "__proto__" are not accepted.'
          : `The application/json part is not valid JSON. ${HOW}`,
      );
    }
    return parsed.value;
  }
  const text = message.parts.find((p) => mediaType(p) === "text/plain");
  if (!text) {
    throw invalid(`The last message has no application/json or text/plain part. ${HOW}`);
  }
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(partText(text).trim());
  if (!match) throw invalid(`The text/plain part is empty. ${HOW}`);
  const [, actionId, rest] = match;
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

/** One run: its state, its events, and the waiters on them. */
export class AcpRun {
  readonly id: string = crypto.randomUUID();
  readonly ownerId: string;
  readonly #run: Run;
  readonly #events: Event[] = [];
  #wake: (() => void)[] = [];
  #start: ((run: AcpRun) => void) | null;
  #cancelling = false;
  readonly #abort = new AbortController();

  /** Aborted when the run is cancelled. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }
  readonly #now: () => number;
  /** Resolves once the run is completed, failed or cancelled. */
  readonly finished: Promise<Run>;
  #finish!: (run: Run) => void;

  constructor(
    ownerId: string,
    agentName: string,
    sessionId: string,
    now: () => number,
    start: (run: AcpRun) => void,
  ) {
    this.ownerId = ownerId;
    this.#now = now;
    this.#start = start;
    this.finished = new Promise((resolve) => this.#finish = resolve);
    this.#run = {
      run_id: this.id,
      agent_name: agentName,
      session_id: sessionId,
      status: "created",
      await_request: null,
      output: [],
      error: null,
      created_at: iso(now()),
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
        const event = this.#events[index++];
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

  /** Starts the run, once. */
  start(): void {
    const start = this.#start;
    this.#start = null;
    if (!start || this.#cancelling) return;
    this.#set("in-progress");
    this.#emitRun("run.in-progress");
    start(this);
  }

  /** The action waits for the person at the page to confirm it. */
  awaiting(request: AwaitRequest): void {
    if (this.#cancelling || this.#run.status !== "in-progress") return;
    this.#run.await_request = request;
    this.#set("awaiting");
    this.#emitRun("run.awaiting");
  }

  /** The action answered. */
  complete(message: Message): void {
    if (!this.#resume()) return;
    const part = message.parts[0];
    this.#emit({ type: "message.created", message: { ...message, parts: [], completed_at: null } });
    this.#emit({ type: "message.part", part });
    this.#emit({ type: "message.completed", message });
    this.#run.output.push(message);
    this.#end("completed", "run.completed");
  }

  /** The action (or reading the request) failed. */
  fail(error: AcpError): void {
    if (!this.#resume()) return;
    this.#run.error = error;
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
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }
}

interface SessionRecord {
  id: string;
  runs: string[];
}

/** The runs of a bridge, each visible only to the AIM session that created it. */
export class RunStore {
  readonly #core: BridgeCore;
  readonly #runs = new Map<string, AcpRun>();
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #maxPerSession: number;
  readonly #maxRuns: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(core: BridgeCore, options: RunStoreOptions = {}) {
    this.#core = core;
    this.#maxPerSession = options.maxRunsPerSession ?? 100;
    this.#maxRuns = options.maxRuns ?? 1000;
    this.#ttlMs = options.ttlMs ?? 60 * 60 * 1000;
    this.#now = options.now ?? Date.now;
  }

  /** Runs held now. */
  get size(): number {
    return this.#runs.size;
  }

  /**
   * A new run in `created`; {@linkcode AcpRun.start} runs it.
   *
   * @throws {AcpHttpError} 429 when the session's (or the bridge's) runs are all under way.
   */
  create(owner: Session, request: RunRequest): AcpRun {
    this.#makeRoom(owner.id);
    const sessionId = request.sessionId ?? crypto.randomUUID();
    const run = new AcpRun(
      owner.id,
      request.agentName,
      sessionId,
      this.#now,
      (run) => this.#execute(run, owner, request),
    );
    this.#runs.set(run.id, run);
    const key = `${owner.id} ${sessionId}`;
    let record = this.#sessions.get(key);
    if (!record) this.#sessions.set(key, record = { id: sessionId, runs: [] });
    record.runs.push(run.id);
    return run;
  }

  /** A run of `owner`'s, or undefined (another session's run is not told apart from none). */
  get(owner: Session, runId: string): AcpRun | undefined {
    const run = this.#runs.get(runId);
    return run && run.ownerId === owner.id ? run : undefined;
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
      onAwaiting: (text) =>
        run.awaiting(awaitRequest(role, String(actionId), call, text, this.#now())),
      signal: run.signal,
    }).then(
      (result) => run.complete(answer(role, result, this.#now())),
      (error) => run.fail(runError(error)),
    );
  }

  #makeRoom(ownerId: string): void {
    const now = this.#now();
    for (const run of [...this.#runs.values()]) {
      const finished = run.finishedAt;
      if (finished !== null && now - finished > this.#ttlMs) this.#drop(run);
    }
    const mine = [...this.#runs.values()].filter((r) => r.ownerId === ownerId);
    if (mine.length >= this.#maxPerSession) {
      const oldest = mine.find((r) => r.terminal);
      if (!oldest) throw busy(`At most ${this.#maxPerSession} runs may be under way per session`);
      this.#drop(oldest);
    }
    if (this.#runs.size >= this.#maxRuns) {
      const oldest = [...this.#runs.values()].find((r) => r.terminal);
      if (!oldest) throw busy(`At most ${this.#maxRuns} runs may be under way on this bridge`);
      this.#drop(oldest);
    }
  }

  #drop(run: AcpRun): void {
    this.#runs.delete(run.id);
    const key = `${run.ownerId} ${run.sessionId}`;
    const record = this.#sessions.get(key);
    if (!record) return;
    record.runs = record.runs.filter((id) => id !== run.id);
    if (record.runs.length === 0) this.#sessions.delete(key);
  }
}

function busy(what: string): AcpHttpError {
  return new AcpHttpError(429, "server_error", `${what}; retry when one has finished.`, {
    headers: { "Retry-After": "1" },
  });
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
  // The input is shown to the client again: keys that look like secrets are left out.
  const input = redactSecrets((call as Call).input ?? null);
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
