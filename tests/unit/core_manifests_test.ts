/**
 * What agents read (bridge/core/manifests.ts): a session's state as the server vouches for it
 * (secrets out, `authenticated` and `user` the server's word only), the action an example shows
 * (a safe one), the public and session manifests with their errors, and the site map.
 *
 * @module
 */
import assert from "node:assert/strict";
import { BridgeCore } from "../../bridge/core/bridge.ts";
import {
  buildManifest,
  buildSitemap,
  exampleAction,
  pageMismatch,
  sessionState,
} from "../../bridge/core/manifests.ts";
import type { Session } from "../../bridge/core/session.ts";
import type { ServerAction } from "../../bridge/core/server_actions.ts";
import type { ActionSpec } from "../../bridge/input/action_spec.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { Manifest, Sitemap } from "../../bridge/wire/schemas.ts";
import { BASIC_SITE, writeSite } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";

const ORIGIN = "http://127.0.0.1:8000";

/** A session as sessionState() reads it. */
function sessionWith(state: Record<string, unknown>, identity: Session["identity"]): Session {
  return { tab: { state }, identity } as unknown as Session;
}

Deno.test("sessionState() vouches for login itself: the tab's authenticated and user are never taken", () => {
  const tab = { authenticated: true, user: { username: "mallory" }, items: [1] };
  assert.deepEqual(sessionState(sessionWith(tab, null)), { items: [1], authenticated: false });
  const alice = { username: "alice", name: "Alice" };
  const state = sessionState(sessionWith({ ...tab, authenticated: false }, alice));
  assert.deepEqual(state, { items: [1], authenticated: true, user: alice });
  assert.notEqual(state.user, alice, "a copy: the state never shares the session's identity");
});

Deno.test("sessionState() leaves out keys that look like secrets, at any depth", () => {
  const tab = {
    password: "p",
    api_key: "k",
    profile: { name: "Bob", token: "t", cards: [{ cvv: "123", last4: "4242" }] },
  };
  assert.deepEqual(sessionState(sessionWith(tab, null)), {
    profile: { name: "Bob", cards: [{ last4: "4242" }] },
    authenticated: false,
  });
});

/** An action spec with the fields exampleAction() reads. */
function spec(id: string, flags: Partial<ActionSpec> = {}): ActionSpec {
  return {
    id,
    description: id,
    input_schema: { type: "string" },
    input_example: id,
    consequential: false,
    protected: false,
    read_only: false,
    ...flags,
  } as ActionSpec;
}

Deno.test("exampleAction() shows a read-only page action first, then a safe one, never disconnect while another exists", () => {
  const server = new Set(["login", "logout", "disconnect"]);
  const isServer = (id: string) => server.has(id);
  const pick = (specs: ActionSpec[], runs?: (a: ActionSpec) => boolean) =>
    exampleAction(specs, isServer, runs).id;
  const approve = spec("approve", { consequential: true });
  const comment = spec("comment");
  const search = spec("search", { read_only: true });
  const login = spec("login");
  const disconnect = spec("disconnect");
  assert.equal(pick([disconnect, login, approve, comment, search]), "search");
  assert.equal(pick([disconnect, login, approve, comment]), "comment");
  assert.equal(
    pick([disconnect, approve, login]),
    "login",
    "a safe server action before a consequential one",
  );
  assert.equal(
    pick([disconnect, approve]),
    "approve",
    "consequential only when nothing else is there",
  );
  assert.equal(pick([disconnect]), "disconnect", "the only action");
  assert.equal(pick([spec("x", { consequential: true }), disconnect]), "x");
});

Deno.test("exampleAction() prefers an action whose example runs, and falls back in the same order when none does", () => {
  const isServer = (id: string) => id === "login";
  const search = spec("search", { read_only: true });
  const comment = spec("comment");
  const login = spec("login");
  const runsNot = (ids: string[]) => (a: ActionSpec) => !ids.includes(a.id);
  assert.equal(
    exampleAction([search, comment, login], isServer, runsNot(["search"])).id,
    "comment",
  );
  assert.equal(
    exampleAction([search, comment, login], isServer, runsNot(["search", "comment"])).id,
    "login",
  );
  assert.equal(
    exampleAction([comment, search], isServer, runsNot(["search", "comment"])).id,
    "search",
    "none runs: read-only first",
  );
});

/** BASIC_SITE, a page that hosts sessions without declaring anything, and a list's page. */
const SITE = {
  ...BASIC_SITE,
  "panel-only.html": "<!doctype html><title>Panel</title><aim-panel></aim-panel>",
  "todos.html": `<!doctype html><title>Todos</title><ul id="list"><li>milk</li></ul>
<aim-action name="done" description="Complete a todo" items="#list li"></aim-action>
<aim-action name="add" description="Add a todo" input-example="eggs"></aim-action>`,
};

function coreOf(dir: string, options: { serverActions?: ServerAction[] } = {}) {
  writeSite(dir, SITE);
  return new BridgeCore({ root: dir, ...options });
}

Deno.test("buildManifest() of a page without a session lists its actions with no state, and is a valid manifest", async () => {
  await using dir = await tempDir();
  const core = await coreOf(dir.path);
  const manifest = await buildManifest(core, "/control-panel", null, ORIGIN);
  Manifest.parse(manifest);
  assert.equal(manifest.page, "/control-panel");
  assert.equal(manifest.state_scope, "public_schema_only");
  assert.equal(manifest.browser_connected, false);
  assert.deepEqual(manifest.state, {});
  assert.equal(manifest.sitemap, `${ORIGIN}/sitemap.json`);
  assert.equal(manifest.invoke_url, `${ORIGIN}/__aim/invoke`);
  assert.equal(manifest.invoke_method, "POST");
  assert.equal(manifest.mcp_url, undefined);
  assert.equal(manifest.state_version, undefined);
  assert.deepEqual(manifest.actions.map((a) => a.id), ["approve_request", "search", "disconnect"]);
  assert.deepEqual(manifest.invoke_example, { actionId: "search", input: "pending" });
});

