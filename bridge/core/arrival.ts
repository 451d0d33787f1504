/**
 * One contract for an action that takes the tab elsewhere (a link, a form, a script setting
 * `location`, a single-page app's route): its answer comes once the next page holds the session
 * and has reported its state, says where the tab went (`navigating_to`) and which page now holds
 * the session (`page`, or `null`), and never carries the page left behind as settled. The next
 * page's tab may connect to another instance of a cluster: its arrival then reaches this one
 * through the shared store.
 *
 * @module
 */
import { SECRET_KEY } from "../markup/secrets.ts";
import type { PageCatalog } from "../site/catalog.ts";
import type { Session } from "./session.ts";
import type { SessionStore } from "./sessions.ts";
import type { TabConnection } from "./tab_connection.ts";

/** What the wait for the next page needs from the core. */
export interface ArrivalContext {
  catalog: PageCatalog;
  sessions: SessionStore;
  /** How long the answer waits for the next page, ms. */
  settleTimeoutMs: number;
  /** The page identity of a path with its query (see `--page-query`); null when none. */
  pageOf: (raw: string) => string | null;
}

/** How often a wait reads the shared store again, in case a change's signal was missed, ms. */
const SHARED_POLL_MS = 250;

/** `url` without the query parameters whose names look like secrets (a token, a code…). */
export function withoutSecrets(url: URL): string {
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_KEY.test(name)) url.searchParams.delete(name);
  }
  return url.href;
}

/** Whether a tab other than `from` holds `session` on another instance and reported its state. */
function arrivedElsewhere(session: Session, from: TabConnection): boolean {
  return session.tab.remoteHolder !== "" && session.stateTab !== "" &&
    session.stateTab !== from.id;
}

/**
 * Waits until a tab other than `from` holds the session and has reported its state, here or (with
 * a shared store) on another instance: true then, false after `settleTimeoutMs`.
 */
export async function nextPageArrived(
  ctx: ArrivalContext,
  session: Session,
  from: TabConnection,
): Promise<boolean> {
  const here = session.tab.whenArrived(from, ctx.settleTimeoutMs);
  if (!ctx.sessions.share.shared) return await here;
  const deadline = Date.now() + ctx.settleTimeoutMs;
  let waiting = true;
  const elsewhere = (async () => {
    while (waiting && Date.now() < deadline) {
      if (arrivedElsewhere(session, from)) return true;
      const ms = Math.min(SHARED_POLL_MS, deadline - Date.now());
      // A change another instance signals wakes this copy once it is read again; a signal sent
      // before this instance listened is caught by reading the store itself.
      if (!await session.waitForChange(session.version, ms)) await ctx.sessions.refresh(session);
    }
    return arrivedElsewhere(session, from);
  })();
  const arrived = await new Promise<boolean>((resolve) => {
    here.then((ok) => ok && resolve(true));
    elsewhere.then((ok) => ok && resolve(true), () => {});
    Promise.allSettled([here, elsewhere]).then(() => resolve(false));
  });
  waiting = false;
  return arrived;
}

/**
 * The answer of an action whose tab left for another page (`leaving`): its result with
 * `navigating_to` (the URL, secret-looking query parameters removed; null when the page did not
 * say) and `page`, the page that now holds the session, or null when the tab went to a page that
 * hosts no session here, or did not come within the settle timeout; `settled` is then false.
 */
export async function leftPage(
  ctx: ArrivalContext,
  session: Session,
  from: TabConnection,
  outcome: { result: unknown; settled?: boolean; leaving: "document" | "route" },
): Promise<{ result: Record<string, unknown>; settled: boolean }> {
  const given = outcome.result;
  const result: Record<string, unknown> =
    typeof given === "object" && given !== null && !Array.isArray(given)
      ? { ...given }
      : { value: given };
  const to = typeof result.navigating_to === "string" ? URL.parse(result.navigating_to) : null;
  result.navigating_to = to ? withoutSecrets(to) : null;
  const page = to ? ctx.pageOf(to.pathname + to.search) : null;
  const hosts = page === null ? null : await ctx.catalog.sessionPage(page).catch(() => null);
  if (outcome.leaving === "route") {
    // The `navigate` message came first: the session is on the route's page when it hosts one.
    const moved = hosts !== null && session.tab.holder === from;
    return {
      result: { ...result, page: moved ? session.page : null },
      settled: outcome.settled ?? true,
    };
  }
  // A page of another site, or one that hosts no session here: nothing comes to wait for.
  if (to && !hosts) return { result: { ...result, page: null }, settled: false };
  const arrived = await nextPageArrived(ctx, session, from);
  return { result: { ...result, page: arrived ? session.page : null }, settled: arrived };
}
