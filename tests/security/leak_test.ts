/**
 * One table of every surface an agent can read: manifests in every form, invoke
 * answers under every `Prefer` and `Accept`, activity, event streams, long polls, MCP, A2A,
 * ACP, error bodies and the `aim` command. Each is read with session A's token while session A
 * is signed in and session B runs beside it; none may carry a tab credential, a tab key, the
 * password, B's token or B's state. Every route the bridge registers and every MCP tool must
 * be read by a row of the table, or be named as not agent-readable with the reason: a new
 * surface without a row fails the test.
 */
import assert from "node:assert/strict";
import { createUserStore, hashPassword } from "../../bridge/core/login.ts";
import { A2A_PATH } from "../../bridge/mod.ts";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import { runAim } from "../helpers/cli.ts";
import { credentials, FakeTab } from "../helpers/fake_tab.ts";
import { connectClient, type TestClient, within } from "../mcp/helpers.ts";

const PASSWORD = "leak-probe-passphrase-5107";
const B_STATE = "state-of-session-b-48213";

const USERS = createUserStore([
  { username: "alice", passwordHash: await hashPassword(PASSWORD, { N: 1024 }), name: "Alice" },
]);

/** What the rows read with: session A (signed in, its tab connected) and session B. */
interface Context {
  bridge: TestBridge;
  token: string;
  tab: FakeTab;
  mcp: TestClient;
  /** Tools called by the MCP rows. */
  called: Set<string>;
  /** An older version tag of A's page, for change documents. */
  older: string;
}

/** One agent-readable surface: what it reads, and the routes it stands for. */
interface Surface {
  name: string;
  routes: string[];
  read(context: Context): Promise<string>;
}

/** A response as an agent sees it: status, headers and body. */
async function seen(res: Response | Promise<Response>): Promise<string> {
  const answer = await res;
  return `${answer.status}\n${
    [...answer.headers].map(([k, v]) => `${k}: ${v}`).join("\n")
  }\n\n${await answer
    .text()}`;
}

function bearer(context: Context, headers: Record<string, string> = {}): RequestInit {
  return { headers: { Authorization: `Bearer ${context.token}`, ...headers } };
}

