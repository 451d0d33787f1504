/**
 * Checking the actions a tab registers, within a budget of the bridge's time per session. A new
 * action costs the bridge a check of its `input_schema` (zod's reading of up to 16 KiB, its
 * patterns compiled for RE2, an example made and validated): a millisecond for most, some
 * hundreds for a schema of many distinct patterns, and a tab may register 200 actions a message,
 * dozens of messages a second. So a session's tabs may spend only so much of the bridge's time
 * on actions it has not checked before: a burst, then so much a second (SCHEMA_CHECK_BUDGET),
 * measured as it is spent. Past it, a new action is refused with a reason the page's console
 * shows, and checked when the page registers it again. An action checked before (by any tab: the
 * tabs of one page register the same few) is answered from a cache and costs nothing.
 *
 * @module
 */
import { type ActionSpec, parseActionSpec } from "../input/action_spec.ts";
import { MarkupError } from "../markup/action.ts";
import { BoundedMap } from "../utils/bounded_map.ts";
import type { Rate } from "./channel_budget.ts";

/**
 * The bridge's time a session's tabs may spend on checking actions not checked before, in
 * milliseconds: a page's first registration of 200 actions takes a fraction of the burst, even
 * on a busy machine; what follows is a tenth of a core at most.
 */
export const SCHEMA_CHECK_BUDGET: Readonly<Rate> = { burst: 2000, perSecond: 100 };

/** The declarations whose outcome is kept, at most; and the longest kept, in JSON characters. */
const MAX_CHECKED = 1000;
const MAX_CHECKED_LENGTH = 24 * 1024;

/** Options of {@linkcode SchemaChecks}. */
export interface SchemaChecksOptions {
  /** The budget of each session, in milliseconds of checking; without it, SCHEMA_CHECK_BUDGET. */
  budget?: Readonly<Rate> | undefined;
  /** The clock the budget refills by, ms; without it, `Date.now`. */
  now?: (() => number) | undefined;
  /** The clock a check is timed by, ms; without it, `performance.now`. */
  clock?: (() => number) | undefined;
}

/** The checks of the actions tabs register, and what each session may still spend on them. */
export class SchemaChecks {
  readonly #budget: Readonly<Rate>;
  readonly #now: () => number;
  readonly #clock: () => number;
  /** The outcome of each declaration checked: its action, or why it was refused. */
  readonly #checked = new BoundedMap<string, ActionSpec | string>(MAX_CHECKED);
  readonly #left = new WeakMap<object, { tokens: number; at: number }>();

  constructor(options: SchemaChecksOptions = {}) {
    this.#budget = options.budget ?? SCHEMA_CHECK_BUDGET;
    this.#now = options.now ?? Date.now;
    this.#clock = options.clock ?? (() => performance.now());
  }

  /**
   * The action `declaration` declares, for the session `owner` (a copy: the caller may raise
   * its flags), checked unless it was before, and charged to the owner's budget.
   *
   * @throws {MarkupError} why the declaration is no action, or that the budget is spent.
   */
  check(owner: object, declaration: Record<string, unknown>): ActionSpec {
    const key = JSON.stringify(declaration);
    const known = this.#checked.get(key);
    if (known !== undefined) return outcome(known);
    const now = this.#now();
    const left = this.#left.get(owner) ?? { tokens: this.#budget.burst, at: now };
    left.tokens = Math.min(
      this.#budget.burst,
      left.tokens + Math.max(0, now - left.at) * this.#budget.perSecond / 1000,
    );
    left.at = now;
    this.#left.set(owner, left);
    if (left.tokens <= 0) {
      throw new MarkupError(
        `action "${String(declaration.id)}" was not checked: the page registers actions the ` +
          `bridge has not seen faster than it checks them (${this.#budget.perSecond} ms of ` +
          `checking a second, ${this.#budget.burst} ms at once); it is checked when registered ` +
          "again",
      );
    }
    const started = this.#clock();
    let result: ActionSpec | string;
    try {
      result = parseActionSpec(declaration);
    } catch (error) {
      if (!(error instanceof MarkupError)) throw error;
      result = error.message;
    } finally {
      // What the check took, even where it went past what was left: the next waits for it.
      left.tokens -= Math.max(0, this.#clock() - started);
    }
    if (key.length <= MAX_CHECKED_LENGTH) this.#checked.set(key, result);
    return outcome(result);
  }
}

/** A checked declaration's action (a copy), or its refusal thrown. */
function outcome(result: ActionSpec | string): ActionSpec {
  if (typeof result === "string") throw new MarkupError(result);
  return { ...result };
}
