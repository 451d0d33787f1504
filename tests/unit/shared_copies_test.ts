/**
 * This process's copies of the sessions a shared store holds (bridge/core/shared_copies.ts),
 * imported directly with a fake store and host and the real session and index: a copy made from
 * the store's record (held fresh or in use), brought in line with each field a record changes
 * (identity, credential, tab key, state, holder), ended when the store no longer has it, each
 * signal of another instance, a change shared with its version, and a session ended by its hash.
 *
 * @module
 */
import assert from "node:assert/strict";
import { sessionRecord, SharedCopies } from "../../bridge/core/shared_copies.ts";
import { Session } from "../../bridge/core/session.ts";
import { SessionIndex } from "../../bridge/core/session_index.ts";
import type { SessionRecord, SessionShare, SessionSignal } from "../../bridge/share/share.ts";

const RECORD: SessionRecord = {
  id: "s1",
  page: "/list",
  client: "10.0.0.1",
  createdAt: 100,
  identity: null,
  credentialHash: "cred-1",
  tabKeyHash: "key-1",
  version: 3,
  state: { items: [1] },
  actions: [],
  holder: "",
  stateTab: "",
  inUse: false,
};

/** One turn of the event loop: the fake store's answers are promises settled already. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A fake store of one record per hash, and a host that says what it was told. */
function setup() {
  const records = new Map<string, SessionRecord>();
  const told: string[] = [];
  const watchers = new Map<string, (signal: SessionSignal) => void>();
  let version = 10;
  const share = {
    instance: "me",
    load: (hash: string) => Promise.resolve(records.get(hash) ?? null),
    watch: (id: string, handler: (signal: SessionSignal) => void) => {
      watchers.set(id, handler);
      return () => watchers.delete(id);
    },
    update: (hash: string, part: Partial<SessionRecord>) => {
      const record = records.get(hash);
      if (!record) return Promise.resolve(0);
      records.set(hash, { ...record, ...part, version: ++version });
      return Promise.resolve(version);
    },
    signal: (
      id: string,
      signal: SessionSignal,
    ) => (told.push(`signal ${id} ${JSON.stringify(signal)}`), Promise.resolve()),
    remove: (
      hash: string,
      _record: SessionRecord,
      reason: string,
    ) => (told.push(`remove ${hash} ${reason}`), records.delete(hash), Promise.resolve()),
  } as unknown as SessionShare;
  const index = new SessionIndex();
  const host = {
    share,
    index,
    idleMs: 60_000,
    channel: {},
    now: () => 5000,
    adopt: (
      s: Session,
      fresh: boolean,
    ) => (index.add(s), told.push(`adopt ${s.id} ${fresh ? "fresh" : "used"}`)),
    inUse: (s: Session) => void told.push(`inUse ${s.id}`),
    end: (s: Session, reason: string, options?: { shared?: boolean }) =>
      void told.push(`end ${s.id} ${reason}${options?.shared === false ? " here" : ""}`),
    quiet: (e: unknown) => void told.push(`quiet ${e}`),
  };
  return { copies: new SharedCopies(host), records, told, watchers, index };
}

Deno.test("lookup() makes a copy from the store's record, held fresh unless in use, and the same copy after", async () => {
  const { copies, records, told } = setup();
  assert.equal(await copies.lookup(null), undefined);
  assert.equal(await copies.lookup("h-none"), undefined);
  records.set("h1", RECORD);
  const copy = (await copies.lookup("h1"))!;
  assert.deepEqual(
    [
      copy.id,
      copy.page,
      copy.client,
      copy.version,
      copy.credentialHash,
      copy.tabKeyHash,
      copy.copiedAt,
    ],
    ["s1", "/list", "10.0.0.1", 3, "cred-1", "key-1", 5000],
  );
  assert.deepEqual(copy.tab.lastState, { items: [1] });
  assert.equal(await copies.lookup("h1"), copy, "one copy per session");
  records.set("h2", { ...RECORD, id: "s2", inUse: true });
  await copies.lookup("h2");
  assert.deepEqual(told, ["adopt s1 fresh", "adopt s2 used", "inUse s2"]);
});