function post(context: Context, path: string, body: unknown, headers = {}): Promise<Response> {
  return context.bridge.fetch(path, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${context.token}`,
      "Content-Type": "application/json",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Reads an event stream until `until` is in what it sent, then hangs up. */
async function readStream(res: Response, until: RegExp, act?: () => void): Promise<string> {
  const head = await seen(new Response(null, { status: res.status, headers: res.headers }));
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  act?.();
  await within(
    (async () => {
      while (!until.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
    })(),
    "the event stream",
  );
  await reader.cancel();
  return head + text;
}

const invokeVariants: [string, Record<string, string>][] = [
  ["plain", {}],
  ["Prefer: return=minimal", { Prefer: "return=minimal" }],
  ["Prefer: return=changes", { Prefer: "return=changes" }],
  ["Accept: text/toon", { Accept: "text/toon" }],
  ["Prefer: return=changes, Accept: text/toon", { Prefer: "return=changes", Accept: "text/toon" }],
];

const manifestVariants: [string, string, Record<string, string>][] = [
  ["JSON", "/control-panel.json", {}],
  ["TOON", "/control-panel.toon", {}],
  ["JSON Patch", "/control-panel.json", { Accept: "application/json-patch+json" }],
  ["merge patch", "/control-panel.json", { Accept: "application/merge-patch+json" }],
  ["TOON JSON Patch", "/control-panel.toon", { Accept: 'text/toon; profile="json-patch"' }],
];

/** The table. */
const SURFACES: Surface[] = [
  ...manifestVariants.map(([name, path, accept]): Surface => ({
    name: `manifest, ${name}, changes since an older version`,
    routes: ["GET /*"],
    read: (c) => seen(c.bridge.fetch(path, bearer(c, { ...accept, "If-None-Match": c.older }))),
  })),
  {
    name: "manifest, 304",
    routes: ["GET /*"],
    read: async (c) => {
      const etag = (await c.bridge.fetch("/control-panel.json", bearer(c))).headers.get("etag")!;
      return seen(c.bridge.fetch("/control-panel.json", bearer(c, { "If-None-Match": etag })));
    },
  },
  {
    name: "manifest, HEAD",
    routes: ["HEAD /*"],
    read: (c) => seen(c.bridge.fetch("/control-panel.json", { ...bearer(c), method: "HEAD" })),
  },
  {
    name: "manifest, long poll answered by a change",
    routes: ["GET /*"],
    read: async (c) => {
      const etag = (await c.bridge.fetch("/control-panel.json", bearer(c))).headers.get("etag")!;
      const polled = c.bridge.fetch(
        "/control-panel.json",
        bearer(c, { "If-None-Match": etag, Prefer: "wait=10" }),
      );
      c.tab.setState({ requests: [{ id: "req-3", status: "pending" }], tick: Date.now() });
      return await seen(polled);
    },
  },
  {
    name: "manifest of another page (409)",
    routes: ["GET /*"],
    read: (c) => seen(c.bridge.fetch("/orders.json", bearer(c))),
  },
  {
    name: "public manifest and static files",
    routes: ["GET /*"],
    read: async (c) =>
      (await seen(c.bridge.fetch("/control-panel.json"))) +
      (await seen(c.bridge.fetch("/control-panel.html", bearer(c)))),
  },
  {
    name: "site map, JSON and TOON",
    routes: ["GET /sitemap.json", "GET /sitemap.toon"],
    read: async (c) =>
      (await seen(c.bridge.fetch("/sitemap.json", bearer(c)))) +
      (await seen(c.bridge.fetch("/sitemap.toon", bearer(c)))),
  },
  {
    name: "health",
    routes: ["GET /__aim/health"],
    read: (c) => seen(c.bridge.fetch("/__aim/health", bearer(c))),
  },
  {
    name: "published schema",
    routes: ["GET /__aim/schema.json"],
    read: (c) => seen(c.bridge.fetch("/__aim/schema.json", bearer(c))),
  },
  ...invokeVariants.map(([name, headers]): Surface => ({
    name: `invoke answer, ${name}`,
    routes: ["POST /__aim/invoke"],
    read: (c) => seen(post(c, "/__aim/invoke", { actionId: "search", input: "pending" }, headers)),
  })),
  {
    name: "invoke answer, changes since a version",
    routes: ["POST /__aim/invoke"],
    read: (c) =>
      seen(post(c, "/__aim/invoke", { actionId: "search", input: "x" }, {
        Prefer: "return=changes",
        "If-Match": c.older,
      })),
  },
  {
    name: "invoke errors: unknown action, invalid input, bad body, wrong method",
    routes: ["POST /__aim/invoke", "ALL /__aim/invoke"],
    read: async (c) =>
      (await seen(post(c, "/__aim/invoke", { actionId: "nope", input: "x" }))) +
      (await seen(post(c, "/__aim/invoke", { actionId: "search", input: { q: 1 } }))) +
      (await seen(post(c, "/__aim/invoke", "{"))) +
      (await seen(c.bridge.fetch("/__aim/invoke", bearer(c)))),
  },
  {
    name: "activity",
    routes: ["GET /__aim/activity"],
    read: (c) => seen(c.bridge.fetch("/__aim/activity", bearer(c))),
  },
  {
    name: "event stream with a change",
    routes: ["GET /__aim/events"],
    read: async (c) =>
      readStream(
        await c.bridge.fetch("/__aim/events", bearer(c)),
        /event: change[\s\S]*\n\n/,
        () => c.tab.setState({ requests: [], tick: Date.now() }),
      ),
  },
  {
    name: "ACP: ping, agents, one agent",
    routes: ["GET /ping", "GET /agents", "GET /agents/:name"],
    read: async (c) =>
      (await seen(c.bridge.fetch("/ping", bearer(c)))) +
      (await seen(c.bridge.fetch("/agents", bearer(c)))) +
      (await seen(c.bridge.fetch("/agents/control-panel", bearer(c)))),
  },
  {
    name: "ACP: a run, read back, its events, its session, cancel and resume refused",
    routes: [
      "POST /runs",
      "GET /runs/:id",
      "GET /runs/:id/events",
      "POST /runs/:id/cancel",
      "POST /runs/:id",
      "GET /sessions/:id",
    ],
    read: async (c) => {
      const res = await post(c, "/runs", {
        agent_name: "control-panel",
        mode: "sync",
        input: [{
          role: "user",
          parts: [{
            content_type: "application/json",
            content: JSON.stringify({ actionId: "search", input: "pending" }),
          }],
        }],
      });
      const text = await seen(res.clone());
      const run = await res.json();
      return text +
        (await seen(c.bridge.fetch(`/runs/${run.run_id}`, bearer(c)))) +
        (await seen(c.bridge.fetch(`/runs/${run.run_id}/events`, bearer(c)))) +
        (await seen(post(c, `/runs/${run.run_id}/cancel`, {}))) +
        (await seen(post(c, `/runs/${run.run_id}`, { await_resume: {}, mode: "sync" }))) +
        (await seen(c.bridge.fetch(`/sessions/${run.session_id}`, bearer(c))));
    },
  },
  {
    name: "ACP errors: unknown agent, unknown run, bad body",
    routes: ["ALL /agents/:name", "ALL /runs", "ALL /runs/:id"],
    read: async (c) =>
      (await seen(c.bridge.fetch("/agents/nope", bearer(c)))) +
      (await seen(c.bridge.fetch("/runs/00000000-0000-4000-8000-000000000000", bearer(c)))) +
      (await seen(post(c, "/runs", "{"))),
  },
  {
    name: "A2A: card, message/send of a login and a search, tasks/get, list, stream, errors",
    routes: ["GET /.well-known/agent-card.json", "POST /__aim/a2a", "ALL /__aim/a2a"],
    read: async (c) => {
      const message = (data: unknown) => ({
        kind: "message",
        messageId: crypto.randomUUID(),
        role: "user",
        parts: [{ kind: "data", data }],
      });
      const rpc = (method: string, params: unknown, headers = {}) =>
        post(c, A2A_PATH, { jsonrpc: "2.0", id: 1, method, params }, headers);
      const login = await rpc("message/send", {
        message: message({ actionId: "login", input: { username: "alice", password: PASSWORD } }),
      });
      const loginText = await seen(login.clone());
      const task = (await login.json()).result;
      const stream = await rpc("message/stream", {
        message: message({ actionId: "search", input: "s" }),
      });
      return loginText +
        (await seen(c.bridge.fetch("/.well-known/agent-card.json", bearer(c)))) +
        (await seen(rpc("message/send", {
          message: message({ actionId: "search", input: "pending" }),
        }))) +
        (await seen(rpc("tasks/get", { id: task.id }))) +
        (await seen(rpc("ListTasks", {}, { "A2A-Version": "1.0" }))) +
        (await seen(stream)) +
        (await seen(rpc("tasks/nope", {}))) +
        (await seen(post(c, A2A_PATH, "{")));
    },
  },
  {
    name: "MCP: tools/list and every tool's result, with progress, and errors",
    routes: ["ALL /__aim/mcp"],
    read: async (c) => {
      let text = "";
      const inputs: Record<string, Record<string, unknown>> = {
        login: { username: "alice", password: PASSWORD },
        search: { input: "pending" },
      };
      // Signing out lists login: list again until every tool listed was called once.
      // disconnect ends the session: the last row of the table calls it.
      for (let round = 0; round < 3; round++) {
        const tools = await c.mcp.listTools();
        text += JSON.stringify(tools);
        for (const tool of tools) {
          if (tool.name === "disconnect" || c.called.has(tool.name)) continue;
          const progress: unknown[] = [];
          const result = await c.mcp.callTool(tool.name, inputs[tool.name] ?? {}, {
            onprogress: (p) => progress.push(p),
          });
          c.called.add(tool.name);
          text += JSON.stringify(result) + JSON.stringify(progress);
        }
      }
      text += JSON.stringify(await c.mcp.callTool("no_such_tool", {}).catch((e) => String(e)));
      text += JSON.stringify(await c.mcp.callTool("search", { input: { q: 1 } }));
      return text;
    },
  },
  {
    name: "aim invoke: the manifest and an action, as the command prints them",
    routes: [],
    read: async (c) => {
      const env = { AIM_TOKEN: c.token };
      const page = `${c.bridge.origin}/control-panel`;
      const manifest = await runAim(["invoke", page], { env });
      const action = await runAim(["invoke", page, "search", "pending"], { env });
      return JSON.stringify([manifest, action]);
    },
  },
  {
    name: "MCP: disconnect, then every read of the ended session",
    routes: [],
    read: async (c) => {
      const result = await c.mcp.callTool("disconnect", {});
      c.called.add("disconnect");
      return JSON.stringify(result) +
        (await seen(c.bridge.fetch("/control-panel.json", bearer(c)))) +
        (await seen(post(c, "/__aim/invoke", { actionId: "search", input: "x" })));
    },
  },
];

/** Routes no agent reads, and why. */
const NOT_AGENT_READABLE: Record<string, string> = {
  "ALL /*": "middleware (Host and Origin checks, request ids), no answer of its own",
  "POST /__aim/session": "the page's own call: it answers the caller's own new session",
  "ALL /__aim/session": "the page's own call: wrong methods get 405",
  "GET /__aim/tab": "the tab's WebSocket: it refuses the agent's token (credential_test.ts)",
  "ALL /ping": "wrong methods get 405, no session data",
  "ALL /agents": "wrong methods get 405, no session data",
  "ALL /runs/:id/events": "wrong methods get 405",
  "ALL /runs/:id/cancel": "wrong methods get 405",
  "ALL /sessions/:id": "wrong methods get 405",
  "ALL /.well-known/agent-card.json": "wrong methods get 405, public card",
};

/** Element bundle routes and WebMCP's API script: the same bytes for everyone, no session read. */
const ASSET = /^(GET|HEAD) \/__aim\/(elements\.[\w.]*|webmcp\.)js$/;

Deno.test("no surface an agent can read carries a credential, a tab key, the password, or another session's token or state", async () => {
  await using bridge = await startBridge({ users: USERS });
  const token = await bridge.openSession("/control-panel");
  const other = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await using otherTab = await FakeTab.open(bridge.origin, {
    token: other,
    page: "/control-panel",
  });
  await tab.next("lease");
  await otherTab.next("lease");
  const search = { id: "search", input_example: "pending", handler: (q: unknown) => ({ q }) };
  const pay = {
    id: "pay",
    description: "Pay a request",
    input_example: "req-3",
    consequential: true,
    handler: () => ({ paid: true }),
  };
  await tab.register([search, pay]);
  await otherTab.register([search]);
  tab.setState({ requests: [{ id: "req-3", status: "pending" }] });
  otherTab.setState({ notes: B_STATE });
  const signIn = await bridge.invoke(token, "login", { username: "alice", password: PASSWORD });
  assert.equal(signIn.status, 200, await signIn.clone().text());
  await signIn.body?.cancel();
  const older = (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).headers.get("etag")!;
  tab.setState({ requests: [{ id: "req-3", status: "approved" }] });

  const secrets: Record<string, string> = {
    "A's tab credential": credentials.get(token)!,
    "B's tab credential": credentials.get(other)!,
    "A's tab key": (await tab.next("session", (m) => m.authenticated)).tabKey,
    "B's tab key": (await otherTab.next("session")).tabKey,
    "the password": PASSWORD,
    "B's token": other,
    "B's state": B_STATE,
  };
  for (const [what, value] of Object.entries(secrets)) assert.ok(value, `${what} is known`);

  await using mcp = await connectClient("v2", bridge.origin, token);
  const context: Context = { bridge, token, tab, mcp, called: new Set(), older };
  const covered = new Set<string>();
  const leaks: string[] = [];
  for (const surface of SURFACES) {
    const text = await surface.read(context);
    assert.ok(text.length > 0, `${surface.name} answered nothing`);
    for (const [what, value] of Object.entries(secrets)) {
      const at = text.indexOf(value);
      if (at >= 0) leaks.push(`${surface.name} carries ${what}: …${text.slice(at - 120, at)}…`);
    }
    for (const route of surface.routes) covered.add(route);
  }

  const routes = new Set(bridge.served.bridge.routes.map((r) => `${r.method} ${r.path}`));
  const unread = [...routes].filter((route) =>
    !covered.has(route) && !(route in NOT_AGENT_READABLE) && !ASSET.test(route)
  );
  assert.deepEqual(unread, [], "routes with no row in the leak table");
  const stale = [...covered, ...Object.keys(NOT_AGENT_READABLE)].filter((r) => !routes.has(r));
  assert.deepEqual(stale, [], "rows of the leak table for routes the bridge no longer has");
  const tools = ["login", "logout", "disconnect", "search", "pay", "aim_read_page"];
  for (const tool of tools) assert.ok(context.called.has(tool), `the MCP tool ${tool} was called`);
  assert.deepEqual(leaks, [], "surfaces that leak");
});
