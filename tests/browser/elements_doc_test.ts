/**
 * docs/elements.md tells page authors what the manifest says for each example: these
 * tests serve every example that the page follows with a JSON block as a page of its own, and
 * check what the bridge (from the static HTML) and the elements (in real Chromium) make of it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import { Agent, ELEMENTS, launchBrowser, NO_CHROMIUM } from "./harness.ts";

const DOC = new URL("../../docs/elements.md", import.meta.url);

/** One example of the page: its HTML and the JSON that follows it. */
interface Example {
  line: number;
  html: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

/** The ```html blocks that the next fenced block, a ```json one, describes. */
async function examples(): Promise<Example[]> {
  const text = await Deno.readTextFile(DOC);
  const blocks = [...text.matchAll(/^ *```(\w*)\n([\s\S]*?)^ *```$/gm)].map((m) => ({
    lang: m[1]!,
    body: m[2]!,
    line: text.slice(0, m.index).split("\n").length,
  }));
  const out: Example[] = [];
  blocks.forEach((block, i) => {
    const next = blocks[i + 1];
    if (block.lang === "html" && next?.lang === "json") {
      out.push({ line: block.line, html: block.body, json: JSON.parse(next.body) });
    }
  });
  return out;
}

const page = (example: Example) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Example</title>
${ELEMENTS}</head><body>\n${example.html}</body></html>`;

Deno.test("docs/elements.md shows what the manifest says for at least its main examples", async () => {
  const found = await examples();
  const ids = found.filter((e) => e.json.id).map((e) => e.json.id);
  for (const id of ["approve_request", "filter_requests", "place_order", "search", "ping"]) {
    assert.ok(ids.includes(id), `no example of "${id}" is followed by its manifest`);
  }
  assert.ok(found.some((e) => e.json.state), "no <aim-state> example is followed by its state");
});

Deno.test("every action example in docs/elements.md is what the public manifest lists", async () => {
  const found = (await examples()).filter((e) => e.json.id);
  const site = Object.fromEntries(found.map((e, i) => [`example-${i}.html`, page(e)]));
  await using bridge = await startBridge({ site });
  for (const [i, example] of found.entries()) {
    const res = await bridge.fetch(`/example-${i}.json`);
    const manifest = await res.json();
    assert.equal(res.status, 200, `docs/elements.md:${example.line}: ${JSON.stringify(manifest)}`);
    const action = manifest.actions.find((a: { id: string }) => a.id === example.json.id);
    assert.deepEqual(action, example.json, `docs/elements.md:${example.line}`);
  }
});

Deno.test({
  name:
    "every example in docs/elements.md, live in a real browser, gives the session manifest it shows",
  ignore: NO_CHROMIUM,
  async fn() {
    const found = await examples();
    const site = Object.fromEntries(found.map((e, i) => [`example-${i}.html`, page(e)]));
    await using bridge = await startBridge({ site });
    await using browser = await launchBrowser();
    await using context = await browser.context();
    const tab = await context.newPage();
    for (const [i, example] of found.entries()) {
      // Protected actions are offered to a signed-in session only: the public check covers them.
      if (/\bprotected\b/.test(example.html)) continue;
      await tab.goto(`${bridge.origin}/example-${i}`);
      const token = await tab.waitForFunction(async () => {
        const url = "/__aim/elements.js";
        const { client } = await import(url);
        return client.status === "connected" && client.token;
      });
      const agent = new Agent(bridge, await token.jsonValue() as string);
      const where = `docs/elements.md:${example.line}`;
      if (example.json.id) {
        const { body } = await agent.manifestWhen(
          `/example-${i}.json`,
          (m) => m.actions.some((a: { id: string }) => a.id === example.json.id),
        );
        const action = body.actions.find((a: { id: string }) => a.id === example.json.id);
        assert.deepEqual(action, example.json, where);
      } else {
        const expected = JSON.stringify(example.json.state);
        const { body } = await agent.manifestWhen(
          `/example-${i}.json`,
          (m) => JSON.stringify(m.state) === expected,
        ).catch(async () => await agent.manifest(`/example-${i}.json`));
        assert.deepEqual(body.state, example.json.state, where);
      }
    }
  },
});

/** The ```html block of docs/elements.md that declares the action `name`. */
async function recipe(name: string): Promise<string> {
  const text = await Deno.readTextFile(DOC);
  const found = [...text.matchAll(/^ *```html\n([\s\S]*?)^ *```$/gm)]
    .map((m) => m[1]!)
    .filter((html) => html.includes(`name="${name}"`));
  assert.equal(found.length, 1, `docs/elements.md has one recipe declaring "${name}"`);
  return found[0]!;
}

const shell = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Recipe</title>
${ELEMENTS}</head><body>\n${body}</body></html>`;

Deno.test({
  name: "the recipes of docs/elements.md do in a real browser what they say",
  ignore: NO_CHROMIUM,
  async fn(t) {
    // The page's own script selects the tab clicked; the list of todos renders the active only.
    const tabs = `${await recipe("show_view")}
<p id="shown">Open</p>
<script type="module">
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.addEventListener("click", () => {
      for (const other of document.querySelectorAll("[role=tab]")) {
        other.setAttribute("aria-selected", String(other === tab));
      }
      document.querySelector("#shown").textContent = tab.textContent;
    });
  }
