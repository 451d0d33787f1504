/**
 * aim in front of an app on another stack (`aim serve --upstream`), in real Chromium: a PHP app
 * with its own login and CSRF-protected forms, signed in to by the person, read and edited by an
 * agent through the tab; and a single-page app whose pages exist only in the browser, where a
 * History API navigation moves the session without a reconnect.
 * @module
 */
import assert from "node:assert/strict";
import type { ServedBridge } from "../../bridge/mod.ts";
import type { TestBridge } from "../helpers/bridge.ts";
import { NO_PHP, startPhp } from "../helpers/php.ts";
import { startAim } from "../helpers/upstream.ts";
import {
  Agent,
  clickPanelButton,
  launchBrowser,
  NO_CHROMIUM,
  panelToken,
  recordChannel,
} from "./harness.ts";

/** What the harness's agent needs of a bridge: `fetch` and `invoke` on aim's origin. */
function agentOf(aim: ServedBridge, token: string): Agent {
  const bridge = {
    origin: aim.url,
    fetch: (path: string, init?: RequestInit) => fetch(aim.url + path, init),
    invoke: (token: string, actionId: string, input?: unknown) =>
      fetch(aim.url + "/__aim/invoke", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify({ actionId, input }),
      }),
  };
  return new Agent(bridge as unknown as TestBridge, token);
}

const ignore = NO_CHROMIUM || NO_PHP;

Deno.test({
  name:
    "a PHP app's person signs in to it in the tab, and an agent edits a note through its CSRF-protected form and named Save button",
  ignore,
  async fn() {
    await using php = await startPhp();
    // Notes differ by ?id=: each note is a page of its own.
    await using aim = startAim(php.url, { pageQuery: ["id"] });
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const page = await context.newPage();

    // Anonymous: the notes page sends visitors to the login, so it has no public manifest
    // (`.toon` is always aim's; `.json` of no manifest is the app's to answer).
    const anonymous = await fetch(`${aim.url}/notes.php.toon`);
    assert.equal(anonymous.status, 404);
    assert.equal((await anonymous.json()).error, "not_found");
    const json = await fetch(`${aim.url}/notes.php.json`, { redirect: "manual" });
    await json.body?.cancel();
    assert.equal(json.status, 303);
    assert.equal(json.headers.get("location"), "/login.php");

    // The person signs in to the app itself, through aim.
    await page.goto(`${aim.url}/login.php`);
    await page.type('input[name="username"]', "ada");
    await page.type('input[name="password"]', "lovelace-1843");
    await Promise.all([page.waitForNavigation(), page.click("button")]);
    assert.equal(new URL(page.url()).pathname, "/notes.php");

    const agent = agentOf(aim, await panelToken(page));
    const notes = await agent.manifestWhen(
      "/notes.php.json",
      (m) => m.actions.some((a: { id: string }) => a.id === "open_note"),
      15_000,
    );
    assert.equal(notes.body.state_scope, "session");
    assert.deepEqual(notes.body.state.notes, [
      { id: "1", title: "Groceries" },
      { id: "2", title: "Ideas" },
    ]);

    // A GET form: the tab goes to the editor, and the session follows it there.
    const opened = await agent.invoke("open_note", { id: "1" });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal(opened.body.result.navigating_to, `${aim.url}/edit.php?id=1`);
    // Answered once the next page holds the session, with that page's state.
    assert.equal(opened.body.result.page, "/edit.php?id=1");
    assert.deepEqual(opened.body.state.note, { id: "1", title: "Groceries" });
    await agent.manifestWhen(
      "/edit.php.json?id=1",
      (m) =>
        m.state.note?.title === "Groceries" &&
        m.actions.some((a: { id: string }) => a.id === "save_note"),
      15_000,
    );

    // The app's unsaved-changes guard stops a press that does not clear it (Preview): the agent
    // is told in the app's words, the person is shown no dialog, nothing is sent.
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => void (dialogs.push(dialog.message()), dialog.dismiss()));
    const previewed = await agent.invoke("preview_note", { title: "Draft", body: "Eggs" });
    assert.equal(previewed.status, 422, JSON.stringify(previewed.body));
    assert.equal(
      previewed.body.message,
      'The page stopped leaving it: "Changes you made may not be saved."',
    );
    assert.equal(new URL(page.url()).pathname, "/edit.php");

    // Consequential: the person approves; Save is pressed (its click listener clears the guard)
    // and the form goes with its CSRF token through it.
    const saving = agent.invoke("save_note", { title: "Groceries for Sunday", body: "Eggs" });
    await clickPanelButton(page, "Approve");
    const saved = await saving;
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal(saved.body.result.submitter, "#save");
    assert.equal(saved.body.result.page, "/notes.php");
    assert.equal(saved.body.state.notes[0].title, "Groceries for Sunday");
    const after = await agent.manifestWhen(
      "/notes.php.json",
      (m) => m.state.notes?.[0]?.title === "Groceries for Sunday",
      15_000,
    );
    assert.equal(after.body.state.notes[1].title, "Ideas");
    assert.deepEqual(dialogs, []);

    // Without the person's tab, the agent is nobody to the app: no cookie, no CSRF token.
    const direct = await fetch(`${aim.url}/edit.php?id=2`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "do=save&title=Hacked&body=x",
      redirect: "manual",
    });
    await direct.body?.cancel();
    assert.equal(direct.status, 303);
    assert.equal(direct.headers.get("location"), "/login.php");
  },
});

