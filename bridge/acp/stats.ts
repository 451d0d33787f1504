/**
 * Per-page invocation figures for ACP's agent `status`: how many invocations reached a
 * page's actions (through ACP or `/__aim/invoke`), how many succeeded, and how long they took.
 *
 * @module
 */
import type { InvocationRecord } from "../core/bridge.ts";
import type { Status } from "./schemas.ts";

interface Totals {
  count: number;
  ok: number;
  ms: number;
}

/** Invocation totals by page, fed by `BridgeCoreOptions.onInvocation`. */
export class InvocationStats {
  readonly #pages = new Map<string, Totals>();

  /** Counts one finished invocation. */
  record(record: Pick<InvocationRecord, "page" | "status" | "durationMs">): void {
    let totals = this.#pages.get(record.page);
    if (!totals) this.#pages.set(record.page, totals = { count: 0, ok: 0, ms: 0 });
    totals.count++;
    if (record.status < 400) totals.ok++;
    totals.ms += record.durationMs;
  }

  /** The ACP `status` of a page, or undefined before its first invocation. */
  status(page: string): Status | undefined {
    const totals = this.#pages.get(page);
    if (!totals || totals.count === 0) return undefined;
    return {
      avg_run_time_seconds: Math.round((totals.ms / totals.count) * 1000) / 1e6,
      success_rate: Math.round((totals.ok / totals.count) * 10_000) / 100,
    };
  }
}
