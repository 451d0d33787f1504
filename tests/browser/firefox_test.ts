/**
 * The elements in Firefox ESR, driven over WebDriver BiDi: the demo's story (panel, token,
 * sign-in, a consequential action approved and one declined by the person, state pushed back)
 * as tests/browser/demo_test.ts runs it in Chromium.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startDemo } from "../../demo/app.ts";
import { bridgeAt, startBridge } from "../helpers/bridge.ts";
import {
  Agent,
  clickPanelButton,
  demoRequestStatus,
  ELEMENTS,
  FIREFOX,
  launchBrowser,
  NO_FIREFOX,
  panelStatus,
  panelToken,
} from "./harness.ts";

if (NO_FIREFOX) {
  console.warn(
    `${FIREFOX} is missing: the Firefox tests are skipped (apt-get install firefox-esr).`,
  );
}

Deno.test({
  name:
    "in Firefox, an agent signs in, approves req-3 with the person's consent, and is declined on req-4",
  ignore: NO_FIREFOX,
  async fn(t) {
    const data = await Deno.makeTempDir({ prefix: "aim-demo-" });
    await using demo = await startDemo({ data, port: 0, hostname: "127.0.0.1" });
    await using browser = await launchBrowser({ browser: "firefox" });
    await using context = await browser.context();
    const bridge = bridgeAt(demo.served.url);
    const page = await context.newPage();
    await page.goto(`${bridge.origin}/control-panel`);
    const token = await panelToken(page);
    await panelStatus(page, "connected");
    const agent = new Agent(bridge, token);

    await t.step(
      "the panel's token opens the session, and the tab registers its actions",
      async () => {
        const { body } = await agent.manifestWhen(
          "/control-panel.json",
          (m) => m.browser_connected,
        );
        assert.equal(body.state.authenticated, false);
        assert.deepEqual(
          body.actions.map((a: { id: string }) => a.id),
          ["login", "disconnect"],
        );
      },
    );

    await t.step("login shows the requests in the page and in the manifest", async () => {
      const login = await agent.invoke("login", { username: "alice", password: "wonderland" });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      await page.waitForFunction(() =>
        document.querySelectorAll("#requests tbody tr").length === 5
      );
      const { body } = await agent.manifestWhen(
        "/control-panel.json",
        (m) => m.state.requests?.length === 5,
      );
      assert.ok(body.actions.some((a: { id: string }) => a.id === "approve_request"));
    });

    await t.step(
      "approve_request waits for the person's Approve, then the page changed",
      async () => {
        const approved = agent.invoke("approve_request", "req-3");
        await clickPanelButton(page, "Approve");
        const answer = await approved;
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(answer.body.result, { id: "req-3", status: "approved" });
        assert.equal(
          answer.body.state.requests.find((r: { id: string }) => r.id === "req-3").status,
          "approved",
        );
        assert.equal(await demoRequestStatus(page, "req-3"), "approved");
      },
    );

    await t.step("the person declines reject_request: 403 declined, nothing changes", async () => {
      const rejected = agent.invoke("reject_request", "req-4");
      await clickPanelButton(page, "Decline");
      const answer = await rejected;
      assert.equal(answer.status, 403);
      assert.equal(answer.body.error, "declined");
      assert.equal(await demoRequestStatus(page, "req-4"), "pending");
    });

    await t.step("filter_requests changes what the page shows and the state", async () => {
      const answer = await agent.invoke("filter_requests", "pending");
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body.state.requests.map((r: { id: string }) => r.id), [
        "req-4",
        "req-5",
      ]);
      assert.equal(await page.$eval("#filter", (el) => (el as HTMLSelectElement).value), "pending");
    });
    await Deno.remove(data, { recursive: true });
  },
});

/** An editor guarded as a wiki guards one, and the page its form and link lead to. */
const EDITOR_SITE = {
  "edit.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Edit</title>
${ELEMENTS}</head><body><aim-panel></aim-panel>
<form id="edit" action="/saved"><label>Title <input name="title" value="Old"></label>
  <button id="preview" name="do" value="preview">Preview</button>
  <button id="save" name="do" value="save">Save</button></form>
<a id="away" href="/saved?from=link">Leave</a>
<aim-action name="save" description="Save" form="#edit" submitter="#save"></aim-action>
<aim-action name="preview" description="Preview" form="#edit"></aim-action>
<aim-action name="leave" description="Leave" click="#away"></aim-action>
<script>
  let dirty = false;
  document.querySelector("[name=title]").addEventListener("input", () => dirty = true);
  window.onbeforeunload = () => dirty ? "Your changes are not saved yet." : undefined;
  document.getElementById("save").addEventListener("click", () => { dirty = false; });
</script></body></html>`,
  "saved.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Saved</title>
${ELEMENTS}</head><body><aim-panel></aim-panel><aim-state name="sent"></aim-state>
<script>
  document.querySelector("aim-state").value = Object.fromEntries(new URLSearchParams(location.search));
</script></body></html>`,
};

Deno.test({
  name:
    "in Firefox, actions press a form's buttons, a guard that stops one says so, and leaving answers with the next page",
  ignore: NO_FIREFOX,
  async fn(t) {
    await using bridge = await startBridge({ site: EDITOR_SITE });
    await using browser = await launchBrowser({ browser: "firefox" });
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`${bridge.origin}/edit`);
    await panelStatus(page, "connected");
    const agent = new Agent(bridge, await panelToken(page));
    const ready = (path: string) =>
      agent.manifestWhen(path, (m) => m.browser_connected && m.actions.length > 1, 15_000);
    await ready("/edit.json");

    await t.step(
      "the guard stops Preview (its button keeps it): 422 in the page's words",
      async () => {
        const previewed = await agent.invoke("preview", { title: "Draft" });
        assert.equal(previewed.status, 422, JSON.stringify(previewed.body));
        assert.equal(
          previewed.body.message,
          'The page stopped leaving it: "Your changes are not saved yet."',
        );
        assert.equal(new URL(page.url()).pathname, "/edit");
      },
    );

    await t.step("Save's own click listener clears the guard: the next page's answer", async () => {
      const saved = await agent.invoke("save", { title: "New" });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      assert.equal(saved.body.result.page, "/saved");
      assert.deepEqual(saved.body.state.sent, { title: "New", do: "save" });
    });

    await t.step("a link leaves, answered with the next page", async () => {
      await page.goto(`${bridge.origin}/edit`);
      await ready("/edit.json");
      const left = await agent.invoke("leave");
      assert.equal(left.status, 200, JSON.stringify(left.body));
      assert.equal(left.body.result.page, "/saved");
      assert.deepEqual(left.body.state.sent, { from: "link" });
    });
  },
});
