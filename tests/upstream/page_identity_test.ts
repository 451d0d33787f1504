/**
 * Page identities that cannot be confused: a query that gives a declared page parameter more
 * than once, in any spelling the stacks read as that parameter, names no page (PHP reads the
 * last `id`, Java the first): not for a session, not for a manifest, not for the tab, not for
 * `aim manifest URL`.
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  pageIdentity,
  pageQueryProblem,
  repeatedParameter,
  splitPage,
} from "../../bridge/site/page_identity.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab, rememberCredential } from "../helpers/fake_tab.ts";
import { runAim } from "../helpers/cli.ts";
import { openSession, startAim, startApp } from "../helpers/upstream.ts";

/** `[query, identity of /edit.php with that query, or null]` with `id` declared. */
const SPELLINGS: [query: string, page: string | null][] = [
  ["id=1", "/edit.php?id=1"],
  ["id=1&utm=x", "/edit.php?id=1"],
  ["i%64=1", "/edit.php?id=1"],
  ["id=%31", "/edit.php?id=1"],
  ["id=1#id=2", "/edit.php?id=1"],
  ["x=1;y=2&id=3", "/edit.php?id=3"],
  ["id=", "/edit.php?id="],
  ["id", "/edit.php?id="],
  ["idx=2&id=1", "/edit.php?id=1"],
  ["", "/edit.php"],
  // Repeats, whatever the values.
  ["id=1&id=2", null],
  ["id=2&id=1", null],
  ["id=1&id=1", null],
  ["id=1&utm=x&id=2", null],
  // Empty values are values.
  ["id=&id=2", null],
  ["id&id=2", null],
  ["id=1&id=", null],
  // Encoded names.
  ["id=1&%69d=2", null],
  ["id=1&i%64=2", null],
  ["%69%64=1&id=2", null],
  // Lists: PHP, Rails and qs read `id[]` as the parameter.
  ["id[]=2", null],
  ["id=1&id[]=2", null],
  ["id[0]=2&id=1", null],
  ["id%5B%5D=2", null],
  ["id[x][y]=2", null],
  // Case: ASP.NET and IIS read any case.
  ["ID=2", null],
  ["id=1&ID=2", null],
  ["Id=1", null],
  ["%49D=2", null],
  // .NET's case-insensitive comparison upper-cases: a dotless ı (U+0131) is an I there.
  ["%C4%B1d=2", null],
  ["id=1&%C4%B1d=2", null],
  ["%C4%B1D=2", null],
  // PHP's own reading of names: leading spaces dropped, NUL ends them.
  ["+id=2&id=1", null],
  ["%20id=2", null],
  ["%20%20id=2&id=1", null],
  ["id%00=2&id=1", null],
  // CGI stacks split on `;` too.
  ["id=1;id=2", null],
  ["id=1;x=2", null],
  ["id=1%3B2", null],
];

Deno.test("a query that gives a declared page parameter more than once, in any spelling, names no page", () => {
  for (const [query, page] of SPELLINGS) {
    const raw = `/edit.php?${query}`;
    assert.equal(pageIdentity(raw, ["id"]), page, raw);
    assert.equal(repeatedParameter(raw, ["id"]), page === null ? "id" : null, raw);
    // Without declared parameters the query is no part of a page: nothing to confuse.
    assert.equal(pageIdentity(raw, []), "/edit.php", raw);
  }
});

Deno.test("PHP's mangling of dots and spaces, and each of several declared parameters, count too", () => {
  const table: [raw: string, params: string[], repeated: string | null][] = [
    ["/p?i.d=1&i_d=2", ["i_d"], "i_d"],
    ["/p?i+d=1", ["i_d"], "i_d"],
    ["/p?i%20d=1", ["i_d"], "i_d"],
    ["/p?i_d=1", ["i_d"], null],
    ["/p?id=1&do=edit&do=save", ["do", "id"], "do"],
    ["/p?id=1&do=edit", ["do", "id"], null],
    ["/p?page[id]=1&page[name]=x", ["page[id]"], null],
    ["/p?page[id]=1&page[id]=2", ["page[id]"], "page[id]"],
    ["/p?PAGE[id]=1", ["page[id]"], "page[id]"],
  ];
  for (const [raw, params, repeated] of table) {
    assert.equal(repeatedParameter(raw, params), repeated, raw);
    assert.equal(pageIdentity(raw, params) === null, repeated !== null, raw);
  }
});

