/**
 * Finding 8 (sessions and memory): a flood of mints cannot lock real pages out, sessions no tab
 * bound and nobody used go away within minutes, one client address holds a bounded number of
 * them, and what a session keeps for idempotent retries is bounded in bytes.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { AuditLog } from "../../bridge/mod.ts";
import { startBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab, openPageSession } from "../helpers/fake_tab.ts";
import { tempDir } from "../helpers/temp.ts";

async function status(res: Response): Promise<number> {
  await res.body?.cancel();
  return res.status;
}

Deno.test("a flood of mints on a full bridge sheds unused sessions, never a real page's", async () => {
  await using bridge = await startBridge({ maxSessions: 20 });
  const real = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token: real, page: "/control-panel" });
  await tab.next("lease");
  const agent = await bridge.openSession("/control-panel");
  const read = (token: string) =>
    bridge.fetch("/control-panel.json", { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(await status(await read(agent)), 200);
  for (let i = 0; i < 200; i++) await bridge.openSession("/control-panel");
  // During and after the flood: the bound and the used sessions live, and a new page gets in.
  assert.equal(await status(await read(real)), 200);
  assert.equal(await status(await read(agent)), 200);
  const late = await openPageSession(bridge.origin, "/control-panel");
  await using lateTab = await FakeTab.open(bridge.origin, { token: late, page: "/control-panel" });
  assert.equal((await lateTab.next("lease")).status, "granted");
  assert.ok(bridge.served.bridge.core.sessions.size <= 20);
});

Deno.test("a session no tab bound and nobody used expires within minutes; one in use lasts", async () => {
  let now = Date.now();
  await using bridge = await startBridge({ now: () => now, freshIdleMs: 120_000 });
  const unused = await bridge.openSession("/control-panel");
  const used = await bridge.openSession("/control-panel");
  const read = (token: string) =>
    bridge.fetch("/control-panel.json", { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(await status(await read(used)), 200);
  now += 121_000;
  assert.equal(await status(await read(unused)), 401);
  assert.equal(await status(await read(used)), 200);
});

Deno.test("one client address holds a bounded number of unused sessions, its oldest going first", async () => {
  await using bridge = await startBridge({ maxFreshPerClient: 5 });
  const tokens: string[] = [];
  for (let i = 0; i < 8; i++) tokens.push(await bridge.openSession("/control-panel"));
  const alive = await Promise.all(
    tokens.map(async (token) =>
      await status(
        await bridge.fetch("/control-panel.json", {
          headers: { Authorization: `Bearer ${token}` },
        }),
      ) === 200
    ),
  );
  assert.deepEqual(alive, [false, false, false, true, true, true, true, true]);
  assert.equal(bridge.served.bridge.core.sessions.freshCount, 0);
});

Deno.test("idempotent answers are kept within a byte budget; a retry past it is refused, never run again", async () => {
  await using bridge = await startBridge({ maxIdempotencyBytes: 50_000 });
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  let runs = 0;
  await tab.register([{
    id: "search",
    handler: () => ({ run: ++runs, blob: "x".repeat(20_000) }),
  }]);
  const call = (key: string) => bridge.invoke(token, "search", "q", { "Idempotency-Key": key });
  for (const key of ["a", "b", "c", "d"]) assert.equal(await status(await call(key)), 200);
  assert.equal(runs, 4);
  const session = (await bridge.served.bridge.core.sessions.find(token))!;
  assert.ok(session.idempotencyBytes <= 50_000, String(session.idempotencyBytes));
  // The newest answer is still there; the oldest was dropped: refused, and not run again.
  const kept = await call("d");
  assert.equal((await kept.json()).result.run, 4);
  await expectError(await call("a"), 409, "idempotency_key_expired");
  assert.equal(runs, 4);
});

/** An audit entry of session "s" at `at`. */
const entry = (at: number) => ({
  at: new Date(at),
  sessionId: "s",
  page: "/",
  username: null,
  actionId: "search",
  input: "x",
  status: 200,
  outcome: "ok",
  durationMs: 1,
});

Deno.test("the audit log deletes entries older than its retention", () => {
  let now = Date.parse("2026-01-01T00:00:00Z");
  using audit = new AuditLog(":memory:", { retentionDays: 30, now: () => now });
  audit.record(entry(now - 40 * 86_400_000));
  audit.record(entry(now - 10 * 86_400_000));
  assert.equal(audit.prune(), 1);
  assert.equal(audit.forSession("s").length, 1);
  now += 25 * 86_400_000;
  assert.equal(audit.prune(), 1);
  assert.equal(audit.forSession("s").length, 0);
  assert.throws(() => new AuditLog(":memory:", { retentionDays: 0 }), RangeError);
});

