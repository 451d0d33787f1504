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
