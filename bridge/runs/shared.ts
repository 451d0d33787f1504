/**
 * Runs seen from every bridge instance sharing a store (`share/share.ts`). The instance
 * running a run keeps it in its registry, as alone, and mirrors what the others need to answer
 * reads into a shared document, rewritten after each change. Another instance reads that
 * document, for the AIM session that owns the run only, and asks the running instance to
 * cancel it; a run whose instance stopped is marked failed, as it can no longer finish. Streams
 * stay on the instance that runs them (they are its connection).
 *
 * The bounds on runs under way (per session, per client address, in all) stay per instance:
 * each registry counts the runs it holds, so a cluster of N instances admits up to N times as
 * many. Alone (`share.shared` false) nothing here is used.
 *
 * @module
 */
import type { SessionShare } from "../share/share.ts";
import { AimError } from "../errors/aim_error.ts";
import { RunProblem } from "./run.ts";

/** What the shared document of a run holds besides the protocol's own fields. */
export interface SharedRun {
  /** The AIM session the run belongs to: its id, never its token. */
  owner: string;
  /** The bridge instance that runs it. */
  instance: string;
}

/** Whether a value read from the store is a run's shared document. */
function isSharedRun(value: unknown): value is SharedRun & { view: object } {
  const doc = value as Partial<SharedRun> & { view?: unknown } | null;
  return typeof doc === "object" && doc !== null && typeof doc.owner === "string" &&
    typeof doc.instance === "string" && typeof doc.view === "object" && doc.view !== null;
}

/** The failure of a run whose bridge instance stopped before it finished. */
export function instanceStopped(noun: string): RunProblem {
  return new RunProblem(
    "instance_stopped",
    `The bridge instance running this ${noun} stopped before it finished, so the ${noun} can no longer finish or be cancelled. Its action may or may not have run: read the page's state before starting a new ${noun}.`,
    {},
  );
}

/** The writes of one key, one after another. */
interface Lane {
  chain: Promise<void>;
  /** A coalesced write is queued and has not started: a later change joins it. */
  queued: boolean;
  /** Writes queued or under way; the lane is forgotten at 0. */
  writes: number;
}

/**
 * Writes to the shared store, one after another per key, so that a later state never lands
 * before an earlier one; a failed write is reported and the next goes on. A write the store
 * refused (its 503 while unreachable, which the store reports once per outage) is not
 * reported again.
 */
export class WriteLanes {
  readonly #lanes = new Map<string, Lane>();
  readonly #onError: ((error: unknown) => void) | undefined;

  constructor(options: { onError?: ((error: unknown) => void) | undefined } = {}) {
    this.#onError = options.onError;
  }

  /** Queues `write` after the writes of `key` queued so far. */
  enqueue(key: string, write: () => Promise<void>): void {
    this.#push(key, write);
  }

  /**
   * Queues a write of what `write` finds when it starts: changes made before then join it,
   * so a burst of changes is one write of the last state.
   */
  coalesce(key: string, write: () => Promise<void>): void {
    if (this.#lanes.get(key)?.queued) return;
    const lane: Lane = this.#push(key, () => {
      lane.queued = false;
      return write();
    });
    lane.queued = true;
  }

  /** Resolves once the writes of `key` queued so far are done (or failed). */
  settled(key: string): Promise<void> {
    return this.#lanes.get(key)?.chain ?? Promise.resolve();
  }

  #push(key: string, write: () => Promise<void>): Lane {
    let lane = this.#lanes.get(key);
    if (!lane) this.#lanes.set(key, lane = { chain: Promise.resolve(), queued: false, writes: 0 });
    const current = lane;
    current.writes++;
    current.chain = current.chain
      .then(write)
      .catch((error) => {
        if (!(error instanceof AimError)) this.#onError?.(error);
      })
      .finally(() => {
        if (--current.writes === 0 && this.#lanes.get(key) === current) this.#lanes.delete(key);
      });
    return current;
  }
}

/** Options of a {@linkcode RunMirror}. */
export interface RunMirrorOptions<D extends SharedRun> {
  /** The documents' kind in the store: "acp-run", "a2a-task". */
  kind: string;
  /**
   * The topic on which other instances ask this one to cancel a run: "acp.cancel",
   * "a2a.cancel". Its confirmations go back on `<topic>.done`.
   */
  topic: string;
  /** What the protocol calls a run in its messages: "run", "task". */
  noun: string;
  /** How long a document is kept after its last write: the registry's time to live. */
  ttlMs: number;
  /** Whether the run a document shows has finished. */
  finished: (document: D) => boolean;
  /** The document of a run failed with `problem`: it can no longer finish. */
  stopped: (document: D, problem: RunProblem) => D;
  /**
   * Cancels a run this instance runs, at another instance's request, if `owner` owns it;
   * resolves once its new state is mirrored.
   */
  cancel: (id: string, owner: string) => Promise<void>;
  /** Told of writes and messages that failed (the store unreachable, a broken message). */
  onError?: ((error: unknown) => void) | undefined;
  /**
   * How long a cancel waits for the running instance's confirmation.
   *
   * @default {2000}
   */
  confirmMs?: number | undefined;
}

/** What asking the running instance to cancel a run found. */
export interface CancelOutcome<D> {
  /** False when the instance running it is gone: `document` is then the run failed. */
  sent: boolean;
  /** The run's document after the request. */
  document: D;
}