Deno.test("an audit log opened over entries past its retention deletes them at once", async () => {
  await using dir = await tempDir("aim-audit-");
  const file = `${dir.path}/audit.sqlite`;
  let now = Date.parse("2026-01-01T00:00:00Z");
  {
    using audit = new AuditLog(file, { retentionDays: 30, now: () => now });
    audit.record(entry(now - 10 * 86_400_000));
    audit.record(entry(now));
  }
  // 25 days later, the first entry is 35 days old: gone as soon as the log opens.
  now += 25 * 86_400_000;
  using reopened = new AuditLog(file, { retentionDays: 30, now: () => now });
  assert.equal(reopened.forSession("s").length, 1);
});

Deno.test("an audit entry is written once the event loop turns, after the answer, with no read or close", async () => {
  await using dir = await tempDir("aim-audit-");
  const file = `${dir.path}/audit.sqlite`;
  using audit = new AuditLog(file);
  using reader = new DatabaseSync(file);
  const written = () => Number(reader.prepare("SELECT count(*) AS n FROM audit").get()!.n);
  audit.record(entry(Date.now()));
  audit.record(entry(Date.now()));
  // Not on the answer's path: the bridge answers the agent in this turn.
  assert.equal(written(), 0);
  // Timers of the same delay run in order: the log's own is first.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(written(), 2);
});

Deno.test("audit entries that cannot be written are reported, kept, and written with the next ones", async () => {
  await using dir = await tempDir("aim-audit-");
  const file = `${dir.path}/audit.sqlite`;
  const errors: unknown[] = [];
  using audit = new AuditLog(file, { onError: (error) => errors.push(error) });
  using other = new DatabaseSync(file);
  const turn = () => new Promise((resolve) => setTimeout(resolve, 0));
  // The table goes away under the log, as a full disk would make every write fail.
  other.exec("ALTER TABLE audit RENAME TO away");
  audit.record(entry(Date.now()));
  await turn();
  assert.equal(errors.length, 1);
  other.exec("ALTER TABLE away RENAME TO audit");
  audit.record(entry(Date.now()));
  await turn();
  assert.equal(errors.length, 1);
  assert.equal(Number(other.prepare("SELECT count(*) AS n FROM audit").get()!.n), 2);
});

/** A refused call of `session` from `client` at `at`. */
const refused = (at: number, session: string, client: string) => ({
  ...entry(at),
  sessionId: session,
  client,
  actionId: "no_such_action",
  input: null,
  status: 404,
  outcome: "unknown_action",
});

Deno.test("refused calls past 20 a minute per session are counted in one audit entry, not written one by one", () => {
  let now = Date.parse("2026-01-01T00:00:00Z");
  using audit = new AuditLog(":memory:", { now: () => now });
  for (let i = 0; i < 5_000; i++) audit.record(refused(now, "s", "203.0.113.7"));
  assert.equal(audit.forSession("s").length, 20);
  // A minute later, the session's next entry is preceded by the count of those left out.
  now += 60_000;
  audit.record(entry(now));
  const [ok, counted] = audit.forSession("s", 2);
  assert.equal(ok?.outcome, "ok");
  assert.equal(counted?.actionId, "(refused calls)");
  assert.equal(counted?.outcome, "not_recorded");
  assert.deepEqual(counted?.input, { count: 4_980, since: "2026-01-01T00:00:00.000Z" });
  assert.equal(audit.forSession("s", 1_000).length, 22);
});

Deno.test("refused calls from one client address over many sessions are bounded too", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  using audit = new AuditLog(":memory:", { now: () => now });
  for (let s = 0; s < 50; s++) {
    for (let i = 0; i < 20; i++) audit.record(refused(now, `s${s}`, "203.0.113.7"));
  }
  let written = 0;
  for (let s = 0; s < 50; s++) written += audit.forSession(`s${s}`).length;
  assert.equal(written, 100);
  // Another address, and calls that were not refused, are written as before.
  audit.record(refused(now, "other", "198.51.100.2"));
  audit.record(entry(now));
  assert.equal(audit.forSession("other").length, 1);
  assert.equal(audit.forSession("s").length, 1);
});

Deno.test("a flood of refused invocations over HTTP writes a bounded audit log, per session and per client", async () => {
  await using bridge = await startBridge();
  const { core, audit } = bridge.served.bridge;
  let written = 0;
  for (let s = 0; s < 6; s++) {
    const token = await bridge.openSession("/control-panel");
    const calls = s === 0 ? 30 : 20;
    for (let i = 0; i < calls; i++) {
      assert.equal(await status(await bridge.invoke(token, "no_such_action", "x")), 404);
    }
    const session = (await core.sessions.find(token))!;
    const kept = audit.forSession(session.id, 1_000).length;
    if (s === 0) assert.equal(kept, 20, "20 a minute per session");
    written += kept;
  }
  assert.equal(written, 100, "100 a minute per client address");
});