Deno.test({
  name:
    "a single-page app's History API navigation moves the session to the new page without a reconnect",
  ignore,
  async fn() {
    await using php = await startPhp();
    await using aim = startAim(php.url);
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const page = await context.newPage();
    await recordChannel(page);
    await page.goto(`${aim.url}/spa/`);
    const agent = agentOf(aim, await panelToken(page));
    await agent.manifestWhen(
      "/spa.json",
      (m) => m.browser_connected && m.actions.some((a: { id: string }) => a.id === "open_item"),
      15_000,
    );

    const opened = await agent.invoke("open_item", "2");
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    // A route is a page the action leads to: the answer says which, with its state.
    assert.equal(opened.body.result.page, "/spa/items/2", JSON.stringify(opened.body));
    assert.equal(opened.body.result.navigating_to, `${aim.url}/spa/items/2`);
    const item = await agent.manifestWhen(
      "/spa/items/2.json",
      (m) => m.state.item?.name === "Kettle",
      15_000,
    );
    assert.ok(item.body.browser_connected);
    assert.deepEqual(
      item.body.actions.map((a: { id: string }) => a.id).filter((id: string) =>
        !["login", "logout", "disconnect"].includes(id)
      ),
      ["rename_item", "back_to_shelf"],
    );
    const old = await agent.manifest("/spa.json");
    assert.equal(old.status, 409);
    assert.equal(old.body.error, "page_mismatch");
    assert.equal(old.body.connected_page, "/spa/items/2");

    const renamed = await agent.invoke("rename_item", "Big kettle");
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    await agent.manifestWhen("/spa/items/2.json", (m) => m.state.item?.name === "Big kettle");

    // The person presses Back: the session follows again.
    await page.evaluate(() => history.back());
    await agent.manifestWhen(
      "/spa.json",
      (m) => m.state.items?.[1]?.name === "Big kettle",
      15_000,
    );

    const sent: string[] = await page.evaluate(() =>
      (window as unknown as { aimSent: string[] }).aimSent
    );
    const types = sent.map((text) => JSON.parse(text).type);
    assert.equal(types.filter((t) => t === "hello").length, 1, types.join(" "));
    assert.equal(types.filter((t) => t === "navigate").length, 2, types.join(" "));
  },
});
