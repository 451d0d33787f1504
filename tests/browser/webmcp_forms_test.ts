/**
 * A page's WebMCP tools as the site owner and the page shape them after load (issue 33, items 5
 * and 7), in real Chromium with and without `--enable-features=WebMCP`: `<aim-tool read-only>`
 * lets a harmless read run without asking the person (recorded in the activity log), never over a
 * tool that says it is destructive; and a `<form toolname>` that gains, changes or loses its
 * `toolname` after load, or comes and goes, is added, changed or withdrawn as Chromium does.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import {
  clickPanelButton,
  launchBrowser,
  NO_CHROMIUM,
  panelStatus,
  panelToken,
  Warnings,
} from "./harness.ts";

/** aim's two lines, as docs/webmcp.md tells a site that uses WebMCP to add them. */
const AIM_HEAD = '<script src="/__aim/webmcp.js"></script>';

/**
 * Tools that say nothing of what they change, one that says it is destructive, and a search form:
 * the site owner marks all three read-only.
 */
const OWNER_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Orders</title>
<script>
  // Registered before aim's tag, where the browser has WebMCP: aim never sees its hints.
  document.modelContext?.registerTool({
    name: "purge_orders",
    description: "Remove old orders",
    annotations: { destructiveHint: true },
    execute: () => "purged",
  });
</script>
${AIM_HEAD}
<script>
  if (document.modelContext) {
    document.modelContext.registerTool({
      name: "order_status",
      description: "The status of an order",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      execute: ({ id }) => ({ id, status: "shipped" }),
    });
    document.modelContext.registerTool({
      name: "wipe_orders",
      description: "Remove every order",
      annotations: { destructiveHint: true },
      execute: () => { document.getElementById("wiped").textContent = "yes"; return "wiped"; },
    });
  }
</script>
</head><body><aim-panel></aim-panel>
<p id="wiped">no</p>
<form id="find" toolname="find_order" tooldescription="Find orders by a word" toolautosubmit>
  <input name="word" required><button>Find</button>
</form>
<aim-tool name="order_status" read-only></aim-tool>
<aim-tool name="wipe_orders" read-only></aim-tool>
<aim-tool name="find_order" read-only></aim-tool>
<aim-tool name="purge_orders" read-only></aim-tool>
<script>
  document.getElementById("find").addEventListener("submit", (event) => {
    event.preventDefault();
    if (event.agentInvoked) event.respondWith({ found: [event.target.elements.word.value] });
  });
</script>
</body></html>`;

/** Forms that become tools, change and stop being tools after load, as the page's script says. */
const LIVE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Steps</title>
${AIM_HEAD}
</head><body><aim-panel></aim-panel>
<form id="first"><input name="email" required><button>Next</button></form>
<div id="later"></div>
<script>
  window.steps = {
    name: () => document.getElementById("first").setAttribute("toolname", "give_email"),
    describe: () => document.getElementById("first").setAttribute("tooldescription", "Your email"),
    rename: () => document.getElementById("first").setAttribute("toolname", "send_email"),
    field: () => {
      const input = document.createElement("input");
      input.name = "note";
      document.getElementById("first").prepend(input);
    },
    unname: () => document.getElementById("first").removeAttribute("toolname"),
    add: () => {
      document.getElementById("later").innerHTML = '<section><form toolname="pick_slot" ' +
        'tooldescription="Pick a slot"><input name="slot"></form></section>';
    },
    remove: () => document.getElementById("later").replaceChildren(),
  };
</script>
</body></html>`;

