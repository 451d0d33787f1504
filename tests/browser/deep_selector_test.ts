/**
 * The deep combinator in Chromium: deepAll and deepFirst resolve `>>>` through open
 * shadow roots (never closed ones), and `<aim-state>` and `<aim-action items=>` follow changes
 * inside the shadow roots their selectors cross, including roots that appear later.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { startBridge } from "../helpers/bridge.ts";
import { Agent, ELEMENTS, launchBrowser, NO_CHROMIUM, panelToken } from "./harness.ts";

/** deep_selector.ts as the browser runs it: bundled by `deno bundle`. */
async function deepModule(): Promise<string> {
  const out = await Deno.makeTempFile({ suffix: ".js" });
  try {
    const built = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform=browser",
        "--output",
        out,
        fileURLToPath(new URL("../../bridge/markup/deep_selector.ts", import.meta.url)),
      ],
      stderr: "piped",
    }).output();
    assert.ok(built.success, new TextDecoder().decode(built.stderr));
    return await Deno.readTextFile(out);
  } finally {
    await Deno.remove(out);
  }
}

/** An open host with an open host inside, and a closed one; declarative shadow DOM. */
const TREE = `<outer-host id="outer"><template shadowrootmode="open">
  <ul><li class="a">1</li><li class="a">2</li></ul>
  <inner-host><template shadowrootmode="open"><li class="a">3</li><b>inner</b></template></inner-host>
</template><li class="a">light</li></outer-host>
<closed-host><template shadowrootmode="closed"><li class="a">secret</li></template></closed-host>`;

Deno.test({
  name: "deepAll() crosses open shadow roots only where `>>>` says, and never closed ones",
  ignore: NO_CHROMIUM,
  async fn() {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({
      site: { "index.html": `<!doctype html><body>${TREE}</body>`, "deep.js": await deepModule() },
    });
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`${bridge.origin}/`);
    const found = await page.evaluate(async () => {
      // @ts-ignore: served by the test's bridge
      const { deepAll, deepFirst } = await import("/deep.js");
      const texts = (els: Element[]) => els.map((e) => e.textContent);
      const outer = document.getElementById("outer")!;
      let invalid = "";
      try {
        deepAll(document, "outer-host >>> li[");
      } catch (error) {
        invalid = (error as Error).name;
      }
      return {
        plain: texts(deepAll(document, "li")),
        one: texts(deepAll(document, "outer-host >>> li")),
        two: texts(deepAll(document, "outer-host >>> inner-host >>> li")),
        leading: texts(deepAll(outer, ">>> li.a")),
        closed: texts(deepAll(document, "closed-host >>> li")),
        first: deepFirst(document, "outer-host >>> inner-host >>> b")?.textContent,
        none: deepFirst(document, "inner-host >>> b"),
        invalid,
      };
    });
    assert.deepEqual(found, {
      plain: ["light"],
      one: ["1", "2"],
      two: ["3"],
      leading: ["1", "2"],
      closed: [],
      first: "inner",
      none: null,
      invalid: "SyntaxError",
    });
  },
});

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Deep</title>
${ELEMENTS}</head><body>
<aim-panel></aim-panel>
${TREE}
<aim-state name="inner" items="outer-host >>> inner-host >>> li"></aim-state>
<aim-state name="bold" from="outer-host >>> inner-host >>> b"></aim-state>
<aim-action name="pick" description="Pick one item" items="outer-host >>> inner-host >>> li"
  click=":scope"></aim-action>
</body></html>`;

Deno.test({
  name: "<aim-state> and <aim-action items=> follow changes inside the shadow roots they cross",
  ignore: NO_CHROMIUM,
  async fn(t) {
    await using browser = await launchBrowser();
    await using bridge = await startBridge({ site: { "index.html": PAGE } });
    await using context = await browser.context();
    const page = await context.newPage();
    await page.goto(`${bridge.origin}/`);
    const agent = new Agent(bridge, await panelToken(page));
    const pick = (m: { actions: { id: string; input_schema: { enum?: string[] } }[] }) =>
      m.actions.find((a) => a.id === "pick")?.input_schema.enum;

    await t.step("the state and the keys read inside the nested shadow root", async () => {
      const { body } = await agent.manifestWhen("/index.json", (m) => pick(m)?.length === 1);
      assert.deepEqual(body.state.inner, ["3"]);
      assert.equal(body.state.bold, "inner");
      assert.deepEqual(pick(body), ["3"]);
    });

    await t.step(
      "an item added inside the shadow root shows in the state and the enum",
      async () => {
        await page.evaluate(() => {
          const root = document.querySelector("outer-host")!.shadowRoot!.querySelector(
            "inner-host",
          )!
            .shadowRoot!;
          root.querySelector("b")!.textContent = "changed";
          root.append(Object.assign(document.createElement("li"), { textContent: "4" }));
        });
        const { body } = await agent.manifestWhen("/index.json", (m) => pick(m)?.length === 2);
        assert.deepEqual(body.state.inner, ["3", "4"]);
        assert.equal(body.state.bold, "changed");
      },
    );

    await t.step("a host replaced by a new one is watched in its new shadow root", async () => {
      await page.evaluate(() => {
        const outer = document.querySelector("outer-host")!.shadowRoot!;
        const host = document.createElement("inner-host");
        host.attachShadow({ mode: "open" }).innerHTML = "<li>5</li><b>new</b>";
        outer.querySelector("inner-host")!.replaceWith(host);
      });
      await agent.manifestWhen("/index.json", (m) => pick(m)?.[0] === "5");
      await page.evaluate(() => {
        const root = document.querySelector("outer-host")!.shadowRoot!.querySelector("inner-host")!
          .shadowRoot!;
        root.append(Object.assign(document.createElement("li"), { textContent: "6" }));
      });
      const { body } = await agent.manifestWhen("/index.json", (m) => pick(m)?.length === 2);
      assert.deepEqual(body.state.inner, ["5", "6"]);
      assert.deepEqual(pick(body), ["5", "6"]);
      assert.equal(body.state.bold, "new");
    });

    await t.step("the agent acts on an item inside the shadow root by its key", async () => {
      await page.evaluate(() => {
        const root = document.querySelector("outer-host")!.shadowRoot!.querySelector("inner-host")!
          .shadowRoot!;
        root.querySelectorAll("li").forEach((li) =>
          li.addEventListener("click", () => li.textContent += "!")
        );
      });
      const answer = await agent.invoke("pick", "6");
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.result, { item: "6", clicked: ":scope", after: "6!" });
      assert.deepEqual(answer.body.state.inner, ["5", "6!"]);
      const missing = await agent.invoke("pick", "7");
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error, "invalid_input");
    });
  },
});
