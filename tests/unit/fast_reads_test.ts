/**
 * The hot path of manifest reads (bridge/http/fast_reads.ts), called as the front door calls it:
 * it answers only a plain `GET` of a page's `.json` or `.toon` whose answer the full route already
 * made (the public manifest without a token, the session's own page with a Bearer token), byte
 * for byte and header for header, and leaves every other request to the full route (undefined).
 *
 * @module
 */
import assert from "node:assert/strict";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import { createApp, PublicManifests, SessionManifests } from "../../bridge/http/app.ts";
import { manifestReads } from "../../bridge/http/fast_reads.ts";
import { writeSite } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";

const ORIGIN = "http://127.0.0.1:8000";

/** A core over the basic site, its full route and its hot path, sharing their encodings. */
async function setup(dir: string, instance?: string, now?: () => number) {
  writeSite(dir);
  const core = new BridgeCore({ root: dir, ...(now ? { now } : {}) });
  const manifests = new SessionManifests(core);
  const publics = new PublicManifests();
  const app = createApp(core, { manifests, publics, ...(instance ? { instance } : {}) });
  const fast = manifestReads(core, { manifests, publics, instance });
  const { token, session } = await core.openSession("/control-panel");
  /** The full route's answer to a GET of `path`. */
  const full = (path: string, headers: Record<string, string> = {}) =>
    app.request(ORIGIN + path, { headers });
  /** The hot path's answer to a GET (or `method`) of `path`. */
  const hot = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    fast(new Request(ORIGIN + path, { method, headers }), ORIGIN + path, ORIGIN.length, ORIGIN);
  return { core, token, session, full, hot };
}

/** Status, headers but the date, and body. */
async function snapshot(res: Response) {
  return {
    status: res.status,
    headers: [...res.headers].filter(([name]) => name !== "date"),
    body: await res.text(),
  };
}

Deno.test("the hot path answers a public manifest once the full route encoded it, as the full route does", async () => {
  await using dir = await tempDir();
  const { full, hot } = await setup(dir.path);
  for (const format of ["json", "toon"]) {
    const path = `/control-panel.${format}`;
    assert.equal(hot(path), undefined, "nothing encoded yet: the full route's");
    const first = await snapshot(await full(path));
    assert.equal(first.status, 200);
    const answer = hot(path);
    assert.ok(answer, `${path} on the hot path`);
    assert.deepEqual(await snapshot(answer), first);
  }
});

Deno.test("the hot path answers a session's own page as the full route does: the body, then 304", async () => {
  await using dir = await tempDir();
  const { token, session, full, hot } = await setup(dir.path);
  const auth = { Authorization: `Bearer ${token}` };
  for (const format of ["json", "toon"]) {
    const path = `/control-panel.${format}`;
    assert.equal(hot(path, auth), undefined, "not encoded at this version yet");
    const first = await snapshot(await full(path, auth));
    assert.equal(first.status, 200);
    assert.deepEqual(await snapshot(hot(path, auth)!), first);
    const etag = `"v${session.version}"`;
    for (const held of [etag, "*", `"v0", ${etag}`, `W/${etag}`]) {
      const conditional = { ...auth, "If-None-Match": held };
      const expected = await snapshot(await full(path, conditional));
      assert.equal(expected.status, 304, held);
      const answer = hot(path, conditional);
      assert.ok(answer, held);
      assert.deepEqual(await snapshot(answer), expected, held);
    }
  }
});

Deno.test("the hot path leaves to the full route what it does not know the answer of", async () => {
  await using dir = await tempDir();
  const { core, token, session, full, hot } = await setup(dir.path);
  const auth = { Authorization: `Bearer ${token}` };
  // Both encoded first: every undefined below is the request's doing, not a cold cache.
  for (const format of ["json", "toon"]) {
    await (await full(`/control-panel.${format}`)).body?.cancel();
    await (await full(`/control-panel.${format}`, auth)).body?.cancel();
  }
  assert.ok(hot("/control-panel.json"));
  assert.ok(hot("/control-panel.json", auth));
  const other = await core.openSession("/");
  const cases: [string, string, Record<string, string>, string?][] = [
    ["HEAD", "/control-panel.json", {}, "HEAD"],
    ["POST", "/control-panel.json", auth, "POST"],
    ["a query", "/control-panel.json?x=1", auth],
    ["a query on the public manifest", "/control-panel.json?x=1", {}],
    ["neither .json nor .toon", "/control-panel.html", auth],
    ["a cookie (a token)", "/control-panel.json", { Cookie: `aim_session=${token}` }],
    ["a cookie of anything", "/control-panel.json", { Cookie: "theme=dark" }],
    ["Authorization not Bearer", "/control-panel.json", { Authorization: `Basic ${token}` }],
    ["bearer in another case", "/control-panel.json", { Authorization: `bearer ${token}` }],
    ["an unknown token", "/control-panel.json", { Authorization: `Bearer ${"A".repeat(43)}` }],
    ["another session's page", "/control-panel.json", {
      Authorization: `Bearer ${other.token}`,
    }],
    ["another page than the session's", "/index.json", auth],
    ["another spelling of the page", "/control-panel/index.json", auth],
    ["the page's .html spelling", "/control-panel.html.json", {}],
    ["an escaped spelling", "/control%2Dpanel.json", {}],
    ["a wait", "/control-panel.json", {
      ...auth,
      "If-None-Match": `"v${session.version}"`,
      Prefer: "wait=5",
    }],
    ["an older version", "/control-panel.json", { ...auth, "If-None-Match": '"v0"' }],
    ["a version it never had", "/control-panel.json", {
      ...auth,
      "If-None-Match": `"v${session.version + 1}"`,
    }],
    ["a page without agents", "/plain.json", {}],
  ];
  for (const [what, path, headers, method] of cases) {
    assert.equal(hot(path, headers, method), undefined, what);
  }
});

