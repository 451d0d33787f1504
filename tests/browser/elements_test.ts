/**
 * Real-browser tests of `<aim-action>` and `<aim-state>`: an agent reads and operates a
 * page in Debian's Chromium through the bridge, over plain HTTP with the panel's token.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { startBridge } from "../helpers/bridge.ts";
import {
  Agent,
  ELEMENTS,
  launchBrowser,
  NO_CHROMIUM,
  openPage,
  panelStatus,
  panelToken,
  screenshotPanel,
  Warnings,
} from "./harness.ts";

const FIXTURE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fixture</title>
<meta name="viewport" content="width=device-width, initial-scale=1">${ELEMENTS}</head><body>
<aim-panel></aim-panel>
<h1 id="title">Hello</h1>
<p id="count">0</p>
<button id="inc" onclick="this.previousElementSibling.textContent++">+</button>
<table id="people"><thead><tr><th>name</th><th>age</th></tr></thead>
<tbody><tr><td>Ann</td><td>31</td></tr></tbody></table>
<label>Query <input id="query" value="first"></label>
<form id="profile"><label for="fullname">Full name</label><input id="fullname" name="fullname" required>
<label>Colour <select name="color"><option>red</option><option>blue</option></select></label>
<button>Save</button></form>
<p id="saved"></p>
<aim-state name="prop"></aim-state>
<aim-state name="attr" value="one"></aim-state>
<aim-state name="json"><script type="application/json">{"a": 1}</script></aim-state>
<aim-state name="people" from="#people"></aim-state>
<aim-state name="query" from="#query"></aim-state>
<aim-state name="count" from="#count"></aim-state>
<aim-state name="saved" from="#saved"></aim-state>
<aim-action name="rename" description="Set the page title" input-description="The new title"
  input-example="Hi"></aim-action>
<aim-action name="shout" description="Shout the input back" input-example="hey"></aim-action>
<aim-action name="increment" description="Add one to the count" click="#inc"></aim-action>
<aim-action name="save_profile" description="Save the profile" form="#profile"
  input-example='{"fullname": "Ann Lee", "color": "blue"}'></aim-action>
<aim-action name="idle" description="Declared, with no way to run"></aim-action>
<script type="module">
  document.querySelector("aim-action[name=rename]").handler = async (title) => {
    document.getElementById("title").textContent = title;
    return { title };
  };
  document.addEventListener("aim-invoke", (event) => {
    if (event.detail.actionId === "shout") {
      event.detail.respondWith(Promise.resolve(event.detail.input.toUpperCase()));
    }
  });
  document.getElementById("profile").addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(event.target);
    document.getElementById("saved").textContent = data.get("fullname") + "/" + data.get("color");
  });
  document.querySelector("aim-state[name=prop]").value = { items: [1, 2] };
</script>
</body></html>`;

const FAILING = `<!doctype html><title>Failing</title>${ELEMENTS}<aim-panel></aim-panel>
<aim-action name="explode" description="Fails" input-example="x"></aim-action>
<aim-action name="hang" description="Never answers" input-example="x"></aim-action>
<aim-action name="ok" description="Answers" input-example="x"></aim-action>
<script type="module">
  document.querySelector("[name=explode]").handler = () => { throw new Error("out of stock"); };
  document.querySelector("[name=hang]").handler = () => new Promise(() => {});
  document.querySelector("[name=ok]").handler = (input) => ({ echoed: input });
</script>`;

const SECRETS = `<!doctype html><title>Secrets</title>${ELEMENTS}<aim-panel></aim-panel>
<form id="login"><input id="user" name="username" value="ann">
<input id="pw" type="password" name="password" value="hunter2-secret"></form>
<aim-state name="pw" from="#pw"></aim-state>
<aim-state name="token" value="tok-should-not-leak"></aim-state>
<aim-state name="who" from="#user"></aim-state>
<aim-state name="profile"><script type="application/json">
{"name": "Ann", "api_key": "key-should-not-leak", "nested": {"token": "nested-should-not-leak", "ok": 1}}
</script></aim-state>
<aim-action name="noop" description="Does nothing" input-example="x"></aim-action>`;

const WARNINGS = `<!doctype html><title>Warnings</title>${ELEMENTS}<aim-panel></aim-panel>
<aim-action name="good" description="Fine" input-example="x"></aim-action>
<aim-action name="bad_length" description="Bad" input-min-length="three"></aim-action>
<aim-action name="login" description="Shadows the bridge's own login" input-example="x"></aim-action>`;

Deno.test({
  name: "the elements in a real browser",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({
      site: {
        "index.html": FIXTURE,
        "failing.html": FAILING,
        "secrets.html": SECRETS,
        "warnings.html": WARNINGS,
      },
      tabTimeoutMs: 1_500,
    });

    await t.step(
      "a page shows a token; an agent reads its live state, invokes an action and sees the page change",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const token = await panelToken(page);
        await panelStatus(page, "connected");
        await screenshotPanel(page, "connected");
        const agent = new Agent(bridge, token);
        const before = await agent.manifestWhen("/index.json", (m) => m.state.count === "0");
        assert.equal(before.body.state_scope, "session");
        assert.equal(before.body.browser_connected, true);
        assert.deepEqual(
          before.body.actions.map((a: { id: string }) => a.id).sort(),
          ["disconnect", "idle", "increment", "rename", "save_profile", "shout"],
        );
        const invoked = await agent.invoke("increment");
        assert.equal(invoked.status, 200, JSON.stringify(invoked.body));
        assert.equal(
          invoked.body.state.count,
          "1",
          "the answer carries the state after the action",
        );
        assert.equal(await page.$eval("#count", (el) => el.textContent), "1");
        const after = await agent.manifest("/index.json");
        assert.equal(after.body.state.count, "1");
      },
    );

    await t.step({
      name: "the panel's instructions for an agent work when pasted into a shell",
      ignore: !existsSync("/usr/bin/curl"),
      async fn() {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const token = await panelToken(page);
        await panelStatus(page, "connected");
        const panel = await page.$("aim-panel");
        await (await panel!.$("pierce/summary"))!.click();
        await screenshotPanel(page, "instructions");
        const text = await page.$eval(
          "aim-panel",
          (el) => el.shadowRoot!.querySelector("textarea")!.value,
        );
        assert.ok(text.includes(`Authorization: Bearer ${token}`));
        const commands = text.split("\n").filter((line) => line.startsWith("curl "));
        assert.equal(commands.length, 2, text);
        const run = async (command: string) => {
          const out = await new Deno.Command("sh", { args: ["-c", `${command} -s`] }).output();
          assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
          return JSON.parse(new TextDecoder().decode(out.stdout));
        };
        const manifest = await run(commands[0]!);
        assert.equal(manifest.state_scope, "session");
        const invoked = await run(commands[1]!);
        assert.equal(invoked.ok, true, JSON.stringify(invoked));
        assert.equal(await page.$eval("#title", (el) => el.textContent), "Hi");
      },
    });

    await t.step(
      "each way of running an action works: a handler, an aim-invoke event, click= and form=",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");

        const renamed = await agent.invoke("rename", "Welcome");
        assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
        assert.deepEqual(renamed.body.result, { title: "Welcome" });
        assert.equal(await page.$eval("#title", (el) => el.textContent), "Welcome");

        const shouted = await agent.invoke("shout", "quiet please");
        assert.equal(shouted.status, 200, JSON.stringify(shouted.body));
        assert.equal(shouted.body.result, "QUIET PLEASE");

        const clicked = await agent.invoke("increment");
        assert.equal(clicked.status, 200);
        assert.deepEqual(clicked.body.result, { clicked: "#inc" });
        assert.equal(await page.$eval("#count", (el) => el.textContent), "1");

        const saved = await agent.invoke("save_profile", { fullname: "Bo Chen", color: "blue" });
        assert.equal(saved.status, 200, JSON.stringify(saved.body));
        assert.deepEqual(saved.body.result, { submitted: "#profile" });
        assert.equal(saved.body.state.saved, "Bo Chen/blue");
        assert.equal(
          await page.$eval("#fullname", (el) => (el as HTMLInputElement).value),
          "Bo Chen",
        );

        const schema =
          (await agent.manifest("/index.json")).body.actions.find((a: { id: string }) =>
            a.id === "save_profile"
          ).input_schema;
        assert.deepEqual(schema.required, ["fullname"]);
        assert.equal(schema.properties.fullname.description, "Full name");
        assert.deepEqual(schema.properties.color.enum, ["red", "blue"]);
      },
    );

    await t.step(
      "every state source is published and followed live: property, attribute, child JSON, table and input",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const agent = new Agent(bridge, await panelToken(page));
        const first = await agent.manifestWhen("/index.json", (m) => "prop" in m.state);
        assert.deepEqual(first.body.state.prop, { items: [1, 2] });
        assert.equal(first.body.state.attr, "one");
        assert.deepEqual(first.body.state.json, { a: 1 });
        // Numbers stay strings unless a field asks for a number.
        assert.deepEqual(first.body.state.people, [{ name: "Ann", age: "31" }]);
        assert.equal(first.body.state.query, "first");

        await page.evaluate(() => {
          (document.querySelector("aim-state[name=prop]") as HTMLElement & { value: unknown })
            .value = { items: [3] };
          document.querySelector("aim-state[name=attr]")!.setAttribute("value", "two");
          document.querySelector("aim-state[name=json] script")!.textContent = '{"a": 2}';
          document.querySelector("#people tbody")!.insertAdjacentHTML(
            "beforeend",
            "<tr><td>Bo</td><td>40</td></tr>",
          );
        });
        await page.click("#query", { count: 3 });
        await page.keyboard.type("typed");
        const live = await agent.manifestWhen("/index.json", (m) => m.state.query === "typed");
        assert.deepEqual(live.body.state.prop, { items: [3] });
        assert.equal(live.body.state.attr, "two");
        assert.deepEqual(live.body.state.json, { a: 2 });
        assert.deepEqual(live.body.state.people, [{ name: "Ann", age: "31" }, {
          name: "Bo",
          age: "40",
        }]);
      },
    );

    await t.step(
      "adding, removing, hiding and disabling actions updates the registration live",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/");
        const agent = new Agent(bridge, await panelToken(page));
        const ids = (m: { actions: { id: string }[] }) => m.actions.map((a) => a.id);
        await agent.manifestWhen("/index.json", (m) => ids(m).includes("shout"));

        await page.evaluate(() =>
          document.body.insertAdjacentHTML(
            "beforeend",
            '<aim-action name="later" description="Added later" input-example="x"></aim-action>',
          )
        );
        await agent.manifestWhen("/index.json", (m) => ids(m).includes("later"));
        await page.evaluate(() =>
          document.querySelector("[name=later]")!.toggleAttribute("hidden")
        );
        await agent.manifestWhen("/index.json", (m) => !ids(m).includes("later"));
        await page.evaluate(() => {
          const later = document.querySelector("[name=later]")!;
          later.removeAttribute("hidden");
          later.setAttribute("disabled", "");
        });
        await agent.manifestWhen("/index.json", (m) => !ids(m).includes("later"));
        await page.evaluate(() =>
          document.querySelector("[name=later]")!.removeAttribute("disabled")
        );
        await agent.manifestWhen("/index.json", (m) => ids(m).includes("later"));
        await page.evaluate(() => document.querySelector("[name=later]")!.remove());
        await agent.manifestWhen("/index.json", (m) => !ids(m).includes("later"));
        const gone = await agent.invoke("later", "x");
        assert.equal(gone.status, 404);
        assert.equal(gone.body.error, "unknown_action");
      },
    );

    await t.step("a password field and a key named token never reach the manifest", async () => {
      await using context = await browser.context();
      const page = await context.newPage();
      const warnings = new Warnings(page);
      await page.goto(bridge.origin + "/secrets");
      const agent = new Agent(bridge, await panelToken(page));
      const { body } = await agent.manifestWhen("/secrets.json", (m) => "profile" in m.state);
      assert.equal(body.state.who, "ann");
      assert.equal("pw" in body.state, false);
      assert.equal("token" in body.state, false);
      assert.deepEqual(body.state.profile, { name: "Ann", nested: { ok: 1 } });
      const text = await (await bridge.fetch("/secrets.json", {
        headers: { Authorization: `Bearer ${agent.token}` },
      })).text();
      for (const secret of ["hunter2", "tok-should", "key-should", "nested-should"]) {
        assert.equal(text.includes(secret), false, `${secret} leaked`);
      }
      // Typing a new password publishes nothing either.
      await page.type("#pw", "more");
      await page.evaluate(() =>
        document.querySelector("aim-state[name=pw]")!.setAttribute("x", "")
      );
      const again = await agent.manifest("/secrets.json");
      assert.equal(JSON.stringify(again.body).includes("hunter2"), false);
      await warnings.waitFor(
        /passwords are never published \(docs\/elements\.md#password-field\)/,
      );
    });

    await t.step(
      "a throwing handler gives 422 action_failed with its message; a silent one 504 tab_timeout",
      async () => {
        await using context = await browser.context();
        const page = await openPage(context, bridge, "/failing");
        const agent = new Agent(bridge, await panelToken(page));
        await panelStatus(page, "connected");
        await agent.manifestWhen(
          "/failing.json",
          (m) => m.actions.some((a: { id: string }) => a.id === "ok"),
        );

        const failed = await agent.invoke("explode", "x");
        assert.equal(failed.status, 422);
        assert.equal(failed.body.error, "action_failed");
        assert.equal(failed.body.message, "out of stock");

        const hung = await agent.invoke("hang", "x");
        assert.equal(hung.status, 504);
        assert.equal(hung.body.error, "tab_timeout");

        // The tab is not stuck behind the handler that never answered.
        const next = await agent.invoke("ok", "x");
        assert.equal(next.status, 200, JSON.stringify(next.body));
        assert.deepEqual(next.body.result, { echoed: "x" });
      },
    );

    await t.step("an action with no way to run fails with a message that says so", async () => {
      await using context = await browser.context();
      const page = await openPage(context, bridge, "/");
      const agent = new Agent(bridge, await panelToken(page));
      await panelStatus(page, "connected");
      const idle = await agent.invoke("idle");
      assert.equal(idle.status, 422);
      assert.equal(idle.body.error, "action_failed");
      assert.match(idle.body.message, /no handler, aim-invoke listener, click= or form=/);
    });

    await t.step(
      "a bad declaration and an action the bridge rejects are warned about in the console",
      async () => {
        await using context = await browser.context();
        const page = await context.newPage();
        const warnings = new Warnings(page);
        await page.goto(bridge.origin + "/warnings");
        const agent = new Agent(bridge, await panelToken(page));
        await warnings.waitFor(
          /bad_length.*input-min-length="three" is not a whole number \(docs\/elements\.md#action-markup\)/,
        );
        await warnings.waitFor(
          /"login" was rejected: "login" is a server action.* \(docs\/elements\.md#action-rejected\)/,
        );
        const ids = (await agent.manifest("/warnings.json")).body.actions.map((a: { id: string }) =>
          a.id
        );
        assert.equal(ids.includes("bad_length"), false);
      },
    );
  },
});
