/**
 * The bridge's side of WebMCP: a tab's `run` message, recorded as from WebMCP with the bridge's
 * own status and the input as it validates it, at most RUN_REPORTS.burst at once, an unknown
 * outcome closing the channel, and an audit log from before such runs opening with them.
 *
 * @module
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { AuditLog } from "../../bridge/audit/log.ts";
import { RUN_REPORTS } from "../../bridge/core/tab_messages.ts";
import { startBridge } from "../helpers/bridge.ts";
import { activity } from "../helpers/webmcp_page.ts";
import { FakeTab, openPageSession } from "../helpers/fake_tab.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test("the bridge records a tab's run report as from WebMCP, with its own status and the input as it validates it", async () => {
  await using bridge = await startBridge();
  const token = await openPageSession(bridge.origin, "/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.register([{
    id: "sign",
    input_schema: {
      type: "object",
      properties: { name: { type: "string" }, password: { type: "string" } },
      additionalProperties: false,
    },
    input_example: { name: "ann" },
  }]);
  const run = { type: "run", via: "webmcp", actionId: "sign", durationMs: 12.345 };
  tab.send({ ...run, input: { name: "ann", password: "hunter2" }, outcome: "declined" });
  // An input that does not pass the registered schema is not kept, whatever the tab says.
  tab.send({ ...run, input: { nick: "x" }, outcome: "ok" });
  // An action the tab never declared is not recorded.
  tab.send({ ...run, actionId: "elsewhere", input: "y", outcome: "action_failed" });
  // A prompt left open for days is recorded as a day, and the channel stays open.
  tab.send({ ...run, outcome: "ok", durationMs: 9 * 24 * 3600 * 1000 });
  // A round trip: the runs before it are recorded by then.
  await tab.register([]);
  const entries = await activity(bridge.origin, token);
  assert.deepEqual(
    entries.map((e) => [e.actionId, e.status, e.outcome, e.via, e.input, e.durationMs]),
    [
      ["sign", 200, "ok", "webmcp", null, 24 * 3600 * 1000],
      ["sign", 200, "ok", "webmcp", null, 12.35],
      ["sign", 403, "declined", "webmcp", { name: "ann" }, 12.35],
    ],
  );
  assert.ok(!JSON.stringify(entries).includes("hunter2"));
  // What a page reports is its word: the public ACP statistics do not count it.
  const agents = await (await bridge.fetch("/agents")).json();
  const panel = agents.agents.find((a: { name: string }) => a.name === "control-panel");
  assert.ok(panel, "the page is an agent");
  assert.equal(panel.status, undefined, JSON.stringify(panel.status));
});

Deno.test("RUN_REPORTS holds the bounds docs/security.md and docs/channel.md state", async () => {
  // The bounds are a documented promise: a change of either number must change the docs too.
  const security = (await Deno.readTextFile("docs/security.md")).replace(/\s+/g, " ");
  const channel = (await Deno.readTextFile("docs/channel.md")).replace(/\s+/g, " ");
  const stated = security.match(/at most (\d+) at once and (\d+) a minute per tab/);
  assert.ok(stated, "docs/security.md states the bounds of run reports");
  assert.deepEqual(
    { burst: Number(stated[1]), perMinute: Number(stated[2]) },
    { burst: RUN_REPORTS.burst, perMinute: RUN_REPORTS.perMinute },
  );
  assert.deepEqual({ ...RUN_REPORTS }, { burst: 30, perMinute: 60 });
  assert.ok(channel.includes(`${RUN_REPORTS.perMinute} a minute per tab`), "docs/channel.md");
});

Deno.test("a tab reports at most RUN_REPORTS.burst runs at once; the rest are dropped, the channel kept", async () => {
  let now = 1_000_000;
  await using bridge = await startBridge({ now: () => now });
  const token = await openPageSession(bridge.origin, "/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.register([{ id: "sign", input_schema: { type: "string" }, input_example: "x" }]);
  const run = { type: "run", via: "webmcp", actionId: "sign", outcome: "ok", durationMs: 1 };
  for (let i = 0; i < RUN_REPORTS.burst + 20; i++) tab.send(run);
  await tab.register([{ id: "sign", input_schema: { type: "string" }, input_example: "x" }]);
  assert.equal((await activity(bridge.origin, token)).length, RUN_REPORTS.burst);
  // The budget refills with time: a minute later, so many more a minute.
  now += 60_000;
  for (let i = 0; i < RUN_REPORTS.perMinute + 5; i++) tab.send(run);
  await tab.register([{ id: "sign", input_schema: { type: "string" }, input_example: "x" }]);
  assert.equal(
    (await activity(bridge.origin, token)).length,
    RUN_REPORTS.burst + Math.min(RUN_REPORTS.burst, RUN_REPORTS.perMinute),
  );
  assert.equal(tab.socket.readyState, WebSocket.OPEN);
});

Deno.test("a run report with an outcome the bridge does not know closes that channel (1008)", async () => {
  await using bridge = await startBridge();
  const token = await openPageSession(bridge.origin, "/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  tab.send({ type: "run", via: "webmcp", actionId: "x", outcome: "teleported", durationMs: 1 });
  const closed = await tab.closed;
  assert.equal(closed.code, 1008);
  assert.match(closed.reason, /malformed message/);
  assert.deepEqual(await activity(bridge.origin, token), []);
});

Deno.test("an audit log written before runs in the browser were recorded opens with them as from the bridge", async () => {
  await using temp = await tempDir("aim-audit-");
  const path = `${temp.path}/audit.sqlite`;
  const old = new DatabaseSync(path);
  old.exec(`CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL,
    session_id TEXT NOT NULL, username TEXT, page TEXT NOT NULL, action_id TEXT NOT NULL,
    input TEXT NOT NULL, status INTEGER NOT NULL, outcome TEXT NOT NULL, duration_ms REAL NOT NULL);
    INSERT INTO audit (at, session_id, username, page, action_id, input, status, outcome, duration_ms)
    VALUES ('${new Date().toISOString()}', 's1', NULL, '/', 'search', '"x"', 200, 'ok', 1);`);
  old.close();
  using audit = new AuditLog(path);
  audit.record({
    at: new Date(),
    sessionId: "s1",
    page: "/",
    username: null,
    actionId: "pay",
    input: "bill-1",
    status: 200,
    outcome: "ok",
    durationMs: 2,
    via: "webmcp",
  });
  assert.deepEqual(audit.forSession("s1").map((e) => [e.actionId, e.via]), [
    ["pay", "webmcp"],
    ["search", "bridge"],
  ]);
});
