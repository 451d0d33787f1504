/**
 * One contract for an action that takes the tab elsewhere (bridge/core/arrival.ts): its answer
 * says where the tab went without the query's secrets, which page holds the session now (or
 * null), and is settled only once the next page came, here or (with a shared store) on another
 * instance; never for a page that hosts no session here.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type ArrivalContext,
  leftPage,
  nextPageArrived,
  withoutSecrets,
} from "../../bridge/core/arrival.ts";
import type { Session } from "../../bridge/core/session.ts";
import type { TabConnection } from "../../bridge/core/tab_connection.ts";
import { normalizePage } from "../../bridge/site/paths.ts";

Deno.test("withoutSecrets() drops every query parameter whose name looks like a secret, and keeps the rest", () => {
  const url = new URL(
    "https://app.example/next?q=pens&token=t1&access_token=t2&password=p&apiKey=k&api_key=k" +
      "&session_id=s&sessionId=s&otp=1&pin=2&jwt=3&page=2&refreshed_at=5&spin=6#top",
  );
  assert.equal(
    withoutSecrets(url),
    "https://app.example/next?q=pens&page=2&refreshed_at=5&spin=6#top",
  );
  assert.equal(withoutSecrets(new URL("https://app.example/a")), "https://app.example/a");
  assert.equal(
    withoutSecrets(new URL("https://app.example/a?TOKEN=1&Token=2")),
    "https://app.example/a",
    "in any case",
  );
});

/** A tab connection as far as the arrival reads it: its id. */
function tab(id: string): TabConnection {
  return { id } as unknown as TabConnection;
}

interface FakeOptions {
  /** Whether the next page arrives here (`whenArrived`), and when. */
  arrivesHere?: boolean;
  shared?: boolean;
  holder?: TabConnection | null;
  /** Pages that host a session here. */
  hosting?: string[];
  settleTimeoutMs?: number;
}

/** A session and a context as the arrival reads them, recording what it was asked. */
function fake(options: FakeOptions = {}) {
  const asked: string[] = [];
  const session = {
    page: "/next",
    version: 1,
    stateTab: "",
    tab: {
      holder: options.holder ?? null,
      remoteHolder: "",
      whenArrived: (_from: TabConnection, ms: number) => {
        asked.push(`whenArrived ${ms}`);
        return Promise.resolve(options.arrivesHere ?? true);
      },
    },
    waitForChange: (_since: number, _ms: number) => Promise.resolve(false),
  };
  const ctx = {
    catalog: {
      sessionPage: (page: string) => {
        asked.push(`sessionPage ${page}`);
        return Promise.resolve((options.hosting ?? ["/next"]).includes(page) ? { page } : null);
      },
    },
    sessions: {
      share: { shared: options.shared ?? false },
      refresh: () => Promise.resolve(),
    },
    settleTimeoutMs: options.settleTimeoutMs ?? 3000,
    pageOf: (raw: string) => normalizePage(raw.split("?")[0]!),
  };
  return {
    session,
    asSession: session as unknown as Session,
    ctx: ctx as unknown as ArrivalContext,
    asked,
  };
}

Deno.test("leftPage() answers once the next page came, with where the tab went and the page that holds the session", async () => {
  const { asSession, ctx, asked } = fake();
  const left = await leftPage(ctx, asSession, tab("a"), {
    result: { ok: true, navigating_to: "http://127.0.0.1:8000/next?token=x&q=1" },
    leaving: "document",
  });
  assert.deepEqual(left, {
    result: { ok: true, navigating_to: "http://127.0.0.1:8000/next?q=1", page: "/next" },
    settled: true,
  });
  assert.deepEqual(asked, ["sessionPage /next", "whenArrived 3000"]);
});

Deno.test("leftPage() is unsettled with no page when the next page does not come in time", async () => {
  const { asSession, ctx } = fake({ arrivesHere: false });
  const left = await leftPage(ctx, asSession, tab("a"), {
    result: { navigating_to: "http://127.0.0.1:8000/next" },
    leaving: "document",
  });
  assert.deepEqual(left, {
    result: { navigating_to: "http://127.0.0.1:8000/next", page: null },
    settled: false,
  });
});

