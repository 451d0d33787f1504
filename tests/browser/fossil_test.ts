/**
 * A real app others wrote, server-rendered on another stack: Fossil (C; Debian's `fossil`), its
 * tickets, its own login and its CSRF-checked forms, behind `aim serve --upstream` in real
 * Chromium. Fossil is unmodified; its templates (the skin's header and footer, the ticket pages:
 * tests/apps/fossil/) are its own defaults with aim's markup added, written from the docs alone.
 * The person signs in to Fossil in the tab; an agent files a ticket (Preview, then Submit), edits
 * it (Preview, then Submit) and finds it in the ticket report, the person approving exactly the
 * two steps that save something, and never shown a browser dialog.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  FOSSIL_TEMPLATE_FILES,
  FOSSIL_TEMPLATES,
  FOSSIL_USER,
  fossilTemplate,
  newRepository,
  NO_FOSSIL,
  startFossil,
  withoutAim,
} from "../helpers/fossil.ts";
import { startAim } from "../helpers/upstream.ts";
import { clickPanelButton, launchBrowser, NO_CHROMIUM, panelToken } from "./harness.ts";
import { agentOf, watchPerson } from "./person.ts";

/** The ids of a manifest's actions, the bridge's own left out. */
// deno-lint-ignore no-explicit-any
function pageActions(manifest: any): string[] {
  return manifest.actions.map((a: { id: string }) => a.id).filter((id: string) =>
    !["login", "logout", "disconnect"].includes(id)
  );
}

