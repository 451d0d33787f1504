/**
 * aim's credentials recognised by what they are, not by their shape (bridge/http/credentials.ts):
 * a token, tab credential or tab key aim issued never reaches the app, in any header spelling
 * (Bearer in any case, whitespace, a trailing comma, a comma list, a second `Authorization`
 * header) or as a WebSocket subprotocol; everything else the client sends, an app's own token of
 * the same 43 characters included, passes unchanged. One filter serves HTTP and WebSockets.
 * @module
 */
import assert from "node:assert/strict";
import {
  AimCredentials,
  aimCredentials,
  type IssuedSecrets,
  MAX_CANDIDATES,
  secretCandidates,
  withoutSecrets,
} from "../../bridge/http/credentials.ts";
import { hashToken, newToken } from "../../bridge/core/tokens.ts";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { UpstreamProxy } from "../../bridge/upstream/proxy.ts";
import { openSession, startAim, startApp } from "../helpers/upstream.ts";
import { FakeTab, rememberCredential } from "../helpers/fake_tab.ts";

Deno.test("a secret is found wherever it sits in a header value, and nothing else is", () => {
  const t = newToken();
  const table: [string, string[]][] = [
    [`Bearer ${t}`, [t]],
    [`bearer ${t}`, [t]],
    [`BEARER\t${t}`, [t]],
    [`Bearer ${t},`, [t]],
    [`Bearer   ${t}   `, [t]],
    [`"${t}"`, [t]],
    [`aim-credential.${t}`, [t]],
    [`${t}=`, [t]],
    [`Basic dXNlcjpwYXNz, Bearer ${t}`, [t]],
    [`${t}A`, []],
    [`Bearer ${t.slice(1)}`, []],
    ["Basic dXNlcjpwYXNz", []],
    ["", []],
  ];
  for (const [value, found] of table) assert.deepEqual(secretCandidates(value), found, value);
});

Deno.test("withoutSecrets() removes each member carrying a secret and keeps the others as sent", () => {
  const t = newToken();
  const secrets = new Set([t]);
  const table: [string, string | null][] = [
    [`Bearer ${t}`, null],
    [`Bearer ${t},`, null],
    [`Bearer ${t}, Basic dXNlcjpwYXNz`, "Basic dXNlcjpwYXNz"],
    [`Basic dXNlcjpwYXNz, Bearer ${t}`, "Basic dXNlcjpwYXNz"],
    [`Digest realm="a, b", nonce="n", Bearer ${t}`, 'Digest realm="a, b", nonce="n"'],
    [`x="${t}, y", z=1`, "z=1"],
    ["aim-tab-v1, aim-credential." + t, "aim-tab-v1"],
    ["bearer, " + t, "bearer"],
    ["Basic  dXNlcjpwYXNz ,x", "Basic  dXNlcjpwYXNz ,x"],
    // An escaped quote inside quotes does not end them; the comma after the closing one does.
    [`x="a\\"", Bearer ${t}`, 'x="a\\""'],
    [`x="a\\", Bearer ${t}", y`, "y"],
    // Empty members left by the removal go too.
    [`Basic dXNlcjpwYXNz, , Bearer ${t}`, "Basic dXNlcjpwYXNz"],
    [`,Basic dXNlcjpwYXNz,,Bearer ${t},`, "Basic dXNlcjpwYXNz"],
    ["", ""],
  ];
  for (const [value, kept] of table) assert.equal(withoutSecrets(value, secrets), kept, value);
  assert.equal(withoutSecrets(`Bearer ${t}`, new Set()), `Bearer ${t}`);
});

/** Where a shared store keeps a secret's hash: a session's token, or one of its two aliases. */
type StoredAs = "token" | "credential" | "tabKey";

