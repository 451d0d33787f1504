/**
 * RelayQueue: the invocations a session's tab channel relays to the tab that holds its lease,
 * one at a time in the order asked, each within its time, cancelled, withdrawn or failed as a
 * whole when the page, the identity or the tab changes.
 *
 * @module
 */
import { INVOKE_CREDIT } from "./channel_budget.ts";
import {
  IDENTITY_CHANGED,
  type Pending,
  type RelayOptions,
  type TabConnection,
  type TabOutcome,
} from "./tab_connection.ts";

/** What a {@linkcode RelayQueue} needs of its channel. */
export interface RelayQueueOptions {
  /** The tab that runs invocations: the lease's holder here, or null. */
  holder: () => TabConnection | null;
  /** Invocations queued or running at once; more are refused 429. */
  maxQueue: number;
  /** How long an invocation waits for the tab's answer, queued time included, ms. */
  tabTimeoutMs: number;
  /** How long it waits once the tab says it asks the person, ms. */
  confirmTimeoutMs: number;
  /** The clock, ms. */
  now: () => number;
}

/** What one relayed invocation asks of the tab. */
export interface RelayRequest {
  /** The action. */
  actionId: string;
  /** Its input, checked against the action's schema. */
  input: unknown;
  /** Whether the person is asked before it runs. */
  consequential: boolean;
}

/** The invocations of one session on their way to its tab. */
export class RelayQueue {
  readonly maxQueue: number;
  readonly tabTimeoutMs: number;
  readonly confirmTimeoutMs: number;
  #queue: Pending[] = [];
  #current: Pending | null = null;
  readonly #holder: () => TabConnection | null;
  readonly #now: () => number;

  constructor(options: RelayQueueOptions) {
    this.#holder = options.holder;
    this.#now = options.now;
    this.maxQueue = options.maxQueue;
    this.tabTimeoutMs = options.tabTimeoutMs;
    this.confirmTimeoutMs = options.confirmTimeoutMs;
  }

  /** Invocations queued or running. */
  get size(): number {
    return this.#queue.length + (this.#current ? 1 : 0);
  }

  /** Queues one invocation for the holder; answers are in queue order, one at a time. */
  relay(request: RelayRequest, options: RelayOptions = {}): Promise<TabOutcome> {
    if (this.size >= this.maxQueue) {
      return Promise.resolve({
        ok: false,
        code: "too_many_requests",
        message:
          `At most ${this.maxQueue} invocations may wait for the tab at once; retry when one has answered.`,
      });
    }
    return new Promise((resolve) => {
      const pending: Pending = { id: crypto.randomUUID(), ...request, options, resolve };
      options.signal?.addEventListener("abort", () => this.#cancel(pending), { once: true });
      // The time counts from now: waiting behind another invocation is part of it.
      this.#startTimer(pending, Math.min(options.timeoutMs ?? Infinity, this.tabTimeoutMs));
      this.#queue.push(pending);
      this.#pump();
    });
  }

  /** Answers every queued invocation (not the one at the tab) `cancelled`, saying why. */
  cancelQueued(message: string): void {
    for (const pending of this.#queue.splice(0)) {
      clearTimeout(pending.timer);
      pending.resolve({ ok: false, code: "cancelled", message });
    }
  }

  /** Drops a queued invocation, or tells the tab to withdraw the one it runs. */
  #cancel(pending: Pending): void {
    if (!this.#queue.includes(pending) && this.#current !== pending) return;
    this.#withdraw(pending);
    this.#finish(pending, {
      ok: false,
      code: "cancelled",
      message: "The invocation was cancelled before the page answered.",
    });
  }

  /**
   * Withdraws every protected invocation, queued or at the tab (whose prompt is withdrawn): the
   * session signed in or out, and what one identity allowed is never run for another, nor for
   * none. Each is answered `cancelled` ({@linkcode IDENTITY_CHANGED}).
   */
  withdrawProtected(): void {
    const outcome: TabOutcome = { ok: false, code: "cancelled", message: IDENTITY_CHANGED };
    const queued = this.#queue.filter((pending) => pending.options.protected);
    // Out of the queue first: the one at the tab, once withdrawn, makes room for the next.
    this.#queue = this.#queue.filter((pending) => !pending.options.protected);
    for (const pending of queued) {
      clearTimeout(pending.timer);
      pending.resolve(outcome);
    }
    const current = this.#current;
    if (current?.options.protected) {
      this.#withdraw(current);
      this.#finish(current, outcome);
    }
  }

  /** Tells the tab to forget an invocation the bridge no longer waits for (a pending prompt). */
  #withdraw(pending: Pending): void {
    if (this.#current === pending) this.#holder()?.port.send({ type: "cancel", id: pending.id });
  }

  /** The tab answered invocation `id`. Returns false when it is not the one at the tab. */
  answer(id: string, outcome: TabOutcome): boolean {
    const current = this.#current;
    if (!current || current.id !== id) return false;
    this.#finish(current, outcome);
    return true;
  }

  /** The tab says invocation `id` waits for the person. Returns false when nothing matches. */
  awaiting(id: string, message: string): boolean {
    const current = this.#current;
    if (!current || current.id !== id) return false;
    this.#startTimer(current, this.confirmTimeoutMs);
    current.options.onAwaiting?.(message);
    return true;
  }

  #startTimer(pending: Pending, ms: number): void {
    clearTimeout(pending.timer);
    pending.deadline = this.#now() + ms;
    pending.timeoutMs = ms;
    pending.timer = setTimeout(() => this.#timeout(pending), ms);
  }

  #timeout(pending: Pending): void {
    this.#withdraw(pending);
    this.#finish(pending, {
      ok: false,
      code: "tab_timeout",
      message: `The tab did not answer within ${pending.timeoutMs} ms; the action may still run.`,
    });
  }

  #finish(pending: Pending, outcome: TabOutcome): void {
    clearTimeout(pending.timer);
    if (this.#current === pending) this.#current = null;
    const queued = this.#queue.indexOf(pending);
    if (queued >= 0) this.#queue.splice(queued, 1);
    pending.resolve(outcome);
    this.#pump();
  }

  #pump(): void {
    const holder = this.#holder();
    if (this.#current || !holder) return;
    const next = this.#queue[0];
    if (!next) return;
    // Out of time already (its timer is due in this same turn): never hand it to the tab.
    if (next.deadline !== undefined && this.#now() >= next.deadline) return this.#timeout(next);
    this.#queue.shift();
    this.#current = next;
    holder.credit = { ...INVOKE_CREDIT };
    holder.port.send({
      type: "invoke",
      id: next.id,
      actionId: next.actionId,
      input: next.input as string,
      consequential: next.consequential,
    });
  }

  /** The tab is gone: every invocation, queued or at the tab, fails with `message`. */
  failAll(message: string): void {
    const all = [...(this.#current ? [this.#current] : []), ...this.#queue];
    this.#current = null;
    this.#queue = [];
    for (const pending of all) {
      clearTimeout(pending.timer);
      pending.resolve({ ok: false, code: "browser_not_connected", message });
    }
  }
}
