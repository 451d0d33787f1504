/**
 * MCP against a real page: Debian's Chromium holds the session, the person confirms or
 * declines in the panel, and both official MCP clients (v1 1.32.2 and v2 2.4.0) use the page's
 * actions as tools, with the token the panel shows.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createUserStore, hashPassword } from "../../bridge/mod.ts";
import { startBridge } from "../helpers/bridge.ts";
import {
  clickPanelButton,
  ELEMENTS,
  launchBrowser,
  NO_CHROMIUM,
  openPage,
  panelStatus,
  panelToken,
} from "../browser/harness.ts";
import { CLIENT_KINDS, connectClient, initializeBody, postHeaders, within } from "./helpers.ts";

const head = (title: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
${ELEMENTS}</head><body><aim-panel></aim-panel>`;

const SITE = {
  "desk.html": `${head("Desk")}
<p id="status">idle</p>
<aim-state name="status" from="#status"></aim-state>
<aim-action name="search" description="Search the requests" input-description="What to look for"
  input-example="pending" read-only></aim-action>
<aim-action name="add_comment" description="Comment on a request">
  <script type="application/json">{"type": "object", "properties": {
    "request_id": {"type": "string", "description": "The request"},
    "text": {"type": "string", "description": "The comment"}}, "required": ["request_id", "text"]}
  </script></aim-action>
<aim-action name="pay" description="Pay the bill; the money leaves today" input-example="bill-1"
  consequential></aim-action>
<aim-action name="explode" description="Print the report" input-example="now"></aim-action>
<aim-action name="approve_request" description="Approve one request" input-example="req-3"
  protected></aim-action>
<script type="module">
  const on = (name, run) => document.querySelector("aim-action[name=" + name + "]").handler = run;
  on("search", (query) => ({ found: [query] }));
  on("add_comment", (comment) => {
    document.getElementById("status").textContent = "commented on " + comment.request_id;
    return { saved: comment };
  });
  on("pay", (bill) => ({ paid: bill }));
  on("explode", () => { throw new Error("the printer is on fire"); });
  on("approve_request", (id) => ({ approved: id }));
</script></body></html>`,
  "other.html": `${head("Other")}
<aim-action name="archive" description="Archive the page" input-example="all"></aim-action>
<script type="module">
  document.querySelector("aim-action[name=archive]").handler = (what) => ({ archived: what });
</script></body></html>`,
};

Deno.test({
  name: "MCP clients operate a page that a real browser holds",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    const users = createUserStore([
      { username: "alice", passwordHash: await hashPassword("wonderland"), name: "Alice" },
    ]);
    await using bridge = await startBridge({ site: SITE, users });

    for (const kind of CLIENT_KINDS) {
      await t.step(`with the ${kind} client`, async (t) => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/desk");
        const token = await panelToken(page);
        await panelStatus(page, "connected");
        await using client = await connectClient(kind, bridge.origin, token);

        await t.step(
          "the tools are the page's actions, annotated, then the read tool",
          async () => {
            const tools = await client.listTools();
            assert.deepEqual(tools.map((tool) => tool.name), [
              "login",
              "disconnect",
              "search",
              "add_comment",
              "pay",
              "explode",
              "aim_read_page",
            ]);
            const byName = new Map(tools.map((tool) => [tool.name, tool]));
            const search = byName.get("search")!;
            assert.deepEqual(search.inputSchema, {
              type: "object",
              properties: { input: { type: "string", description: "What to look for" } },
              required: ["input"],
              additionalProperties: false,
            });
            assert.equal(search.annotations?.readOnlyHint, true);
            assert.equal(search.annotations?.destructiveHint, false);
            assert.equal(byName.get("pay")!.annotations?.destructiveHint, true);
            assert.equal(byName.get("pay")!.annotations?.readOnlyHint, false);
            assert.equal(byName.get("explode")!.annotations?.readOnlyHint, false);
            assert.equal(byName.get("add_comment")!.inputSchema.type, "object");
            assert.deepEqual(byName.get("add_comment")!.inputSchema.required, [
              "request_id",
              "text",
            ]);
            assert.equal(byName.get("pay")!.title, "Pay");
          },
        );

        await t.step("a string action and an object action run in the page", async () => {
          const found = await client.callTool("search", { input: "pending" });
          assert.deepEqual(found.structuredContent.result, { found: ["pending"] });
          const commented = await client.callTool("add_comment", {
            request_id: "req-2",
            text: "Looks right",
          });
          assert.equal(commented.isError, undefined, JSON.stringify(commented.structuredContent));
          assert.equal(await page.$eval("#status", (el) => el.textContent), "commented on req-2");
        });

        await t.step("a consequential action waits for the person, who approves it", async () => {
          const asked = Promise.withResolvers<string>();
          const call = client.callTool("pay", { input: "bill-7" }, {
            onprogress: (progress) => asked.resolve(progress.message ?? ""),
          });
          // The client hears that the person is being asked, before anyone answers.
          assert.match(
            await within(asked.promise, "progress"),
            /Waiting for the person to confirm "pay"/,
          );
          await clickPanelButton(page, "Approve");
          const paid = await call;
          assert.equal(paid.isError, undefined, JSON.stringify(paid.structuredContent));
          assert.deepEqual(paid.structuredContent.result, { paid: "bill-7" });
        });

        await t.step("declined in the page, the call is a tool error with declined", async () => {
          const call = client.callTool("pay", { input: "bill-8" });
          await clickPanelButton(page, "Decline");
          const declined = await call;
          assert.equal(declined.isError, true);
          assert.equal(declined.structuredContent.error, "declined");
        });

        await t.step("invalid input is invalid_input with the hint", async () => {
          const wrong = await client.callTool("search", { query: "pending" });
          assert.equal(wrong.isError, true);
          assert.equal(wrong.structuredContent.error, "invalid_input");
          assert.match(wrong.structuredContent.hint, /\{"input": <the string>\}/);
        });

        await t.step("a handler that throws is action_failed with the page's message", async () => {
          const failed = await client.callTool("explode", { input: "now" });
          assert.equal(failed.isError, true);
          assert.equal(failed.structuredContent.error, "action_failed");
          assert.match(failed.structuredContent.message, /the printer is on fire/);
        });

        await t.step(
          "signing in makes the protected tool appear, and the client is told",
          async () => {
            const changed = client.nextListChanged();
            const login = await client.callTool("login", {
              username: "alice",
              password: "wonderland",
            });
            assert.equal(login.isError, undefined, JSON.stringify(login.structuredContent));
            await changed;
            const names = (await client.listTools()).map((tool) => tool.name);
            assert.ok(names.includes("approve_request"), names.join());
            const approved = await client.callTool("approve_request", { input: "req-3" });
            assert.deepEqual(approved.structuredContent.result, { approved: "req-3" });
          },
        );

        await t.step("the read tool shows the page's live state", async () => {
          const read = await client.callTool("aim_read_page");
          assert.equal(read.structuredContent.page, "/desk");
          assert.equal(read.structuredContent.browser_connected, true);
          assert.equal(read.structuredContent.state.status, "commented on req-2");
          assert.equal(read.structuredContent.state.authenticated, true);
        });

        await t.step("the tab navigating to another page changes the tools", async () => {
          let next = client.nextListChanged();
          await page.goto(bridge.origin + "/other");
          // The tab leaves, then comes back on /other: each change is told, until its actions are in.
          let names: string[] = [];
          while (true) {
            await next;
            next = client.nextListChanged();
            names = (await client.listTools()).map((tool) => tool.name);
            if (names.includes("archive")) break;
          }
          assert.ok(!names.includes("search"), names.join());
          const read = await client.callTool("aim_read_page");
          assert.equal(read.structuredContent.page, "/other");
        });
      });
    }

    await t.step("a self-minted token's page actions answer browser_not_connected", async () => {
      const token = await bridge.openSession("/desk");
      await using client = await connectClient("v2", bridge.origin, token);
      const result = await client.callTool("search", { input: "pending" });
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent.error, "browser_not_connected");
    });

    await t.step("without a token or with a bad one: 401; another Origin: 403", async () => {
      const missing = await bridge.fetch("/__aim/mcp", {
        method: "POST",
        headers: postHeaders(),
        body: initializeBody(),
      });
      assert.equal(missing.status, 401);
      assert.match(missing.headers.get("WWW-Authenticate") ?? "", /^Bearer/);
      await missing.body?.cancel();
      const bad = await bridge.fetch("/__aim/mcp", {
        method: "POST",
        headers: postHeaders("y".repeat(43)),
        body: initializeBody(),
      });
      assert.equal(bad.status, 401);
      await bad.body?.cancel();
      const token = await bridge.openSession("/desk");
      const cross = await bridge.fetch("/__aim/mcp", {
        method: "POST",
        headers: postHeaders(token, { Origin: "http://127.0.0.1:1" }),
        body: initializeBody(),
      });
      assert.equal(cross.status, 403);
      await cross.body?.cancel();
    });
  },
});
