/**
 * `open=` in real Chromium (issue 33, "Real apps, real gestures"): an action opens what it
 * fills as a person does before writing into it. On a list that edits an item once its label is
 * double-clicked (the page's own `dblclick` listener, as TodoMVC's), the agent renames an item:
 * the label hears a person's double-click, in order (two presses, `detail` 1 then 2, then
 * `dblclick`), inside the item named only; the editor the page renders later is waited for, then
 * filled and committed, and the answer says so. An editor that never appears fails the action
 * with the reason, and a misspelt `open=` leaves the action out, saying why.
 *
 * @module
 */
import assert from "node:assert/strict";
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
  Warnings,
} from "./harness.ts";

/**
 * A list whose items are renamed as TodoMVC's are: double-click the label, and an editor appears
 * (here a frame and a little later, as an app that renders it after a fetch would), committed by
 * Enter. The "Stuck" item never opens: its edit field stays hidden. What the labels hear, and the
 * titles saved, are its state.
 * A note is edited by pressing its Edit button.
 */
const LIST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>List</title>
${ELEMENTS}</head><body><aim-panel></aim-panel>
<ul id="list"><li><label>Buy milk</label></li><li><label>Walk dog</label></li>
<li class="stuck"><label>Stuck</label><input class="edit" hidden></li></ul>
<p id="note">Nothing yet</p><button id="edit-note">Edit</button>
<aim-state name="heard"></aim-state><aim-state name="saved"></aim-state>
<aim-action name="rename" description="Rename the item with this title" items="#list li"
  key="label" open="dblclick:label" fill=".edit" commit="enter"></aim-action>
<aim-action name="write_note" description="Write the note" open="click:#edit-note"
  fill="#note-editor" commit="enter"></aim-action>
<aim-action name="retitle" description="Rename the item with this title, for everyone"
  items="#list li" key="label" open="dblclick:label" fill=".edit" commit="enter"
  consequential></aim-action>
<aim-action name="misspelt" description="Rename, misspelt" items="#list li" key="label"
  open="doubleclick:label" fill=".edit"></aim-action>
<script>
  const list = document.getElementById("list");
  const heard = [], saved = [];
  const show = () => {
    document.querySelector("aim-state[name=heard]").value = heard;
    document.querySelector("aim-state[name=saved]").value = saved;
  };
  const TYPES = ["pointerover", "mouseover", "pointermove", "mousemove", "pointerdown",
    "mousedown", "pointerup", "mouseup", "click", "dblclick"];
  for (const type of TYPES) {
    list.addEventListener(type, (e) => {
      heard.push(e.target.textContent + " " + type + " " + e.detail + " " + e.button);
      show();
    });
  }
  /** An editor in \`where\`, a frame and 50 ms after the gesture; Enter saves it. */
  const editor = (where, cls, id, text, save) => requestAnimationFrame(() => setTimeout(() => {
    const input = document.createElement("input");
    input.className = cls;
    if (id) input.id = id;
    input.value = text;
    input.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      save(input.value);
      input.remove();
      show();
    });
    where.append(input);
  }, 50));
  list.addEventListener("dblclick", (e) => {
    const li = e.target.closest("li");
    if (li.classList.contains("stuck") || li.querySelector(".edit")) return;
    const label = li.querySelector("label");
    editor(li, "edit", "", label.textContent, (title) => {
      saved.push(label.textContent + " -> " + title);
      label.textContent = title;
    });
  });
  document.getElementById("edit-note").addEventListener("click", () => {
    const note = document.getElementById("note");
    editor(document.body, "", "note-editor", note.textContent, (text) => {
      saved.push("note -> " + text);
      note.textContent = text;
    });
  });
  show();
