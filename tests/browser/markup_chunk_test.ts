/**
 * `<aim-action>`'s markup reader loading on demand (elements/load_markup.ts), in real Chromium:
 * while it loads, nothing the tab owes the bridge goes ahead of the page's actions and state, and
 * the tab's channel does not open: once the tab is connected, its token finds the actions.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { startBridge } from "../helpers/bridge.ts";
import { Agent, ELEMENTS, launchBrowser, NO_CHROMIUM, recordChannel } from "./harness.ts";

const users = createUserStore([
  { username: "alice", passwordHash: await hashPassword("wonderland", { N: 1024 }), name: "Alice" },
]);

/** The session token, once the page's client holds the session. */
function connectedToken(page: Page): Promise<string> {
  return page.waitForFunction(async () => {
    const url = "/__aim/elements.js";
    const { client } = await import(url);
    return client.status === "connected" && client.token;
  }).then((handle) => handle.jsonValue() as Promise<string>);
}

/**
 * A page that renders its `<aim-action>` only once someone signed in, as a single-page app
 * does: it has none when its channel opens, so the markup reader loads only then.
 */
const SIGNED_IN_ONLY = `<!doctype html><title>Requests</title>${ELEMENTS}
<aim-state name="greeting" value=""></aim-state>
<script type="module">
  document.addEventListener("aim-session", ({ detail }) => {
    if (!detail.authenticated || document.querySelector("aim-action")) return;
    document.querySelector("aim-state").value = "Hello, " + detail.user.name;
    document.body.insertAdjacentHTML("beforeend",
      '<aim-action name="approve_request" description="Approve a request" input-example="r-1"></aim-action>');
  });
</script>`;

Deno.test({
  name:
    "a sign-in that renders the page's first <aim-action> while the markup reader loads is answered with the state the page settled on, after its actions",
  ignore: NO_CHROMIUM,
  async fn() {
    await using bridge = await startBridge({ site: { "requests.html": SIGNED_IN_ONLY }, users });
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
    await page.goto(`${bridge.origin}/requests`);
    const agent = new Agent(bridge, await connectedToken(page));
    const login = agent.invoke("login", { username: "alice", password: "wonderland" });
    // The tab heard it: signed in, the page rendering its action.
    await page.waitForFunction(async () => {
      const url = "/__aim/elements.js";
      const { client } = await import(url);
      return client.session?.authenticated === true && !!document.querySelector("aim-action");
    });
    release();
    const answer = await login;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.state.greeting, "Hello, Alice");
    const { body } = await agent.manifest("/requests.json");
    // Registered before the answer: signed in, the action is there at once.
    assert.ok(
      body.actions.some((a: { id: string }) => a.id === "approve_request"),
      "the sign-in was answered before the page's actions were registered",
    );
  },
});

Deno.test({
  name:
    "a tab opens its channel only once the markup reader loaded: the first manifest its token reads lists the page's actions, and a consequential one asks the person",
  ignore: NO_CHROMIUM,
  async fn() {
    await using bridge = await startBridge({
      site: {
        "pay.html": `<!doctype html><title>Pay</title>${ELEMENTS}
<aim-action name="pay" description="Pay one bill now" input-example="bill-1" consequential>
</aim-action>`,
      },
      confirmTimeoutMs: 20_000,
    });
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const tab = await context.newPage();
    await recordChannel(tab);
    await tab.setRequestInterception(true);
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    let requested!: () => void;
    const reader = new Promise<void>((resolve) => requested = resolve);
    tab.on("request", async (request) => {
      if (new URL(request.url()).pathname === "/__aim/elements.markup.js") {
        requested();
        await held;
      }
      await request.continue();
    });
    await tab.goto(`${bridge.origin}/pay`);
    await reader;
    // The reader is on its way, the session open: the channel is not, nothing was sent on it.
    const waiting = await tab.evaluate(async () => {
      const url = "/__aim/elements.js";
      const { client } = await import(url);
      const { aimSent } = window as unknown as { aimSent: string[] };
      return { status: client.status, token: !!client.token, sent: aimSent.length };
    });
    assert.deepEqual(waiting, { status: "connecting", token: true, sent: 0 });
    release();
    // Read once, not polled: connected means registered.
    const agent = new Agent(bridge, await connectedToken(tab));
    const { status, body } = await agent.manifest("/pay.json");
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.actions.map((a: { id: string }) => a.id).sort(), ["disconnect", "pay"]);
    const answer = agent.invoke("pay", "bill-2");
    await tab.waitForSelector("aim-confirm >>> dialog[open]", { timeout: 10_000 });
    await tab.click("aim-confirm >>> button.decline");
    const no = await answer;
    assert.equal(no.status, 403, JSON.stringify(no.body));
    assert.equal(no.body.error, "declined");
  },
});

Deno.test({
  name:
    "an <aim-action> a script renders while the channel opens goes in the tab's first register, never after an empty one",
  ignore: NO_CHROMIUM,
  async fn() {
    await using bridge = await startBridge({
      site: {
        "late.html": `<!doctype html><title>Late</title>${ELEMENTS}
<aim-state name="count" value="3"></aim-state>`,
      },
    });
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const tab = await context.newPage();
    await recordChannel(tab);
    // The page has no <aim-action> when its session opens (nothing loads the markup reader);
    // a framework renders one as the client opens the tab channel.
    await tab.evaluateOnNewDocument(() => {
      const Native = WebSocket;
      globalThis.WebSocket = class extends Native {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(url, protocols);
          if (String(url).endsWith("/__aim/tab")) {
            document.body.insertAdjacentHTML(
              "beforeend",
              '<aim-action name="search" description="Search" input-example="x"></aim-action>',
            );
          }
        }
      };
    });
    await tab.goto(`${bridge.origin}/late`);
    const agent = new Agent(bridge, await connectedToken(tab));
    await agent.manifestWhen(
      "/late.json",
      (m) => m.actions.some((a: { id: string }) => a.id === "search"),
    );
    const sent = await tab.evaluate(() =>
      (window as unknown as { aimSent: string[] }).aimSent.map((text) => JSON.parse(text))
    );
    assert.deepEqual(sent.slice(0, 3).map((m) => m.type), ["hello", "register", "state"]);
    assert.deepEqual(
      sent.filter((m) => m.type === "register").map((m) =>
        m.actions.map((a: { id: string }) => a.id)
      ),
      [["search"]],
    );
  },
});
