/**
 * What an agent's action does is what a person's hand does (issue 33, item 1), in real Chromium:
 * a named submit button is pressed (its own click listeners run, and an app's unsaved-changes
 * guard they clear lets the page go); a form without one is submitted by the button Enter would
 * press; fields are filled top to bottom as the page enables and fills them; and when the page
 * stops what the agent started (a `beforeunload` guard, a click listener, a submit listener that
 * marks a field invalid, the browser's validation), the agent is told so, in the page's words,
 * and the person is never shown a browser dialog.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { startBridge } from "../helpers/bridge.ts";
import { Agent, ELEMENTS, launchBrowser, NO_CHROMIUM, panelStatus, panelToken } from "./harness.ts";

/** A page whose state is what the form sent (its query): where a submission lands. */
const SAVED = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Saved</title>
${ELEMENTS}</head><body><aim-panel></aim-panel><aim-state name="sent"></aim-state>
<script>
  document.querySelector("aim-state").value = Object.fromEntries(new URLSearchParams(location.search));
</script></body></html>`;

/**
 * An editor as a wiki writes one: typing marks the page dirty, `onbeforeunload` returns a
 * message while it is, and the Save button's own click listener clears it (the Preview button's
 * does not). A second form checks its title in its submit listener.
 */
const EDIT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Edit</title>
${ELEMENTS}</head><body><aim-panel></aim-panel>
<form id="edit" action="/saved">
  <label>Title <input name="title" value="Old" required></label>
  <button id="preview" name="do" value="preview">Preview</button>
  <button id="save" name="do" value="save">Save</button>
  <button id="locked" name="do" value="locked">Locked</button>
</form>
<form id="checked" action="/saved" novalidate>
  <label>Name <input name="name" aria-describedby="name-error"></label>
  <p id="name-error"></p><button id="check" name="via" value="button">Check</button>
</form>
<form id="required" action="/saved">
  <label>Code <input id="code" name="code" required></label><button id="send">Send</button>
</form>
<a id="away" href="/saved?from=link">Leave</a>
<p id="saves">0</p>
<aim-state name="saves" from="#saves"></aim-state>
<aim-action name="save" description="Save the page" form="#edit" submitter="#save"></aim-action>
<aim-action name="preview" description="Preview the page" form="#edit"></aim-action>
<aim-action name="locked" description="Press a button the page stops" form="#edit"
  submitter="#locked"></aim-action>
<aim-action name="check_name" description="Check a name" form="#checked"></aim-action>
<aim-action name="send_code" description="Send a code" click="#send"></aim-action>
<aim-action name="leave" description="Leave the editor" click="#away"></aim-action>
<script>
  let dirty = false;
  document.querySelector("[name=title]").addEventListener("input", () => dirty = true);
  window.onbeforeunload = () => dirty ? "Your changes are not saved yet." : undefined;
  const saves = document.getElementById("saves");
  document.getElementById("save").addEventListener("click", () => {
    dirty = false;
    saves.textContent = String(Number(saves.textContent) + 1);
  });
  document.getElementById("locked").addEventListener("click", (e) => e.preventDefault());
  document.getElementById("checked").addEventListener("submit", (e) => {
    const field = e.target.elements.name;
    if (field.value !== "taken") return;
    e.preventDefault();
    field.setAttribute("aria-invalid", "true");
    document.getElementById("name-error").textContent = "This name is taken.";
  });
</script></body></html>`;

/** The same guard, written as MDN tells: a listener that prevents the event's default. */
const GUARDED = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Guarded</title>
${ELEMENTS}</head><body><aim-panel></aim-panel><a id="away" href="/saved">Leave</a>
<aim-action name="leave" description="Leave the page" click="#away"></aim-action>
<script>
  addEventListener("beforeunload", (e) => { e.preventDefault(); e.returnValue = ""; });
</script></body></html>`;

/**
 * A tracker: the resolution list is empty and disabled until "Resolve" is clicked, and a
 * framework fills it a frame later; tags are a multi-select, who to notify a checkbox group.
 * The page sends the form itself and shows what it sent.
 */
const TRACKER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ticket</title>
${ELEMENTS}</head><body><aim-panel></aim-panel>
<form id="ticket">
  <label><input type="radio" name="status" value="open" checked> Open</label>
  <label><input type="radio" name="status" value="resolve"> Resolve</label>
  <label>Resolution <select name="resolution" disabled></select></label>
  <label>Tags <select name="tags" multiple><option>ui</option><option>db</option>
    <option>api</option></select></label>
  <label><input type="checkbox" name="notify" value="alice"> Alice</label>
  <label><input type="checkbox" name="notify" value="bob" checked> Bob</label>
  <button>Update</button>
</form>
<aim-state name="sent"></aim-state>
<aim-action name="update" description="Update the ticket" form="#ticket"></aim-action>
<script>
  const form = document.getElementById("ticket");
  const resolution = form.elements.resolution;
  for (const radio of form.elements.status) {
    radio.addEventListener("click", () => requestAnimationFrame(() => {
      const resolving = form.elements.status.value === "resolve";
      resolution.disabled = !resolving;
      resolution.innerHTML = resolving ? "<option>fixed</option><option>wontfix</option>" : "";
    }));
  }
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    document.querySelector("aim-state").value = [...new FormData(form)];
  });
</script></body></html>`;

