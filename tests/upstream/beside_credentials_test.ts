/**
 * aim beside real nginx and HAProxy (`aim proxy-config`): aim's cookie, its tokens, the tab
 * credential and the tab key never reach the app, in any spelling; the app's own credentials
 * do; `<page>.json` is aim's manifest or the app's own JSON by today's rules.
 * @module
 */
import assert from "node:assert/strict";
import type { RequestLogEntry } from "../../bridge/mod.ts";
import { rawRequest } from "../helpers/raw_http.ts";
import {
  openSession,
  startApp,
  startBeside,
  startFront,
  type TestApp,
} from "../helpers/upstream.ts";
import { INSTALLED, type WebServerKind } from "../helpers/web_server.ts";
import { REFUSED_COOKIE } from "../../bridge/upstream/beside_haproxy.ts";

/** An app that records every request's headers, as received (repeated ones joined). */
function headersApp(): TestApp & { readonly headers: Record<string, string>[] } {
  const headers: Record<string, string>[] = [];
  const app = startApp((request) => {
    headers.push(Object.fromEntries(request.headers));
    return new Response("the app's answer");
  });
  return Object.assign(app, { headers });
}

/** The `name=value` pairs of a Cookie header, as the app reads them. */
function cookiePairs(header: string | undefined): string[] {
  return (header ?? "").split(";").map((pair) => pair.trim()).filter(Boolean);
}

/** Cookie headers, with the cookies the app must get. */
const COOKIES: [string, string[]][] = [
  ["aim_session=T", []],
  ["a=1; aim_session=T; b=2", ["a=1", "b=2"]],
  ["aim_session=T; a=1", ["a=1"]],
  ["a=1; aim_session=T", ["a=1"]],
  ["a=1;aim_session=T;b=2", ["a=1", "b=2"]],
  ["__Host-aim_session=T; a=1", ["a=1"]],
  ["__Secure-aim_session=T; a=1", ["a=1"]],
  ["a=1; AIM_SESSION=T", ["a=1"]],
  ["a=1; __HOST-Aim_Session=T", ["a=1"]],
  ["a=1;  \taim_session=T", ["a=1"]],
  ["aim_other=x; a=1", ["a=1"]],
  ["aim_session; a=1", ["a=1"]],
  ["aim_session=T; __Host-aim_session=T; b=2", ["b=2"]],
  ["aim_session=1; a=1; aim_session=2; b=2; aim_session=3; aim_x=4", ["a=1", "b=2"]],
  ["a=aim_session; xaim_session=1; b=2", ["a=aim_session", "xaim_session=1", "b=2"]],
];

