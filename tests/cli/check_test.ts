import assert from "node:assert/strict";
import { join } from "node:path";
import { runAim } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp.ts";

const SCRIPT = `<script type="module" src="/__aim/elements.js"></script>`;

/** One fixture page per kind of problem, and the message `aim check` must print for it. */
const BROKEN = {
  "duplicate.html": [
    `${SCRIPT}
<aim-action name="go" description="Go somewhere"></aim-action>
<aim-action name="go" description="Go somewhere else"></aim-action>`,
    /duplicate\.html:3:1: action "go" is declared twice/,
  ],
  "schema.html": [
    `${SCRIPT}
<aim-action name="nested" description="Takes a reference" input-example='{"a":{}}'>
  <script type="application/json">{"type":"object","properties":{"a":{"$ref":"#/a"}}}</script>
</aim-action>`,
    /schema\.html:2:1: action "nested" is not valid: input_schema/,
  ],
  "example.html": [
    `${SCRIPT}
<aim-action name="pick" description="Pick a request" input-pattern="req-[0-9]+"
  input-example="nope"></aim-action>`,
    // The pattern as the page writes it, not as the manifest anchors it (^(?:req-[0-9]+)$).
    /example\.html:2:1: action "pick": input_example does not match input_schema \(must match the pattern req-\[0-9\]\+\)$/,
  ],
  "description.html": [
    `${SCRIPT}\n<aim-action name="mystery"></aim-action>`,
    /description\.html:2:1: action "mystery" has no description attribute/,
  ],
  "consequential.html": [
    `${SCRIPT}\n<aim-action name="pay" description="Pay" consequential></aim-action>`,
    /consequential\.html:2:1: <aim-action name="pay"> is consequential: describe what it changes/,
  ],
  "selector.html": [
    `${SCRIPT}\n<aim-action name="press" description="Press the button" click="##"></aim-action>`,
    /selector\.html:2:1: .*click="##" is not a valid selector/,
  ],
  "script.html": [
    `<aim-state name="view" value="home"></aim-state>`,
    /script\.html:1:1: the page uses the aim elements but lacks <script type="module" src="\/__aim\/elements\.js">/,
  ],
  "nameless.html": [
    `${SCRIPT}\n<aim-state></aim-state>`,
    /nameless\.html:2:1: <aim-state> has no name/,
  ],
  "click-input.html": [
    `${SCRIPT}\n<button id="approve">Approve</button>
<aim-action name="approve" description="Approve the request" click="#approve"
  input-example="req-3"></aim-action>`,
    /click-input\.html:3:1: action "approve": click= ignores the input; remove the input-\* attributes, or run the action with a handler/,
  ],
  "redos.html": [
    `${SCRIPT}\n<aim-action name="pick" description="Pick a run" input-pattern="(a+)+"
  input-example="aa"></aim-action>`,
    /redos\.html:2:1: <aim-action name="pick">: input_schema\.pattern "\(a\+\)\+" can backtrack catastrophically in a backtracking regex engine/,
  ],
  "redos-form.html": [
    `${SCRIPT}\n<form id="f"><input name="code" pattern="(a|a)*" required></form>
<aim-action name="send" description="Send a code" form="#f" input-example='{"code":"a"}'></aim-action>`,
    /redos-form\.html:3:1: <aim-action name="send">: input_schema\.properties\.code\.pattern "\(a\|a\)\*" can backtrack catastrophically/,
  ],
  "redos-json.html": [
    `${SCRIPT}\n<aim-action name="tag" description="Tag it" input-example="a">
  <script type="application/json">{"type":"string","pattern":"^(a*)*$"}</script></aim-action>`,
    /redos-json\.html:2:1: <aim-action name="tag">: input_schema\.pattern "\^\(a\*\)\*\$" can backtrack catastrophically/,
  ],
  "lookahead.html": [
    `${SCRIPT}\n<aim-action name="code" description="Enter a code" input-pattern="(?=\\d)\\w+"
  input-example="1a"></aim-action>`,
    /lookahead\.html:2:1: action "code": input_schema\.pattern "\(\?=\\d\)\\w\+" uses a lookahead "\(\?=…\)", and the bridge matches patterns with RE2/,
  ],
  "builtin.html": [
    `${SCRIPT}\n<aim-action name="login" description="Sign in here"></aim-action>`,
    /builtin\.html:2:1: <aim-action name="login">: "login" is a server action of the bridge/,
  ],
  "case.html": [
    `${SCRIPT}\n<aim-action name="Logout" description="Sign out here"></aim-action>`,
    /case\.html:2:1: action "Logout" is not valid: action ids are compared regardless of case/,
  ],
} satisfies Record<string, [string, RegExp]>;

