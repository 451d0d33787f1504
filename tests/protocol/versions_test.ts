/**
 * State versions: every change of what a session manifest says raises
 * its `state_version`; the manifest's ETag names it, `If-None-Match` answers 304 while nothing
 * changed, and `If-Match` on an invocation refuses to act on a stale view (409 `stale_state`).
 */
import assert from "node:assert/strict";
import { createUserStore, hashPassword } from "../../bridge/core/login.ts";
import { ONE_PROCESS, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { expectError } from "../helpers/errors.ts";
import { decode as decodeToon } from "@toon-format/toon";

/** A manifest or change document read as `format`. */
function decodeBody(text: string, format: "json" | "toon"): unknown {
  return format === "toon" ? decodeToon(text) : JSON.parse(text);
}

const USERS = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }) },
]);

async function version(bridge: TestBridge, token: string): Promise<number> {
  const res = await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  const body = await res.json();
  assert.equal(res.headers.get("etag"), `"v${body.state_version}"`);
  return body.state_version;
}

Deno.test("state_version increases on each kind of change, and only then", async () => {
  await using bridge = await startBridge({ users: USERS });
  const token = await bridge.openSession("/control-panel");
  const seen = [await version(bridge, token)];
  const step = async (what: string, change: () => Promise<unknown> | unknown) => {
    await change();
    const now = await version(bridge, token);
    assert.ok(now > seen.at(-1)!, `${what}: ${now} after ${seen.at(-1)}`);
    seen.push(now);
  };
  let tab!: FakeTab;
  await step("a tab takes the lease", async () => {
    tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
  });
  await step("the tab registers actions", () => tab.register([{ id: "search", handler: () => 1 }]));
  await step("the tab's state changes", async () => {
    tab.setState({ rows: [1] });
    await tab.register([{ id: "search", handler: () => 1 }]);
  });
  await step("someone signs in", async () => {
    await (await bridge.invoke(token, "login", { username: "alice", password: "wonderland" }))
      .body?.cancel();
  });
  // Reading changes nothing.
  assert.equal(await version(bridge, token), seen.at(-1));
  await step("the tab goes away", () => tab.close());
});

Deno.test("If-None-Match with the current ETag answers 304 with no body, and 200 after a change", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: () => 1 }]);
  for (const format of ["json", "toon"]) {
    const auth = { Authorization: `Bearer ${token}` };
    const first = await bridge.fetch(`/control-panel.${format}`, { headers: auth });
    const etag = first.headers.get("etag")!;
    await first.body?.cancel();
    const again = await bridge.fetch(`/control-panel.${format}`, {
      headers: { ...auth, "If-None-Match": etag },
    });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), "");
    assert.equal(again.headers.get("etag"), etag);
    assert.equal(again.headers.get("cache-control"), "private, no-store");
    assert.equal(again.headers.get("vary"), "Cookie, Authorization");
    tab.setState({ format });
    await tab.register([{ id: "search", handler: () => 1 }]);
    const changed = await bridge.fetch(`/control-panel.${format}`, {
      headers: { ...auth, "If-None-Match": etag },
    });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get("etag"), etag);
    await changed.body?.cancel();
  }
  // Never a 304 for another page's manifest: the session is on /control-panel.
  const other = await bridge.fetch("/orders.json", {
    headers: { Authorization: `Bearer ${token}`, "If-None-Match": "*" },
  });
  assert.equal(other.status, 409);
  assert.equal((await other.json()).error, "page_mismatch");
});