</script></body></html>`;

Deno.test({
  name:
    "open= double-clicks the named item's label as a person does, waits for the editor the page opens, then fills it",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: { "list.html": LIST } });
    await using context = await browser.context();
    const page = await context.newPage();
    const warnings = new Warnings(page);
    await page.goto(`${bridge.origin}/list`);
    await panelStatus(page, "connected");
    const agent = new Agent(bridge, await panelToken(page));
    const ready = await agent.manifestWhen(
      "/list.json",
      (m) => m.actions.some((a: { id: string }) => a.id === "rename"),
    );

    await t.step("a misspelt open= leaves the action out, and the console says why", async () => {
      const ids = ready.body.actions.map((a: { id: string }) => a.id);
      assert.ok(ids.includes("write_note"));
      assert.ok(!ids.includes("misspelt"));
      const said = await warnings.waitFor(/misspelt/);
      // The element follows the sentence, as the console shows it.
      assert.equal(
        said.replace(/ \[node \w+\]$/, ""),
        '[aim] <aim-action name="misspelt">: open="doubleclick:label" is not ' +
          'click:<selector> or dblclick:<selector> (for example open="dblclick:label") ' +
          "(docs/elements.md#action-markup)",
      );
    });

    await t.step(
      "the agent renames the item it names; the page's dblclick listener ran",
      async () => {
        const renamed = await agent.invoke("rename", { item: "Walk dog", value: "Walk the dog" });
        assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
        assert.deepEqual(renamed.body.result, {
          item: "Walk dog",
          opened: "dblclick:label",
          filled: ".edit",
          committed: "enter",
          after: "Walk the dog",
        });
        assert.deepEqual(renamed.body.state.saved, ["Walk dog -> Walk the dog"]);
        // What a person's double-click dispatches, in order, to the named item's label alone:
        // `<text> <type> <detail> <button>`.
        assert.deepEqual(renamed.body.state.heard, [
          "Walk dog pointerover 0 -1",
          "Walk dog mouseover 0 0",
          "Walk dog pointermove 0 -1",
          "Walk dog mousemove 0 0",
          "Walk dog pointerdown 0 0",
          "Walk dog mousedown 1 0",
          "Walk dog pointerup 0 0",
          "Walk dog mouseup 1 0",
          "Walk dog click 1 0",
          "Walk dog pointerdown 0 0",
          "Walk dog mousedown 2 0",
          "Walk dog pointerup 0 0",
          "Walk dog mouseup 2 0",
          "Walk dog click 2 0",
          "Walk dog dblclick 2 0",
        ]);
        const labels = await page.$$eval("#list label", (els) => els.map((el) => el.textContent));
        assert.deepEqual(labels, ["Buy milk", "Walk the dog", "Stuck"]);
      },
    );

    await t.step("open= without items= presses its button, then fills what appears", async () => {
      const written = await agent.invoke("write_note", "Call the plumber");
      assert.equal(written.status, 200, JSON.stringify(written.body));
      assert.deepEqual(written.body.result, {
        opened: "click:#edit-note",
        filled: { "#note-editor": "Call the plumber" },
        committed: "enter",
      });
      assert.equal(written.body.state.saved.at(-1), "note -> Call the plumber");
    });

    await t.step("the person asked is told what will be double-clicked, then filled", async () => {
      const asking = agent.invoke("retitle", { item: "Buy milk", value: "Buy oat milk" });
      await page.waitForFunction(() =>
        !!document.querySelector("aim-panel")?.shadowRoot?.querySelector(".confirm")
      );
      assert.match(
        (await panelText(page)).replace(/\s+/g, " "),
        /double-click “Buy milk”, then fill what it opens on the item Buy milk/,
      );
      await clickPanelButton(page, "Approve");
      const retitled = await asking;
      assert.equal(retitled.status, 200, JSON.stringify(retitled.body));
      assert.equal(retitled.body.result.after, "Buy oat milk");
    });

    await t.step(
      "an editor that never opens fails the action, saying what did not appear",
      async () => {
        const stuck = await agent.invoke("rename", { item: "Stuck", value: "Moving" });
        assert.equal(stuck.status, 422, JSON.stringify(stuck.body));
        assert.equal(stuck.body.error, "action_failed");
        assert.equal(
          stuck.body.message,
          'open="dblclick:label" did not open ".edit" in the item "Stuck" within 3 s: it is not ' +
            "there, not shown or disabled.",
        );
        assert.equal(await page.$eval("#list li.stuck label", (el) => el.textContent), "Stuck");
      },
    );
  },
});
