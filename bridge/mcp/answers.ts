/**
 * What an MCP agent reads in a tool result's text: the page's state the first time, then only
 * what changed in it since the version this MCP session last told the agent (a JSON Patch on the
 * state, RFC 6902), as `POST /__aim/invoke` answers under `Prefer: return=changes`. The
 * structured content stays the whole answer. Pure functions and one small memory per MCP
 * session, no SDK and no HTTP.
 *
 * @example
 * ```ts
 * import { ToldStates, stateView } from "./answers.ts";
 *
 * const told = new ToldStates();
 * stateView(told, { version: 7, state: { n: 1 } }); // {state_version: 7, state: {n: 1}}
 * stateView(told, { version: 8, state: { n: 2 } });
 * // {state_version: 8, changes_since: 7, changes: [{op: "replace", path: "/n", value: 2}]}
 * ```
 *
 * @module
 */
import { createJsonPatch } from "../wire/json_patch.ts";

/** The state of a session at one version. */
export interface VersionedState {
  /** The session's `state_version`; undefined when the answer has none. */
  version: number | undefined;
  state: Record<string, unknown>;
}

/** What an answer says of the state: whole, or the changes since a version the agent holds. */
export interface StateView {
  state_version?: number;
  /** The whole state, when the agent holds none of it (or not the version it named). */
  state?: Record<string, unknown>;
  /** The version `changes` start from: one the agent was told. */
  changes_since?: number;
  /** A JSON Patch from the state at `changes_since` to the state at `state_version`. */
  changes?: unknown[];
  /** Why the whole state is told when the agent asked for changes. */
  note?: string;
}

/**
 * How many told versions an MCP session keeps, to answer changes since one of them: the last
 * answer's and the one before (each a snapshot the session held, at most `maxStateBytes`).
 */
const KEPT = 2;

/**
 * The states one MCP session told its agent, newest last: the bases of the changes it is told
 * next. Bounded; a version it no longer keeps is answered with the whole state.
 */
export class ToldStates {
  #states = new Map<number, Record<string, unknown>>();

  /** The newest version told, if any. */
  get latest(): number | undefined {
    let latest: number | undefined;
    for (const version of this.#states.keys()) latest = Math.max(latest ?? 0, version);
    return latest;
  }

  /** The state told at `version`, if it is kept. */
  get(version: number): Record<string, unknown> | undefined {
    return this.#states.get(version);
  }

  /** Keeps `state` as told at `version`. */
  remember(version: number, state: Record<string, unknown>): void {
    this.#states.delete(version);
    this.#states.set(version, state);
    while (this.#states.size > KEPT) this.#states.delete(this.#states.keys().next().value!);
  }
}

/** Options of {@linkcode stateView}. */
export interface StateViewOptions {
  /**
   * The version the agent says it holds (the read tool's `since`), or null when it holds none
   * (the whole state). Without it, the newest version this MCP session told the agent, if the
   * state is not older than that.
   */
  since?: number | null;
}

/**
 * The state part of an answer, for an agent that holds the version `since`: the changes since
 * it, or the whole state when it holds none, when `since` is no longer kept, or when `since` is
 * ahead of the state (then `note` says which). The state answered is remembered as told.
 */
export function stateView(
  told: ToldStates,
  now: VersionedState,
  options: StateViewOptions = {},
): StateView {
  const { version, state } = now;
  if (version === undefined) return { state };
  let since = options.since ?? undefined;
  if (options.since === undefined) {
    const latest = told.latest;
    // An answer older than one already told (calls answered out of order) is told whole.
    since = latest !== undefined && latest <= version ? latest : undefined;
  }
  const view = (): StateView => {
    const whole = { state_version: version, state };
    if (since === undefined) return whole;
    if (since > version) {
      return {
        ...whole,
        note: `Version ${since} is ahead of the page's state_version ${version}: ` +
          `this is the whole state at ${version}.`,
      };
    }
    if (since === version) return { state_version: version, changes_since: since, changes: [] };
    const base = told.get(since);
    if (!base) {
      return {
        ...whole,
        note: `Version ${since} is not one this session was told (or no longer kept): ` +
          `this is the whole state at ${version}.`,
      };
    }
    return { state_version: version, changes_since: since, changes: createJsonPatch(base, state) };
  };
  const answer = view();
  told.remember(version, state);
  return answer;
}