Deno.test("a declared parameter given once keeps its page; given twice, none", () => {
  const name = fc.constantFrom("id", "do", "utm", "x");
  const value = fc.stringMatching(/^[a-z0-9=&;%]{0,4}$/);
  fc.assert(
    fc.property(fc.array(fc.tuple(name, value), { maxLength: 6 }), (pairs) => {
      const raw = `/edit.php?${new URLSearchParams(pairs)}`;
      const page = pageIdentity(raw, ["do", "id"]);
      const counts = (n: string) => pairs.filter(([k]) => k === n).length;
      const twice = counts("id") > 1 || counts("do") > 1;
      const semicolon = pairs.some(([k, v]) => (k === "id" || k === "do") && v.includes(";"));
      assert.equal(page === null, twice || semicolon, raw);
    }),
  );
});

Deno.test("pageIdentity() keeps the declared parameters in the declared order, and drops the rest", () => {
  const table: [raw: string, params: string[], page: string | null][] = [
    ["/edit.php?b=2&a=1&c=3", ["a", "b"], "/edit.php?a=1&b=2"],
    ["/edit.php?x=1", ["id"], "/edit.php"],
    ["/edit.php?id=a%20b", ["id"], "/edit.php?id=a+b"],
    ["/edit.php?id=1", [], "/edit.php"],
    ["/edit.php", ["id"], "/edit.php"],
    ["/edit.php?", ["id"], "/edit.php"],
    ["/index.html?id=1", ["id"], "/?id=1"],
    ["/docs/?id=1#top", ["id"], "/docs?id=1"],
    ["/edit.php#?id=1", ["id"], "/edit.php"],
    ["/edit.php#x?id=1&id=2", ["id"], "/edit.php"],
    ["/edit.php?id=1?x", ["id"], "/edit.php?id=1%3Fx"],
    ["/.env?id=1", ["id"], null],
    ["edit.php?id=1", ["id"], null],
  ];
  for (const [raw, params, page] of table) {
    assert.equal(pageIdentity(raw, params), page, `${raw} ${params}`);
  }
  assert.equal(repeatedParameter("/edit.php#?id=1&id=2", ["id"]), null);
  assert.equal(repeatedParameter("/edit.php?id=1#&id=2", ["id"]), null);
  assert.equal(repeatedParameter("/edit.php?id=1&id=2#", ["id"]), "id");
  assert.equal(repeatedParameter("/edit.php", ["id"]), null);
  // Without a fragment the query runs to the end: its last character is read too.
  assert.equal(repeatedParameter("/edit.php?id=1;", ["id"]), "id");
  // Case folds both ways: Java's equalsIgnoreCase reads the Kelvin sign (U+212A) as `k`, though
  // upper-casing leaves it as it is.
  assert.equal(repeatedParameter("/edit.php?%E2%84%AAind=2", ["kind"]), "kind");
  assert.equal(pageIdentity("/edit.php?kind=1&%E2%84%AAIND=2", ["kind"]), null);
  // A part that names nothing (`?` alone), and a fragment that starts the text, give no parameter.
  assert.equal(repeatedParameter("/p??", ["id"]), null);
  assert.equal(repeatedParameter("/p??&id=1", ["stryker_was_here", "id"]), null);
  assert.equal(repeatedParameter("#?id=1&id=2", ["id"]), null);
  assert.equal(repeatedParameter("/p?x=1", ["s", "t"]), null);
  assert.deepEqual(splitPage("/a?b?c"), ["/a", "b?c"]);
  assert.deepEqual(splitPage("/a"), ["/a", ""]);
  assert.deepEqual(splitPage("/a?"), ["/a", ""]);
  assert.deepEqual(splitPage("?q"), ["", "q"]);
});