for (const kind of ["nginx", "haproxy"] as const satisfies WebServerKind[]) {
  const ignore = !INSTALLED[kind];

  Deno.test({
    name: `beside ${kind}, aim's cookie in every spelling never reaches the app; the app's own do`,
    ignore,
    async fn() {
      await using app = headersApp();
      await using beside = startBeside(kind, app.url);
      for (const [cookie, kept] of COOKIES) {
        const answer = await rawRequest(beside.port, {
          target: "/page",
          headers: [["Cookie", cookie]],
        });
        assert.equal(answer.status, 200, cookie);
        assert.deepEqual(cookiePairs(app.headers.at(-1)!.cookie), kept, cookie);
      }
      // Two Cookie lines (HTTP/2 splits them): aim's is removed from each.
      await rawRequest(beside.port, {
        target: "/page",
        headers: [["Cookie", "a=1"], ["Cookie", "aim_session=T; b=2"]],
      });
      assert.deepEqual(cookiePairs(app.headers.at(-1)!.cookie?.replaceAll(",", ";")), [
        "a=1",
        "b=2",
      ]);
    },
  });

  Deno.test({
    name:
      `beside ${kind}, the tab key, the hand-back header, and a client's Forwarded and X-Real-IP never reach the app`,
    ignore,
    async fn() {
      await using app = headersApp();
      await using beside = startBeside(kind, app.url);
      await rawRequest(beside.port, {
        target: "/page",
        headers: [
          ["X-Aim-Tab", "the-tab-key"],
          ["x-aim-tab", "another"],
          ["X-Aim-Beside", "1"],
          ["Forwarded", "for=6.6.6.6;host=evil.example;proto=https"],
          ["X-Real-IP", "6.6.6.6"],
          ["X-Forwarded-For", "6.6.6.6"],
          ["X-Forwarded-Host", "evil.example"],
        ],
      });
      const seen = app.headers.at(-1)!;
      for (const name of ["x-aim-tab", "x-aim-beside", "forwarded", "x-real-ip"]) {
        assert.equal(seen[name], undefined, name);
      }
      assert.equal(seen["x-forwarded-for"], "127.0.0.1");
      assert.equal(seen["x-forwarded-host"], `127.0.0.1:${beside.port}`);
      assert.equal(seen["x-forwarded-proto"], "http");
    },
  });

  Deno.test({
    name:
      `beside ${kind}, a request carrying an aim token goes through aim and gets the app what aim in front gives it, never the token as sent`,
    ignore,
    async fn() {
      await using app = headersApp();
      await using frontApp = headersApp();
      const seenByAim: RequestLogEntry[] = [];
      await using beside = startBeside(kind, app.url, { log: (e) => seenByAim.push(e) });
      await using front = startFront(frontApp.url);
      const token = (await openSession(beside.url, "/page")).sessionToken;
      const frontToken = (await openSession(front.url, "/page")).sessionToken;
      const spellings = [
        "Bearer T",
        "bearer T",
        "BEARER \tT",
        "Bearer T,",
        "Bearer T, Basic dXNlcjpwYXNz",
        "Basic dXNlcjpwYXNz, Bearer T",
        "Token T",
        "T",
      ];
      for (const spelling of spellings) {
        const before: number = seenByAim.length;
        await rawRequest(beside.port, {
          target: "/page",
          headers: [["Authorization", spelling.replace("T", token)]],
        });
        await rawRequest(front.port, {
          target: "/page",
          headers: [["Authorization", spelling.replace("T", frontToken)]],
        });
        assert.equal(seenByAim.length, before + 1, `${kind} sent "${spelling}" past aim`);
        const got = app.headers.at(-1)!.authorization;
        const gotInFront = frontApp.headers.at(-1)!.authorization;
        assert.equal(got, gotInFront?.replace(frontToken, token), spelling);
      }
      // Two Authorization headers: refused by the web server, or taken to aim.
      const before = seenByAim.length;
      const seen = app.headers.length;
      const twice = await rawRequest(beside.port, {
        target: "/page",
        headers: [["Authorization", "Basic dXNlcjpwYXNz"], ["Authorization", `Bearer ${token}`]],
      });
      assert.ok(twice.status === 400 || seenByAim.length === before + 1, `${twice.status}`);
      if (twice.status === 400) assert.equal(app.headers.length, seen);
      // The plain spelling, which aim recognises today in any case: never at the app.
      assert.ok(!app.headers.some((h) => h.authorization === `Bearer ${token}`));
      // A client's hand-back header never makes the web server send a token to the app itself.
      await rawRequest(beside.port, {
        target: "/page",
        headers: [["Authorization", `Bearer ${token}`], ["X-Aim-Beside", "1"]],
      });
      assert.equal(app.headers.at(-1)!.authorization, undefined);
    },
  });

  Deno.test({
    name:
      `beside ${kind}, an Authorization aim did not issue reaches the app; a short one without aim`,
    ignore,
    async fn() {
      await using app = headersApp();
      await using frontApp = headersApp();
      const seenByAim: RequestLogEntry[] = [];
      await using beside = startBeside(kind, app.url, { log: (e) => seenByAim.push(e) });
      await using front = startFront(frontApp.url);
      await rawRequest(beside.port, {
        target: "/page",
        headers: [["Authorization", "Basic dXNlcjpwYXNz"]],
      });
      assert.equal(app.headers.at(-1)!.authorization, "Basic dXNlcjpwYXNz");
      assert.equal(seenByAim.length, 0);
      // An app's own token as long as aim's: only aim can tell, by lookup; the app gets what aim
      // in front gives it.
      const own = `Bearer ${"A".repeat(43)}`;
      await rawRequest(beside.port, { target: "/api/me", headers: [["Authorization", own]] });
      await rawRequest(front.port, { target: "/api/me", headers: [["Authorization", own]] });
      assert.equal(seenByAim.length, 1);
      assert.equal(app.headers.at(-1)!.authorization, frontApp.headers.at(-1)!.authorization);
    },
  });

  Deno.test({
    name:
      `beside ${kind}, a WebSocket's subprotocols reach the app only as checked, and a tab credential goes through aim`,
    ignore,
    async fn() {
      await using app = headersApp();
      await using frontApp = headersApp();
      const seenByAim: RequestLogEntry[] = [];
      await using beside = startBeside(kind, app.url, { log: (e) => seenByAim.push(e) });
      await using front = startFront(frontApp.url);
      const credential = (await openSession(beside.url, "/page")).tabCredential;
      const frontCredential = (await openSession(front.url, "/page")).tabCredential;
      const upgrade = (lines: string[], c: string): [string, string][] => [
        ["Connection", "Upgrade"],
        ["Upgrade", "websocket"],
        ["Sec-WebSocket-Version", "13"],
        ["Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="],
        ...lines.map((
          value,
        ): [string, string] => ["Sec-WebSocket-Protocol", value.replace("C", c)]),
      ];
      // The app's own subprotocol: straight to the app.
      const opened = seenByAim.length;
      await rawRequest(beside.port, { target: "/socket", headers: upgrade(["chat.v1"], "") });
      assert.equal(app.headers.at(-1)?.["sec-websocket-protocol"], "chat.v1");
      assert.equal(seenByAim.length, opened);
      for (const lines of [["aim-tab-v1, aim-credential.C"], ["bearer, C"], ["chat.v1", "x, C"]]) {
        const before: number = seenByAim.length;
        const seen = app.headers.length;
        await rawRequest(beside.port, { target: "/socket", headers: upgrade(lines, credential) });
        await rawRequest(front.port, {
          target: "/socket",
          headers: upgrade(lines, frontCredential),
        });
        const got = app.headers.slice(seen).map((h) => h["sec-websocket-protocol"]);
        if (seenByAim.length === before + 1) {
          // Through aim, which gives the app what it gives it in front.
          const inFront = frontApp.headers.at(-1)?.["sec-websocket-protocol"];
          assert.deepEqual(got, [inFront?.replaceAll(frontCredential, credential)], lines[0]);
        } else {
          // Past aim only as the one header the web server checked.
          assert.deepEqual(got, ["chat.v1"], lines.join(" | "));
        }
      }
    },
  });

  Deno.test({
    name:
      `beside ${kind}, an agent's token never gets the app's JSON, a visitor never gets a private page's manifest, and the app's JSON reaches it with the person's cookies`,
    ignore,
    async fn() {
      await using app = startApp((request) => {
        const path = new URL(request.url).pathname;
        if (path === "/private") {
          return new Response(null, { status: 303, headers: { Location: "/login" } });
        }
        return Response.json({ app: path, cookie: request.headers.get("cookie") });
      });
      await using beside = startBeside(kind, app.url);
      const token = (await openSession(beside.url, "/private")).sessionToken;
      // The agent's token: aim's answer (no manifest of /api/items here), never the app's JSON.
      const agent = await fetch(`${beside.url}/api/items.json`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      const agentBody = await agent.json();
      assert.notEqual(agentBody.app, "/api/items.json", JSON.stringify(agentBody));
      assert.ok(!app.seen.includes("GET /api/items.json"));
      // A visitor: the app's own answer for /private.json, never a manifest.
      const visitor = await fetch(`${beside.url}/private.json`);
      assert.deepEqual(await visitor.json(), { app: "/private.json", cookie: null });
      // The app's scripts, with the person's cookies: the app's JSON, without aim's cookie.
      const script = await fetch(`${beside.url}/api/items.json`, {
        headers: { Cookie: `sid=1; aim_session=${token}` },
      });
      assert.deepEqual(await script.json(), { app: "/api/items.json", cookie: "sid=1" });
    },
  });
}

Deno.test({
  name: "beside haproxy, no Set-Cookie of the app sets aim's cookie; the app's own pass unchanged",
  ignore: !INSTALLED.haproxy,
  async fn() {
    await using app = startApp(() => {
      const headers = new Headers({ Location: "/next" });
      headers.append("Set-Cookie", "PHPSESSID=abc; Path=/; HttpOnly");
      headers.append("Set-Cookie", "aim_session=planted; Path=/");
      headers.append("Set-Cookie", "__Host-aim_session=planted; Path=/; Secure");
      headers.append("Set-Cookie", " AIM_SESSION=planted");
      headers.append("Set-Cookie", "aim_other=x");
      headers.append("Set-Cookie", "theme=aim_session; Path=/");
      return new Response(null, { status: 303, headers });
    });
    await using beside = startBeside("haproxy", app.url);
    const res = await fetch(`${beside.url}/login`, { redirect: "manual" });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.deepEqual(res.headers.getSetCookie(), [
      "PHPSESSID=abc; Path=/; HttpOnly",
      REFUSED_COOKIE,
      REFUSED_COOKIE,
      REFUSED_COOKIE,
      REFUSED_COOKIE,
      "theme=aim_session; Path=/",
    ]);
  },
});
