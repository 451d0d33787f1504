/**
 * Deadlines of one length for many waits, on one timer: the proxy's timeout for each request
 * waiting for the app's headers, and when it starts watching a waiting request's client. A timer
 * per request costs more than the rest of what aim adds to a forwarded page; here a request's
 * wait costs a `Map` entry. The one timer is set for the oldest wait, and when it fires for a
 * wait that is gone it is set again for the oldest left: about once per deadline's length,
 * however many requests come and go. It never holds the process open (`Deno.unrefTimer`); the
 * proxy stops it when it closes.
 *
 * What waits is a small object (the request's `AbortController`), handed to one function the
 * deadlines were made with, not a closure per wait: a closure keeps everything its function's
 * scope holds, and held in this long-lived map it made the collector promote a request's whole
 * state (some 2 KB of every forwarded page, measured), where the object alone costs nothing.
 *
 * @example
 * ```ts
 * import { Deadlines } from "./deadlines.ts";
 *
 * using deadlines = new Deadlines(30_000, (controller: AbortController) => controller.abort());
 * const controller = new AbortController();
 * deadlines.add(controller); // aborted in 30 s, unless
 * deadlines.delete(controller); // the answer came first
 * ```
 *
 * @module
 */

/** Hands each object added to `expire` when its deadline (`ms` after it was added) passes. */
export class Deadlines<T extends object> implements Disposable {
  /** The length of every deadline, ms. */
  readonly ms: number;
  readonly #expire: (item: T) => void;
  /** Each waiting object and when it expires; in the order added, so by deadline. */
  readonly #waiting = new Map<T, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** Deadlines of `ms`, each handing its object to `expire` when it passes. */
  constructor(ms: number, expire: (item: T) => void) {
    this.ms = ms;
    this.#expire = expire;
  }

  /** How many objects wait. */
  get size(): number {
    return this.#waiting.size;
  }

  /** Expires `item` in `ms`, once, unless deleted first. Adding one already waiting restarts it. */
  add(item: T): void {
    this.#waiting.delete(item);
    this.#waiting.set(item, performance.now() + this.ms);
    if (this.#timer === undefined) this.#wake(this.ms);
  }

  /** Withdraws `item` (nothing happens when it is not waiting). */
  delete(item: T): void {
    this.#waiting.delete(item);
  }

  /** Forgets every wait and stops the timer. */
  close(): void {
    this.#waiting.clear();
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #wake(inMs: number): void {
    const timer = setTimeout(this.#fire, inMs);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Expires the objects whose deadline passed, then waits for the oldest left. */
  #fire = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    for (const [item, at] of this.#waiting) {
      if (at > now) break;
      this.#waiting.delete(item);
      this.#expire(item);
    }
    // Expiring may have added a wait, and with it set the timer.
    const next = this.#waiting.values().next();
    if (next.done || this.#timer !== undefined) return;
    this.#wake(Math.max(0, next.value - performance.now()));
  };
}
