/**
 * The work a page declares for one invocation (`waitUntil`).
 *
 * @module
 */
import { warn } from "./warnings.ts";

/**
 * Declares work the page started for an invocation or a session change (a load, a render):
 * the agent's answer waits for the promise, so that its state is the one after.
 */
export type WaitUntil = (work: unknown) => void;

export type Timer = ReturnType<typeof setTimeout> | undefined;

/**
 * The work a page declares it started for one invocation or session change, through
 * `waitUntil`: the agent's answer waits for it, within the bridge's settle timeout.
 */
export class Work {
  readonly #all: Promise<unknown>[] = [];

  /** Declares one piece of work; a rejection ends it as well (the console says so). */
  readonly waitUntil: WaitUntil = (work) => {
    this.#all.push(
      Promise.resolve(work).catch((error) => warn("wait-until-failed", [error])),
    );
  };

  /**
   * Waits for the declared work (and work declared meanwhile), then lets the page render:
   * microtasks, and a frame when it declared work and shows. False when `ms` ran out first.
   */
  async done(ms?: number): Promise<boolean> {
    let timer: Timer;
    const late = new Promise<boolean>((resolve) => {
      if (ms !== undefined) timer = setTimeout(resolve, ms, false);
    });
    let settled = true;
    for (let seen = -1; settled && seen < this.#all.length;) {
      seen = this.#all.length;
      settled = await Promise.race([Promise.all(this.#all).then(() => true), late]);
    }
    // A hidden page renders nothing (and its timers are slowed down): no frame to wait for.
    if (settled && this.#all.length && !document.hidden) {
      settled = await Promise.race([
        new Promise<boolean>((resolve) => requestAnimationFrame(() => resolve(true))),
        late,
      ]);
    }
    clearTimeout(timer);
    // Renders that follow (Lit, frameworks) run as microtasks; let them land.
    await null;
    await null;
    return settled;
  }
}
