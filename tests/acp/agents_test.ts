/** @module ACP discovery: `/ping`, `/agents` and `/agents/{name}` over a fixture site. */
import assert from "node:assert/strict";
import { AgentManifest, AgentsListResponse } from "../../bridge/acp/schemas.ts";
import { BASIC_SITE, startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { connected, expectAcpError, jsonPart, message, postRun } from "./helpers.ts";

const ACTION = '<aim-action name="go" description="Go somewhere" input-example="x"></aim-action>';

/** BASIC_SITE plus pages with awkward paths, metadata, and none of it. */
const FIXTURE_SITE = {
  ...BASIC_SITE,
  "docs/Intro_Page.html": `<!doctype html><html lang="en-GB"><head><title>Intro</title>
<meta name="keywords" content="guide, intro,  getting started , guide">
<meta name="acp:tags" content="Docs">
<meta name="acp:domains" content="documentation, support">
</head><body>${ACTION}</body></html>`,
  "docs/intro-page.html": `<!doctype html><title>Intro (dashes)</title>${ACTION}`,
  "Café/Crème.html": `<!doctype html><title>Crème</title>${ACTION}`,
  [`${"long-section/".repeat(6)}deep.html`]: `<!doctype html><title>Deep</title>${ACTION}`,
  "日本.html": `<!doctype html><title>日本</title>${ACTION}`,
  "bare.html": `<!doctype html>${ACTION}`,
};

Deno.test("GET /ping answers an empty object", async () => {
  await using bridge = await startBridge();
  const res = await bridge.fetch("/ping");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), {});
});

Deno.test("GET /agents lists one valid manifest per agent-enabled page of the site", async () => {
  await using bridge = await startBridge({ site: FIXTURE_SITE });
  const res = await bridge.fetch("/agents");
  assert.equal(res.status, 200);
  const { agents } = AgentsListResponse.parse(await res.json());
  const pages = agents.map((a) => (a.metadata!.annotations!.aim as { page: string }).page);
  assert.deepEqual(
    pages.sort(),
    [
      "/",
      "/Café/Crème",
      "/bare",
      "/control-panel",
      "/docs/Intro_Page",
      "/docs/intro-page",
      `/${"long-section/".repeat(6)}deep`,
      "/orders",
      "/日本",
    ].sort(),
  );
  assert.equal(new Set(agents.map((a) => a.name)).size, agents.length, "names are unique");
  for (const agent of agents) {
    AgentManifest.parse(agent);
    // Each one is also served alone, the same.
    const one = await bridge.fetch(`/agents/${agent.name}`);
    assert.equal(one.status, 200);
    assert.deepEqual(AgentManifest.parse(await one.json()), agent);
  }
  const byPage = new Map(
    agents.map((a) => [(a.metadata!.annotations!.aim as { page: string }).page, a]),
  );
  assert.equal(byPage.get("/")!.name, "index");
  assert.equal(byPage.get("/docs/intro-page")!.name, "docs-intro-page");
  assert.match(byPage.get("/docs/Intro_Page")!.name, /^docs-intro-page-[0-9a-f]{8}$/);
  assert.equal(byPage.get("/Café/Crème")!.name, "cafe-creme");
  assert.match(byPage.get("/日本")!.name, /^page-[0-9a-f]{8}$/);
});

Deno.test("an agent manifest maps the page's description, actions, files and AIM manifests", async () => {
  await using bridge = await startBridge({ site: FIXTURE_SITE });
  const o = bridge.origin;
  const panel = AgentManifest.parse(await (await bridge.fetch("/agents/control-panel")).json());
  assert.equal(panel.description, "Control panel");
  assert.deepEqual(panel.input_content_types, ["application/json", "text/plain"]);
  assert.deepEqual(panel.output_content_types, ["application/json"]);
  const meta = panel.metadata!;
  assert.deepEqual(meta.capabilities!.slice(0, 2), [
    { name: "approve_request", description: "Approve one pending request" },
    { name: "search", description: "Search requests" },
  ]);
  assert.deepEqual(meta.capabilities!.map((c) => c.name).slice(2), ["disconnect"]);
  assert.deepEqual(meta.annotations!.aim, {
    page: "/control-panel",
    page_url: `${o}/control-panel`,
    manifest_json: `${o}/control-panel.json`,
    manifest_toon: `${o}/control-panel.toon`,
    invoke_url: `${o}/__aim/invoke`,
    session_url: `${o}/__aim/session`,
    sitemap: `${o}/sitemap.json`,
  });
  assert.deepEqual(meta.links, [
    { type: "homepage", url: `${o}/control-panel` },
    { type: "documentation", url: `${o}/control-panel.json` },
  ]);
  const stat = Deno.statSync(`${bridge.root}/control-panel.html`);
  assert.equal(meta.updated_at, stat.mtime!.toISOString());
  assert.match(meta.created_at!, /Z$/);
  assert.ok(meta.created_at! <= meta.updated_at!);
  assert.equal(panel.status, undefined, "no status before the first invocation");
  assert.equal(meta.tags, undefined);

  const home = AgentManifest.parse(await (await bridge.fetch("/agents/index")).json());
  assert.equal(home.description, "The home page");
  assert.equal(
    (home.metadata!.annotations!.aim as { manifest_json: string }).manifest_json,
    `${o}/index.json`,
  );

  const intro = AgentManifest.parse(
    await (await bridge.fetch("/agents")).json().then((b) =>
      b.agents.find((a: { description: string }) => a.description === "Intro")
    ),
  );
  assert.deepEqual(intro.metadata!.tags, ["guide", "intro", "getting started", "Docs"]);
  assert.deepEqual(intro.metadata!.domains, ["documentation", "support"]);
  assert.deepEqual(intro.metadata!.natural_languages, ["en"]);

  const bare = AgentManifest.parse(await (await bridge.fetch("/agents/bare")).json());
  assert.ok(
    bare.description.includes("/bare"),
    "a page without title or description still has one",
  );
});