const SITE = {
  "saved.html": SAVED,
  "edit.html": EDIT,
  "guarded.html": GUARDED,
  "ticket.html": TRACKER,
};

/**
 * Opens `path` with a session, and records every dialog the browser shows the person while the
 * agent acts; the test's own navigations (`visit`) leave the page whatever its guard says.
 */
async function open(page: Page, origin: string, path: string) {
  const dialogs: string[] = [];
  let driving = false;
  page.on("dialog", async (dialog) => {
    if (driving) return await dialog.accept();
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.dismiss();
  });
  const visit = async (path: string) => {
    driving = true;
    try {
      await page.goto(origin + path);
    } finally {
      driving = false;
    }
    await panelStatus(page, "connected");
    // The person has used the page (a click): Chromium shows a guard's "Leave site?" dialog only
    // then, as it would to someone who typed into the editor.
    await page.mouse.click(2, 2);
  };
  await visit(path);
  return { dialogs, visit };
}

Deno.test({
  name:
    "actions press, fill and submit as a person's hand does, and a page that stops them says so",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: SITE });
    await using context = await browser.context();
    const page = await context.newPage();
    const { dialogs, visit } = await open(page, bridge.origin, "/edit");
    const agent = new Agent(bridge, await panelToken(page));
    const ready = (path: string, id: string) =>
      agent.manifestWhen(`${path}.json`, (m) => m.actions.some((a: { id: string }) => a.id === id));
    await ready("/edit", "leave");

    await t.step(
      "a named Save button is pressed: its listener clears the guard, the page goes",
      async () => {
        const saved = await agent.invoke("save", { title: "New" });
        assert.equal(saved.status, 200, JSON.stringify(saved.body));
        assert.equal(saved.body.result.submitter, "#save");
        assert.equal(saved.body.result.navigating_to, `${bridge.origin}/saved?title=New&do=save`);
        assert.equal(saved.body.result.page, "/saved");
        assert.deepEqual(saved.body.state.sent, { title: "New", do: "save" });
        assert.equal(saved.body.settled, true);
        assert.deepEqual(dialogs, []);
      },
    );

    await t.step(
      "a page's guard stops a form: 422 in its words, no dialog, nothing left",
      async () => {
        await visit(`/edit`);
        await ready("/edit", "preview");
        // No submitter: the button Enter presses (Preview, the first), whose listener keeps the guard.
        const previewed = await agent.invoke("preview", { title: "Draft" });
        assert.equal(previewed.status, 422, JSON.stringify(previewed.body));
        assert.equal(previewed.body.error, "action_failed");
        assert.equal(
          previewed.body.message,
          'The page stopped leaving it: "Your changes are not saved yet."',
        );
        assert.equal(new URL(page.url()).pathname, "/edit");
        assert.equal(await page.$eval("#saves", (el) => el.textContent), "0");
      },
    );

    await t.step(
      "the guard stops a link too; once nothing is unsaved, the link leaves",
      async () => {
        const stopped = await agent.invoke("leave");
        assert.equal(stopped.status, 422, JSON.stringify(stopped.body));
        assert.match(stopped.body.message, /Your changes are not saved yet/);
        await visit(`/edit`);
        await ready("/edit", "leave");
        const left = await agent.invoke("leave");
        assert.equal(left.status, 200, JSON.stringify(left.body));
        assert.deepEqual(left.body.result, {
          clicked: "#away",
          navigating_to: `${bridge.origin}/saved?from=link`,
          page: "/saved",
        });
        assert.deepEqual(left.body.state.sent, { from: "link" });
        assert.deepEqual(dialogs, []);
      },
    );

    await t.step(
      "a guard that prevents beforeunload's default stops it, with no words",
      async () => {
        await visit(`/guarded`);
        await ready("/guarded", "leave");
        const stopped = await agent.invoke("leave");
        assert.equal(stopped.status, 422, JSON.stringify(stopped.body));
        assert.match(stopped.body.message, /^The page stopped leaving it: it asks the person/);
        assert.equal(new URL(page.url()).pathname, "/guarded");
        assert.deepEqual(dialogs, []);
      },
    );

    await t.step("what the page refuses is said in its words, never answered 200", async () => {
      await visit(`/edit`);
      await ready("/edit", "locked");
      const free = await agent.invoke("check_name", { name: "free" });
      assert.equal(free.status, 200, JSON.stringify(free.body));
      // No submitter: the form's button, as Enter in its field presses it.
      assert.equal(free.body.result.navigating_to, `${bridge.origin}/saved?name=free&via=button`);
      await visit(`/edit`);
      await ready("/edit", "locked");
      const locked = await agent.invoke("locked", { title: "Old" });
      assert.equal(locked.status, 422, JSON.stringify(locked.body));
      assert.equal(
        locked.body.message,
        "The page did not submit the form: a listener of the page stopped the press.",
      );
      const taken = await agent.invoke("check_name", { name: "taken" });
      assert.equal(taken.status, 422, JSON.stringify(taken.body));
      assert.equal(taken.body.message, 'The page refused the form: "name": This name is taken..');
      // click= on a submit button of a form the browser refuses: its message, and no bubble.
      const code = await agent.invoke("send_code");
      assert.equal(code.status, 422, JSON.stringify(code.body));
      assert.match(code.body.message, /^The page refused the form: "code": \S/);
      assert.equal(new URL(page.url()).pathname, "/edit");
      assert.deepEqual(dialogs, []);
    });

    await t.step(
      "fields are filled top to bottom, as the page enables and fills them",
      async () => {
        await visit(`/ticket`);
        // The list is empty until Resolve is clicked: the manifest cannot name its options.
        await agent.manifestWhen(
          "/ticket.json",
          (m) =>
            m.actions.some((a: { id: string; input_schema: { properties: object } }) =>
              a.id === "update" &&
              !("enum" in (a.input_schema.properties as Record<string, object>).resolution!)
            ),
        );
        const missing = await agent.invoke("update", {
          status: "resolve",
          resolution: "duplicate",
        });
        assert.equal(missing.status, 422, JSON.stringify(missing.body));
        assert.equal(
          missing.body.message,
          'Field "resolution" has no option "duplicate" now (its options: "fixed", "wontfix").',
        );
        // The resolution first in the input: it can only be chosen once Resolve was clicked.
        await visit(`/ticket`);
        await ready("/ticket", "update");
        const updated = await agent.invoke("update", { resolution: "fixed", status: "resolve" });
        assert.equal(updated.status, 200, JSON.stringify(updated.body));
        assert.deepEqual(updated.body.result, { submitted: "#ticket" });
        assert.deepEqual(updated.body.state.sent, [
          ["status", "resolve"],
          ["resolution", "fixed"],
          ["notify", "bob"],
        ]);
      },
    );

    await t.step("lists choose a multi-select's options and a checkbox group's boxes", async () => {
      await visit(`/ticket`);
      await ready("/ticket", "update");
      const sent = await page.evaluate(async () => {
        const action = document.querySelector("aim-action[name=update]") as unknown as {
          run(input: unknown): Promise<unknown>;
        };
        await action.run({ tags: ["ui", "api"], notify: ["alice"] });
        return (document.querySelector("aim-state") as unknown as { value: string[][] }).value;
      });
      assert.deepEqual(sent, [
        ["status", "open"],
        ["tags", "ui"],
        ["tags", "api"],
        ["notify", "alice"],
      ]);
      const one = await page.evaluate(async () => {
        const action = document.querySelector("aim-action[name=update]") as unknown as {
          run(input: unknown): Promise<unknown>;
        };
        await action.run({ notify: "bob" });
        return (document.querySelector("aim-state") as unknown as { value: string[][] }).value;
      });
      // One value of a group checks that box alone.
      assert.deepEqual(one.filter(([name]: string[]) => name === "notify"), [["notify", "bob"]]);
    });
  },
});

Deno.test({
  name: "an invocation whose code the page cannot load fails at once, and the next one loads it",
  ignore: NO_CHROMIUM,
  async fn() {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: SITE });
    await using context = await browser.context();
    const page = await context.newPage();
    // The first request for the chunk that runs invocations fails, as a network hiccup would.
    let refused = 0;
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      if (request.url().includes("elements.bindings.js") && refused++ === 0) {
        return void request.abort();
      }
      void request.continue();
    });
    await open(page, bridge.origin, "/ticket");
    const agent = new Agent(bridge, await panelToken(page));
    await agent.manifestWhen(
      "/ticket.json",
      (m) => m.actions.some((a: { id: string }) => a.id === "update"),
    );
    const started = performance.now();
    const lost = await agent.invoke("update", { status: "open" });
    assert.equal(lost.status, 422, JSON.stringify(lost.body));
    assert.match(lost.body.message, /^The page could not load aim's code: /);
    assert.ok(performance.now() - started < 10_000, "answered, not left to time out");
    const updated = await agent.invoke("update", { status: "open" });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(refused, 2, "loaded on the second invocation");
  },
});
