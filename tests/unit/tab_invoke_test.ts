/**
 * One invocation in the tab (elements/invoke.ts) and the watch on the page while it runs
 * (elements/leaving.ts), imported directly under Deno, whose global scope is an EventTarget as a
 * window is, with a fake `location`: each answer an invocation can end in (a result, declined,
 * a failure cut to 2000 characters, a route the page moved to, a page hidden for good), the
 * person asked only for a consequential action and their prompt withdrawn by a cancel, and each
 * way a `beforeunload` guard speaks. Clicks, forms and the Navigation API in a real page are
 * tests/browser/leaving_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type InvocationMessage, invoke, type InvokingClient } from "../../elements/invoke.ts";
import { guardMessage, type NavigationWatch } from "../../elements/leaving.ts";

/** Where the fake page is: its path and query, as `location` gives them. */
const page = { pathname: "/list", search: "" };
Object.defineProperty(globalThis, "location", {
  configurable: true,
  get: () => ({ ...page, href: `http://127.0.0.1${page.pathname}${page.search}` }),
});

/** A client whose person answers `approves`, and whose action runs `run`. */
function clientOf(
  run: (watch: NavigationWatch) => Promise<unknown> | unknown,
  approves = true,
) {
  const asked: string[] = [];
  let signal: AbortSignal | undefined;
  const client = Object.assign(new EventTarget(), {
    approve: (request: { id: string; actionId: string }, s: AbortSignal, onAsk?: () => void) => {
      asked.push(request.actionId);
      signal = s;
      onAsk?.();
      return Promise.resolve(approves);
    },
    run: async (_actionId: string, _input: unknown, watch: NavigationWatch) => {
      watch.ran = { result: await run(watch), settled: true };
    },
  }) as InvokingClient;
  return { client, asked, signal: () => signal };
}

/** Runs invocation `id` of `actionId`; every message it sent. */
async function run(client: InvokingClient, consequential = false, actionId = "save") {
  const sent: InvocationMessage[] = [];
  await invoke(
    client,
    { type: "invoke", id: "i1", actionId, input: "x", consequential } as never,
    (m) => sent.push(m),
  );
  return sent;
}

Deno.test("invoke() answers an action's result, asking the person only when it is consequential", async () => {
  page.pathname = "/list";
  const plain = clientOf(() => ({ saved: 1 }));
  assert.deepEqual(await run(plain.client), [{
    type: "result",
    id: "i1",
    ok: true,
    result: { saved: 1 },
    settled: true,
  }]);
  assert.deepEqual(plain.asked, []);
  const asked = clientOf(() => null);
  const sent = await run(asked.client, true);
  assert.deepEqual(asked.asked, ["save"]);
  assert.deepEqual(sent, [
    { type: "awaiting", id: "i1", message: "Asking the person." },
    { type: "result", id: "i1", ok: true, result: null, settled: true },
  ]);
});

Deno.test("invoke() answers declined when the person says no, and never runs the action", async () => {
  let ran = false;
  const { client } = clientOf(() => (ran = true), false);
  const sent = await run(client, true, "delete");
  assert.deepEqual(sent.at(-1), {
    type: "result",
    id: "i1",
    ok: false,
    error: { code: "declined", message: 'The person declined "delete".' },
  });
  assert.equal(ran, false);
});

Deno.test("invoke() answers action_failed with the error's message, cut to 2000 characters", async () => {
  for (
    const [thrown, message] of [
      [new Error("boom"), "boom"],
      ["a string", "a string"],
      [new Error("x".repeat(3000)), "x".repeat(2000)],
    ] as const
  ) {
    const { client } = clientOf(() => {
      throw thrown;
    });
    assert.deepEqual(await run(client), [{
      type: "result",
      id: "i1",
      ok: false,
      error: { code: "action_failed", message },
    }]);
  }
});

Deno.test("invoke() withdraws the person's prompt on a cancel of its own id only", async () => {
  const { client, signal } = clientOf(() => null);
  const approve = client.approve.bind(client);
  let seen: AbortSignal | undefined;
  client.approve = (request, s, onAsk) => {
    seen = s;
    client.dispatchEvent(new CustomEvent("cancel", { detail: "other" }));
    assert.equal(s.aborted, false, "another invocation's cancel");
    client.dispatchEvent(new CustomEvent("cancel", { detail: "i1" }));
    return approve(request, s, onAsk);
  };
  await run(client, true);
  assert.equal(seen?.aborted, true);
  assert.equal(signal()?.aborted, true);
});

Deno.test("invoke() says where the action took the page: another route, or a page hidden for good at once", async () => {
  page.pathname = "/list";
  const routed = clientOf(() => {
    page.pathname = "/item/7";
    return { id: 7 };
  });
  assert.deepEqual(await run(routed.client), [{
    type: "result",
    id: "i1",
    ok: true,
    result: { navigating_to: "http://127.0.0.1/item/7", id: 7 },
    settled: true,
    leaving: "route",
  }]);
  page.pathname = "/list";
  const sent: InvocationMessage[] = [];
  const hidden = clientOf(() => {
    hidden.client.dispatchEvent(new Event("pagehide"));
    // Sent already, before the action's own end: the channel closes next.
    assert.equal(sent.length, 1);
    return 5;
  });
  await invoke(
    hidden.client,
    { type: "invoke", id: "i2", actionId: "go", input: "x" } as never,
    (m) => sent.push(m),
  );
  assert.deepEqual(sent[0], {
    type: "result",
    id: "i2",
    ok: true,
    result: { navigating_to: null },
    settled: false,
    leaving: "document",
  });
});

Deno.test("guardMessage() is null without a guard, and the guard's words however it gives them", () => {
  assert.equal(guardMessage(), null);
  const cases: [(e: Event) => void, string][] = [
    [(e) => e.preventDefault(), ""],
    [
      (e) => void ((e as unknown as { returnValue: unknown }).returnValue = "  Unsaved  changes "),
      "Unsaved  changes",
    ],
    [(e) => void ((e as unknown as { returnValue: unknown }).returnValue = false), ""],
  ];
  for (const [listener, expected] of cases) {
    addEventListener("beforeunload", listener);
    try {
      assert.equal(guardMessage(), expected, String(listener));
    } finally {
      removeEventListener("beforeunload", listener);
    }
  }
  const own = globalThis.onbeforeunload;
  globalThis.onbeforeunload = () => "Leave?";
  try {
    assert.equal(guardMessage(), "Leave?");
  } finally {
    globalThis.onbeforeunload = own;
  }
  assert.equal(guardMessage(), null, "the page's own handler is put back");
});