Deno.test("If-Match with a stale state_version answers 409 stale_state and does not run the action", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  let runs = 0;
  await tab.register([{ id: "search", handler: () => ++runs }]);
  const decided = await version(bridge, token);
  // The person changes the page between the agent's read and its invocation.
  tab.setState({ filter: "approved" });
  await tab.register([{ id: "search", handler: () => ++runs }]);
  const stale = await bridge.invoke(token, "search", "x", { "If-Match": `"v${decided}"` });
  assert.equal(stale.status, 409);
  const body = await stale.json();
  assert.equal(body.error, "stale_state");
  assert.equal(body.state_version, await version(bridge, token));
  assert.equal(runs, 0);
  const fresh = await bridge.invoke(token, "search", "x", {
    "If-Match": `"v${await version(bridge, token)}"`,
  });
  assert.equal(fresh.status, 200);
  const answer = await fresh.json();
  assert.equal(runs, 1);
  assert.equal(typeof answer.state_version, "number");
  // Without If-Match, nothing changes; a malformed one is a 400.
  assert.equal((await bridge.invoke(token, "search", "x")).status, 200);
  const bad = await bridge.invoke(token, "search", "x", { "If-Match": "12" });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error, "bad_request");
});

Deno.test("a long poll (Prefer: wait) returns as soon as the state changes, and 304 when it does not in time", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: () => 1 }]);
  const current = await version(bridge, token);
  const poll = (wait: number) =>
    bridge.fetch("/control-panel.json", {
      headers: {
        Authorization: `Bearer ${token}`,
        "If-None-Match": `"v${current}"`,
        Prefer: `wait=${wait}`,
      },
    });
  const quiet = await poll(1);
  assert.equal(quiet.status, 304);
  assert.equal(quiet.headers.get("preference-applied"), "wait=1");
  await quiet.body?.cancel();
  const waiting = poll(30);
  tab.setState({ rows: ["new"] });
  const changed = await waiting;
  assert.equal(changed.status, 200);
  const body = await changed.json();
  assert.deepEqual(body.state.rows, ["new"]);
  assert.ok(body.state_version > current);
});

Deno.test(
  "a change document (merge patch) from a held version gives the new manifest when applied",
  ONE_PROCESS,
  async () => {
    const { applyMergePatch } = await import("../helpers/patches.ts");
    await using bridge = await startBridge();
    const token = await bridge.openSession("/control-panel");
    await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    tab.setState({ rows: [{ id: "a", done: false }, { id: "b", done: false }], filter: "all" });
    await tab.register([{ id: "search", handler: () => 1 }]);
    const auth = { Authorization: `Bearer ${token}` };
    const oldRes = await bridge.fetch("/control-panel.json", { headers: auth });
    const old = await oldRes.json();
    tab.setState({ rows: [{ id: "a", done: true }, { id: "b", done: false }], filter: "all" });
    await tab.register([{ id: "search", handler: () => 1 }]);
    const patchRes = await bridge.fetch("/control-panel.json", {
      headers: {
        ...auth,
        Accept: "application/merge-patch+json",
        "If-None-Match": oldRes.headers.get("etag")!,
      },
    });
    assert.equal(patchRes.status, 200);
    assert.equal(patchRes.headers.get("content-type"), "application/merge-patch+json");
    assert.equal(patchRes.headers.get("aim-patch-from"), oldRes.headers.get("etag"));
    const patch = await patchRes.json();
    assert.equal(patch.filter, undefined, "what did not change is not sent");
    const full = await (await bridge.fetch("/control-panel.json", { headers: auth })).json();
    assert.deepEqual(applyMergePatch(old, patch), full);
    // A version the bridge no longer knows: the whole manifest.
    const unknown = await bridge.fetch("/control-panel.json", {
      headers: { ...auth, Accept: "application/merge-patch+json", "If-None-Match": '"v1"' },
    });
    assert.match(unknown.headers.get("content-type")!, /^application\/json/);
    assert.deepEqual(await unknown.json(), full);
  },
);

