/**
 * Real-browser tests of the session as a person lives it: reloads, a second tab, moving
 * to another page, confirmations, Disconnect, and a bridge that goes away and comes back.
 *
 * @module
 */
import assert from "node:assert/strict";
import { serve } from "../../bridge/mod.ts";
import { ONE_PROCESS, startBridge } from "../helpers/bridge.ts";
import {
  Agent,
  clickPanelButton,
  ELEMENTS,
  launchBrowser,
  NO_CHROMIUM,
  openFromPage,
  openPage,
  panelStatus,
  panelText,
  panelToken,
  recordChannel,
  screenshotPanel,
} from "./harness.ts";

const page = (title: string, panel = "<aim-panel></aim-panel>") =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">${ELEMENTS}</head><body>
${panel}
<h1>${title}</h1><p id="count">0</p>
<button id="inc" onclick="this.previousElementSibling.textContent++">+</button>
<aim-state name="count" from="#count"></aim-state>
<aim-state name="view" value="${title}"></aim-state>
<aim-action name="increment" description="Add one to the count" click="#inc"></aim-action>
<aim-action name="pay" description="Pay the bill" input-example="bill-1" consequential></aim-action>
<script type="module">
  window.paid = [];
  document.querySelector("aim-action[name=pay]").handler = (bill) => {
    window.paid.push(bill);
    return { paid: bill };
  };
</script>
</body></html>`;

const SITE = {
  "index.html": page("Home"),
  "other.html": page("Other"),
  "confirm.html": page("Confirm", '<aim-panel confirm="consequential"></aim-panel>'),
  "phone.html": page(
    "Phone",
    `<style>aim-panel { position: fixed; bottom: 8px; left: 8px; right: 8px }</style>