Deno.test({
  name: "Fossil's templates in tests/apps/fossil are its own defaults with only aim's blocks added",
  ignore: NO_FOSSIL,
  async fn() {
    const dir = await newRepository();
    try {
      for (const [setting, file] of Object.entries(FOSSIL_TEMPLATE_FILES)) {
        const ours = await Deno.readTextFile(join(FOSSIL_TEMPLATES, file));
        assert.match(ours, /<!-- aim -->/, file);
        assert.equal(
          withoutAim(ours).trimEnd(),
          (await fossilTemplate(dir, setting)).trimEnd(),
          `${file} differs from Fossil's own ${setting} by more than aim's blocks`,
        );
      }
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name:
    "an agent files a Fossil ticket and closes it through Fossil's own forms, the person approving each save",
  ignore: NO_CHROMIUM || NO_FOSSIL,
  async fn() {
    await using fossil = await startFossil();
    await using aim = startAim(fossil.url);
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const page = await context.newPage();
    const shown = await watchPerson(page);

    // A visitor's catalog: Fossil's login page, read as anonymous, offers the menu's action.
    const visitor = await fetch(`${aim.url}/login.json`);
    assert.equal(visitor.status, 200);
    assert.deepEqual(pageActions(await visitor.json()), ["open_section"]);

    // The person signs in to Fossil itself, through aim (its login form posts with a
    // Content-Length, which Fossil's server needs).
    await page.goto(`${aim.url}/login`);
    await page.type("#u", FOSSIL_USER.name);
    await page.type("#p", FOSSIL_USER.password);
    await Promise.all([page.waitForNavigation(), page.click('input[name="in"]')]);
    assert.notEqual(new URL(page.url()).pathname, "/login");
    const agent = agentOf(aim, await panelToken(page));

    // The next page's actions are registered a read of the app after its answer
    // (docs/upstream.md): the agent reads its manifest before each step.
    const home = new URL(page.url()).pathname;
    await agent.manifestWhen(
      `${home === "/" ? "/index" : home}.json`,
      (m) => pageActions(m).includes("open_section"),
      15_000,
    );
    const tickets = await agent.invoke("open_section", "Tickets");
    assert.equal(tickets.status, 200, JSON.stringify(tickets.body));
    assert.equal(tickets.body.result.page, "/ticket");
    assert.equal(tickets.body.settled, true);

    await agent.manifestWhen("/ticket.json", (m) => pageActions(m).includes("new_ticket"));
    const form = await agent.invoke("new_ticket");
    assert.equal(form.status, 200, JSON.stringify(form.body));
    assert.equal(form.body.result.page, "/tktnew");
    const fresh = await agent.manifestWhen(
      "/tktnew.json",
      (m) => pageActions(m).includes("preview_ticket"),
    );
    assert.deepEqual(pageActions(fresh.body), ["open_section", "preview_ticket"]);
    const fields = fresh.body.actions.find((a: { id: string }) => a.id === "preview_ticket");
    // The selects of Fossil's form are its choices, as the agent must send them.
    assert.deepEqual(fields.input_schema.properties.severity.enum, [
      "Critical",
      "Severe",
      "Important",
      "Minor",
      "Cosmetic",
    ]);
    assert.deepEqual(fields.input_schema.required, ["title", "description"]);

    // Preview changes nothing: no prompt. Fossil offers Submit only on the previewed page.
    const title = "Crash when saving a file with a long name";
    const previewed = await agent.invoke("preview_ticket", {
      title,
      type: "Code_Defect",
      severity: "Severe",
      description: "Saving `a.txt` renamed to 300 characters crashes the editor.",
    });
    assert.equal(previewed.status, 200, JSON.stringify(previewed.body));
    assert.equal(previewed.body.result.page, "/tktnew");
    assert.deepEqual(previewed.body.state.draft, {
      title,
      type: "Code_Defect",
      severity: "Severe",
      description: "Saving `a.txt` renamed to 300 characters crashes the editor.",
    });
    assert.deepEqual(shown.prompts, []);

    // Submitting saves it: the person approves, and the answer is the new ticket's page.
    await agent.manifestWhen("/tktnew.json", (m) => pageActions(m).includes("submit_ticket"));
    const submitting = agent.invoke("submit_ticket");
    await clickPanelButton(page, "Approve");
    const submitted = await submitting;
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    const view = submitted.body.result.page as string;
    assert.match(view, /^\/tktview\/[0-9a-f]{40}$/);
    assert.equal(submitted.body.state.title, title);
    assert.equal(submitted.body.state.status, "Open");
    assert.deepEqual(shown.prompts, ["submit_ticket"]);

    await agent.manifestWhen(`${view}.json`, (m) => pageActions(m).includes("edit_ticket"));
    const editor = await agent.invoke("edit_ticket");
    assert.equal(editor.status, 200, JSON.stringify(editor.body));
    assert.equal(editor.body.result.page, view.replace("tktview", "tktedit"));
    // Fossil's edit form posts to the bare /tktedit (the ticket in a hidden field): the
    // session follows it there (docs/upstream.md, "A form that posts to the bare path").
    await agent.manifestWhen(
      `${view.replace("tktview", "tktedit")}.json`,
      (m) => pageActions(m).includes("preview_changes"),
    );
    const changes = await agent.invoke("preview_changes", {
      status: "Closed",
      resolution: "Fixed",
      remark: "Fixed by cutting the name at 255 bytes.",
    });
    assert.equal(changes.status, 200, JSON.stringify(changes.body));
    assert.equal(changes.body.result.page, "/tktedit");
    await agent.manifestWhen("/tktedit.json", (m) => pageActions(m).includes("apply_changes"));
    const applying = agent.invoke("apply_changes");
    await clickPanelButton(page, "Approve");
    const applied = await applying;
    assert.equal(applied.status, 200, JSON.stringify(applied.body));
    assert.equal(applied.body.result.page, view);
    assert.equal(applied.body.state.status, "Closed");
    assert.equal(applied.body.state.resolution, "Fixed");
    assert.match(applied.body.state.comments, /Fixed by cutting the name at 255 bytes\./);

    // Navigating: the ticket menu, then the report of all tickets, read as a table.
    await agent.manifestWhen(`${view}.json`, (m) => pageActions(m).includes("open_section"));
    assert.equal((await agent.invoke("open_section", "Tickets")).body.result.page, "/ticket");
    await agent.manifestWhen("/ticket.json", (m) => pageActions(m).includes("open_report"));
    const report = await agent.invoke("open_report", "All Tickets");
    assert.equal(report.status, 200, JSON.stringify(report.body));
    assert.equal(report.body.result.page, "/rptview/1");
    assert.deepEqual(
      report.body.state.tickets.map((t: Record<string, string>) => [t.title, t.status, t.type]),
      [[title, "Closed", "Code_Defect"]],
    );
    // The report links to the ticket by the first ten digits of its hash: another path of
    // Fossil's for the same ticket, so another page of aim's.
    await agent.manifestWhen("/rptview/1.json", (m) => pageActions(m).includes("open_ticket"));
    const opened = await agent.invoke("open_ticket", title);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal(opened.body.result.page, view.slice(0, "/tktview/".length + 10));
    assert.equal(opened.body.state.status, "Closed");

    // The person was asked exactly for the two steps that save, and shown no browser dialog.
    assert.deepEqual(shown.prompts, ["submit_ticket", "apply_changes"]);
    assert.deepEqual(shown.dialogs, []);

    // Without the person's tab the agent is a visitor to Fossil: no new ticket for it.
    const direct = await fetch(`${aim.url}/tktnew`, { redirect: "manual" });
    const text = await direct.text();
    assert.ok(!text.includes('name="icomment"'), "a visitor got Fossil's new-ticket form");
  },
});
