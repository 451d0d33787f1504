/**
 * Real-browser tests of structured state: `<aim-state items=>` and `<aim-field>` read
 * lists and tables into arrays of objects in Debian's Chromium, follow the page as it changes,
 * leave out or mark what is not shown, and never read a password.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import { Agent, ELEMENTS, launchBrowser, NO_CHROMIUM, panelToken, Warnings } from "./harness.ts";

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Todos</title>
${ELEMENTS}</head><body>
<aim-panel></aim-panel>
<ul class="todo-list">
  <li data-id="1" data-urgent data-key="k-should-not-leak"><input class="toggle" type="checkbox"><label> write
    report </label><span class="votes">3</span></li>
  <li data-id="2" data-urgent="false"><input class="toggle" type="checkbox" checked><label>walk dog</label><span class="votes">many</span></li>
  <li data-id="3" hidden><input class="toggle" type="checkbox"><label>hidden by attribute</label></li>
  <li data-id="4" style="display:none"><label>hidden by style</label></li>
  <li data-id="5"><label>no toggle</label></li>
</ul>
<aim-state name="todos" from=".todo-list" items="li">
  <aim-field name="id" attribute="data-id"></aim-field>
  <aim-field name="title" from="label"></aim-field>
  <aim-field name="done" from=".toggle" read="checked"></aim-field>
  <aim-field name="votes" from=".votes" type="number"></aim-field>
  <aim-field name="urgent" attribute="data-urgent" type="boolean"></aim-field>
  <aim-field name="api_key" attribute="data-key"></aim-field>
</aim-state>
<aim-state name="marked" from=".todo-list" items="li" invisible="mark">
  <aim-field name="title" from="label"></aim-field>
</aim-state>
<aim-state name="titles" items=".todo-list label"></aim-state>
<aim-state name="marked_titles" items=".todo-list li" invisible="MARK"></aim-state>

<table id="scores">
  <thead><tr><th>name</th><th>score</th><th>done</th></tr></thead>
  <tbody>
    <tr data-id="a"><td>Ann</td><td>31</td><td><input type="checkbox" checked></td></tr>
    <tr><td>Bo</td><td>n/a</td><td><input type="checkbox"></td></tr>
    <tr hidden><td>Cy</td><td>7</td><td></td></tr>
  </tbody>
</table>
<aim-state name="scores_plain" from="#scores"></aim-state>
<aim-state name="scores" from="#scores">
  <aim-field name="score" type="number"></aim-field>
  <aim-field name="done" from="input"></aim-field>
  <aim-field name="id" attribute="data-id"></aim-field>
</aim-state>

<form id="login"><input class="user" name="username" value="ann">
<input class="pw" type="password" name="password" value="hunter2-secret">
<input class="qty" value=" 2 "></form>
<aim-state name="account" from="#login">
  <aim-field name="who" from=".user"></aim-field>
  <aim-field name="hint" from=".pw"></aim-field>
  <aim-field name="raw" from=".pw" attribute="value"></aim-field>
  <aim-field name="shown" from=".pw" read="value"></aim-field>
  <aim-field name="qty" from=".qty" read="value" type="number"></aim-field>
</aim-state>
<aim-state name="bad" items="li"><aim-field name="x" read="bogus"></aim-field></aim-state>
</body></html>`;

const TODOS = [
  { id: "1", title: "write report", done: false, votes: 3, urgent: true },
  { id: "2", title: "walk dog", done: true, votes: null, urgent: false },
  { id: "5", title: "no toggle", done: null, votes: null, urgent: false },
];

Deno.test({
  name: "<aim-state items=> publishes lists and tables as arrays of objects and follows the page",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: { "index.html": PAGE } });
    await using context = await browser.context();
    const page = await context.newPage();
    const warnings = new Warnings(page);
    await page.goto(`${bridge.origin}/`);
    const agent = new Agent(bridge, await panelToken(page));
    const { body } = await agent.manifestWhen("/index.json", (m) => "todos" in m.state);
    const state = body.state;

    await t.step("a list becomes one object per shown item, with typed fields", () => {
      assert.deepEqual(state.todos, TODOS);
    });

    await t.step('hidden items are left out, or kept and marked with invisible="mark"', () => {
      assert.deepEqual(state.marked, [
        { title: "write report", visible: true },
        { title: "walk dog", visible: true },
        { title: "hidden by attribute", visible: false },
        { title: "hidden by style", visible: false },
        { title: "no toggle", visible: true },
      ]);
      assert.deepEqual(state.titles, ["write report", "walk dog", "no toggle"]);
      assert.deepEqual(state.marked_titles.map((i: { visible: boolean }) => i.visible), [
        true,
        true,
        false,
        false,
        true,
      ]);
      assert.equal(state.marked_titles[0].text, "write report 3");
    });

    await t.step("tables keep strings unless a field gives a column a type", () => {
      assert.deepEqual(state.scores_plain, [
        { name: "Ann", score: "31", done: "" },
        { name: "Bo", score: "n/a", done: "" },
      ]);
      assert.deepEqual(state.scores, [
        { name: "Ann", score: 31, done: true, id: "a" },
        { name: "Bo", score: null, done: false, id: null },
      ]);
    });

    await t.step("a password is never read, by any field, and the console says so", async () => {
      assert.deepEqual(state.account, {
        who: "ann",
        hint: null,
        raw: null,
        shown: null,
        qty: 2,
      });
      assert.ok(!JSON.stringify(body).includes("hunter2"), "the password leaked");
      // A field named like a secret is removed, as any such key: aim check reports it.
      assert.ok(!JSON.stringify(body).includes("should-not-leak"), "a secret field leaked");
      await warnings.waitFor(
        /<aim-field name="hint">: passwords are never published \(docs\/elements\.md#password-field\)/,
      );
    });

    await t.step("a bad field publishes null and warns the author", async () => {
      assert.equal(state.bad, null);
      await warnings.waitFor(
        /<aim-state name="bad">: read="bogus" is not one of text, value.*\(docs\/elements\.md#state-markup\)/,
      );
    });

    await t.step("the state follows clicks, re-renders and rows that appear", async () => {
      await page.click('li[data-id="1"] .toggle');
      await page.evaluate(() => {
        const list = document.querySelector(".todo-list")!;
        list.insertAdjacentHTML(
          "beforeend",
          '<li data-id="6"><input class="toggle" type="checkbox"><label>buy milk</label></li>',
        );
        list.querySelector('[data-id="2"]')!.setAttribute("hidden", "");
        list.querySelector('[data-id="4"]')!.removeAttribute("style");
        list.querySelector('[data-id="5"] label')!.textContent = "renamed";
        document.querySelector("#scores tbody")!.insertAdjacentHTML(
          "beforeend",
          "<tr><td>Di</td><td>-4.5</td><td></td></tr>",
        );
      });
      const live = await agent.manifestWhen(
        "/index.json",
        (m) => m.state.todos?.length === 4 && m.state.scores?.length === 3,
      );
      assert.deepEqual(live.body.state.todos, [
        { ...TODOS[0], done: true },
        { id: "4", title: "hidden by style", done: null, votes: null, urgent: false },
        { ...TODOS[2], title: "renamed" },
        { id: "6", title: "buy milk", done: false, votes: null, urgent: false },
      ]);
      assert.deepEqual(live.body.state.scores[2], {
        name: "Di",
        score: -4.5,
        done: null,
        id: null,
      });
      assert.deepEqual(live.body.state.scores_plain[2], { name: "Di", score: "-4.5", done: "" });
    });
  },
});
