/**
 * aim beside real nginx and HAProxy (`aim proxy-config`), killed mid-run (an `aim serve`
 * process, SIGKILL): people's pages keep answering from the app, aim's routes answer 503
 * `aim_unavailable` from the web server with a clear body, none of them reaches the app, and aim
 * answers again once it is started again.
 * @module
 */
import assert from "node:assert/strict";
import { createBridge } from "../../bridge/mod.ts";
import { startAim as startAimProcess } from "../helpers/cli.ts";
import { AIM_DOWN_RETRY_AFTER } from "../../bridge/upstream/beside_config.ts";
import { rawRequest } from "../helpers/raw_http.ts";
import { startApp } from "../helpers/upstream.ts";
import { INSTALLED, startWebServer, webServerConfig } from "../helpers/web_server.ts";

/** Pages loaded before aim stops, and after. */
const BEFORE = 60;
const AFTER = 120;
/** Clients loading pages at once. */
const CLIENTS = 4;

/** aim's routes, each of which must answer 503 from the web server while aim is down. */
const AIM_ROUTES = [
  "/__aim/health",
  "/__aim/session",
  "/__aim;x/tab",
  "/page.toon",
  "/sitemap.json",
  "/.well-known/agent-card.json",
  "/agents",
];

for (const kind of ["nginx", "haproxy"] as const) {
  Deno.test({
    name:
      `beside ${kind}, aim killed mid-run: pages still answer 200 and aim's routes answer 503 aim_unavailable, never the app`,
    ignore: !INSTALLED[kind],
    async fn() {
      await using app = startApp((request) => {
        const path = new URL(request.url).pathname;
        if (path === "/api/items.json") return Response.json({ items: [] });
        return new Response(`page ${path}`, { headers: { "Content-Type": "text/html" } });
      });
      const bridge = createBridge({ upstream: app.url, allowedHosts: [] });
      const routes = bridge.routes;
      bridge.close();
      const serveArgs = (port: number) => [
        "serve",
        "--upstream",
        app.url,
        "--port",
        String(port),
        "--trust-proxy",
        "--quiet",
      ];
      let aim = await startAimProcess(serveArgs(0));
      const aimPort = Number(new URL(aim.url).port);
      await using web = startWebServer(
        kind,
        (port) => webServerConfig(kind, { app: app.url, aim: aim.url, port, routes }),
      );
      try {
        // Page loads under way while aim stops: every one answers from the app.
        const statuses: number[] = [];
        const { promise: halfway, resolve: reachedHalfway } = Promise.withResolvers<void>();
        let stopped = false;
        let afterStop = 0;
        const client = async (id: number) => {
          for (let i = 0; !stopped || afterStop < AFTER; i++) {
            const res = await fetch(`${web.url}/page/${id}/${i}`);
            const body = await res.text();
            statuses.push(
              res.status === 200 && body === `page /page/${id}/${i}` ? 200 : res.status,
            );
            if (statuses.length >= BEFORE) reachedHalfway();
            if (stopped) afterStop++;
          }
        };
        const loading = Promise.all(Array.from({ length: CLIENTS }, (_, id) => client(id)));
        await halfway;
        await aim.stop("SIGKILL");
        stopped = true;
        await loading;
        assert.ok(statuses.length >= BEFORE + AFTER);
        assert.deepEqual(statuses.filter((status) => status !== 200), []);

        const seen = app.seen.length;
        for (const target of AIM_ROUTES) {
          const answer = await rawRequest(web.port, { target });
          assert.equal(answer.status, 503, `${target}: ${answer.head}`);
          assert.match(answer.header("content-type") ?? "", /^application\/json/);
          assert.equal(answer.header("retry-after"), String(AIM_DOWN_RETRY_AFTER));
          const body = JSON.parse(answer.body);
          assert.equal(body.error, "aim_unavailable");
          assert.match(body.message, /aim is not answering/);
        }
        // A request carrying a credential aim may have issued waits for aim too.
        const token = await rawRequest(web.port, {
          target: "/page",
          headers: [["Authorization", `Bearer ${"A".repeat(43)}`]],
        });
        assert.equal(token.status, 503);
        assert.deepEqual(app.seen.slice(seen), []);
        // The app's own JSON: nginx asks aim first and falls back to the app; HAProxy has aim
        // forward it, so it waits for aim too.
        const json = await fetch(`${web.url}/api/items.json`);
        if (kind === "nginx") assert.deepEqual(await json.json(), { items: [] });
        else assert.equal((await json.json()).error, "aim_unavailable");

        // aim back on its port: its routes answer again (HAProxy once its check sees it).
        aim = await startAimProcess(serveArgs(aimPort));
        const deadline = Date.now() + 15_000;
        for (;;) {
          const res = await fetch(`${web.url}/__aim/health`);
          await res.body?.cancel();
          if (res.status === 200) break;
          assert.equal(res.status, 503);
          assert.ok(Date.now() < deadline, `${kind} did not reach aim again within 15 s`);
          // Polling another process (HAProxy's health check): there is no event to wait on.
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await aim.stop("SIGKILL");
      }
    },
  });
}