Deno.test("leftPage() waits for nothing when the tab went to a page that hosts no session here", async () => {
  for (const to of ["http://127.0.0.1:8000/plain", "https://elsewhere.example/x"]) {
    const { asSession, ctx, asked } = fake({ hosting: ["/next"] });
    const left = await leftPage(ctx, asSession, tab("a"), {
      result: { navigating_to: to },
      leaving: "document",
    });
    assert.deepEqual(left, { result: { navigating_to: to, page: null }, settled: false }, to);
    assert.ok(!asked.some((a) => a.startsWith("whenArrived")), `${to}: no wait`);
  }
});

Deno.test("leftPage() wraps a result that is not an object, and reads a navigating_to that is no URL as null", async () => {
  for (
    const [given, wrapped] of [
      ["done", { value: "done" }],
      [[1, 2], { value: [1, 2] }],
      [null, { value: null }],
      [{ navigating_to: "not a url" }, {}],
      [{ navigating_to: 42 }, {}],
    ] as const
  ) {
    const { asSession, ctx } = fake();
    const left = await leftPage(ctx, asSession, tab("a"), { result: given, leaving: "document" });
    assert.deepEqual(left.result, { ...wrapped, navigating_to: null, page: "/next" });
    assert.equal(left.settled, true, "the page said nothing: it waits for the next one");
  }
});

Deno.test("leftPage() for a route change says the page only when the route hosts a session and the tab still holds it", async () => {
  const from = tab("a");
  const route = (options: FakeOptions, settled?: boolean) => {
    const { asSession, ctx } = fake(options);
    return leftPage(ctx, asSession, from, {
      result: { navigating_to: "http://127.0.0.1:8000/next" },
      leaving: "route",
      ...(settled === undefined ? {} : { settled }),
    });
  };
  const at = "http://127.0.0.1:8000/next";
  assert.deepEqual(await route({ holder: from }), {
    result: { navigating_to: at, page: "/next" },
    settled: true,
  });
  assert.deepEqual(await route({ holder: from }, false), {
    result: { navigating_to: at, page: "/next" },
    settled: false,
  });
  assert.deepEqual((await route({ holder: tab("b") })).result.page, null, "another tab holds it");
  assert.deepEqual((await route({ holder: from, hosting: [] })).result.page, null, "no session");
});

Deno.test("nextPageArrived() with a shared store sees the next page arrive on another instance", async () => {
  const from = tab("a");
  const { session, asSession, ctx } = fake({ shared: true, arrivesHere: false });
  session.tab.whenArrived = () => new Promise<boolean>(() => {});
  session.tab.remoteHolder = "instance-b";
  session.stateTab = "a"; // the tab that left reported last: not an arrival
  let waits = 0;
  session.waitForChange = () => {
    waits++;
    if (waits === 2) session.stateTab = "b"; // the next page reported on instance-b
    return Promise.resolve(true);
  };
  assert.equal(await nextPageArrived(ctx, asSession, from), true);
  assert.ok(waits >= 2);
});

Deno.test("nextPageArrived() with a shared store gives up at the settle timeout", async () => {
  const { session, asSession, ctx } = fake({ shared: true, settleTimeoutMs: 60 });
  // Another tab reported state, but no instance holds the lease for it: not an arrival.
  session.stateTab = "b";
  session.tab.whenArrived = (_from, ms) =>
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms));
  let refreshed = 0;
  (ctx.sessions as unknown as { refresh: () => Promise<void> }).refresh = () => {
    refreshed++;
    return Promise.resolve();
  };
  session.waitForChange = (_since, ms) =>
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms));
  assert.equal(await nextPageArrived(ctx, asSession, tab("a")), false);
  assert.ok(refreshed >= 1, "a missed signal is caught by reading the store");
});

Deno.test("nextPageArrived() alone waits only for the next page here", async () => {
  const { session, asSession, ctx } = fake({ arrivesHere: true });
  let waited = false;
  session.waitForChange = () => {
    waited = true;
    return Promise.resolve(false);
  };
  assert.equal(await nextPageArrived(ctx, asSession, tab("a")), true);
  assert.equal(waited, false);
});