<aim-panel confirm="consequential"></aim-panel>`,
  ),
};

function countIn(p: import("puppeteer-core").Page): Promise<string | null> {
  return p.$eval("#count", (el) => el.textContent);
}

Deno.test({
  name: "sessions in a real browser",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: SITE });

    await t.step("the panel says it is connecting until the bridge answers", async () => {
      await using context = await browser.context();
      const tab = await context.newPage();
      await recordChannel(tab);
      await tab.setRequestInterception(true);
      let release!: () => void;
      const held = new Promise<void>((resolve) => release = resolve);
      tab.on("request", async (request) => {
        if (request.url().endsWith("/__aim/session")) await held;
        await request.continue();
      });
      await tab.goto(bridge.origin + "/");
      await panelStatus(tab, "connecting");
      await screenshotPanel(tab, "connecting");
      release();
      await panelStatus(tab, "connected");
      // The page hears it too.
      assert.deepEqual(await tab.evaluate("aimStatuses"), ["connected"]);
    });

    await t.step("heartbeats keep the lease of a tab that stays open", async () => {
      await using short = await startBridge({ site: SITE, leaseMs: 1_200 });
      await using context = await browser.context();
      const tab = await context.newPage();
      await recordChannel(tab);
      await tab.goto(short.origin + "/");
      const token = await panelToken(tab);
      await panelStatus(tab, "connected");
      // Six heartbeats, one every 400 ms: twice the lease of 1.2 s.
      await tab.waitForFunction(() =>
        (window as unknown as { aimSent: string[] }).aimSent
          .filter((m) => m === '{"type":"heartbeat"}').length >= 6
      );
      // Kept, not lost and won back: one hello, and the tab was never anything but connected.
      const sent = (await tab.evaluate("aimSent") as string[]).map((m) => JSON.parse(m).type);
      assert.equal(sent.filter((type) => type === "hello").length, 1, sent.join(" "));
      assert.deepEqual(await tab.evaluate("aimStatuses"), ["connected"]);
      assert.equal((await new Agent(short, token).invoke("increment")).status, 200);
    });

    await t.step("a reload keeps the token", async () => {
      await using context = await browser.context();
      const tab = await openPage(context, bridge, "/");
      const token = await panelToken(tab);
      await panelStatus(tab, "connected");
      await tab.reload();
      assert.equal(await panelToken(tab), token);
      await panelStatus(tab, "connected");
      const agent = new Agent(bridge, token);
      const invoked = await agent.invoke("increment");
      assert.equal(invoked.status, 200, JSON.stringify(invoked.body));
      assert.equal(await countIn(tab), "1");
    });

    await t.step(
      "a tab opened from the first one shares its session, waits for the lease and takes over when the first closes",
      async () => {
        await using context = await browser.context();
        const first = await openPage(context, bridge, "/");
        const token = await panelToken(first);
        await panelStatus(first, "connected");
        // A tab of its own (not opened from this one) gets a session of its own.
        const stranger = await openPage(context, bridge, "/");
        assert.notEqual(await panelToken(stranger), token);
        await stranger.close();
        const second = await openFromPage(context, first, "/");
        assert.equal(await panelToken(second), token);
        await panelStatus(second, "waiting");
        // What is true: no countdown, which the first tab's heartbeats would push on for ever.
        const waiting = await panelText(second);
        assert.match(waiting, /Another tab has this session; this one takes over when it closes\./);
        assert.doesNotMatch(waiting, /\d+ s\./);
        await screenshotPanel(second, "waiting");

        const agent = new Agent(bridge, token);
        assert.equal((await agent.invoke("increment")).status, 200);
        assert.equal(await countIn(first), "1", "the first tab holds the lease");
        assert.equal(await countIn(second), "0");

        await first.close();
        await panelStatus(second, "connected");
        const taken = await agent.invoke("increment");
        assert.equal(taken.status, 200, JSON.stringify(taken.body));
        assert.equal(await countIn(second), "1", "the second tab took over");
      },
    );

    await t.step(
      "Take over here moves the session to the waiting tab; the first tab's prompt goes and its action never runs",
      async () => {
        await using context = await browser.context();
        const first = await openPage(context, bridge, "/");
        const token = await panelToken(first);
        await panelStatus(first, "connected");
        const second = await openFromPage(context, first, "/");
        await panelStatus(second, "waiting");
        const agent = new Agent(bridge, token);

        // The first tab asks the person; they take over in the second tab instead. (Waits poll
        // on animation frames, which only the tab in front gets: bring the tab looked at first.)
        const paying = agent.invoke("pay", "bill-1");
        await first.bringToFront();
        await first.waitForFunction(() =>
          document.querySelector("aim-panel")?.shadowRoot?.querySelector("[role=alertdialog]")
        );
        await second.bringToFront();
        await clickPanelButton(second, "Take over here");
        await panelStatus(second, "connected");
        const paid = await paying;
        assert.equal(paid.status, 409, JSON.stringify(paid.body));
        assert.equal(paid.body.error, "browser_not_connected");
        await first.bringToFront();
        await panelStatus(first, "waiting");
        assert.match(await panelText(first), /Take over here/);
        // The prompt the bridge no longer waits for is gone: nobody can approve it now.
        await first.waitForFunction(() =>
          !document.querySelector("aim-panel")?.shadowRoot?.querySelector("[role=alertdialog]")
        );
        assert.deepEqual(await first.evaluate("paid"), []);

        // The agent now works through the second tab, and the first can take it back.
        assert.equal((await agent.invoke("increment")).status, 200);
        assert.equal(await countIn(second), "1");
        assert.equal(await countIn(first), "0");
        await clickPanelButton(first, "Take over here");
        await panelStatus(first, "connected");
        await second.bringToFront();
        await panelStatus(second, "waiting");
        assert.equal((await agent.invoke("increment")).status, 200);
        assert.equal(await countIn(first), "1");
      },
    );

    await t.step(
      "after the tab moves to another page, the old page's manifest answers 409 page_mismatch",
      async () => {
        await using context = await browser.context();
        const tab = await openPage(context, bridge, "/");
        const token = await panelToken(tab);
        await panelStatus(tab, "connected");
        await tab.goto(bridge.origin + "/other");
        assert.equal(await panelToken(tab), token);
        await panelStatus(tab, "connected");
        const agent = new Agent(bridge, token);
        const now = await agent.manifestWhen("/other.json", (m) => m.state.view === "Other");
        assert.equal(now.body.browser_connected, true);
        const old = await agent.manifest("/index.json");
        assert.equal(old.status, 409);
        assert.equal(old.body.error, "page_mismatch");
        assert.equal(old.body.connected_page, "/other");
      },
    );

    await t.step(
      "a consequential action waits for the person: Approve gives 200, Decline 403 declined",
      async () => {
        await using context = await browser.context();
        const tab = await context.newPage();
        await recordChannel(tab);
        await tab.goto(bridge.origin + "/confirm");
        const agent = new Agent(bridge, await panelToken(tab));
        await panelStatus(tab, "connected");

        const approved = agent.invoke("pay", "bill-7");
        await tab.waitForFunction(() =>
          document.querySelector("aim-panel")?.shadowRoot?.querySelector("[role=alertdialog]")
        );
        // The tab told the bridge that it asks the person, so the bridge waits longer.
        const sent = await tab.evaluate("aimSent") as string[];
        assert.ok(sent.some((m) => JSON.parse(m).type === "awaiting"), sent.join("\n"));
        assert.match(
          await panelText(tab),
          /The agent asks to run pay \(Pay the bill\) with:\s*"bill-7"/,
        );
        await screenshotPanel(tab, "confirm");
        await clickPanelButton(tab, "Approve");
        const yes = await approved;
        assert.equal(yes.status, 200, JSON.stringify(yes.body));
        assert.deepEqual(yes.body.result, { paid: "bill-7" });

        const declined = agent.invoke("pay", "bill-8");
        await clickPanelButton(tab, "Decline");
        const no = await declined;
        assert.equal(no.status, 403);
        assert.equal(no.body.error, "declined");

        // Actions that are not consequential run without a prompt.
        assert.equal((await agent.invoke("increment")).status, 200);
        // The log shows what the agent did.
        await tab.waitForFunction(() =>
          (document.querySelector("aim-panel")?.shadowRoot?.querySelectorAll("li").length ?? 0) >= 3
        );
        assert.match(await panelText(tab), /pay 403 declined/);
        await screenshotPanel(tab, "activity");
      },
    );

    await t.step("the panel is usable at phone width", async () => {
      await using context = await browser.context();
      const tab = await context.newPage();
      await tab.setViewport({ width: 360, height: 740 });
      await tab.goto(bridge.origin + "/phone");
      const agent = new Agent(bridge, await panelToken(tab));
      await panelStatus(tab, "connected");
      const pending = agent.invoke("pay", "bill-9");
      await tab.waitForFunction(() =>
        document.querySelector("aim-panel")?.shadowRoot?.querySelector("[role=alertdialog]")
      );
      const width = await tab.$eval("aim-panel", (el) => el.getBoundingClientRect().width);
      assert.ok(width <= 360, `the panel is ${width}px wide`);
      const overflow = await tab.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(overflow <= 360, `the page scrolls sideways (${overflow}px)`);
      await screenshotPanel(tab, "phone");
      // Keyboard: the prompt has focus; Tab reaches Approve, Enter presses it.
      await tab.keyboard.press("Tab");
      const focused = await tab.evaluate(() =>
        document.querySelector("aim-panel")?.shadowRoot?.activeElement?.textContent
      );
      assert.equal(focused, "Approve");
      // Approve works once the prompt has been on screen for its read delay (elements/prompt.ts).
      await tab.waitForFunction(() =>
        document.querySelector("aim-panel")?.shadowRoot?.querySelector(".approve")
          ?.getAttribute("aria-disabled") === "false"
      );
      await tab.keyboard.press("Enter");
      assert.equal((await pending).status, 200);

      // Each part of an activity line (time, outcome, duration) stays whole on narrow screens,
      // whatever the length of the action id before it.
      for (const id of ["a", "approve", "approve_request", "approve_every_pending_request"]) {
        assert.equal((await agent.invoke(id)).status, 404);
      }
      await tab.waitForFunction(() =>
        (document.querySelector("aim-panel")?.shadowRoot?.querySelectorAll("li").length ?? 0) >= 5
      );
      const broken = await tab.evaluate(() => {
        const panel = document.querySelector("aim-panel")!;
        const right = panel.getBoundingClientRect().right;
        const out: string[] = [];
        for (const li of panel.shadowRoot!.querySelectorAll("li")) {
          for (const part of li.children) {
            const range = document.createRange();
            range.selectNodeContents(part);
            const rects = [...range.getClientRects()];
            const lines = new Set(rects.map((r) => Math.round(r.top)));
            if (part.localName !== "code" && lines.size !== 1) {
              out.push(`${part.textContent} wraps`);
            }
            if (rects.some((r) => r.right > right)) out.push(`${part.textContent} overflows`);
          }
        }
        return out;
      });
      assert.deepEqual(broken, []);
      await screenshotPanel(tab, "phone-activity");
    });

    await t.step("Disconnect in the panel makes the token answer 401 everywhere", async () => {
      await using context = await browser.context();
      const tab = await openPage(context, bridge, "/");
      const token = await panelToken(tab);
      await panelStatus(tab, "connected");
      await clickPanelButton(tab, "Disconnect");
      await panelStatus(tab, "ended");
      await screenshotPanel(tab, "ended");
      const agent = new Agent(bridge, token);
      for (const path of ["/index.json", "/index.toon", "/other.json"]) {
        const res = await bridge.fetch(path, { headers: { Authorization: `Bearer ${token}` } });
        await res.body?.cancel();
        assert.equal(res.status, 401, path);
      }
      const invoked = await agent.invoke("increment");
      assert.equal(invoked.status, 401);
      assert.equal(invoked.body.error, "invalid_token");

      // The person may start over: a new token.
      await clickPanelButton(tab, "Start a new session");
      await panelStatus(tab, "connected");
      const fresh = await panelToken(tab);
      assert.notEqual(fresh, token);
      assert.equal((await new Agent(bridge, fresh).invoke("increment")).status, 200);
    });

    await t.step({
      name: "when the channel drops, the tab reconnects by itself with the same token",
      // It drops the channel from inside the bridge's memory.
      ...ONE_PROCESS,
      fn: async () => {
        await using context = await browser.context();
        const tab = await openPage(context, bridge, "/");
        const token = await panelToken(tab);
        await panelStatus(tab, "connected");
        const session = (await bridge.served.bridge.core.sessions.find(token))!;
        session.tab.holder!.port.close(1011, "dropped by the test");
        await panelStatus(tab, "disconnected");
        await panelStatus(tab, "connected");
        assert.equal(await panelToken(tab), token);
        assert.equal((await new Agent(bridge, token).invoke("increment")).status, 200);
      },
    });
  },
});

/** Before the page loads, hides the bridge's `ended` messages from it: a bridge that dies. */
async function deafToEnded(page: import("puppeteer-core").Page): Promise<void> {
  await page.evaluateOnNewDocument(() => {
    const own = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage")!;
    Object.defineProperty(WebSocket.prototype, "onmessage", {
      get() {
        return own.get!.call(this);
      },
      set(handler: (e: MessageEvent) => void) {
        own.set!.call(this, (e: MessageEvent) => {
          if (JSON.parse(e.data).type !== "ended") handler.call(this, e);
        });
      },
    });
  });
}

Deno.test({
  name: "when the bridge goes away",
  // One bridge stopping ends its sessions; in a cluster another takes its tabs over
  // (tests/cluster/browser_cluster_test.ts).
  ignore: NO_CHROMIUM || ONE_PROCESS.ignore,
  async fn(t) {
    await using browser = await launchBrowser();
    const root = await Deno.makeTempDir({ prefix: "aim-site-" });
    await Deno.writeTextFile(`${root}/index.html`, SITE["index.html"]);

    await t.step(
      "a bridge that stops ends the session on screen: no token, no retrying, and a new session once it is back",
      async () => {
        const first = await startBridge({ root });
        const port = first.served.port;
        await using context = await browser.context();
        const tab = await context.newPage();
        await recordChannel(tab);
        await tab.goto(first.origin + "/");
        const token = await panelToken(tab);
        await panelStatus(tab, "connected");

        await first[Symbol.asyncDispose]();
        await panelStatus(tab, "ended");
        assert.match(
          await panelText(tab),
          /The bridge stopped, ending this session: the token no longer works\./,
        );
        // The dead token is no longer offered, and the tab never tried to reconnect.
        assert.equal(
          await tab.$eval("aim-panel", (el) => el.shadowRoot!.querySelector("#token") === null),
          true,
        );
        assert.deepEqual(await tab.evaluate("aimStatuses"), ["connected", "ended"]);
        await screenshotPanel(tab, "stopped");

        // Started over while the bridge is still away, the tab waits for it to come back.
        await clickPanelButton(tab, "Start a new session");
        await panelStatus(tab, "disconnected");
        await using second = serve({ hostname: "127.0.0.1", root, port });
        await panelStatus(tab, "connected", 20_000);
        const fresh = await panelToken(tab);
        assert.notEqual(fresh, token);
        const res = await fetch(`${second.url}/index.json`, {
          headers: { Authorization: `Bearer ${fresh}` },
        });
        assert.equal(res.status, 200);
        assert.equal((await res.json()).browser_connected, true);
      },
    );

    await t.step(
      "a bridge that dies without a word: the tab retries, then says the session is gone and offers a new one",
      async () => {
        const first = await startBridge({ root });
        const port = first.served.port;
        await using context = await browser.context();
        const tab = await context.newPage();
        await deafToEnded(tab);
        await tab.goto(first.origin + "/");
        const token = await panelToken(tab);
        await panelStatus(tab, "connected");

        await first[Symbol.asyncDispose]();
        await panelStatus(tab, "disconnected");
        await screenshotPanel(tab, "disconnected");

        await using second = serve({ hostname: "127.0.0.1", root, port });
        await panelStatus(tab, "ended", 20_000);
        assert.match(await panelText(tab), /this session is gone/);
        await screenshotPanel(tab, "gone");
        await clickPanelButton(tab, "Start a new session");
        await panelStatus(tab, "connected");
        const fresh = await panelToken(tab);
        assert.notEqual(fresh, token);
        const res = await fetch(`${second.url}/index.json`, {
          headers: { Authorization: `Bearer ${fresh}` },
        });
        assert.equal(res.status, 200);
      },
    );

    await Deno.remove(root, { recursive: true }).catch(() => {});
  },
});
