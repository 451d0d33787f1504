/**
 * Finding 7: an `<aim-action>` with a static `click=` binding clicks its button whatever the
 * input, so a declared input would be advertised as if it mattered ("req-999" → 200 ok). Such
 * markup is refused: the bridge never lists it, the element warns, `aim check` reports it.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { MarkupError, readAction } from "../../bridge/markup/action.ts";
import { scanPage } from "../../bridge/site/catalog.ts";
import { startBridge } from "../helpers/bridge.ts";

const SCRIPT = `<script type="module" src="/__aim/elements.js"></script>`;
const CLICK_INPUT =
  /click= ignores the input; remove the input-\* attributes, or run the action with a handler/;

/** Every way an `<aim-action>` can declare an input, as attributes and children. */
const DECLARED_INPUTS: [string, string, string][] = [
  ["input-example", ` input-example="req-3"`, ""],
  ["input-description", ` input-description="The request"`, ""],
  ["input-min-length", ` input-min-length="1"`, ""],
  ["input-minlength", ` input-minlength="1"`, ""],
  ["input-max-length", ` input-max-length="9"`, ""],
  ["input-maxlength", ` input-maxlength="9"`, ""],
  ["input-pattern", ` input-pattern="req-[0-9]+" input-example="req-3"`, ""],
  ["form=", ` form="#f"`, ""],
  ["a JSON schema", "", `<script type="application/json">{"type":"string"}</script>`],
];

function page(attrs: string, children = ""): string {
  return `${SCRIPT}<form id="f"><input name="q"></form><button id="approve">Approve</button>
<aim-action name="approve_request" description="Approve the request" click="#approve"${attrs}>${children}</aim-action>`;
}

Deno.test("an action with click= and a declared input is refused, whichever way the input is declared", () => {
  for (const [how, attrs, children] of DECLARED_INPUTS) {
    const info = scanPage(page(attrs, children), "/", "index.html");
    assert.deepEqual(info.actions, [], how);
    assert.equal(info.problems.length, 1, how);
    assert.match(info.problems[0]?.message ?? "", /^action "approve_request": /, how);
    assert.match(info.problems[0]?.message ?? "", CLICK_INPUT, how);
  }
});

Deno.test("an action with click= and no input stays an action that takes nothing", () => {
  for (const click of [` click="#approve"`, ` click=""`]) {
    const info = scanPage(page("").replace(` click="#approve"`, click), "/", "index.html");
    assert.deepEqual(info.problems, []);
    assert.deepEqual(info.actions[0]?.input_schema, {
      type: "object",
      properties: {},
      additionalProperties: false,
    });
    assert.deepEqual(info.actions[0]?.input_example, {});
  }
  // An empty click= binds nothing: the input is the handler's, and stays.
  const info = scanPage(
    page(` input-example="req-3"`).replace(` click="#approve"`, ` click=""`),
    "/",
    "index.html",
  );
  assert.deepEqual(info.problems, []);
  assert.deepEqual(info.actions[0]?.input_schema, { type: "string" });
});

Deno.test("the bridge never advertises an input that click= would ignore", async () => {
  await using bridge = await startBridge({
    site: {
      "panel.html": page(` input-pattern="req-[0-9]+" input-example="req-3"`) +
        `<button id="go">Go</button><aim-action name="go" description="Go on" click="#go"></aim-action>`,
    },
  });
  const res = await bridge.fetch("/panel.json");
  assert.equal(res.status, 200);
  const manifest = await res.json();
  const ids = manifest.actions.map((a: { id: string }) => a.id);
  assert.ok(!ids.includes("approve_request"), JSON.stringify(ids));
  assert.ok(ids.includes("go"));
  const sitemap = await (await bridge.fetch("/sitemap.json")).json();
  const listed = sitemap.pages.find((p: { path: string }) => p.path === "/panel");
  assert.ok(!listed.actions.includes("approve_request"));
});

Deno.test("readAction() refuses click= with any input-* attribute, on generated markup", () => {
  const attr = fc.constantFrom(...DECLARED_INPUTS.filter(([, a]) => a).map(([, a]) => a));
  fc.assert(
    fc.property(
      fc.subarray(DECLARED_INPUTS.map(([, a]) => a).filter(Boolean)),
      attr,
      (more, one) => {
        const attrs = [one, ...more].join("");
        const info = scanPage(page(attrs), "/", "index.html");
        assert.deepEqual(info.actions, []);
        assert.match(info.problems[0]?.message ?? "", CLICK_INPUT);
      },
    ),
    { numRuns: 50 },
  );
  // And the DOM reading (the element's) throws the same MarkupError.
  const el = {
    tagName: "AIM-ACTION",
    attrs: new Map([["name", "a"], ["description", "d"], ["click", "#b"], ["input-example", "x"]]),
    getAttribute(name: string) {
      return this.attrs.get(name) ?? null;
    },
    children: [],
    textContent: "",
  };
  assert.throws(
    () => readAction(el, { getElementById: () => null, documentElement: null }),
    (e) => e instanceof MarkupError && CLICK_INPUT.test(e.message),
  );
});
