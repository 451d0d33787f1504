/**
 * aim beside real nginx and HAProxy (`aim proxy-config`): every spelling of aim's routes a server
 * may read as one reaches aim, never straight to the app, and what reaches the app through the web
 * server is exactly what reaches it through aim in front; people's pages go straight to the app,
 * aim never sees them. Requests are written byte for byte (`fetch` would resolve `..` first).
 * @module
 */
import assert from "node:assert/strict";
import type { RequestLogEntry } from "../../bridge/mod.ts";
import { rawRequest } from "../helpers/raw_http.ts";
import { startApp, startBeside, startFront, type TestApp } from "../helpers/upstream.ts";
import { INSTALLED, type WebServerKind } from "../helpers/web_server.ts";

/** Spellings of aim's routes, each of which some server reads as one of aim's paths. */
const SPELLINGS = [
  "/__aim/session",
  "/__aim/tab",
  "/__aim/mcp",
  "/__aim/a2a",
  "/__aim/unknown",
  "/__aim",
  "/__AIM/session",
  "//__aim/session",
  "/%5F%5Faim/session",
  "/%5f%5faim/tab",
  "/%2F__aim/session",
  "/x/../__aim/session",
  "/x/%2e%2e/__aim/session",
  "/__aim;x/session",
  "/__aim;/tab",
  "/x/..;/__aim/tab",
  "/x/%2e%2e;/__aim/tab",
  "/__aim./tab",
  "/__aim%20/tab",
  "/__aim%2e/tab",
  "/;x/__aim/tab",
  "/./__aim/tab",
  "/__aim/./tab",
  "/__aim%2Ftab",
  "/__aim\\tab",
  "/%255F%255Faim/tab",
  "/%25255F%25255Faim/tab",
  "/__aim%zz/tab",
  "/__aim%/tab",
  "/__aim%00/tab",
  "/ping",
  "/ping;x",
  "/ping/",
  "/PING",
  "/agents",
  "/agents;x",
  "/agents/",
  "/agents/home",
  "/agents/a%2Fb",
  "/AGENTS/home",
  "/runs",
  "/runs;x",
  "/runs/1/events",
  "/runs/1;x/cancel",
  "/runs;x/1/events",
  "/sessions/1",
  "/sitemap.json",
  "/sitemap.json;x",
  "/sitemap.json.",
  "/SITEMAP.JSON",
  "/sitemap.toon",
  "/page.toon",
  "/x/page.TOON",
  "/page.toon;x",
  "/.well-known/agent-card.json",
  "/.well-known/agent-card.json;x",
  "/.well-known;x/agent-card.json",
  "/.WELL-KNOWN/agent-card.json",
  "/.well-known/agent-card%2Ejson",
];

/** The app's paths: straight to the app, aim never sees them. */
const PAGES = [
  "/",
  "/page",
  "/app/items?id=3",
  "/index.php",
  "/__aimx",
  "/x/__aim/session",
  "/agentsx",
  "/runs-report",
  "/sessions",
  "/sitemap.xml",
  "/static/app.js",
  "/caf%C3%A9",
  "/shop;jsessionid=1",
];

/** An app that records every request's method and path, as Deno reads them. */
function recordingApp(): TestApp {
  return startApp(() =>
    new Response("the app's page", { headers: { "Content-Type": "text/html" } })
  );
}

for (const kind of ["nginx", "haproxy"] as const satisfies WebServerKind[]) {
  Deno.test({
    name:
      `beside ${kind}, every spelling of aim's routes reaches aim, and the app gets exactly what it gets with aim in front`,
    ignore: !INSTALLED[kind],
    async fn() {
      await using frontApp = recordingApp();
      await using besideApp = recordingApp();
      await using front = startFront(frontApp.url);
      const seenByAim: RequestLogEntry[] = [];
      await using beside = startBeside(kind, besideApp.url, { log: (e) => seenByAim.push(e) });
      for (const target of SPELLINGS) {
        for (const method of ["GET", "POST"]) {
          const body = method === "POST" ? "{}" : undefined;
          const before = seenByAim.length;
          const frontSeen = frontApp.seen.length;
          const besideSeen = besideApp.seen.length;
          await rawRequest(front.port, { method, target, body });
          const answer = await rawRequest(beside.port, { method, target, body });
          // A web server may refuse a spelling itself (its own 400 page, not aim's JSON).
          const refusedByWebServer = answer.status === 400 && !answer.body.startsWith("{");
          assert.ok(
            seenByAim.length === before + 1 || refusedByWebServer,
            `${kind} sent ${method} ${target} past aim (${answer.status})`,
          );
          // What the web server refuses reaches nobody; the rest reaches the app as with aim in front.
          assert.deepEqual(
            besideApp.seen.slice(besideSeen),
            refusedByWebServer ? [] : frontApp.seen.slice(frontSeen),
            `${method} ${target}: what the app got beside ${kind} and with aim in front`,
          );
        }
      }
      for (const target of PAGES) {
        const before = seenByAim.length;
        const answer = await rawRequest(beside.port, { target });
        assert.equal(answer.status, 200, `${target}: ${answer.head}`);
        assert.equal(answer.body, "the app's page");
        assert.equal(seenByAim.length, before, `aim saw ${target}`);
        const url = new URL(target, "http://x");
        assert.equal(besideApp.seen.at(-1), `GET ${url.pathname}${url.search}`);
      }
    },
  });
}