/** A session store of known hashes, local or shared, counting what the shared one is asked. */
function fakeStore(
  options: {
    held?: string[];
    shared?: string[];
    sharedAs?: Partial<Record<StoredAs, string[]>>;
    down?: boolean;
  } = {},
) {
  const held = new Set((options.held ?? []).map(hashToken));
  const stored = (as: StoredAs) =>
    new Set([...options.shared ?? [], ...options.sharedAs?.[as] ?? []].map(hashToken));
  const asked: string[] = [];
  const answer = (as: StoredAs | undefined, hash: string) => {
    asked.push(hash);
    if (options.down) return Promise.reject(new AimError("store_unavailable", "down"));
    return Promise.resolve(as && stored(as).has(hash) ? "t" : null);
  };
  const store = {
    holds: (hash: string) => held.has(hash),
    share: {
      shared: options.shared !== undefined || options.sharedAs !== undefined ||
        options.down === true,
      load: (hash: string) => answer("token", hash),
      // The store's own two alias kinds, spelled as share.ts types them; any other is none.
      alias: (kind: string, hash: string) =>
        answer(kind === "credential" || kind === "tabKey" ? kind : undefined, hash),
    },
  } as unknown as IssuedSecrets;
  return { store, asked };
}

Deno.test("AimCredentials finds a secret this process holds, and no other value of its shape", () => {
  const mine = newToken();
  const apps = newToken();
  const { store } = fakeStore({ held: [mine] });
  const credentials = new AimCredentials(store);
  assert.deepEqual(credentials.issued([mine, apps]), new Set([mine]));
  const headers = new Headers({
    Authorization: `Bearer ${apps}, bearer ${mine}`,
    "Sec-WebSocket-Protocol": "chat",
  });
  assert.deepEqual(credentials.issuedIn(headers), new Set([mine]));
  assert.equal(credentials.issuedIn(new Headers({ Cookie: "a=1" })), undefined);
  assert.equal(
    credentials.issuedIn(new Headers({ Authorization: "Basic dXNlcjpwYXNz" })),
    undefined,
  );
});

Deno.test("AimCredentials asks a shared store once per value and remembers its verdict", async () => {
  const theirs = newToken();
  const apps = newToken();
  const { store, asked } = fakeStore({ shared: [theirs] });
  const credentials = new AimCredentials(store);
  assert.deepEqual(await credentials.issued([theirs, apps]), new Set([theirs]));
  const first = asked.length;
  assert.equal(first, 6, "a token, a tab credential and a tab key, for each value");
  assert.deepEqual(await credentials.issued([apps, theirs]), new Set([theirs]));
  assert.equal(asked.length, first, "remembered");
});

Deno.test("AimCredentials finds a secret another instance holds as a token, a tab credential or a tab key, each alone", async () => {
  for (const as of ["token", "credential", "tabKey"] as const) {
    const theirs = newToken();
    const apps = newToken();
    const { store } = fakeStore({ sharedAs: { [as]: [theirs] } });
    const found = await new AimCredentials(store).issued([theirs, apps]);
    assert.deepEqual(found, new Set([theirs]), as);
  }
});

Deno.test("AimCredentials looks up as many as MAX_CANDIDATES candidates, and only past it takes them all as aim's", async () => {
  const many = Array.from({ length: MAX_CANDIDATES }, () => newToken());
  assert.deepEqual(new AimCredentials(fakeStore().store).issued(many), new Set());
  const { store, asked } = fakeStore({ shared: [] });
  assert.deepEqual(await new AimCredentials(store).issued(many), new Set());
  assert.equal(asked.length, 3 * MAX_CANDIDATES, "each candidate asked, and nothing else");
  const headers = new Headers({
    Authorization: many.slice(0, MAX_CANDIDATES / 2).map((t) => `Bearer ${t}`).join(", "),
    "Sec-WebSocket-Protocol": many.slice(MAX_CANDIDATES / 2).join(", "),
  });
  assert.deepEqual(new AimCredentials(fakeStore().store).issuedIn(headers), new Set());
});

Deno.test("aimCredentials() gives one AimCredentials per session store, so its verdicts serve every route", () => {
  const { store } = fakeStore();
  assert.equal(aimCredentials(store), aimCredentials(store));
  assert.notEqual(aimCredentials(store), aimCredentials(fakeStore().store));
});

Deno.test("AimCredentials fails closed: a store that cannot answer rejects, and too many candidates are all aim's", async () => {
  const value = newToken();
  const { store } = fakeStore({ down: true });
  const credentials = new AimCredentials(store);
  await assert.rejects(async () => await credentials.issued([value]), AimError);
  const many = Array.from({ length: MAX_CANDIDATES + 1 }, () => newToken());
  assert.deepEqual(new AimCredentials(fakeStore().store).issued(many), new Set(many));
});

/** An app that answers with the headers it received. */
function echoApp() {
  return startApp((request) => Response.json(Object.fromEntries(request.headers)));
}