const CLEAN = `<!doctype html><title>Clean</title>${SCRIPT}
<form id="f"><label for="q">Query</label><input id="q" name="q" required><button id="go">Go</button></form>
<table id="t"><tr><th>id</th></tr></table>
<aim-state name="rows" from="#t"></aim-state>
<aim-action name="search" description="Search the list" form="#f" input-example='{"q":"x"}'></aim-action>
<aim-action name="go" description="Press the go button" click="#go"></aim-action>
<aim-action name="approve" description="Approve one pending request, which pays it"
  input-example="req-3" consequential></aim-action>`;

function fixture(files: Record<string, string>): string {
  const root = Deno.makeTempDirSync({ prefix: "aim-check-" });
  for (const [name, html] of Object.entries(files)) Deno.writeTextFileSync(join(root, name), html);
  return root;
}

Deno.test("aim check finds one problem of each kind, as file:line:col: message, and exits 1", async () => {
  for (const [name, [html, message]] of Object.entries(BROKEN)) {
    const root = fixture({ [name]: html });
    const result = await runAim(["check", root]);
    assert.equal(result.code, 1, `${name}: ${result.stdout}${result.stderr}`);
    const lines = result.stdout.trim().split("\n");
    assert.equal(lines.length, 1, `${name}: ${result.stdout}`);
    assert.match(lines[0] ?? "", message, name);
    assert.match(result.stderr, /1 problem in 1 file/);
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("aim check passes a clean site and the demo site with exit 0", async () => {
  const root = fixture({ "index.html": CLEAN, "plain.html": "<p>No elements.</p>" });
  const result = await runAim(["check", root]);
  assert.equal(result.code, 0, result.stdout);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /2 files checked, no problems/);
  const demo = await runAim(["check", "demo/site"]);
  assert.equal(demo.code, 0, demo.stdout);
  Deno.removeSync(root, { recursive: true });
});

Deno.test("aim check --format json lists every problem for tools", async () => {
  const files = Object.fromEntries(Object.entries(BROKEN).map(([name, [html]]) => [name, html]));
  const root = fixture(files);
  const result = await runAim(["check", root, "--format", "json"]);
  assert.equal(result.code, 1);
  const body = JSON.parse(result.stdout);
  assert.equal(body.files, Object.keys(BROKEN).length);
  assert.equal(body.problems.length, Object.keys(BROKEN).length);
  for (const problem of body.problems) {
    assert.equal(typeof problem.file, "string");
    assert.ok(problem.line >= 1 && problem.column >= 1);
    assert.equal(typeof problem.message, "string");
    assert.equal(problem.severity, "error");
  }
  assert.equal(body.errors, Object.keys(BROKEN).length);
  assert.equal(body.warnings, 0);
  Deno.removeSync(root, { recursive: true });
});

Deno.test("aim check warns when click=, form= or from= match nothing in the static page, since a script may render them", async () => {
  const root = fixture({
    "click.html":
      `${SCRIPT}\n<aim-action name="press" description="Press the button" click="#nothing"></aim-action>`,
    "from.html": `${SCRIPT}\n<p>\n  <aim-state name="rows" from="table.rows"></aim-state></p>`,
    "form.html":
      `${SCRIPT}\n<aim-action name="send" description="Send the form" form="#missing"></aim-action>`,
  });
  const result = await runAim(["check", root]);
  assert.equal(result.code, 0, result.stdout);
  const lines = result.stdout.trim().split("\n").sort();
  assert.equal(lines.length, 3, result.stdout);
  assert.match(
    lines[0]!,
    /click\.html:2:1: warning: <aim-action name="press">: click="#nothing" matches nothing in the page \(fine if a script renders it\)/,
  );
  assert.match(
    lines[1]!,
    /form\.html:2:1: warning: form="#missing" matches no element in the static page \(fine if a script renders the form; the public manifest leaves the action out\)/,
  );
  assert.match(
    lines[2]!,
    /from\.html:3:3: warning: <aim-state name="rows">: from="table.rows" matches nothing in the page/,
  );
  assert.match(result.stderr, /3 files checked, no problems, 3 warnings/);
  assert.equal((await runAim(["check", root, "--strict"])).code, 1);
  Deno.removeSync(root, { recursive: true });
});

Deno.test("aim check takes files and reports a missing one", async () => {
  const root = fixture({ "a.html": CLEAN, "b.html": BROKEN["description.html"][0] });
  const one = await runAim(["check", join(root, "a.html")]);
  assert.equal(one.code, 0);
  const both = await runAim(["check", join(root, "a.html"), join(root, "b.html")]);
  assert.equal(both.code, 1);
  const missing = await runAim(["check", join(root, "nope.html")]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /aim: .*nope\.html does not exist/);
  const format = await runAim(["check", root, "--format", "xml"]);
  assert.equal(format.code, 2);
  Deno.removeSync(root, { recursive: true });
});

const NO_CONFIRM = `${SCRIPT}
<aim-action name="refund" description="Refund the whole bill to the customer"
  input-example="bill-1" consequential no-confirm></aim-action>
<aim-action name="pay" description="Pay the bill from the account" input-example="bill-1"
  consequential no-confirm="false"></aim-action>
<aim-action name="look" description="Look at a bill" input-example="bill-1" no-confirm></aim-action>`;

Deno.test("aim check warns about no-confirm on a consequential action, failing only with --strict", async () => {
  const root = fixture({ "bills.html": NO_CONFIRM });
  const result = await runAim(["check", root]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.deepEqual(result.stdout.trim().split("\n"), [
    `${join(root, "bills.html")}:2:1: warning: <aim-action name="refund"> has no-confirm: ` +
    "the person is not asked before this consequential action runs",
  ]);
  assert.match(result.stderr, /1 file checked, no problems, 1 warning/);
  const strict = await runAim(["check", root, "--strict"]);
  assert.equal(strict.code, 1);
  const json = await runAim(["check", root, "--format", "json"]);
  assert.equal(json.code, 0);
  const body = JSON.parse(json.stdout);
  assert.deepEqual(body.problems.map((p: { severity: string }) => p.severity), ["warning"]);
  assert.equal(body.errors, 0);
  assert.equal(body.warnings, 1);
  // A warning beside a problem: the problem still fails.
  const both = fixture({ "bills.html": NO_CONFIRM, "b.html": BROKEN["description.html"][0] });
  const mixed = await runAim(["check", both]);
  assert.equal(mixed.code, 1);
  assert.match(mixed.stderr, /1 problem and 1 warning in 2 files/);
  Deno.removeSync(root, { recursive: true });
  Deno.removeSync(both, { recursive: true });
});

Deno.test("aim check passes patterns that cannot backtrack catastrophically", async () => {
  const root = fixture({
    "ok.html": `${SCRIPT}
<form id="f"><input name="slug" pattern="[a-z0-9]+(?:-[a-z0-9]+)*" required>
<input name="ip" pattern="(\\d{1,3}\\.){3}\\d{1,3}"><input name="mail" pattern="[^\\s@]+@[^\\s@]+\\.[^\\s@]+"></form>
<aim-action name="save" description="Save the entry" form="#f" input-example='{"slug":"a-b"}'></aim-action>
<aim-action name="find" description="Find a request" input-pattern="req-[0-9]+" input-example="req-1"></aim-action>`,
  });
  const result = await runAim(["check", root]);
  assert.equal(result.code, 0, result.stdout);
  assert.equal(result.stdout, "");
  Deno.removeSync(root, { recursive: true });
});

/** The page behind README's `aim check` example: a short consequential description, a button a script renders. */
const README_PAY = `<!doctype html>
<meta charset="utf-8">
<title>Pay</title>
<script type="module" src="/__aim/elements.js"></script>
<form id="pay"><input name="invoice" required></form>
<div id="app"></div>

<aim-action name="pay" consequential description="Pay"
  form="#pay"></aim-action>
<aim-action name="refresh" description="Reload the invoices"
  click="#reload"></aim-action>
`;

Deno.test("README's aim check example is what aim check prints, and --strict fails on its warning", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const block = /```sh\n\$ deno run -A main\.ts check site\/[^\n]*\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, "README has the aim check example");
  await using dir = await tempDir("aim-check-readme-");
  Deno.mkdirSync(join(dir.path, "site"));
  Deno.writeTextFileSync(join(dir.path, "site", "pay.html"), README_PAY);
  const result = await runAim(["check", "site/"], { cwd: dir.path });
  assert.equal(result.code, 1);
  assert.equal(result.stdout + result.stderr, block[1]);
  // Fixed, the page has only its warning: 0, but 1 with --strict.
  Deno.writeTextFileSync(
    join(dir.path, "site", "pay.html"),
    README_PAY.replace('description="Pay"', 'description="Pay this invoice; the money leaves"'),
  );
  assert.equal((await runAim(["check", "site/"], { cwd: dir.path })).code, 0);
  const strict = await runAim(["check", "--strict", "site/"], { cwd: dir.path });
  assert.equal(strict.code, 1);
  assert.match(strict.stdout, /^site\/pay\.html:10:1: warning: /);
});
