/**
 * What other bridge instances read of ACP runs and sessions in the shared store.
 *
 * @module
 */
import { jsonBytes, type RunProblem } from "../runs/run.ts";
import type { SharedRun } from "../runs/shared.ts";
import { runError } from "./errors.ts";
import type { Event, Run } from "./schemas.ts";
import { type AcpRun, iso } from "./run.ts";

/** What other bridge instances read of a run: its view, and its events unless too large. */
export interface SharedAcpRun extends SharedRun {
  view: Run;
  /** Null when the events take more than a run may keep: only the view is mirrored. */
  events: Event[] | null;
}

/** What other bridge instances read of an ACP session: the runs of it, on any instance. */
export interface SharedSession {
  owner: string;
  runs: string[];
}

/** The shared document of `run`: its view, and its events when they fit in `maxBytes`. */
export function sharedRun(run: AcpRun, instance: string, maxBytes: number): SharedAcpRun {
  const view = run.view();
  const events = run.events();
  // Events repeat the answer (message.part, message.completed, run.completed): as JSON they may
  // take several times what the run keeps in memory, where they share it.
  const fits = jsonBytes(view) + jsonBytes(events) <= maxBytes;
  return { owner: run.ownerId, instance, view, events: fits ? events : null };
}

/** The shared document of a run that can no longer finish: failed with `problem`. */
export function stoppedRun(doc: SharedAcpRun, problem: RunProblem, now: number): SharedAcpRun {
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

/** Whether a value read from the store is a shared ACP session. */
export function isSharedSession(value: unknown): value is SharedSession {
  const doc = value as Partial<SharedSession> | null;
  return typeof doc === "object" && doc !== null && typeof doc.owner === "string" &&
    Array.isArray(doc.runs) && doc.runs.every((id) => typeof id === "string");
}