/** Sends a request as written (two `Authorization` lines are two), returns the body. */
async function rawGet(port: number, path: string, lines: string[]): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, "Connection: close", ...lines];
  await conn.write(new TextEncoder().encode(`${head.join("\r\n")}\r\n\r\n`));
  const text = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
  const body = text.slice(text.indexOf("\r\n\r\n") + 4);
  return /transfer-encoding: chunked/i.test(text.slice(0, text.indexOf("\r\n\r\n")))
    ? body.replace(/^[0-9a-f]+\r\n/i, "").replace(/\r\n0\r\n\r\n$/, "")
    : body;
}

Deno.test("aim's token never reaches the app in any spelling of Authorization; the app's own credentials do", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url);
  const { sessionToken: t, tabCredential: c } = await openSession(aim.url, "/page");
  const basic = "Basic dXNlcjpwYXNz";
  // Each request's Authorization lines, and what the app must get.
  const table: [string[], string | undefined][] = [
    [`Bearer ${t}`, undefined],
    [`bearer ${t}`, undefined],
    [`BEARER ${t}`, undefined],
    [`bEaReR ${t}`, undefined],
    [`BeArEr ${t}`, undefined],
    [`Bearer\t${t}`, undefined],
    [`Bearer    ${t}   `, undefined],
    [`Bearer ${t},`, undefined],
    [`Bearer ${t}, ${basic}`, basic],
    [`${basic}, Bearer ${t}`, basic],
    [`Token ${t}`, undefined],
    [t, undefined],
    [`Bearer "${t}"`, undefined],
    [`Bearer ${c}`, undefined],
  ].map(([value, kept]) => [[`Authorization: ${value}`], kept] as [string[], string | undefined]);
  table.push(
    [[`Authorization: Bearer ${t}`, `Authorization: ${basic}`], basic],
    [[`Authorization: ${basic}`, `authorization: bearer ${t}`], basic],
    [[`Authorization: Bearer ${t}`, `Authorization: Bearer ${t}`], undefined],
  );
  for (const [lines, kept] of table) {
    const seen = JSON.parse(await rawGet(aim.port, "/page", lines));
    assert.equal(seen.authorization, kept, lines.join(" | "));
    assert.ok(!JSON.stringify(seen).includes(t), lines.join(" | "));
    assert.ok(!JSON.stringify(seen).includes(c), lines.join(" | "));
  }
  // The app's own token of aim's shape (Python's secrets.token_urlsafe()) passes unchanged.
  const own = newToken();
  for (const value of [`Bearer ${own}`, `bearer ${own}`, `Bearer ${own}, ${basic}`]) {
    const seen = JSON.parse(await rawGet(aim.port, "/page", [`Authorization: ${value}`]));
    assert.equal(seen.authorization, value);
  }
});

Deno.test("a token whose session ended is still kept from the app once aim has seen it", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url);
  const { sessionToken: t } = await openSession(aim.url, "/page");
  const auth = { Authorization: `Bearer ${t}` };
  assert.equal(
    (await (await fetch(`${aim.url}/page`, { headers: auth })).json()).authorization,
    undefined,
  );
  const end = await fetch(`${aim.url}/__aim/invoke`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ actionId: "disconnect" }),
  });
  await end.body?.cancel();
  assert.equal((await fetch(`${aim.url}/page.toon`, { headers: auth })).status, 401);
  assert.equal(
    (await (await fetch(`${aim.url}/page`, { headers: auth })).json()).authorization,
    undefined,
  );
});

Deno.test("the app's own JSON with its own token of aim's shape reaches the app, not aim's 401", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url);
  const own = newToken();
  const res = await fetch(`${aim.url}/api/items.json`, {
    headers: { Authorization: `Bearer ${own}` },
  });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).authorization, `Bearer ${own}`);
});

/** An app's WebSocket that answers with the subprotocols it was offered; it picks `pick`. */
function socketApp(pick?: string) {
  return startApp((request) => {
    const offered = request.headers.get("sec-websocket-protocol");
    const authorization = request.headers.get("authorization");
    const { socket, response } = Deno.upgradeWebSocket(request, pick ? { protocol: pick } : {});
    socket.onopen = () => socket.send(JSON.stringify({ offered, authorization }));
    return response;
  });
}

