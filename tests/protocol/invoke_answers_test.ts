/**
 * What an invoke answer holds: the state by default, nothing but the
 * result under `Prefer: return=minimal`, what changed in the manifest since the `If-Match`
 * version under `Prefer: return=changes`, and TOON under `Accept: text/toon`.
 */
import assert from "node:assert/strict";
import { decode as decodeToon } from "@toon-format/toon";
import { applyJsonPatch } from "../helpers/patches.ts";
import { ONE_PROCESS, startBridge, type TestBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

const PAGE = "/control-panel";

/** A bridge, a session and a tab on PAGE whose `add` action appends to its `rows` state. */
async function setup(): Promise<{ bridge: TestBridge; token: string; tab: FakeTab }> {
  const bridge = await startBridge();
  const token = await bridge.openSession(PAGE);
  const tab = await FakeTab.open(bridge.origin, { token, page: PAGE });
  await tab.next("lease");
  const rows: string[] = [];
  tab.setState({ rows: [], title: "Rows" });
  tab.stateAfter = () => ({ rows: [...rows], title: "Rows" });
  await tab.register([{
    id: "add",
    handler: (input) => {
      rows.push(String(input));
      return { added: input };
    },
    input_schema: { type: "string" },
    input_example: "x",
  }]);
  return { bridge, token, tab };
}

async function read(bridge: TestBridge, token: string) {
  const res = await bridge.fetch(`${PAGE}.json`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200);
  return await res.json();
}

function invoke(bridge: TestBridge, token: string, input: string, headers: HeadersInit = {}) {
  return bridge.fetch("/__aim/invoke", {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ actionId: "add", input }),
  });
}

Deno.test("an invoke answer holds the state by default, and no Preference-Applied", async () => {
  const { bridge, token, tab } = await setup();
  await using _bridge = bridge;
  await using _tab = tab;
  const res = await invoke(bridge, token, "a");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("preference-applied"), null);
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.match(res.headers.get("content-type")!, /^application\/json/);
  const body = await res.json();
  assert.deepEqual(body.state.rows, ["a"]);
  assert.equal(body.changes, undefined);
});

Deno.test("Prefer: return=minimal answers the result and the version without the state", async () => {
  const { bridge, token, tab } = await setup();
  await using _bridge = bridge;
  await using _tab = tab;
  const res = await invoke(bridge, token, "a", { Prefer: "return=minimal" });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("preference-applied"), "return=minimal");
  const body = await res.json();
  assert.deepEqual(body.result, { added: "a" });
  assert.equal(body.state, undefined);
  assert.equal(typeof body.state_version, "number");
  assert.equal(body.state_version, (await read(bridge, token)).state_version);
});

Deno.test(
  "Prefer: return=changes with If-Match answers a JSON Patch that brings the agent's manifest to the answer's version",
  ONE_PROCESS,
  async () => {
    const { bridge, token, tab } = await setup();
    await using _bridge = bridge;
    await using _tab = tab;
    let held = await read(bridge, token);
    for (const input of ["a", "b", "c"]) {
      const res = await invoke(bridge, token, input, {
        Prefer: "return=changes",
        "If-Match": `"v${held.state_version}"`,
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("preference-applied"), "return=changes");
      const body = await res.json();
      assert.equal(body.state, undefined, "the changes replace the state");
      assert.deepEqual(body.result, { added: input });
      held = applyJsonPatch(held, body.changes) as typeof held;
      const now = await read(bridge, token);
      assert.equal(body.state_version, now.state_version);
      assert.deepEqual(held, now, `after ${input}, the patched manifest is the manifest now`);
      // Only what changed, where it changed: a row added, the version; the actions did not.
      const paths = (body.changes as { path: string }[]).map((op) => op.path);
      assert.ok(paths.every((path) => !path.startsWith("/actions")), paths.join(" "));
      assert.ok(paths.some((path) => path.startsWith("/state/rows")), paths.join(" "));
    }
  },
);

Deno.test("Prefer: return=changes falls back to the state when the bridge does not know the If-Match version's manifest, or without If-Match", async () => {
  const { bridge, token, tab } = await setup();
  await using _bridge = bridge;
  await using _tab = tab;
  // The agent never read the version it names: the bridge has no manifest of it to diff from.
  const version = (await (await invoke(bridge, token, "a")).json()).state_version;
  for (
    const headers of [
      { Prefer: "return=changes", "If-Match": `"v${version}"` },
      { Prefer: "return=changes" },
    ]
  ) {
    const res = await invoke(bridge, token, "b", headers);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("preference-applied"), null);
    const body = await res.json();
    assert.ok(body.state, "the whole state when no change document can be made");
    assert.equal(body.changes, undefined);
  }
});

Deno.test(
  "Prefer: return=changes without If-Match answers the state, and an If-Match on that answer's version then gets changes",
  ONE_PROCESS,
  async () => {
    const { bridge, token, tab } = await setup();
    await using _bridge = bridge;
    await using _tab = tab;
    // The agent never read a manifest: the first answer has the whole state.
    const first = await invoke(bridge, token, "a", { Prefer: "return=changes" });
    assert.equal(first.headers.get("preference-applied"), null);
    const held = await first.json();
    assert.ok(held.state);
    const next = await invoke(bridge, token, "b", {
      Prefer: "return=changes",
      "If-Match": `"v${held.state_version}"`,
    });
    assert.equal(next.status, 200);
    assert.equal(next.headers.get("preference-applied"), "return=changes");
    const body = await next.json();
    assert.equal(body.state, undefined);
    const patched = applyJsonPatch(
      { state_version: held.state_version, state: held.state },
      (body.changes as { path: string }[]).filter((op) =>
        op.path === "/state_version" || op.path.startsWith("/state/")
      ) as never,
    ) as { state: unknown };
    assert.deepEqual(patched.state, (await read(bridge, token)).state);
  },
);

Deno.test("Accept: text/toon answers the invocation in TOON that decodes to the JSON answer", async () => {
  const { bridge, token, tab } = await setup();
  await using _bridge = bridge;
  await using _tab = tab;
  const res = await invoke(bridge, token, "a", { Accept: "text/toon" });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/toon; charset=utf-8");
  const body = decodeToon(await res.text()) as Record<string, unknown>;
  assert.equal(body.ok, true);
  assert.deepEqual(body.result, { added: "a" });
  assert.deepEqual((body.state as { rows: string[] }).rows, ["a"]);
});