Deno.test(
  "a change document (JSON Patch) from a held version says each change at its path and gives the new manifest when applied",
  ONE_PROCESS,
  async () => {
    const { applyJsonPatch } = await import("../helpers/patches.ts");
    await using bridge = await startBridge();
    const token = await bridge.openSession("/control-panel");
    await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    const rows = (done: boolean) => [{ id: "a", done: false }, { id: "b", done }];
    tab.setState({ rows: rows(false), filter: "all" });
    await tab.register([{ id: "search", handler: () => 1 }]);
    const auth = { Authorization: `Bearer ${token}` };
    for (const format of ["json", "toon"] as const) {
      const oldRes = await bridge.fetch(`/control-panel.${format}`, { headers: auth });
      const old = decodeBody(await oldRes.text(), format);
      const etag = oldRes.headers.get("etag")!;
      const before = (old as { state_version: number }).state_version;
      tab.setState({ rows: rows(format === "json"), filter: "all" });
      await tab.register([{ id: "search", handler: () => 1 }]);
      const patchRes = await bridge.fetch(`/control-panel.${format}`, {
        headers: { ...auth, Accept: "application/json-patch+json", "If-None-Match": etag },
      });
      assert.equal(patchRes.status, 200);
      assert.equal(
        patchRes.headers.get("content-type"),
        format === "json"
          ? "application/json-patch+json"
          : 'text/toon; charset=utf-8; profile="json-patch"',
      );
      assert.equal(patchRes.headers.get("aim-patch-from"), etag);
      const patch = decodeBody(await patchRes.text(), format) as { op: string; path: string }[];
      const full = await (await bridge.fetch("/control-panel.json", { headers: auth })).json();
      assert.ok(full.state_version > before);
      assert.deepEqual(
        patch.map((op) => op.path).sort(),
        ["/state/rows/1/done", "/state_version"],
        "one row's field changed, and the version: nothing else is sent",
      );
      assert.deepEqual(applyJsonPatch(old, patch as never), full);
    }
  },
);

Deno.test("the event stream delivers the session's changes in order and resumes from Last-Event-ID", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", handler: () => 1 }]);
  const open = async (lastEventId?: string) => {
    const controller = new AbortController();
    const res = await bridge.fetch("/__aim/events", {
      headers: {
        Authorization: `Bearer ${token}`,
        ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}),
      },
      signal: controller.signal,
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    const next = async (): Promise<{ id: string; event: string; data: string }> => {
      while (!buffer.includes("\n\n")) buffer += (await reader.read()).value ?? "";
      const [block, ...rest] = buffer.split("\n\n");
      buffer = rest.join("\n\n");
      const field = (name: string) =>
        block!.split("\n").find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim() ??
          "";
      if (block!.startsWith(":")) return await next();
      return { id: field("id"), event: field("event"), data: field("data") };
    };
    return { next, close: () => controller.abort() };
  };
  const stream = await open();
  const first = await stream.next();
  assert.equal(first.event, "change");
  tab.setState({ n: 1 });
  const second = await stream.next();
  assert.ok(Number(second.id) > Number(first.id));
  assert.deepEqual(JSON.parse(second.data).state.n, 1);
  stream.close();
  // Resuming from the last id seen: nothing is sent again until something changes.
  const resumed = await open(second.id);
  tab.setState({ n: 2 });
  const third = await resumed.next();
  assert.ok(Number(third.id) > Number(second.id));
  assert.equal(JSON.parse(third.data).state.n, 2);
  resumed.close();
});

Deno.test(
  "a session holds at most 4 waiting requests: the fifth long poll gets 429 with Retry-After",
  ONE_PROCESS,
  async () => {
    await using bridge = await startBridge();
    const token = await bridge.openSession("/control-panel");
    await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    await tab.register([{ id: "search", handler: () => 1 }]);
    const current = await version(bridge, token);
    const controller = new AbortController();
    const poll = () =>
      bridge.fetch("/control-panel.json", {
        headers: {
          Authorization: `Bearer ${token}`,
          "If-None-Match": `"v${current}"`,
          Prefer: "wait=30",
        },
        signal: controller.signal,
      });
    const held = [poll(), poll(), poll(), poll()];
    const session = (await bridge.served.bridge.core.sessions.find(token))!;
    // Held once the bridge counts them; no fixed wait: ask until it does.
    while (session.waiting < 4) await (await bridge.fetch("/sitemap.json")).body?.cancel();
    await expectError(await poll(), 429, "too_many_requests", { "retry-after": "5" });
    // A change answers the held ones, and the place is free again.
    tab.setState({ rows: ["new"] });
    for (const res of await Promise.all(held)) {
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    assert.equal(session.waiting, 0);
    controller.abort();
  },
);