Deno.test("pageQueryProblem() refuses a name that is no parameter's and two spellings of one parameter", () => {
  const table: [names: string[], problem: string | null][] = [
    [[], null],
    [["id"], null],
    [["id", "do", "page[id]", "page[name]", "a-b", "a.b", "A_9"], null],
    [["a".repeat(64)], null],
    [["a".repeat(65)], `"${"a".repeat(65)}" is not a parameter name`],
    [[""], '"" is not a parameter name'],
    [[" id"], '" id" is not a parameter name'],
    [["id "], '"id " is not a parameter name'],
    [["a/b"], '"a/b" is not a parameter name'],
    [["id=1"], '"id=1" is not a parameter name'],
    [["id&x"], '"id&x" is not a parameter name'],
    [["id;x"], '"id;x" is not a parameter name'],
    [["i%64"], '"i%64" is not a parameter name'],
    [["id\0"], '"id\0" is not a parameter name'],
    [["ok", "bad!"], '"bad!" is not a parameter name'],
    [["id", "ID"], '"id" and "ID" name one parameter'],
    [["Id", "x", "iD"], '"Id" and "iD" name one parameter'],
    [["i_d", "i.d"], '"i_d" and "i.d" name one parameter'],
    [["id", "id"], '"id" and "id" name one parameter'],
    [["page[id]", "PAGE[ID]"], '"page[id]" and "PAGE[ID]" name one parameter'],
    [["id", "id[]"], null],
    [["id", "idx"], null],
  ];
  for (const [names, problem] of table) {
    assert.equal(pageQueryProblem(names), problem, JSON.stringify(names));
  }
});

/** An app whose /edit.php shows the note PHP would: the last `id`. */
function notesApp() {
  return startApp((request) => {
    const url = new URL(request.url);
    const id = url.searchParams.getAll("id").at(-1) ?? "none";
    return new Response(
      `<!doctype html><title>Note ${id}</title><aim-state name="note"></aim-state>` +
        `<aim-action name="delete_note" description="Delete this note" consequential></aim-action>`,
      { headers: { "Content-Type": "text/html" } },
    );
  });
}

Deno.test("a session is never opened on a page whose query repeats a declared parameter, in any spelling", async () => {
  await using app = notesApp();
  await using aim = startAim(app.url, { pageQuery: ["id"] });
  for (
    const query of ["id=1&id=2", "id=1&%69d=2", "id[]=2", "id=1&ID=2", "id=&id=2", "id=1;id=2"]
  ) {
    const res = await fetch(`${aim.url}/__aim/session`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: aim.url },
      body: JSON.stringify({ page: `/edit.php?${query}` }),
    });
    const body = await expectError(res, 400, "bad_request", {
      "cache-control": "private, no-store",
    });
    assert.match(body.message, /gives the page parameter "id" more than once/, query);
  }
  // Given once, it is a page.
  assert.ok((await openSession(aim.url, "/edit.php?id=1")).sessionToken);
});

Deno.test("no manifest answers for a page whose query repeats a declared parameter: never the other note's state", async () => {
  await using app = notesApp();
  await using aim = startAim(app.url, { pageQuery: ["id"] });
  const grant = await openSession(aim.url, "/edit.php?id=1");
  const auth = { Authorization: `Bearer ${grant.sessionToken}` };
  // What break 11 did: `?id=1&id=2` read as note 1's manifest while PHP showed note 2.
  for (const path of ["/edit.php.json?id=1&id=2", "/edit.php.toon?id=2&id=1"]) {
    const res = await fetch(aim.url + path, { headers: auth });
    await expectError(res, 400, "bad_request", { "cache-control": "private, no-store" });
  }
  const anonymous = await fetch(`${aim.url}/edit.php.toon?id=1&id=2`);
  await expectError(anonymous, 400, "bad_request");
  // A `.json` without a token is the app's, as for any path that is no page's manifest.
  const seen = app.seen.length;
  const json = await fetch(`${aim.url}/edit.php.json?id=1&id=2`);
  await json.body?.cancel();
  assert.equal(app.seen[seen], "GET /edit.php.json?id=1&id=2");
  const own = await fetch(`${aim.url}/edit.php.json?id=1`, { headers: auth });
  assert.equal(own.status, 200);
  assert.equal((await own.json()).page, "/edit.php?id=1");
});

Deno.test("a tab that says hello or navigates on a page whose query repeats a declared parameter is closed, saying why", async () => {
  await using app = notesApp();
  await using aim = startAim(app.url, { pageQuery: ["id"] });
  for (const type of ["hello", "navigate"] as const) {
    const grant = await openSession(aim.url, "/edit.php?id=1");
    rememberCredential(grant.sessionToken, grant.tabCredential);
    const tab = await FakeTab.open(aim.url, {
      token: grant.sessionToken,
      page: type === "hello" ? "/edit.php?id=1&id=2" : "/edit.php?id=1",
    });
    if (type === "navigate") {
      await tab.next("lease");
      tab.send({ type: "navigate", page: "/edit.php?id=1&ID=2" });
    }
    const closed = await tab.closed;
    assert.equal(closed.code, 1008);
    assert.equal(closed.reason, `${type}.page gives the page parameter "id" more than once`);
  }
});