/** The defaults of {@linkcode RunMirrorOptions}, as its `@default` tags say. */
export const MIRROR_DEFAULTS: { readonly confirmMs: number } = { confirmMs: 2000 };

/**
 * The shared documents of one protocol's runs, and the cancellations between instances. The
 * running instance calls {@linkcode RunMirror.publish} after each change of a run and
 * {@linkcode RunMirror.forget} when its registry drops it; the others call
 * {@linkcode RunMirror.read} and {@linkcode RunMirror.cancel}.
 */
export class RunMirror<D extends SharedRun> {
  readonly #share: SessionShare;
  readonly #options: RunMirrorOptions<D>;
  readonly #lanes: WriteLanes;
  readonly #asked = new Map<string, () => void>();

  constructor(share: SessionShare, options: RunMirrorOptions<D>) {
    this.#share = share;
    this.#options = options;
    this.#lanes = new WriteLanes({ onError: options.onError });
    share.listen(options.topic, (message) => this.#onCancel(message));
    share.listen(`${options.topic}.done`, (message) => {
      const ask = (message as { ask?: unknown } | null)?.ask;
      if (typeof ask === "string") this.#asked.get(ask)?.();
    });
  }

  /** This instance's id, as documents name it. */
  get instance(): string {
    return this.#share.instance;
  }

  /**
   * Mirrors run `id` as `document` shows it when the write starts: after the writes queued
   * before, joined by the changes made until then. `document` returns undefined to skip.
   */
  publish(id: string, document: () => D | undefined): void {
    this.#lanes.coalesce(id, async () => {
      const doc = document();
      if (doc) await this.#share.put(this.#options.kind, id, doc, this.#options.ttlMs);
    });
  }

  /** Resolves once what was published of run `id` so far is in the store (or failed). */
  settled(id: string): Promise<void> {
    return this.#lanes.settled(id);
  }

  /** Removes run `id`'s document, after its writes: the registry dropped the run. */
  forget(id: string): void {
    this.#lanes.enqueue(id, () => this.#share.del(this.#options.kind, id));
  }

  /**
   * The document of run `id` if `owner` owns it; another session's is answered as none. A run
   * not finished whose instance is gone is marked failed first: nobody can finish it now. (An
   * instance that missed its heartbeats but lives on rewrites the document at its run's next
   * change.)
   */
  async read(owner: string, id: string): Promise<D | undefined> {
    const found = await this.#share.get(this.#options.kind, id);
    if (!isSharedRun(found) || found.owner !== owner) return undefined;
    const document = found as unknown as D;
    if (this.#options.finished(document)) return document;
    if (await this.#share.alive(document.instance)) return document;
    return await this.#stop(id, document);
  }

  /**
   * Asks the instance running run `id` (shown by `document`, not finished) to cancel it. With
   * `confirm`, waits for that instance's word (at most `confirmMs`) and reads the run again.
   * When the instance is gone, the run is marked failed: it can no longer be cancelled.
   */
  async cancel(
    id: string,
    document: D,
    options: { confirm?: boolean } = {},
  ): Promise<CancelOutcome<D>> {
    const ask = options.confirm ? crypto.randomUUID() : undefined;
    const confirmed = ask === undefined ? undefined : this.#confirmation(ask);
    let sent: boolean;
    try {
      sent = await this.#share.tell(document.instance, this.#options.topic, {
        id,
        owner: document.owner,
        ...(ask === undefined ? {} : { ask, from: this.#share.instance }),
      });
    } catch (error) {
      confirmed?.stop();
      throw error;
    }
    if (!sent) {
      confirmed?.stop();
      return { sent: false, document: await this.#stop(id, document) };
    }
    if (!confirmed) return { sent: true, document };
    await confirmed.promise;
    return { sent: true, document: await this.read(document.owner, id) ?? document };
  }

  /** Resolves on the confirmation of `ask`, or after `confirmMs`. */
  #confirmation(ask: string): { promise: Promise<void>; stop(): void } {
    const { promise, resolve } = Promise.withResolvers<void>();
    const stop = () => {
      clearTimeout(timer);
      this.#asked.delete(ask);
      resolve();
    };
    const timer = setTimeout(stop, this.#options.confirmMs ?? MIRROR_DEFAULTS.confirmMs);
    Deno.unrefTimer(timer);
    this.#asked.set(ask, stop);
    return { promise, stop };
  }

  /** Marks run `id` failed: the instance running it stopped. */
  async #stop(id: string, document: D): Promise<D> {
    const stopped = this.#options.stopped(document, instanceStopped(this.#options.noun));
    await this.#share.put(this.#options.kind, id, stopped, this.#options.ttlMs);
    return stopped;
  }

  /** Another instance asks this one to cancel a run; it never throws (a store callback). */
  #onCancel(message: unknown): void {
    const { id, owner, ask, from } = (message ?? {}) as Record<string, unknown>;
    if (typeof id !== "string" || typeof owner !== "string") {
      this.#options.onError?.(new Error(`A malformed ${this.#options.topic} message was ignored`));
      return;
    }
    Promise.resolve()
      .then(() => this.#options.cancel(id, owner))
      .then(async () => {
        if (typeof ask !== "string" || typeof from !== "string") return;
        await this.#share.tell(from, `${this.#options.topic}.done`, { ask });
      })
      .catch((error) => this.#options.onError?.(error));
  }
}
