/**
 * `<aim-action>`'s markup reader loading on demand (elements/load_markup.ts), in real Chromium:
 * while it loads, nothing the tab owes the bridge goes ahead of the page's actions and state.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startDemo } from "../../demo/app.ts";
import { bridgeAt } from "../helpers/bridge.ts";
import { tempDir } from "../helpers/temp.ts";
import { Agent, launchBrowser, NO_CHROMIUM, panelToken } from "./harness.ts";

Deno.test({
  name:
    "a sign-in while the markup reader still loads is answered with the state the page settled on, after its actions",
  ignore: NO_CHROMIUM,
  async fn() {
    await using data = await tempDir("aim-demo-");
    await using demo = await startDemo({ data: data.path, port: 0, hostname: "127.0.0.1" });
    const bridge = bridgeAt(demo.served.url);
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const page = await context.newPage();
    // The markup reader's chunk is held until the tab has heard of the sign-in.
    await page.setRequestInterception(true);
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    page.on("request", async (request) => {
      if (new URL(request.url()).pathname === "/__aim/elements.markup.js") await held;
      await request.continue();
    });
    await page.goto(`${bridge.origin}/control-panel`);
    const agent = new Agent(bridge, await panelToken(page));
    const login = agent.invoke("login", { username: "alice", password: "wonderland" });
    // The tab heard it: signed in, the page reacting.
    await page.waitForFunction(async () => {
      const url = "/__aim/elements.js";
      return (await import(url)).client.session?.authenticated === true;
    });
    release();
    const answer = await login;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.state.user, { username: "alice", name: "Alice Martin" });
    const { body } = await agent.manifest("/control-panel.json");
    // Registered before the answer: signed in, the protected actions are there at once.
    assert.ok(
      body.actions.some((a: { id: string }) => a.id === "approve_request"),
      "the sign-in was answered before the page's actions were registered",
    );
  },
});
