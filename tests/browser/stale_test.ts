/**
 * Refusing stale decisions in real Chromium: the person changes the demo's
 * control panel between the agent's read and its invocation; the invocation that names the
 * version it decided on (`If-Match: "v<n>"`) is refused with 409 `stale_state` and does not
 * run, and runs once the agent names the version it has now read.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { startDemo } from "../../demo/app.ts";
import { toManifestAction } from "../../bridge/input/action_spec.ts";
import type { ActionSpec } from "../../bridge/wire/schemas.ts";
import { panelActions, panelRows } from "../../bench/demo_tab.ts";
import { clickPanelButton, launchBrowser, NO_CHROMIUM, panelToken } from "./harness.ts";

// deno-lint-ignore no-explicit-any
type Manifest = any;

/** The agent's side: plain HTTP with the token the panel shows. */
class Agent {
  constructor(readonly origin: string, readonly token: string) {}

  get(headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.origin}/control-panel.json`, {
      headers: { Authorization: `Bearer ${this.token}`, ...headers },
    });
  }

  /** The manifest once `test` holds, waiting on the bridge's long poll for each change. */
  async manifestWhen(test: (m: Manifest) => boolean): Promise<Manifest> {
    const res = await this.get();
    assert.equal(res.status, 200);
    let manifest = await res.json();
    while (!test(manifest)) {
      const next = await this.get({
        "If-None-Match": `"v${manifest.state_version}"`,
        Prefer: "wait=10",
      });
      if (next.status === 304) {
        await next.body?.cancel();
        throw new Error(`the manifest did not change in 10 s: ${JSON.stringify(manifest)}`);
      }
      assert.equal(next.status, 200);
      manifest = await next.json();
    }
    return manifest;
  }

  async invoke(
    actionId: string,
    input: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Manifest }> {
    const res = await fetch(`${this.origin}/__aim/invoke`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Authorization: `Bearer ${this.token}`,
        ...headers,
      },
      body: JSON.stringify({ actionId, input }),
    });
    return { status: res.status, body: await res.json() };
  }
}

const req3 = (m: Manifest) =>
  m.state.requests?.find((r: { id: string }) => r.id === "req-3")?.status;

function promptShown(page: Page): Promise<boolean> {
  return page.evaluate(() =>
    (document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") ?? null) !== null
  );
}

Deno.test({
  name:
    "an invocation decided on a version the person has since changed is refused with 409 stale_state and does not run, and runs on the new version",
  ignore: NO_CHROMIUM,
  async fn(t) {
    const data = Deno.makeTempDirSync({ prefix: "aim-stale-" });
    try {
      await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
      const origin = demo.served.url;
      await using browser = await launchBrowser();
      await using context = await browser.context();
      const page = await context.newPage();
      await page.goto(`${origin}/control-panel`);
      const agent = new Agent(origin, await panelToken(page));

      const login = await agent.invoke("login", { username: "alice", password: "wonderland" });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      await page.waitForFunction(() =>
        document.querySelectorAll("#requests tbody tr").length === 5
      );
      const read = await agent.manifestWhen((m) => m.state.requests?.length === 5);

      await t.step("the page publishes what the benchmarks' fake control panel imitates", () => {
        assert.deepEqual(read.state.requests, panelRows(demo.store.list()));
        assert.equal(read.state.filter, "all");
        const own = read.actions.filter((a: { id: string }) =>
          !["login", "logout", "disconnect"].includes(a.id)
        );
        assert.deepEqual(own, panelActions().map((a) => toManifestAction(a as ActionSpec)));
      });

      await t.step(
        "the person picks another filter after the agent read the manifest: If-Match with the old version gets 409 stale_state with the current state_version, and req-3 stays pending",
        async () => {
          const decided = read.state_version;
          assert.equal(typeof decided, "number");
          assert.equal(req3(read), "pending");
          // Still the version the agent read: nothing else moves it.
          const unchanged = await agent.get({ "If-None-Match": `"v${decided}"` });
          assert.equal(unchanged.status, 304);

          await page.select("#filter", "pending");
          const now = await agent.manifestWhen((m) => m.state.filter === "pending");
          assert.ok(now.state_version > decided);

          const stale = await agent.invoke("approve_request", "req-3", {
            "If-Match": `"v${decided}"`,
          });
          assert.equal(stale.status, 409, JSON.stringify(stale.body));
          assert.equal(stale.body.error, "stale_state");
          assert.equal(stale.body.state_version, now.state_version);
          // The action did not run: nothing was asked of the person, nothing changed.
          assert.equal(await promptShown(page), false);
          assert.equal(demo.store.get("req-3").status, "pending");
          const after = await agent.get({ "If-None-Match": `"v${now.state_version}"` });
          assert.equal(after.status, 304, "the refusal changed nothing the manifest says");
          read.state_version = stale.body.state_version;
        },
      );

      await t.step(
        "with the version it has now read, the invocation runs once the person confirms",
        async () => {
          const approved = agent.invoke("approve_request", "req-3", {
            "If-Match": `"v${read.state_version}"`,
          });
          await clickPanelButton(page, "Approve");
          const answer = await approved;
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
          assert.deepEqual(answer.body.result, { id: "req-3", status: "approved" });
          assert.ok(answer.body.state_version > read.state_version);
          assert.equal(demo.store.get("req-3").status, "approved");
        },
      );
    } finally {
      Deno.removeSync(data, { recursive: true });
    }
  },
});
