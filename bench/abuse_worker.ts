/**
 * Runs one attack of bench/abuse_attacks.ts in a worker of its own, so that what the attack
 * costs the benchmark's own event loop never counts in the other session's times. Messages in:
 * `{type: "start", name, origin, concurrency}`, then `{type: "stop"}`; out: `{summary}` once
 * the attack has ended.
 *
 * @module
 */
import { ATTACKS } from "./abuse_attacks.ts";

/** What the benchmark tells the worker. */
export type WorkerCommand =
  | { type: "start"; name: string; origin: string; concurrency: number }
  | { type: "stop" };

const controller = new AbortController();
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<WorkerCommand>) => void) | null;
  postMessage(message: { summary: string }): void;
};
scope.onmessage = async ({ data }) => {
  if (data.type === "stop") return controller.abort();
  const attack = ATTACKS[data.name]!({ concurrency: data.concurrency });
  let summary: string;
  try {
    summary = await attack(data.origin, controller.signal);
  } catch (error) {
    summary = `the attack failed: ${error instanceof Error ? error.message : error}`;
  }
  scope.postMessage({ summary });
};
