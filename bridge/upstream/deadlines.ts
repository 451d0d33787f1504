/**
 * Deadlines of one length for many waits, on one timer: the proxy's timeout for each request
 * waiting for the app's headers, and when it starts watching a waiting request's client. A timer
 * per request costs more than the rest of what aim adds to a forwarded page; here a request's
 * wait costs a `Map` entry. The one timer is set for the oldest wait, and when it fires for a
 * wait that is gone it is set again for the oldest left: about once per deadline's length,
 * however many requests come and go. It never holds the process open (`Deno.unrefTimer`); the
 * proxy stops it when it closes.
 *
 * @example
 * ```ts
 * import { Deadlines } from "./deadlines.ts";
 *
 * using deadlines = new Deadlines(30_000);
 * const expire = () => console.log("the app took too long");
 * deadlines.add(expire); // called in 30 s, unless
 * deadlines.delete(expire); // the answer came first
 * ```
 *
 * @module
 */

/** Calls each callback added when its deadline (`ms` after it was added) passes, unless deleted. */
export class Deadlines implements Disposable {
  /** The length of every deadline, ms. */
  readonly ms: number;
  /** Each waiting callback and when it expires; in the order added, so by deadline. */
  readonly #waiting = new Map<() => void, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(ms: number) {
    this.ms = ms;
  }

  /** How many callbacks wait. */
  get size(): number {
    return this.#waiting.size;
  }

  /** Calls `expire` in `ms`, once, unless deleted first. Adding one already waiting restarts it. */
  add(expire: () => void): void {
    this.#waiting.delete(expire);
    this.#waiting.set(expire, performance.now() + this.ms);
    if (this.#timer === undefined) this.#wake(this.ms);
  }

  /** Withdraws `expire` (nothing happens when it is not waiting). */
  delete(expire: () => void): void {
    this.#waiting.delete(expire);
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

  /** Calls the callbacks whose deadline passed, then waits for the oldest left. */
  #fire = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    for (const [expire, at] of this.#waiting) {
      if (at > now) break;
      this.#waiting.delete(expire);
      expire();
    }
    // A callback may have added a wait, and with it set the timer.
    const next = this.#waiting.values().next();
    if (next.done || this.#timer !== undefined) return;
    this.#wake(Math.max(0, next.value - performance.now()));
  };
}
