/**
 * A2A against a real page: Debian's Chromium holds the session, the person confirms or
 * declines in the panel, and the official A2A client (`@a2a-js/sdk/client` 1.3.0, in v1 and in
 * v0.3) discovers the site's card and runs the page's actions as tasks, with the panel's token.
 *
 * @module
 */
import assert from "node:assert/strict";
import { TaskState } from "@a2a-js/sdk";
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
import {
  action,
  answerOf,
  asTask,
  CLIENT_KINDS,
  collect,
  connectClient,
  dataOf,
  expectAimError,
  failureOf,
  rpc,
  shapes,
  textOf,
} from "./helpers.ts";

const SITE = {
  "desk.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Desk</title>
<meta name="description" content="The requests desk">
${ELEMENTS}</head><body><aim-panel></aim-panel>
<p id="status">idle</p>
<aim-state name="status" from="#status"></aim-state>
<aim-action name="search" description="Search the requests" input-example="pending"></aim-action>
<aim-action name="add_comment" description="Comment on a request">
  <script type="application/json">{"type": "object", "properties": {
    "request_id": {"type": "string", "description": "The request"},
    "text": {"type": "string", "description": "The comment"}}, "required": ["request_id", "text"]}
  </script></aim-action>
<aim-action name="pay" description="Pay the bill; the money leaves today" input-example="bill-1"
  consequential></aim-action>
<aim-action name="explode" description="Print the report" input-example="now"></aim-action>
<script type="module">
  const on = (name, run) => document.querySelector("aim-action[name=" + name + "]").handler = run;
  on("search", (query) => ({ found: [query] }));
  on("add_comment", (comment) => {
    document.getElementById("status").textContent = "commented on " + comment.request_id;
    return { saved: comment };
  });
  on("pay", (bill) => {
    document.getElementById("status").textContent = "paid " + bill;
    return { paid: bill };
  });
  on("explode", () => { throw new Error("the printer is on fire"); });
</script></body></html>`,
  "plain.html": "<!doctype html><title>Plain</title><p>No agent here.</p>",
};

/** Whether the panel shows a confirmation prompt now. */
const promptShown = () =>
  (document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") ?? null) !== null;

Deno.test({
  name: "the official A2A client runs the actions of a page that a real browser holds",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: SITE });

    for (const kind of CLIENT_KINDS) {
      await t.step(`with the ${kind} client`, async (t) => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/desk");
        const token = await panelToken(page);
        await panelStatus(page, "connected");
        const client = await connectClient(kind, bridge.origin, token);
        /** The id of the task the stream step leaves waiting for the person. */
        let waiting = "";

        await t.step(
          "the card it discovered has the page as a skill, its actions as examples",
          async () => {
            const card = await client.getAgentCard();
            assert.deepEqual(card.skills.map((s) => s.id), ["/desk"]);
            const [desk] = card.skills;
            assert.equal(desk?.name, "Desk");
            assert.match(desk?.description ?? "", /^The requests desk\./);
            assert.deepEqual(desk?.examples.slice(0, 2), [
              'Search the requests: {"actionId":"search","input":"pending"}',
              'Comment on a request: {"actionId":"add_comment","input":{"request_id":"example","text":"example"}}',
            ]);
            assert.ok(card.securitySchemes.aim_session, "the token is the security scheme");
          },
        );

        await t.step(
          "message/send runs a string action and an object action in the page",
          async () => {
            const found = asTask(await client.sendMessage(action("search", "pending")));
            assert.deepEqual(answerOf(found).result, { found: ["pending"] });
            const commented = asTask(
              await client.sendMessage(
                action("add_comment", { request_id: "req-2", text: "Looks right" }),
              ),
            );
            assert.deepEqual(answerOf(commented).result, {
              saved: { request_id: "req-2", text: "Looks right" },
            });
            assert.equal(await page.$eval("#status", (el) => el.textContent), "commented on req-2");
          },
        );

        await t.step(
          "a consequential action is input-required until the person approves it",
          async () => {
            const asked = asTask(await client.sendMessage(action("pay", "bill-7")));
            assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
            assert.match(textOf(asked.status?.message?.parts[0]), /"pay" waits for the person/);
            assert.deepEqual(
              (dataOf(asked.status?.message?.parts[1]) as { actionId: string }).actionId,
              "pay",
            );
            const following = collect(client.resubscribeTask({ tenant: "", id: asked.id }));
            await clickPanelButton(page, "Approve");
            assert.deepEqual(shapes(await following).slice(-2), [
              "artifact",
              "status:TASK_STATE_COMPLETED",
            ]);
            const paid = await client.getTask({
              tenant: "",
              id: asked.id,
              historyLength: undefined,
            });
            assert.deepEqual(answerOf(paid).result, { paid: "bill-7" });
            assert.equal(await page.$eval("#status", (el) => el.textContent), "paid bill-7");
          },
        );

        await t.step("declined in the page, the task fails with declined", async () => {
          const asked = asTask(await client.sendMessage(action("pay", "bill-8")));
          assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
          const following = collect(client.resubscribeTask({ tenant: "", id: asked.id }));
          await clickPanelButton(page, "Decline");
          assert.deepEqual(shapes(await following).slice(-1), ["status:TASK_STATE_FAILED"]);
          const declined = await client.getTask({
            tenant: "",
            id: asked.id,
            historyLength: undefined,
          });
          failureOf(declined, "declined");
          assert.equal(await page.$eval("#status", (el) => el.textContent), "paid bill-7");
        });

        await t.step("invalid input and a throwing handler fail with aim's codes", async () => {
          const invalid = failureOf(
            asTask(await client.sendMessage(action("add_comment", { request_id: "req-2" }))),
            "invalid_input",
          );
          assert.match(String(invalid.message), /text/);
          const broke = failureOf(
            asTask(await client.sendMessage(action("explode", "now"))),
            "action_failed",
          );
          assert.match(String(broke.message), /the printer is on fire/);
        });

        await t.step(
          "message/stream sends the task, its answer and its end, in order",
          async () => {
            const events = await collect(client.sendMessageStream(action("search", "stream")));
            assert.deepEqual(shapes(events), [
              "task:TASK_STATE_WORKING",
              "artifact",
              "status:TASK_STATE_COMPLETED",
            ]);
            const last = events.at(-1)!.payload!;
            assert.equal(last.$case, "statusUpdate");
            const paying = await collect(client.sendMessageStream(action("pay", "bill-9")));
            assert.deepEqual(shapes(paying), [
              "task:TASK_STATE_WORKING",
              "status:TASK_STATE_INPUT_REQUIRED",
            ]);
            // Left waiting: the next step cancels it.
            const task = paying[0]!.payload!;
            assert.equal(task.$case, "task");
            waiting = (task.value as { id: string }).id;
          },
        );

        await t.step(
          "cancelling a task withdraws the prompt and the action never runs",
          async () => {
            await page.waitForFunction(promptShown);
            const cancelled = await client.cancelTask({
              tenant: "",
              id: waiting,
              metadata: undefined,
            });
            assert.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED);
            await page.waitForFunction(() =>
              (document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm") ??
                null) === null
            );
            assert.equal(await page.$eval("#status", (el) => el.textContent), "paid bill-7");
          },
        );
      });
    }

    await t.step("without a token or with a bad one: 401 with WWW-Authenticate", async () => {
      const body = { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } };
      const missing = await rpc(bridge, null, body);
      assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer/);
      await expectAimError(missing, 401, "missing_token");
      const client = await connectClient("v1", bridge.origin, "y".repeat(43));
      await assert.rejects(client.sendMessage(action("search", "x")), /401/);
    });
  },
});