Deno.test("lookup() ends this process's copy only when the store no longer has the session", async () => {
  const { copies, records, told } = setup();
  records.set("h1", RECORD);
  await copies.lookup("h1");
  records.delete("h1");
  assert.equal(await copies.lookup("h1"), undefined);
  assert.deepEqual(told.at(-1), "end s1 expired here");
});

Deno.test("refresh() brings a copy in line with each field another instance changed", async () => {
  const { copies, records, index } = setup();
  records.set("h1", RECORD);
  const copy = (await copies.lookup("h1"))!;
  copy.tabKey = "the-key-itself";
  records.set("h1", {
    ...RECORD,
    page: "/item",
    identity: { username: "alice" },
    credentialHash: "cred-2",
    tabKeyHash: "key-2",
    version: 7,
    state: { items: [2] },
    holder: "other",
    stateTab: "tab-9",
  });
  await copies.refresh(copy);
  assert.deepEqual([copy.page, copy.identity, copy.version, copy.stateTab], [
    "/item",
    { username: "alice" },
    7,
    "tab-9",
  ]);
  assert.equal(index.byCredential("cred-2"), copy, "found by its new credential");
  assert.equal(index.byCredential("cred-1"), undefined, "not by the old one");
  assert.equal(index.byTabKey("key-2"), copy);
  assert.equal(copy.tabKey, "", "this instance no longer knows the new key itself");
  assert.deepEqual(copy.tab.lastState, { items: [2] });
  assert.equal(copy.tab.remoteHolder, "other");
  records.set("h1", { ...RECORD, version: 8, holder: "me" });
  await copies.refresh(copy);
  assert.equal(copy.tab.remoteHolder, "", "this instance's own hold is no remote one");
});

Deno.test("a copy follows each signal of another instance: a newer change, an end; an older change is ignored", async () => {
  const { copies, records, told, watchers } = setup();
  records.set("h1", RECORD);
  const copy = (await copies.lookup("h1"))!;
  copies.watch(copy);
  const signal = watchers.get("s1")!;
  records.set("h1", { ...RECORD, version: 2, page: "/old" });
  signal({ type: "changed", version: 2 });
  await turn();
  assert.equal(copy.page, "/list", "an older version is not read");
  records.set("h1", { ...RECORD, version: 9, page: "/new" });
  signal({ type: "changed", version: 9 });
  await turn();
  assert.equal(copy.page, "/new");
  signal({ type: "ended", reason: "disconnected" } as SessionSignal);
  assert.equal(told.at(-1), "end s1 disconnected here");
});

Deno.test("shareChange() writes a copy's state with a new version and tells the others; a session gone ends here", async () => {
  const { copies, records, told } = setup();
  records.set("h1", RECORD);
  const copy = (await copies.lookup("h1"))!;
  copy.tab.lastState = { items: [3] };
  copies.shareChange(copy);
  await turn();
  assert.deepEqual(records.get("h1")?.state, { items: [3] });
  assert.equal(copy.version, 11);
  assert.equal(told.at(-1), 'signal s1 {"type":"changed","version":11}');
  records.delete("h1");
  copies.shareChange(copy);
  await turn();
  assert.equal(told.at(-1), "end s1 expired here");
});

Deno.test("endShared() ends a session held here everywhere, and removes one held nowhere here from the store", async () => {
  const { copies, records, told } = setup();
  records.set("h1", RECORD);
  await copies.lookup("h1");
  await copies.endShared("h1", "disconnected");
  assert.equal(told.at(-1), "end s1 disconnected");
  records.set("h2", { ...RECORD, id: "s2" });
  await copies.endShared("h2", "disconnected");
  assert.equal(told.at(-1), "remove h2 disconnected");
  await copies.endShared("h3", "disconnected");
  assert.equal(told.at(-1), "remove h2 disconnected", "nothing to end");
});

Deno.test("sessionRecord() keeps what the store needs of a session, and never the tab key itself", () => {
  const session = new Session({
    tokenHash: "h",
    page: "/p",
    now: 1,
    expiresAt: 2,
    channel: {},
    client: "c",
  });
  session.tabKey = "secret-key";
  const record = sessionRecord(session);
  assert.equal(JSON.stringify(record).includes("secret-key"), false);
  assert.notEqual(record.tabKeyHash, "");
  assert.deepEqual([record.page, record.client, record.createdAt, record.holder, record.inUse], [
    "/p",
    "c",
    1,
    "",
    false,
  ]);
});