Deno.test("buildManifest() lists an app's server action in place of a page action of the same id, in any case", async () => {
  await using dir = await tempDir();
  const core = await coreOf(dir.path, {
    serverActions: [{
      id: "SEARCH",
      description: "The server's search",
      input_schema: { type: "string" },
      input_example: "x",
      run: () => null,
    }],
  });
  const manifest = await buildManifest(core, "/control-panel", null, ORIGIN);
  assert.deepEqual(manifest.actions.map((a) => a.id), ["approve_request", "disconnect", "SEARCH"]);
  const sitemap = await buildSitemap(core, ORIGIN);
  const panel = sitemap.pages.find((p) => p.path === "/control-panel")!;
  assert.deepEqual(panel.actions, ["approve_request", "disconnect", "SEARCH"]);
});

Deno.test("buildManifest() of a session's own page holds its state, version and MCP endpoint", async () => {
  await using dir = await tempDir();
  const core = await coreOf(dir.path);
  const { session } = await core.openSession("/control-panel");
  const manifest = await buildManifest(core, "/control-panel", session, ORIGIN);
  Manifest.parse(manifest);
  assert.equal(manifest.state_scope, "session");
  assert.equal(manifest.mcp_url, `${ORIGIN}/__aim/mcp`);
  assert.equal(manifest.state_version, session.version);
  assert.deepEqual(manifest.state, { authenticated: false });
  assert.equal(manifest.browser_connected, false, "no tab holds it");
  assert.deepEqual(manifest.actions.map((a) => a.id), ["disconnect"], "no tab: the server's only");
});

Deno.test("buildManifest() publicly never shows an example for an action on a list's items: it names no real item", async () => {
  await using dir = await tempDir();
  const core = await coreOf(dir.path);
  const manifest = await buildManifest(core, "/todos", null, ORIGIN);
  assert.deepEqual(manifest.actions.map((a) => a.id), ["done", "add", "disconnect"]);
  assert.deepEqual(manifest.invoke_example, { actionId: "add", input: "eggs" });
});

Deno.test("buildManifest() of a page that only hosts sessions answers its session, and 404 publicly", async () => {
  await using dir = await tempDir();
  const core = await coreOf(dir.path);
  await assert.rejects(() => buildManifest(core, "/panel-only", null, ORIGIN), AimError);
  const { session } = await core.openSession("/panel-only");
  const manifest = await buildManifest(core, "/panel-only", session, ORIGIN);
  assert.equal(manifest.page, "/panel-only");
  assert.equal(manifest.state_scope, "session");
});

Deno.test("buildManifest() answers 404 for a page that is not agent-enabled, naming the site map", async () => {
  await using dir = await tempDir();
  const core = await coreOf(dir.path);
  for (const page of ["/plain", "/missing", "/style.css"]) {
    await assert.rejects(
      () => buildManifest(core, page, null, ORIGIN),
      (error: unknown) => {
        assert.ok(error instanceof AimError);
        assert.equal(error.status, 404);
        assert.equal(error.code, "not_found");
        assert.match(error.message, new RegExp(`${page}.*${ORIGIN}/sitemap\\.json`));
        return true;
      },
      page,
    );
  }
});

Deno.test("buildManifest() answers 409 page_mismatch to a session attached to another page, with where to read", async () => {
  await using dir = await tempDir();
  const core = await coreOf(dir.path);
  const { session } = await core.openSession("/control-panel");
  for (const page of ["/", "/orders"]) {
    await assert.rejects(
      () => buildManifest(core, page, session, ORIGIN),
      (error: unknown) => {
        assert.ok(error instanceof AimError);
        assert.equal(error.status, 409);
        assert.equal(error.code, "page_mismatch");
        assert.deepEqual(error.details, {
          connected_page: "/control-panel",
          manifest_url: `${ORIGIN}/control-panel.json`,
        });
        return true;
      },
    );
  }
  const mismatch = pageMismatch(session, ORIGIN);
  assert.match(mismatch.message, /attached to \/control-panel/);
});

Deno.test("buildSitemap() lists every agent-enabled page with its manifests and actions, a folder's page with its slash", async () => {
  await using dir = await tempDir();
  const core = await coreOf(dir.path);
  const sitemap = await buildSitemap(core, ORIGIN);
  Sitemap.parse(sitemap);
  assert.equal(sitemap.invoke_url, `${ORIGIN}/__aim/invoke`);
  assert.equal(sitemap.session_url, `${ORIGIN}/__aim/session`);
  assert.equal(sitemap.mcp_url, `${ORIGIN}/__aim/mcp`);
  const byPath = new Map(sitemap.pages.map((p) => [p.path, p]));
  assert.deepEqual([...byPath.keys()].sort(), ["/", "/control-panel", "/orders/", "/todos"]);
  const panel = byPath.get("/control-panel")!;
  assert.equal(panel.title, "Control panel");
  assert.equal(panel.manifest_json, `${ORIGIN}/control-panel.json`);
  assert.equal(panel.manifest_toon, `${ORIGIN}/control-panel.toon`);
  assert.deepEqual(panel.actions, ["approve_request", "search", "disconnect"]);
  assert.equal(byPath.get("/orders/")!.manifest_json, `${ORIGIN}/orders.json`);
  assert.equal(byPath.get("/")!.description, "The home page");
});
