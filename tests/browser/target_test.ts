/**
 * The person sees what an action will touch (issue 33, item 9), in real Chromium: while a prompt
 * waits, the item's row and the button, or the form with the fields the input fills and the
 * button it presses, are outlined on the page and scrolled into view, and the prompt names them
 * in words; both go with the prompt. In the panel and in the elements' own dialog.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { startBridge } from "../helpers/bridge.ts";
import {
  Agent,
  clickPanelButton,
  ELEMENTS,
  launchBrowser,
  NO_CHROMIUM,
  panelStatus,
  panelText,
  panelToken,
} from "./harness.ts";

/** Requests far down a long page, each row with its Approve button; an order form below. */
function requestsPage(panel: boolean): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Requests</title>
${ELEMENTS}<style>button { outline: none !important; }</style></head><body>
${panel ? '<aim-panel style="position: fixed; top: 0; right: 0"></aim-panel>' : ""}
<div style="height: 3000px">Scroll down</div>
<table id="requests"><tbody>
  <tr data-id="req-2"><td>req-2</td><td><button class="approve">Approve</button></td></tr>
  <tr data-id="req-3"><td>req-3</td><td><button class="approve">Approve</button></td></tr>
</tbody></table>
<div style="height: 3000px"></div>
<form id="order" aria-label="Order" onsubmit="event.preventDefault()">
  <label>Item <input name="item"></label><label>Quantity <input name="qty"></label>
  <label>Note <input name="note"></label><button id="place">Place order</button>
</form>
<aim-action name="approve" description="Approve one request" items="#requests tr"
  key-attribute="data-id" click=".approve" consequential></aim-action>
<aim-action name="order" description="Order an item" form="#order" consequential></aim-action>
</body></html>`;
}

/** How `selector` is outlined now ("none" when it is not), and whether it is in the viewport. */
function seen(page: Page, selector: string): Promise<{ outline: string; inView: boolean }> {
  return page.$eval(selector, (el) => {
    const box = el.getBoundingClientRect();
    return {
      outline: getComputedStyle(el).outlineStyle,
      inView: box.bottom > 0 && box.top < innerHeight,
    };
  });
}

for (const panel of [true, false]) {
  const where = panel ? "in the panel" : "in the elements' dialog";
  Deno.test({
    name: `what an action will act on is outlined and named while the person is asked, ${where}`,
    ignore: NO_CHROMIUM,
    async fn(t) {
      await using browser = await launchBrowser();
      await using bridge = await startBridge({ site: { "requests.html": requestsPage(panel) } });
      await using context = await browser.context();
      const page = await context.newPage();
      await page.goto(`${bridge.origin}/requests`);
      // Without a panel, the page's own client holds the token.
      const token = panel
        ? (await panelStatus(page, "connected"), await panelToken(page))
        : await (await page.waitForFunction(async () => {
          const url = "/__aim/elements.js";
          const { client } = await import(url);
          return client.status === "connected" && client.token;
        })).jsonValue() as string;
      const agent = new Agent(bridge, token);
      await agent.manifestWhen(
        "/requests.json",
        (m) => m.actions.some((a: { id: string }) => a.id === "approve"),
      );
      const promptText = () =>
        panel ? panelText(page) : page.$eval("aim-confirm", (el) => el.shadowRoot!.textContent!);
      const answer = async (button: "Approve" | "Decline") => {
        if (panel) return await clickPanelButton(page, button);
        const found = await page.waitForSelector(
          `aim-confirm >>> dialog[open] button.${button.toLowerCase()}`,
        );
        await found!.click();
      };
      const prompted = () =>
        page.waitForFunction(
          (p) =>
            p
              ? !!document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm")
              : !!document.querySelector("aim-confirm"),
          {},
          panel,
        );

      await t.step("the item's row and its button, scrolled into view, named", async () => {
        const asked = agent.invoke("approve", "req-3");
        await prompted();
        const row = await seen(page, 'tr[data-id="req-3"]');
        assert.deepEqual(row, { outline: "solid", inView: true });
        assert.equal((await seen(page, 'tr[data-id="req-3"] .approve')).outline, "solid");
        assert.equal((await seen(page, 'tr[data-id="req-2"]')).outline, "none");
        assert.match(
          (await promptText()).replace(/\s+/g, " "),
          /press “Approve” on the row req-3/,
        );
        await answer("Decline");
        assert.equal((await asked).status, 403);
        // Withdrawn with the prompt, as the page had it.
        assert.equal((await seen(page, 'tr[data-id="req-3"]')).outline, "none");
        assert.equal(
          await page.$eval('tr[data-id="req-3"] .approve', (el) => el.getAttribute("style")),
          null,
        );
      });

      await t.step("the form, the fields the input fills and its button", async () => {
        const asked = agent.invoke("order", { item: "pens", qty: "2" });
        await prompted();
        assert.deepEqual(await seen(page, "#order"), { outline: "solid", inView: true });
        assert.equal((await seen(page, "[name=item]")).outline, "solid");
        assert.equal((await seen(page, "[name=qty]")).outline, "solid");
        assert.equal((await seen(page, "[name=note]")).outline, "none");
        assert.equal((await seen(page, "#place")).outline, "solid");
        assert.match(
          (await promptText()).replace(/\s+/g, " "),
          /fill the form “Order” \(item, qty\) and press “Place order”/,
        );
        await answer("Decline");
        assert.equal((await asked).status, 403);
        assert.equal((await seen(page, "#order")).outline, "none");
      });
    },
  });
}