Deno.test("the hot path stops answering a session once it changed, until the full route encodes it again", async () => {
  await using dir = await tempDir();
  const { token, session, full, hot } = await setup(dir.path);
  const auth = { Authorization: `Bearer ${token}` };
  await (await full("/control-panel.json", auth)).body?.cancel();
  const old = `"v${session.version}"`;
  assert.equal(hot("/control-panel.json", { ...auth, "If-None-Match": old })?.status, 304);
  session.changed();
  assert.equal(hot("/control-panel.json", auth), undefined, "this version is not encoded");
  assert.equal(hot("/control-panel.json", { ...auth, "If-None-Match": old }), undefined);
  const fresh = await snapshot(await full("/control-panel.json", auth));
  assert.deepEqual(fresh.headers.find(([n]) => n === "etag"), ["etag", `"v${session.version}"`]);
  assert.deepEqual(await snapshot(hot("/control-panel.json", auth)!), fresh);
});

Deno.test("the hot path refuses an ended session: the full route answers it 401", async () => {
  await using dir = await tempDir();
  const { core, token, session, full, hot } = await setup(dir.path);
  const auth = { Authorization: `Bearer ${token}` };
  await (await full("/control-panel.json", auth)).body?.cancel();
  core.sessions.end(session, "disconnected");
  const etag = `"v${session.version}"`;
  assert.equal(hot("/control-panel.json", auth), undefined);
  assert.equal(hot("/control-panel.json", { ...auth, "If-None-Match": etag }), undefined);
  assert.equal((await full("/control-panel.json", auth)).status, 401);
});

Deno.test("with an instance id, the hot path's public manifests name the instance as the full route's do", async () => {
  // An instance id is given only with a shared store, where sessions never take the hot path
  // (SessionStore.findHere finds none): only public manifests do.
  await using dir = await tempDir();
  const { full, hot } = await setup(dir.path, "instance-7");
  for (const format of ["json", "toon"]) {
    const first = await snapshot(await full(`/control-panel.${format}`));
    assert.deepEqual(first.headers.find(([n]) => n === "x-aim-instance"), [
      "x-aim-instance",
      "instance-7",
    ]);
    assert.deepEqual(await snapshot(hot(`/control-panel.${format}`)!), first);
  }
});

Deno.test("the hot path refuses a session past its idle time, for a 304 as for a body", async () => {
  await using dir = await tempDir();
  let clock = Date.now();
  const { token, session, full, hot } = await setup(dir.path, undefined, () => clock);
  const auth = { Authorization: `Bearer ${token}` };
  await (await full("/control-panel.json", auth)).body?.cancel();
  const conditional = { ...auth, "If-None-Match": `"v${session.version}"` };
  assert.equal(hot("/control-panel.json", conditional)?.status, 304);
  clock += 2 * 3_600_000;
  assert.equal(hot("/control-panel.json", conditional), undefined);
  assert.equal(hot("/control-panel.json", auth), undefined);
  assert.equal((await full("/control-panel.json", conditional)).status, 401);
});

Deno.test("a read on the hot path counts as the agent's use: the session's idle time starts again", async () => {
  await using dir = await tempDir();
  let clock = Date.now();
  const { token, session, full, hot } = await setup(dir.path, undefined, () => clock);
  const auth = { Authorization: `Bearer ${token}` };
  await (await full("/control-panel.json", auth)).body?.cancel();
  const conditional = { ...auth, "If-None-Match": `"v${session.version}"` };
  const fifty = 50 * 60_000; // the idle time is an hour
  for (const headers of [conditional, auth, conditional]) {
    clock += fifty;
    const answer = hot("/control-panel.json", headers);
    assert.ok(answer, `still live ${fifty} ms after the last read`);
    await answer.body?.cancel();
  }
});