/** Opens a WebSocket through aim and returns the first message and the chosen protocol. */
async function firstMessage(
  url: string,
  protocols: string[],
  headers: Record<string, string> = {},
): Promise<{ seen: { offered: string | null; authorization: string | null }; protocol: string }> {
  const ws = new WebSocket(url, { protocols, headers } as unknown as string[]);
  const { promise, resolve, reject } = Promise.withResolvers<string>();
  ws.onmessage = (e) => resolve(e.data);
  ws.onerror = () => reject(new Error("the socket failed"));
  const data = await promise;
  const { promise: closed, resolve: close } = Promise.withResolvers<void>();
  ws.onclose = () => close();
  ws.close();
  await closed;
  return { seen: JSON.parse(data), protocol: ws.protocol };
}

Deno.test("the tab credential and aim's token never reach the app as WebSocket subprotocols; the app's own do", async () => {
  await using app = socketApp("bearer");
  await using aim = startAim(app.url);
  const { sessionToken: t, tabCredential: c } = await openSession(aim.url, "/page");
  const ws = `${aim.url.replace("http", "ws")}/socket`;
  const tab = await firstMessage(ws, ["aim-tab-v1", `aim-credential.${c}`, "bearer"]);
  assert.equal(tab.seen.offered, "aim-tab-v1, bearer");
  const bearer = await firstMessage(ws, ["bearer", t]);
  assert.equal(bearer.seen.offered, "bearer");
  assert.equal(bearer.protocol, "bearer");
  const header = await firstMessage(ws, ["bearer"], { Authorization: `Bearer ${t}` });
  assert.equal(header.seen.authorization, null);
  const own = newToken();
  const mine = await firstMessage(ws, ["bearer", own], { Authorization: `Bearer ${own}` });
  assert.equal(mine.seen.offered, `bearer, ${own}`);
  assert.equal(mine.seen.authorization, `Bearer ${own}`);
});

Deno.test("the tab key never reaches the app in Authorization either", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url);
  const grant = await openSession(aim.url, "/page");
  rememberCredential(grant.sessionToken, grant.tabCredential);
  await using tab = await FakeTab.open(aim.url, { token: grant.sessionToken, page: "/page" });
  const { tabKey } = await tab.next("session") as unknown as { tabKey: string };
  const seen = await (await fetch(`${aim.url}/page`, {
    headers: { Authorization: `Bearer ${tabKey}`, "X-Aim-Tab": tabKey },
  })).json();
  assert.equal(seen.authorization, undefined);
  assert.ok(!JSON.stringify(seen).includes(tabKey));
});

Deno.test("a page's .json with aim's token, Bearer in any case, is aim's session manifest, not the app's JSON", async () => {
  await using app = echoApp();
  await using aim = startAim(app.url);
  const { sessionToken: t } = await openSession(aim.url, "/page");
  for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR", "BeArEr"]) {
    const res = await fetch(`${aim.url}/page.json`, {
      headers: { Authorization: `${scheme} ${t}` },
    });
    const text = await res.text();
    // aim's manifest answers carry its headers; the app's echo has none of them.
    assert.equal(res.headers.get("vary"), "Cookie, Authorization", `${scheme}: ${text}`);
    assert.ok(!text.includes(t), scheme);
  }
  assert.deepEqual(app.seen.filter((line) => line.startsWith("GET /page.json")), []);
});

Deno.test("a shared store that cannot tell aim's secrets from the app's refuses the request 503, and forwards nothing", async () => {
  await using app = echoApp();
  const { store } = fakeStore({ down: true });
  using proxy = new UpstreamProxy(app.url, { credentials: new AimCredentials(store) });
  const from = { origin: "http://127.0.0.1:8000", client: "127.0.0.1", peer: "127.0.0.1" };
  const request = new Request("http://127.0.0.1:8000/page", {
    headers: { Authorization: `Bearer ${newToken()}` },
  });
  await assert.rejects(
    () => proxy.forwardRequest(request, from),
    (error) =>
      error instanceof AimError && error.code === "store_unavailable" && error.status === 503,
  );
  assert.deepEqual(app.seen, []);
  // Without a candidate there is nothing to look up: the request goes through.
  const plain = await proxy.forwardRequest(new Request("http://127.0.0.1:8000/page"), from);
  assert.equal(plain.status, 200);
  await plain.body?.cancel();
  assert.deepEqual(app.seen, ["GET /page"]);
});
