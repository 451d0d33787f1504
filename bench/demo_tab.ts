/**
 * The demo's control panel without a browser, for the benchmarks: a fake tab that does
 * what `demo/site/control-panel.html` does. It registers the page's own `<aim-action>`
 * declarations (read from the page's markup, as the elements read them), loads the requests from
 * the demo's real API with its tab key when someone signs in, publishes them in the rows the
 * page's `render()` makes, runs `approve_request`, `reject_request`, `add_comment` and
 * `filter_requests` through the same API, and answers `settled` after reacting to a sign-in or
 * sign-out. Consequential actions run at once: the fake person always confirms.
 *
 * tests/browser/stale_test.ts checks that the real page publishes the same state.
 *
 * @module
 */
import { join } from "node:path";
import { DEMO_SITE } from "../demo/app.ts";
import type { ExpenseRequest } from "../demo/data.ts";
import { scanPage } from "../bridge/site/catalog.ts";
import type { BridgeMessage } from "../bridge/wire/channel.ts";
import { FakeTab, openPageSession } from "../tests/helpers/fake_tab.ts";

/** The page the demo's agent works on. */
export const DEMO_PAGE = "/control-panel";

/** One row of the control panel's `requests` state, as its `render()` makes it. */
export interface PanelRow {
  id: string;
  amount: number;
  currency: string;
  requester: string;
  purpose: string;
  status: string;
  comments: number;
  last_comment: string;
}

/** What the control panel publishes for `requests`: the same mapping as its `render()`. */
export function panelRows(requests: ExpenseRequest[], filter = "all"): PanelRow[] {
  return requests.filter((r) => filter === "all" || r.status === filter).map((r) => {
    const last = r.comments.at(-1);
    const said = last ? `${last.author}: ${last.text}` : "";
    return {
      id: r.id,
      amount: r.amount,
      currency: r.currency,
      requester: r.requester,
      purpose: r.purpose,
      status: r.status,
      comments: r.comments.length,
      last_comment: said.length > 200 ? said.slice(0, 199) + "…" : said,
    };
  });
}

/** The control panel's action declarations, read from its markup as the elements read them. */
export function panelActions(): { id: string; [key: string]: unknown }[] {
  const file = join(DEMO_SITE, "control-panel.html");
  const info = scanPage(Deno.readTextFileSync(file), DEMO_PAGE, "control-panel.html");
  return info.actions.map((spec) => ({ ...spec }));
}

/** A demo session held by a fake control panel. */
export interface DemoTab extends AsyncDisposable {
  /** The session token, as the panel shows it. */
  readonly token: string;
  readonly tab: FakeTab;
  /** The filter the page shows. */
  filter: string;
  /** Publishes the page's state again (after the data changed behind its back). */
  refresh(): Promise<void>;
  /** Picks a filter in the page, as the person would in its select. */
  pick(filter: string): Promise<void>;
  /** Resolves once the bridge has taken everything the tab sent so far. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** Opens a session on the demo's control panel at `origin`, held by a fake control panel. */
export async function openDemoTab(origin: string): Promise<DemoTab> {
  const token = await openPageSession(origin, DEMO_PAGE);
  const tab = await FakeTab.open(origin, { token, page: DEMO_PAGE });
  // The page says it settled once it has reacted (below), not as soon as it is told.
  tab.settle = "manual";
  let tabKey = "";
  let signedIn = false;
  let requests: ExpenseRequest[] = [];
  let beat: ReturnType<typeof setInterval> | undefined;

  const api = async (path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(origin + path, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        "X-Aim-Tab": tabKey,
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(answer.message ?? `${path}: ${res.status}`);
    return answer;
  };
  const state = { filter: "all" };
  const render = () => {
    tab.setState({
      view: "control-panel",
      filter: state.filter,
      requests: panelRows(requests, state.filter) as unknown as Record<string, unknown>[],
    });
    return panelRows(requests, state.filter).length;
  };
  const load = async () => {
    requests = signedIn ? (await api("/api/requests")).requests as ExpenseRequest[] : [];
    return render();
  };
  const decide = (verb: "approve" | "reject") => async (id: unknown) => {
    const { request } = await api(`/api/requests/${encodeURIComponent(String(id))}/${verb}`, {});
    await load();
    const { id: decided, status } = request as ExpenseRequest;
    return { id: decided, status };
  };

  // Session messages: keep the tab key, reload on sign-in and sign-out, then say it settled.
  let reacting = Promise.resolve();
  tab.socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data) as BridgeMessage;
    if (message.type === "lease" && message.status === "granted") {
      clearInterval(beat);
      beat = setInterval(() => {
        if (tab.socket.readyState === WebSocket.OPEN) tab.send({ type: "heartbeat" });
      }, Math.floor(message.leaseMs / 3));
    }
    if (message.type !== "session") return;
    tabKey = message.tabKey;
    const changed = message.authenticated !== signedIn;
    signedIn = message.authenticated;
    reacting = reacting.then(async () => {
      if (changed) await load().catch(() => {});
      if (message.settle) tab.send({ type: "settled", id: message.settle });
    });
  });
  await tab.next("session");
  await reacting;

  tab.handlers.set("approve_request", decide("approve"));
  tab.handlers.set("reject_request", decide("reject"));
  tab.handlers.set("add_comment", async (input) => {
    const { request_id, text } = input as { request_id: string; text: string };
    const { comment } = await api(`/api/requests/${encodeURIComponent(request_id)}/comments`, {
      text,
    });
    await load();
    return { request_id, comment };
  });
  tab.handlers.set("filter_requests", (status) => {
    state.filter = String(status);
    return { filter: state.filter, shown: render() };
  });
  const declarations = panelActions();
  await tab.register(declarations);
  await load();
  // Messages are taken in order: once this registration is answered, the state above is in.
  const sync = async () => void await tab.register(declarations);
  await sync();

  const close = async () => {
    clearInterval(beat);
    await tab.close();
  };
  return {
    token,
    tab,
    get filter() {
      return state.filter;
    },
    set filter(value: string) {
      state.filter = value;
    },
    refresh: async () => void await load(),
    pick: async (filter: string) => {
      state.filter = filter;
      await load();
    },
    sync,
    close,
    [Symbol.asyncDispose]: close,
  };
}
