/**
 * Real-browser tests of `<aim-action>` on pages written without aim in mind: actions on
 * the item an agent names (`items=`, `key=`, `click=`, `check=`, `fill=`), the session's enum of
 * the keys present now, inputs outside forms (`fill=`, `<aim-field fill>`, `commit=`) on vanilla
 * and React-style controlled inputs, typed fields checked by the bridge, and the results an
 * agent gets (the item read back, where a navigating form goes).
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import { Agent, launchBrowser, NO_CHROMIUM, openPage, panelStatus, panelToken } from "./harness.ts";
import { CONTROLLED, ORDER, REUSED, THANKS, TODOS } from "./item_pages.ts";

// deno-lint-ignore no-explicit-any
type Manifest = any;

function actionOf(manifest: Manifest, id: string) {
  return manifest.actions.find((a: { id: string }) => a.id === id);
}

Deno.test({
  name: "actions on the item an agent names, and inputs outside forms, in a real browser",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({
      site: {
        "index.html": TODOS,
        "shop.html": CONTROLLED,
        "order.html": ORDER,
        "thanks.html": THANKS,
        "board.html": REUSED,
      },
    });

    await t.step(
      "the session manifest lists the keys present now and follows the list; the public one lists none",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        const first = await agent.manifestWhen("/index.json", (m) => actionOf(m, "toggle_todo"));
        assert.deepEqual(actionOf(first.body, "toggle_todo"), {
          id: "toggle_todo",
          description: "Complete or reopen the todo with this title",
          input_schema: {
            type: "string",
            description: "The todo's title",
            enum: ["buy milk", "walk dog"],
          },
          input_example: "buy milk",
          consequential: false,
        });
        assert.deepEqual(actionOf(first.body, "open_todo").input_schema.enum, ["7", "8"]);
        assert.deepEqual(actionOf(first.body, "rename_todo").input_schema, {
          type: "object",
          properties: {
            item: {
              type: "string",
              description: "The key of the item to act on",
              enum: ["buy milk", "walk dog"],
            },
            value: { type: "string" },
          },
          required: ["item", "value"],
          additionalProperties: false,
        });
        assert.deepEqual(actionOf(first.body, "add_todo").input_schema, {
          type: "string",
          description: "What needs to be done?",
          maxLength: 200,
        });

        const publicManifest = await (await bridge.fetch("/index.json")).json();
        assert.deepEqual(actionOf(publicManifest, "toggle_todo").input_schema, {
          type: "string",
          description: "The todo's title",
        });
        assert.equal(actionOf(publicManifest, "toggle_todo").input_example, "example");

        // The page changes its list by itself: the enum follows, with no action of the agent.
        await page.evaluate(() =>
          (window as unknown as { removeTodo(t: string): void }).removeTodo("walk dog")
        );
        const after = await agent.manifestWhen(
          "/index.json",
          (m) => actionOf(m, "toggle_todo").input_schema.enum.length === 1,
        );
        assert.deepEqual(actionOf(after.body, "complete_todo").input_schema.enum, ["buy milk"]);
      },
    );

    await t.step(
      "an item an action added is a key the very next invocation may name, every time",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        await agent.manifestWhen("/index.json", (m) => actionOf(m, "complete_todo"));
        // No wait between the two: the add's answer comes once its actions are registered.
        for (let i = 0; i < 15; i++) {
          const title = `chained ${i}`;
          const added = await agent.invoke("add_todo", title);
          assert.equal(added.status, 200, JSON.stringify(added.body));
          const done = await agent.invoke("complete_todo", title);
          assert.equal(done.status, 200, `${title}: ${JSON.stringify(done.body)}`);
        }
      },
    );

    await t.step(
      "after reads back the item the agent named, even when the page reused its element for another",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/board");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        await agent.manifestWhen("/board.json", (m) => actionOf(m, "postpone"));
        const moved = await agent.invoke("postpone", "Write spec");
        assert.equal(moved.status, 200, JSON.stringify(moved.body));
        // The element that held "Write spec" now shows "Fix bug": after is the moved card, and
        // what a person sees of it (the button shown on hover is not).
        assert.deepEqual(moved.body.result, {
          item: "Write spec",
          clicked: ".later",
          after: "Write spec",
        });
      },
    );

    await t.step(
      "an agent adds a todo with Enter, then checks, toggles, unchecks, renames and deletes it by its title",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        const todos = () =>
          page.evaluate(() => (window as unknown as { todos(): string[] }).todos());

        const added = await agent.invoke("add_todo", "write report");
        assert.equal(added.status, 200, JSON.stringify(added.body));
        assert.deepEqual(added.body.result, {
          filled: { ".new-todo": "write report" },
          committed: "enter",
        });
        assert.deepEqual(await todos(), ["buy milk", "walk dog (done)", "write report"]);
        await agent.manifestWhen(
          "/index.json",
          (m) => actionOf(m, "complete_todo").input_schema.enum.includes("write report"),
        );

        const checked = await agent.invoke("complete_todo", "write report");
        assert.equal(checked.status, 200, JSON.stringify(checked.body));
        assert.deepEqual(checked.body.result, {
          item: "write report",
          checked: ".toggle",
          after: "write reportx",
        });
        // Checking what is checked clicks nothing: it stays done.
        const again = await agent.invoke("complete_todo", "write report");
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.deepEqual(await todos(), ["buy milk", "walk dog (done)", "write report (done)"]);

        const toggled = await agent.invoke("toggle_todo", "walk dog");
        assert.equal(toggled.status, 200, JSON.stringify(toggled.body));
        assert.deepEqual(toggled.body.result, {
          item: "walk dog",
          clicked: ".toggle",
          after: "walk dogx",
        });
        const reopened = await agent.invoke("reopen_todo", "write report");
        assert.deepEqual(reopened.body.result, {
          item: "write report",
          unchecked: ".toggle",
          after: "write reportx",
        });
        assert.deepEqual(await todos(), ["buy milk", "walk dog", "write report"]);

        const renamed = await agent.invoke("rename_todo", {
          item: "buy milk",
          value: "buy oat milk",
        });
        assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
        assert.deepEqual(renamed.body.result, {
          item: "buy milk",
          filled: ".edit",
          committed: "enter",
          after: "buy oat milkx",
        });

        const opened = await agent.invoke("open_todo", "8");
        assert.deepEqual(opened.body.result, { item: "8", clicked: ":scope", after: "walk dogx" });
        assert.equal(
          await page.evaluate(() => (window as unknown as { opened: number }).opened),
          8,
        );

        await agent.manifestWhen(
          "/index.json",
          (m) => actionOf(m, "delete_todo").input_schema.enum.includes("buy oat milk"),
        );
        const deleted = await agent.invoke("delete_todo", "write report");
        assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
        assert.deepEqual(deleted.body.result, {
          item: "write report",
          clicked: ".destroy",
          after: null,
        });
        assert.deepEqual(await todos(), ["buy oat milk", "walk dog"]);

        const filtered = await agent.invoke("filter_todos", "milk");
        assert.deepEqual(filtered.body.result, {
          filled: { "#filter": "milk" },
          committed: "change",
        });
        assert.equal(await page.$eval("#shown", (el) => el.textContent), "showing milk");
      },
    );

    await t.step(
      "a key that names no item is refused: 400 by the enum, 422 action_failed listing the keys when the list changed meanwhile",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        await agent.manifestWhen("/index.json", (m) => actionOf(m, "toggle_todo"));
        const unknown = await agent.invoke("toggle_todo", "feed cat");
        assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
        assert.equal(unknown.body.error, "invalid_input");
        assert.match(unknown.body.hint, /must be one of \["buy milk","walk dog"\]/);

        // The item goes while the person confirms: the page no longer has it when the action runs.
        await page.evaluate(async () => {
          const { client } = await import("/__aim/elements.js" as string);
          client.confirmer = () => {
            (window as unknown as { removeTodo(t: string): void }).removeTodo("walk dog");
            return true;
          };
        });
        const gone = await agent.invoke("archive_todo", "walk dog");
        assert.equal(gone.status, 422, JSON.stringify(gone.body));
        assert.equal(gone.body.error, "action_failed");
        assert.equal(
          gone.body.message,
          'No item has the key "walk dog"; the keys now: "buy milk".',
        );
      },
    );

    await t.step(
      "fields outside a form fill React-style controlled inputs, a checkbox and a select, and commit with a click",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/shop");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        const manifest = await agent.manifestWhen("/shop.json", (m) => actionOf(m, "add_item"));
        assert.deepEqual(actionOf(manifest.body, "add_item").input_schema, {
          type: "object",
          properties: {
            title: { type: "string", description: "Item" },
            qty: { type: "integer", minimum: 1 },
            gift: { type: "boolean" },
            size: { type: "string", enum: ["S", "M"], description: "The size" },
          },
          required: ["title", "qty"],
          additionalProperties: false,
        });
        assert.deepEqual(actionOf(manifest.body, "add_item").input_example, {
          title: "example",
          qty: 1,
        });

        const added = await agent.invoke("add_item", {
          title: "pen",
          qty: 2,
          gift: true,
          size: "M",
        });
        assert.equal(added.status, 200, JSON.stringify(added.body));
        assert.deepEqual(added.body.result, {
          filled: { title: "pen", qty: 2, gift: true, size: "M" },
          committed: "click:#add",
        });
        assert.deepEqual(await page.$$eval("#cart li", (lis) => lis.map((li) => li.textContent)), [
          "pen x2 M gift",
        ]);
        assert.equal(await page.$eval("#title", (el) => (el as HTMLInputElement).value), "pen");

        // The bridge checks the types before anything reaches the page.
        for (
          const [input, hint] of [
            [{ title: "pen", qty: 1.5 }, 'field "qty" must be an integer, not 1.5'],
            [
              { title: "pen", qty: "2" },
              'field "qty" must be an integer, not a string: send 2, not "2"',
            ],
            [{ title: "pen", qty: 0 }, 'field "qty": must be at least 1'],
            [{ title: "pen", qty: 1, gift: "yes" }, 'field "gift" must be a boolean, not a string'],
            [{ title: "pen", qty: 1, size: "XL" }, 'field "size": must be one of ["S","M"]'],
          ] as const
        ) {
          const refused = await agent.invoke("add_item", input);
          assert.equal(refused.status, 400, JSON.stringify(refused.body));
          assert.equal(refused.body.error, "invalid_input");
          assert.equal(refused.body.hint, hint);
        }
        assert.equal(await page.$$eval("#cart li", (lis) => lis.length), 1);
      },
    );

    await t.step({
      name:
        "a form whose submission navigates answers where the tab goes; one the page keeps does not",
      fn: async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/order");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        await agent.manifestWhen("/order.json", (m) => actionOf(m, "note"));
        const kept = await agent.invoke("note", { q: "later" });
        assert.equal(kept.status, 200, JSON.stringify(kept.body));
        assert.deepEqual(kept.body.result, { submitted: "#stay" });
        assert.equal(await page.$eval("#kept", (el) => el.textContent), "later");

        const navigated = page.waitForNavigation();
        const left = await agent.invoke("search", { q: "red pens" });
        assert.equal(left.status, 200, JSON.stringify(left.body));
        // Where the tab goes, without the hidden token and the password the agent never read;
        // answered once the next page holds the session, with that page's state.
        assert.deepEqual(left.body.result, {
          submitted: "#search",
          navigating_to: `${bridge.origin}/thanks?q=red+pens&n=1`,
          page: "/thanks",
        });
        await navigated;
        assert.equal(page.url(), `${bridge.origin}/thanks?q=red+pens&n=1&csrf=s3cr3t&pin=1234`);
      },
    });
  },
});