Deno.test("GET /agents returns every agent by default and honours limit and offset", async () => {
  await using bridge = await startBridge({ site: FIXTURE_SITE });
  const all = AgentsListResponse.parse(await (await bridge.fetch("/agents")).json()).agents;
  assert.ok(all.length > 5);
  const page = AgentsListResponse.parse(
    await (await bridge.fetch("/agents?limit=2&offset=1")).json(),
  );
  assert.deepEqual(page.agents.map((a) => a.name), all.slice(1, 3).map((a) => a.name));
  const rest = AgentsListResponse.parse(await (await bridge.fetch("/agents?offset=5")).json());
  assert.deepEqual(rest.agents.map((a) => a.name), all.slice(5).map((a) => a.name));
  await expectAcpError(await bridge.fetch("/agents?limit=0"), 422, "invalid_input");
  await expectAcpError(await bridge.fetch("/agents?offset=-1"), 422, "invalid_input");
});

Deno.test("GET /agents/{name} of an unknown agent is a 404 in ACP's error shape", async () => {
  await using bridge = await startBridge();
  for (const name of ["nope", "plain", "Control-Panel", "a.json"]) {
    const body = await expectAcpError(await bridge.fetch(`/agents/${name}`), 404, "not_found");
    assert.equal(body.message, `Agent ${name} not found`);
  }
});

Deno.test("an agent's status is measured from invocations through /__aim/invoke and ACP", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  assert.equal((await bridge.invoke(token, "search", "a")).status, 200);
  assert.equal((await bridge.invoke(token, "explode", "a")).status, 422);
  const run = await postRun(bridge, token, {
    agent_name: "control-panel",
    input: [message(jsonPart("search", "b"))],
  });
  assert.equal((await run.json()).status, "completed");
  const agent = AgentManifest.parse(await (await bridge.fetch("/agents/control-panel")).json());
  assert.ok(agent.status);
  assert.equal(agent.status.success_rate, 66.67);
  assert.ok(agent.status.avg_run_time_seconds! >= 0);
  assert.ok(agent.status.avg_run_time_seconds! < 30);
  const other = AgentManifest.parse(await (await bridge.fetch("/agents/orders")).json());
  assert.equal(other.status, undefined, "another page's figures are its own");
});

Deno.test("ACP paths are answered by ACP even when the site has files at those paths", async () => {
  const page = '<!doctype html><title>Shadow</title><aim-state name="x"></aim-state>';
  await using bridge = await startBridge({
    site: {
      ...BASIC_SITE,
      "ping.html": page,
      "agents/index.html": page,
      "agents/control-panel.html": page,
      "runs/index.html": page,
      "sessions.html": page,
    },
  });
  const ping = await bridge.fetch("/ping");
  assert.equal(ping.headers.get("content-type"), "application/json");
  assert.deepEqual(await ping.json(), {});
  const agents = AgentsListResponse.parse(await (await bridge.fetch("/agents")).json());
  assert.ok(agents.agents.some((a) => a.name === "control-panel"));
  const panel = AgentManifest.parse(await (await bridge.fetch("/agents/control-panel")).json());
  assert.equal(panel.description, "Control panel");
  await expectAcpError(await postRun(bridge, null, {}), 401, "server_error");
  // The pages themselves are still agents, and their manifests are still served.
  assert.equal((await bridge.fetch("/agents.json")).status, 200);
});

Deno.test("wrong methods on ACP paths answer 405 in ACP's error shape", async () => {
  await using bridge = await startBridge();
  const res = await bridge.fetch("/runs", { method: "GET" });
  await expectAcpError(res, 405, "server_error");
  assert.equal(res.headers.get("allow"), "POST");
  await expectAcpError(await bridge.fetch("/agents", { method: "DELETE" }), 405, "server_error");
});

Deno.test("a page's tab does not change its agent manifest", async () => {
  await using bridge = await startBridge();
  const before = await (await bridge.fetch("/agents/control-panel")).json();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "secret_tab_action", handler: () => null }]);
  assert.deepEqual(await (await bridge.fetch("/agents/control-panel")).json(), before);
});
