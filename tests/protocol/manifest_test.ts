import assert from "node:assert/strict";
import { decode } from "@toon-format/toon";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { Manifest, Sitemap } from "../../bridge/wire/schemas.ts";
import { BASIC_SITE, startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

function assertManifestHeaders(res: Response): void {
  assert.equal(res.headers.get("cache-control"), "private, no-store");
  assert.equal(res.headers.get("vary"), "Cookie, Authorization");
}

/** Reads both forms of a manifest and checks the TOON decodes to the JSON body. */
async function readBoth(
  origin: string,
  page: string,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const json = await fetch(`${origin}${page}.json`, { headers });
  assert.equal(json.status, 200);
  assert.equal(json.headers.get("content-type"), "application/json; charset=utf-8");
  assertManifestHeaders(json);
  const body = await json.json();
  const toon = await fetch(`${origin}${page}.toon`, { headers });
  assert.equal(toon.status, 200);
  assert.equal(toon.headers.get("content-type"), "text/toon; charset=utf-8");
  assertManifestHeaders(toon);
  assert.deepEqual(decode(await toon.text()), body);
  Manifest.parse(body);
  return body;
}

Deno.test("manifest() without a token is the public catalog with empty state", async () => {
  await using bridge = await startBridge();
  const body = await readBoth(bridge.origin, "/control-panel");
  assert.equal(body.protocol, "AIP");
  assert.equal(body.page, "/control-panel");
  assert.equal(body.state_scope, "public_schema_only");
  assert.equal(body.browser_connected, false);
  assert.deepEqual(body.state, {});
  assert.equal(body.sitemap, `${bridge.origin}/sitemap.json`);
  assert.equal(body.invoke_url, `${bridge.origin}/__aim/invoke`);
  assert.equal(body.invoke_method, "POST");
  // The example is one safe to try: not the consequential approve_request.
  assert.deepEqual(body.invoke_example, { actionId: "search", input: "pending" });
  const actions = body.actions as { id: string }[];
  // A site without users offers no login (nor logout).
  assert.deepEqual(actions.map((a) => a.id), ["approve_request", "search", "disconnect"]);
  assert.deepEqual(actions[0], {
    id: "approve_request",
    description: "Approve one pending request",
    input_schema: {
      type: "string",
      description: "The request ID itself; do not wrap it in an object",
      minLength: 1,
    },
    input_example: "req-3",
    consequential: true,
  });
});

Deno.test("manifest() reads a form's named fields and labels into an object schema", async () => {
  await using bridge = await startBridge();
  const body = await readBoth(bridge.origin, "/orders");
  const order = (body.actions as Record<string, unknown>[]).find((a) => a.id === "place_order");
  assert.deepEqual(order?.input_schema, {
    type: "object",
    properties: {
      item: { type: "string", description: "Item name" },
      quantity: { type: "string", description: "Quantity", pattern: "^[0-9]+$" },
    },
    required: ["item"],
    additionalProperties: false,
  });
  assert.deepEqual(order?.input_example, { item: "pen", quantity: "2" });
});

Deno.test("manifest() serves / at /index.json", async () => {
  await using bridge = await startBridge();
  const body = await readBoth(bridge.origin, "/index");
  assert.equal(body.page, "/");
});

Deno.test("manifest() re-reads a page when its file changes", async () => {
  await using bridge = await startBridge();
  const first = await readBoth(bridge.origin, "/control-panel");
  const before = (first.actions as unknown[]).length;
  assert.equal(before, 3);
  await Deno.writeTextFile(
    `${bridge.root}/control-panel.html`,
    `<aim-action name="only_one" description="The only action now, after an edit"></aim-action>`,
  );
  // The bridge learns of the edit from a file watcher: wait for it, within a bound (10 s: the
  // watcher is slow on a loaded machine). The JSON alone while waiting: a TOON read right after
  // it may already see the other side of the edit.
  const actions = async () =>
    (await (await bridge.fetch("/control-panel.json")).json()).actions as unknown[];
  for (let i = 0; i < 1000 && (await actions()).length === before; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const second = await readBoth(bridge.origin, "/control-panel");
  assert.deepEqual((second.actions as { id: string }[]).map((a) => a.id), [
    "only_one",
    "disconnect",
  ]);
});

Deno.test("manifest() returns 404 not_found for a missing page and a page without declarations", async () => {
  await using bridge = await startBridge();
  for (const path of ["/nope.json", "/plain.json", "/nope.toon", "/%2e%2e/etc/passwd.json"]) {
    const res = await bridge.fetch(path);
    assert.equal(res.status, 404, path);
    assertManifestHeaders(res);
    const body = await res.json();
    assert.equal(body.error, "not_found");
    assert.equal(typeof body.message, "string");
  }
});

Deno.test("manifest() returns 401 invalid_token for an unknown, malformed or non-Bearer token", async () => {
  await using bridge = await startBridge();
  const cases: Record<string, string>[] = [
    { Authorization: "Bearer not-a-token" },
    { Authorization: `Bearer ${"A".repeat(43)}` },
    { Authorization: "Basic dXNlcjpwYXNz" },
    { Cookie: "aim_session=garbage" },
  ];
  for (const headers of cases) {
    for (const ext of ["json", "toon"]) {
      const res = await bridge.fetch(`/control-panel.${ext}`, { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assertManifestHeaders(res);
      assert.equal(res.headers.get("www-authenticate"), 'Bearer error="invalid_token"');
      const body = await res.json();
      assert.equal(body.error, "invalid_token");
      assert.equal(body.state, undefined);
    }
  }
});

Deno.test("manifest() with a self-minted token lists the server actions only", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const body = await readBoth(bridge.origin, "/control-panel", {
    Authorization: `Bearer ${token}`,
  });
  assert.equal(body.state_scope, "session");
  assert.equal(body.browser_connected, false);
  assert.deepEqual(body.state, { authenticated: false });
  assert.deepEqual((body.actions as { id: string }[]).map((a) => a.id), ["disconnect"]);
});

Deno.test("the public manifest lists login and logout on a site with users, neither on one without", async () => {
  const users = createUserStore([
    { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }) },
  ]);
  await using withUsers = await startBridge({ users });
  const ids = async (origin: string, path: string) =>
    ((await (await fetch(`${origin}${path}`)).json()).actions as { id: string }[]).map((a) => a.id);
  // Every action the page can offer: logout needs signing in, as approve_request does.
  assert.deepEqual(await ids(withUsers.origin, "/control-panel.json"), [
    "approve_request",
    "search",
    "login",
    "logout",
    "disconnect",
  ]);
  const sitemap = await (await fetch(`${withUsers.origin}/sitemap.json`)).json();
  assert.deepEqual(
    sitemap.pages.find((p: { path: string }) => p.path === "/control-panel").actions,
    ["approve_request", "search", "login", "logout", "disconnect"],
  );
  await using without = await startBridge();
  assert.deepEqual(await ids(without.origin, "/control-panel.json"), [
    "approve_request",
    "search",
    "disconnect",
  ]);
  const token = await without.openSession("/control-panel");
  // Invoking login there is refused as an action the session does not offer.
  const login = await fetch(`${without.origin}/__aim/invoke`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ actionId: "login", input: { username: "alice", password: "x" } }),
  });
  assert.equal(login.status, 404);
  const body = await login.json();
  assert.equal(body.error, "unknown_action");
  assert.deepEqual(body.available_actions, ["disconnect"]);
});