Deno.test("aim manifest URL --page-query names the page with its declared parameters, and refuses a repeated one", async () => {
  await using app = startApp((request) => {
    const id = new URL(request.url).searchParams.get("id") ?? "start";
    return new Response(
      `<!doctype html><title>${id}</title><aim-action name="edit" description="Edit ${id}"></aim-action>`,
      { headers: { "Content-Type": "text/html" } },
    );
  });
  const named = await runAim([
    "manifest",
    `${app.url}/doku.php?id=wiki:syntax&do=show`,
    "--page-query",
    "id",
  ]);
  assert.equal(named.code, 0, named.stderr);
  const manifest = JSON.parse(named.stdout);
  assert.equal(manifest.page, "/doku.php?id=wiki%3Asyntax");
  assert.equal(
    manifest.actions.find((a: { id: string }) => a.id === "edit").description,
    "Edit wiki:syntax",
  );
  const bare = JSON.parse((await runAim(["manifest", `${app.url}/doku.php?id=x`])).stdout);
  assert.equal(bare.page, "/doku.php");
  const repeated = await runAim([
    "manifest",
    `${app.url}/doku.php?id=a&id=b`,
    "--page-query",
    "id",
  ]);
  assert.equal(repeated.code, 2);
  assert.match(repeated.stderr, /gives the page parameter "id" more than once/);
  const file = await runAim(["manifest", "page.html", "--page-query", "id"]);
  assert.equal(file.code, 2);
  assert.match(file.stderr, /--page-query goes with a URL/);
});

Deno.test("aim serve and aim manifest refuse two --page-query names for one parameter", async () => {
  for (
    const command of [["serve", "--upstream", "http://127.0.0.1:9"], [
      "manifest",
      "http://127.0.0.1:9/x",
    ]]
  ) {
    const twins = await runAim([...command, "--page-query", "id", "--page-query", "ID"]);
    assert.equal(twins.code, 2, twins.stderr);
    assert.match(twins.stderr, /--page-query: "id" and "ID" name one parameter/);
    const bad = await runAim([...command, "--page-query", "a b"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--page-query: "a b" is not a parameter name/);
  }
});

Deno.test("a form that posts to the bare path under --page-query moves the session to the bare page, and the answer says so", async () => {
  await using app = notesApp();
  await using aim = startAim(app.url, { pageQuery: ["id"] });
  const grant = await openSession(aim.url, "/edit.php?id=1");
  rememberCredential(grant.sessionToken, grant.tabCredential);
  const auth = { Authorization: `Bearer ${grant.sessionToken}` };
  const editor = await FakeTab.open(aim.url, { token: grant.sessionToken, page: "/edit.php?id=1" });
  await editor.next("lease");
  // The form's action is `/edit.php`, the id in a hidden field: the browser loads the bare path.
  await editor.register([{ id: "save_note" }]);
  editor.answerWith = "never";
  const saving = fetch(`${aim.url}/__aim/invoke`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ actionId: "save_note", input: "x" }),
  });
  const invoke = await editor.next("invoke");
  const result = { navigating_to: `${aim.url}/edit.php`, submitted: true };
  // As the elements do when the action loads another document (bridge/wire/channel.ts).
  editor.send({ type: "result", id: invoke.id, ok: true, result, leaving: "document" });
  await editor.close();
  await using next = await FakeTab.open(aim.url, { token: grant.sessionToken, page: "/edit.php" });
  await next.next("lease");
  next.setState({ note: { id: "1", saved: true } });
  const saved = await saving;
  assert.equal(saved.status, 200);
  const body = await saved.json();
  assert.equal(body.result.page, "/edit.php");
  assert.deepEqual(body.state.note, { id: "1", saved: true });
  const old = await fetch(`${aim.url}/edit.php.json?id=1`, { headers: auth });
  const mismatch = await expectError(old, 409, "page_mismatch");
  assert.equal(mismatch.connected_page, "/edit.php");
  const bare = await fetch(`${aim.url}/edit.php.json`, { headers: auth });
  assert.equal(bare.status, 200);
  assert.equal((await bare.json()).page, "/edit.php");
});
