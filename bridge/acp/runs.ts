/**
 * ACP runs without HTTP: each invokes one action through `BridgeCore.invoke` and records
 * the reference server's events. The run machinery (deadline, cancel, awaiting, bytes) and the
 * bounds per session, client and bridge are shared with A2A (`bridge/runs/`). With several
 * bridge instances sharing a store, a run is read and cancelled from any of them: the instance
 * running it mirrors its view and events (`runs/shared.ts`).
 *
 * @module
 */
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import { AimError } from "../errors/aim_error.ts";
import { RunRegistry, type RunRegistryOptions } from "../runs/registry.ts";
import { RunMirror, WriteLanes } from "../runs/shared.ts";
import { AcpHttpError, fromAimError, runError } from "./errors.ts";
import {
  type AcpSession,
  type Event,
  type Message,
  type Run,
  TERMINAL_STATUSES,
} from "./schemas.ts";
import { AcpRun, notCancellable } from "./run.ts";
import { HOW, invalid, readCall } from "./call.ts";
import {
  isSharedSession,
  type SharedAcpRun,
  sharedRun,
  type SharedSession,
  stoppedRun,
} from "./shared.ts";

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

interface SessionRecord {
  id: string;
  runs: string[];
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

  /** Run requests waiting in line for a place now, of one client address or in all. */
  waiting(client?: string): number {
    return this.#registry.waiting(client);
  }

  /** What the runs of an AIM session keep now, in bytes. */
  bytesOf(owner: Session): number {
    return this.#registry.bytesOf(owner.id);
  }

  /**
   * A new run in `created`; {@linkcode AcpRun.start} runs it. When the session or the client has
   * all the runs under way it may have, it waits in line (a short, bounded time) for one of
   * theirs to end.
   *
   * @throws {AcpHttpError} 429 when the session, the client or the bridge has all the runs
   * under way it may have, after that wait.
   */
  async create(owner: Session, request: RunRequest, signal?: AbortSignal): Promise<AcpRun> {
    const client = request.client ?? "unknown";
    try {
      // Counted on this instance only: with several instances, each admits its own share.
      await this.#registry.admitInTurn(owner.id, client, signal);
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
      "run_elsewhere",
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
        "run_refused",
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
            a.id === id && a.input_schema.type !== "string"
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
      request.client === undefined ? { protocol: "acp" } : {
        client: request.client,
        protocol: "acp",
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