Deno.test("manifest() with the cookie works like the Bearer header", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const body = await readBoth(bridge.origin, "/control-panel", { Cookie: `aim_session=${token}` });
  assert.equal(body.state_scope, "session");
});

Deno.test("manifest() with a tab shows the session's live state and registered actions", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([{ id: "search", input_example: "pending" }]);
  tab.setState({ requests: [{ id: "req-3", status: "pending" }] });
  await tab.register([{ id: "search", input_example: "pending" }]); // orders after the state
  const body = await readBoth(bridge.origin, "/control-panel", {
    Authorization: `Bearer ${token}`,
  });
  assert.equal(body.state_scope, "session");
  assert.equal(body.browser_connected, true);
  assert.deepEqual(body.state, {
    requests: [{ id: "req-3", status: "pending" }],
    authenticated: false,
  });
  assert.deepEqual((body.actions as { id: string }[]).map((a) => a.id), ["disconnect", "search"]);
  assert.deepEqual(body.invoke_example, { actionId: "search", input: "pending" });
});

Deno.test("manifest() returns 409 when the session is on another page", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  for (const ext of ["json", "toon"]) {
    const res = await bridge.fetch(`/orders.${ext}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 409);
    assertManifestHeaders(res);
    const body = await res.json();
    assert.equal(body.error, "page_mismatch");
    assert.equal(body.connected_page, "/control-panel");
    assert.equal(body.manifest_url, `${bridge.origin}/control-panel.json`);
  }
});

Deno.test("sitemap lists every agent-enabled page in JSON and TOON", async () => {
  await using bridge = await startBridge();
  const json = await bridge.fetch("/sitemap.json");
  assert.equal(json.status, 200);
  const body = Sitemap.parse(await json.json());
  assert.deepEqual(body.pages.map((p) => p.path), ["/", "/control-panel", "/orders/"]);
  const panel = body.pages[1];
  assert.ok(panel);
  assert.equal(panel.title, "Control panel");
  assert.equal(panel.manifest_json, `${bridge.origin}/control-panel.json`);
  assert.equal(panel.manifest_toon, `${bridge.origin}/control-panel.toon`);
  assert.deepEqual(panel.actions.slice(0, 2), ["approve_request", "search"]);
  assert.equal(body.pages[0]?.description, "The home page");
  const toon = await bridge.fetch("/sitemap.toon");
  assert.equal(toon.headers.get("content-type"), "text/toon; charset=utf-8");
  assert.deepEqual(decode(await toon.text()), body);
});

Deno.test("sitemap never carries session data", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const res = await bridge.fetch("/sitemap.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  const text = await res.text();
  assert.ok(!text.includes(token));
  assert.ok(!text.includes("authenticated"));
});

Deno.test("schema.json publishes the manifest's JSON Schema from the zod schemas", async () => {
  await using bridge = await startBridge();
  const res = await bridge.fetch("/__aim/schema.json");
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.$ref, "#/$defs/Manifest");
  const manifest = body.$defs.Manifest;
  assert.equal(manifest.type, "object");
  // Every reference resolves from the document's root.
  const refs = [...JSON.stringify(body).matchAll(/"\$ref":"#\/\$defs\/([^"]+)"/g)].map((m) => m[1]);
  assert.ok(refs.length > 0);
  for (const ref of refs) assert.ok(ref !== undefined && ref in body.$defs, ref);
  for (
    const field of [
      "protocol",
      "version",
      "page",
      "sitemap",
      "state_scope",
      "browser_connected",
      "invoke_url",
      "invoke_method",
      "invoke_example",
      "state",
      "actions",
    ]
  ) {
    assert.ok(manifest.required.includes(field), field);
  }
});

Deno.test("a static JSON file is still served when no page claims its path", async () => {
  await using bridge = await startBridge({ site: { ...BASIC_SITE } });
  const res = await bridge.fetch("/data.json");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { static: true });
});

Deno.test("manifest() returns 409 for a session opened on another page, even without a tab", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/");
  const res = await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 409);
  assertManifestHeaders(res);
  const body = await res.json();
  assert.equal(body.error, "page_mismatch");
  assert.equal(body.connected_page, "/");
});

Deno.test("manifest paths answer errors with the manifest headers too", async () => {
  await using bridge = await startBridge();
  const post = await bridge.fetch("/control-panel.json", { method: "POST" });
  assert.equal(post.status, 404);
  assertManifestHeaders(post);
  await post.body?.cancel();
  const { port } = bridge;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(
      "GET /control-panel.json HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
    ),
  );
  let text = "";
  const buffer = new Uint8Array(4096);
  for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
    text += new TextDecoder().decode(buffer.subarray(0, n));
  }
  conn.close();
  assert.match(text, /^HTTP\/1\.1 403/);
  assert.match(text, /cache-control: private, no-store/i);
  assert.match(text, /vary: Cookie, Authorization/i);
});

Deno.test("sitemap shows a page added while the bridge runs", async () => {
  await using bridge = await startBridge();
  const paths = async () =>
    Sitemap.parse(await (await bridge.fetch("/sitemap.json")).json()).pages.map((p) => p.path);
  assert.ok(!(await paths()).includes("/added"));
  await Deno.writeTextFile(`${bridge.root}/added.html`, `<aim-state name="x"></aim-state>`);
  // The bridge learns of the new file from its watcher: wait for it, within a bound.
  let now = await paths();
  for (let i = 0; i < 200 && !now.includes("/added"); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    now = await paths();
  }
  assert.ok(now.includes("/added"));
});

Deno.test("manifest() offers a read-only action as the example before one that changes something", async () => {
  await using bridge = await startBridge({
    site: {
      "board.html": `<aim-action name="post" description="Post a note everyone sees"
        input-example="hello"></aim-action>
      <aim-action name="find" description="Find notes" input-example="hello" read-only>
      </aim-action>`,
    },
  });
  const body = await (await bridge.fetch("/board.json")).json();
  assert.deepEqual(body.actions.map((a: { id: string }) => a.id).slice(0, 2), ["post", "find"]);
  assert.deepEqual(body.invoke_example, { actionId: "find", input: "hello" });
});

Deno.test("manifest() never offers disconnect or a consequential action as the example when a safe one exists", async () => {
  const users = createUserStore([
    { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }) },
  ]);
  await using bridge = await startBridge({
    users,
    site: {
      "only-risky.html": `<aim-action name="pay" description="Pay the invoice now" consequential
        input-example="inv-1"></aim-action>`,
    },
  });
  const token = await bridge.openSession("/only-risky");
  const signedOut = await (await bridge.fetch("/only-risky.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  // Signed out with no tab: login and disconnect only; login is the example.
  assert.equal(signedOut.invoke_example.actionId, "login");
  const publicManifest = await (await bridge.fetch("/only-risky.json")).json();
  assert.notEqual(publicManifest.invoke_example.actionId, "disconnect");
});

Deno.test("the public invoke_example is never an items= action, whose example names no real item", async () => {
  await using bridge = await startBridge({
    site: {
      "todos.html": `<title>Todos</title><ul id="list"></ul><input id="new" aria-label="New todo">
<aim-action name="show_todo" description="Show the todo with this title" items="#list li"
  key="label" click="label" read-only></aim-action>
<aim-action name="add_todo" description="Add a todo" fill="#new" commit="enter"></aim-action>`,
    },
  });
  const body = await (await bridge.fetch("/todos.json")).json();
  // The list is rendered by a script: the items= action's example is a placeholder.
  const show = body.actions.find((a: { id: string }) => a.id === "show_todo");
  assert.equal(show.input_example, "example");
  // Read-only would put it first; its example would be refused, so another action's is shown.
  assert.deepEqual(body.invoke_example, { actionId: "add_todo", input: "example" });
});