</script>`;
    const filtered = `<ul class="todo-list"></ul>
<p class="filters"><a href="#/">All</a> <a href="#/active">Active</a></p>
${await recipe("show_all")}
<script type="module">
  const todos = [{ title: "buy milk", done: true }, { title: "walk dog", done: false }];
  const list = document.querySelector(".todo-list");
  const render = () => {
    const active = location.hash === "#/active";
    list.innerHTML = todos.filter((t) => !active || !t.done).map((t) =>
      '<li><input class="toggle" type="checkbox"' + (t.done ? " checked" : "") + "><label>" +
      t.title + "</label></li>"
    ).join("");
  };
  list.addEventListener("click", (e) => {
    if (!e.target.matches(".toggle")) return;
    const title = e.target.closest("li").querySelector("label").textContent;
    const todo = todos.find((t) => t.title === title);
    todo.done = !todo.done;
    render();
  });
  addEventListener("hashchange", render);
  render();
</script>`;
    await using bridge = await startBridge({
      site: {
        "tabs.html": shell(tabs),
        "filtered.html": shell(filtered),
        "orders/index.html": shell(await recipe("next_page")),
        "orders/page-2.html": shell(
          `<h1>Page 2</h1><aim-action name="first_page" description="Go back to the first page"
  click="h1"></aim-action>`,
        ),
      },
    });
    await using browser = await launchBrowser();
    await using context = await browser.context();

    async function open(path: string) {
      const tab = await context.newPage();
      await tab.goto(bridge.origin + path);
      const token = await tab.waitForFunction(async () => {
        const url = "/__aim/elements.js";
        const { client } = await import(url);
        return client.status === "connected" && client.token;
      });
      return { tab, agent: new Agent(bridge, await token.jsonValue() as string) };
    }

    await t.step("choose one of N tabs: the names are the enum, and one is clicked", async () => {
      const { tab, agent } = await open("/tabs");
      const { body } = await agent.manifestWhen(
        "/tabs.json",
        (m) => m.actions.some((a: { id: string }) => a.id === "show_view"),
      );
      const action = body.actions.find((a: { id: string }) => a.id === "show_view");
      assert.deepEqual(action.input_schema.enum, ["Open", "Shipped", "Archived"]);
      const shown = await agent.invoke("show_view", "Shipped");
      assert.equal(shown.status, 200, JSON.stringify(shown.body));
      assert.deepEqual(shown.body.result, { item: "Shipped", clicked: ":scope", after: "Shipped" });
      assert.equal(await tab.$eval("#shown", (p) => p.textContent), "Shipped");
      const wrong = await agent.invoke("show_view", "Drafts");
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, "invalid_input");
      await tab.close();
    });

    await t.step("items the page removes are not named; the way back brings them", async () => {
      const { tab, agent } = await open("/filtered#/active");
      const keys = async (expected: string[]) =>
        await agent.manifestWhen("/filtered.json", (m) =>
          JSON.stringify(
            m.actions.find((a: { id: string }) => a.id === "toggle_todo")?.input_schema.enum,
          ) === JSON.stringify(expected));
      await keys(["walk dog"]);
      const refused = await agent.invoke("toggle_todo", "buy milk");
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error, "invalid_input");
      assert.match(refused.body.hint, /walk dog/);
      assert.equal((await agent.invoke("show_all")).status, 200);
      await keys(["buy milk", "walk dog"]);
      const toggled = await agent.invoke("toggle_todo", "buy milk");
      assert.equal(toggled.status, 200, JSON.stringify(toggled.body));
      assert.equal(toggled.body.result.after, "buy milk");
      await tab.close();
    });

    await t.step(
      "a click= that leaves the page: the next page's answer, and the session on it",
      async () => {
        const { tab, agent } = await open("/orders/");
        await agent.manifestWhen(
          "/orders.json",
          (m) => m.actions.some((a: { id: string }) => a.id === "next_page"),
        );
        const left = await agent.invoke("next_page");
        assert.equal(left.status, 200, JSON.stringify(left.body));
        assert.deepEqual(left.body.result, {
          clicked: "#next",
          navigating_to: `${agent.bridge.origin}/orders/page-2`,
          page: "/orders/page-2",
        });
        assert.equal(left.body.settled, true);
        const next = await agent.manifestWhen(
          "/orders/page-2.json",
          (m) =>
            m.browser_connected && m.actions.some((a: { id: string }) => a.id === "first_page"),
        );
        assert.equal(next.body.page, "/orders/page-2");
        const old = await agent.manifest("/orders.json");
        assert.equal(old.status, 409);
        assert.equal(old.body.error, "page_mismatch");
        assert.equal(new URL(tab.url()).pathname, "/orders/page-2");
        await tab.close();
      },
    );
  },
});