/** The session manifest's actions by id, once `ready` holds of them. */
async function actionsWhen(
  bridge: TestBridge,
  token: string,
  path: string,
  ready: (actions: Record<string, Record<string, unknown>>) => boolean,
): Promise<Record<string, Record<string, unknown>>> {
  const deadline = Date.now() + 15_000;
  let last: Record<string, Record<string, unknown>> = {};
  while (Date.now() < deadline) {
    const res = await bridge.fetch(path, { headers: { Authorization: `Bearer ${token}` } });
    const manifest = await res.json();
    last = Object.fromEntries(
      (manifest.actions ?? []).map((a: { id: string }) => [a.id, a]),
    );
    if (ready(last)) return last;
    // An agent polls over HTTP; there is no event to wait on from outside the page.
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  assert.fail(`the actions never matched; last: ${JSON.stringify(Object.keys(last))}`);
}

for (const webmcp of [false, true]) {
  const flag = webmcp ? "with the WebMCP flag" : "without the WebMCP flag";

  Deno.test({
    name: `<aim-tool read-only> runs a harmless read unasked, never a destructive tool, ${flag}`,
    ignore: NO_CHROMIUM,
    async fn(t) {
      await using browser = await launchBrowser({ webmcp });
      await using bridge = await startBridge({ site: { "orders.html": OWNER_PAGE } });
      await using context = await browser.context();
      const page = await context.newPage();
      const warnings = new Warnings(page);
      await page.goto(`${bridge.origin}/orders`);
      await panelStatus(page, "connected");
      const token = await panelToken(page);
      const actions = await actionsWhen(
        bridge,
        token,
        "/orders.json",
        (a) => !!a.order_status && !!a.wipe_orders && !!a.find_order,
      );
      const invoke = async (actionId: string, input: unknown) => {
        const res = await bridge.invoke(token, actionId, input);
        return { status: res.status, body: await res.json() };
      };

      await t.step("the owner's word makes a tool that says nothing read-only", async () => {
        assert.equal(actions.order_status!.consequential, false);
        assert.equal(actions.find_order!.consequential, false);
        // The public catalog reads the same markup for the form.
        const published = await (await bridge.fetch("/orders.json")).json();
        assert.equal(
          published.actions.find((a: { id: string }) => a.id === "find_order").consequential,
          false,
        );
        // Nobody is asked: the answer comes with no click in the page.
        const status = await invoke("order_status", { id: "o-7" });
        assert.equal(status.status, 200, JSON.stringify(status.body));
        assert.deepEqual(status.body.result, { id: "o-7", status: "shipped" });
        const found = await invoke("find_order", { word: "tea" });
        assert.equal(found.status, 200, JSON.stringify(found.body));
      });

      await t.step(
        "never over a tool that says it is destructive: the person is asked",
        async () => {
          assert.equal(actions.wipe_orders!.consequential, true);
          await warnings.waitFor(
            /tool "wipe_orders": <aim-tool read-only> is ignored: the tool says/,
          );
          if (webmcp) {
            // Chromium lists no destructiveHint: the owner's word cannot be checked, so it waits.
            const purge = await actionsWhen(bridge, token, "/orders.json", (a) => !!a.purge_orders);
            assert.equal(purge.purge_orders!.consequential, true);
            await warnings.waitFor(
              /tool "purge_orders": <aim-tool read-only> is ignored: aim did not/,
            );
          }
          const wiping = invoke("wipe_orders", {});
          await clickPanelButton(page, "Decline");
          const declined = await wiping;
          assert.equal(declined.status, 403, JSON.stringify(declined.body));
          assert.equal(declined.body.error, "declined");
          assert.equal(await page.$eval("#wiped", (el) => el.textContent), "no");
        },
      );

      await t.step("the activity log says whose word let a tool run unasked", async () => {
        const res = await bridge.fetch("/__aim/activity", {
          headers: { Authorization: `Bearer ${token}` },
        });
        const entries: { actionId: string; read_only_by?: string }[] = (await res.json()).entries;
        const by = (id: string) => entries.find((e) => e.actionId === id)?.read_only_by;
        assert.equal(by("order_status"), "site_owner");
        assert.equal(by("find_order"), "site_owner");
        assert.equal(by("wipe_orders"), undefined);
      });
    },
  });

  Deno.test({
    name: `a form that gains, changes or loses toolname after load follows live, ${flag}`,
    ignore: NO_CHROMIUM,
    async fn(t) {
      await using browser = await launchBrowser({ webmcp });
      await using bridge = await startBridge({ site: { "steps.html": LIVE_PAGE } });
      await using context = await browser.context();
      const page = await context.newPage();
      await page.goto(`${bridge.origin}/steps`);
      await panelStatus(page, "connected");
      const token = await panelToken(page);
      const step = (name: string) =>
        page.evaluate(
          (n) => (window as unknown as Record<string, Record<string, () => void>>).steps![n]!(),
          name,
        );
      const ids = (a: Record<string, unknown>) =>
        Object.keys(a).filter((id) => id !== "disconnect");
      await actionsWhen(bridge, token, "/steps.json", (a) => ids(a).length === 0);

      await t.step("a form that gains toolname becomes a tool", async () => {
        await step("name");
        await step("describe");
        const actions = await actionsWhen(
          bridge,
          token,
          "/steps.json",
          (a) => a.give_email?.description === "Your email",
        );
        assert.deepEqual(ids(actions), ["give_email"]);
        assert.deepEqual(actions.give_email!.input_schema, {
          type: "object",
          properties: { email: { type: "string" } },
          required: ["email"],
          additionalProperties: false,
        });
      });

      await t.step(
        "a renamed form is the new tool only; a new field is in its schema",
        async () => {
          await step("rename");
          let actions = await actionsWhen(bridge, token, "/steps.json", (a) => !!a.send_email);
          assert.deepEqual(ids(actions), ["send_email"]);
          await step("field");
          actions = await actionsWhen(
            bridge,
            token,
            "/steps.json",
            (a) =>
              "note" in ((a.send_email?.input_schema as { properties: object })?.properties ?? {}),
          );
          assert.deepEqual(ids(actions), ["send_email"]);
        },
      );

      await t.step("a form that loses toolname, or leaves the page, is withdrawn", async () => {
        await step("unname");
        await actionsWhen(bridge, token, "/steps.json", (a) => ids(a).length === 0);
        await step("add");
        await actionsWhen(bridge, token, "/steps.json", (a) => ids(a).join() === "pick_slot");
        await step("remove");
        await actionsWhen(bridge, token, "/steps.json", (a) => ids(a).length === 0);
      });
    },
  });
}
