/**
 * Unit tests of elements/page_tools.ts, run in Deno with a stand-in for the few browser globals it
 * reads (`window`, `location`, `document`): the consent rule of a page's WebMCP tools (read-only
 * only when what was listed and what was registered both say so, over every hint combination),
 * the owner's `<aim-tool>` markup, which tools become actions (not aim's own, not another frame's,
 * not an `<aim-action>`'s id, at most 64); how a run reaches the tool is
 * tests/unit/page_tool_runs_test.ts's, the stand-ins tests/helpers/page_tools_fakes.ts. The browser tests
 * (tests/browser/webmcp_pages_test.ts) run the same module in Chromium; these are the ones
 * `deno task mutate elements/page_tools.ts` runs per mutant, since mutants cannot reach a bundle.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  isOwnTool,
  mergeHints,
  PageTools,
  type RegisteredTool,
  toolMarkup,
} from "../../elements/page_tools.ts";
import { MAX_PAGE_TOOLS } from "../../bridge/wire/webmcp_tools.ts";
import {
  aimAction,
  document,
  element,
  FakeClient,
  FakeContext,
  globals,
  HINTS,
  ORIGIN,
  read,
  reset,
  tool,
  warnings,
} from "../helpers/page_tools_fakes.ts";

// --- mergeHints: the consent rule ------------------------------------------------------------

Deno.test("mergeHints() says read-only only when both say so, destructive or consequential when either does", () => {
  const values = [true, false, "true", undefined];
  const hints = ["readOnlyHint", "destructiveHint", "consequentialHint"] as const;
  for (const listedValue of values) {
    for (const registeredValue of values) {
      for (const hint of hints) {
        const listed = listedValue === undefined ? {} : { [hint]: listedValue };
        const registered = registeredValue === undefined ? {} : { [hint]: registeredValue };
        const merged = mergeHints(listed, registered);
        const both = listedValue === true && registeredValue === true;
        const either = listedValue === true || registeredValue === true;
        assert.deepEqual(
          merged,
          {
            readOnlyHint: hint === "readOnlyHint" && both,
            destructiveHint: hint === "destructiveHint" && either,
            consequentialHint: hint === "consequentialHint" && either,
          },
          `${hint}: listed ${listedValue}, registered ${registeredValue}`,
        );
      }
    }
  }
});

Deno.test("mergeHints(): a tool listed read-only but registered otherwise is not read-only", () => {
  assert.deepEqual(mergeHints({ readOnlyHint: true }, { readOnlyHint: false }), {
    readOnlyHint: false,
    destructiveHint: false,
    consequentialHint: false,
  });
  assert.equal(mergeHints({ readOnlyHint: false }, { readOnlyHint: true }).readOnlyHint, false);
  assert.equal(mergeHints({ readOnlyHint: true }, {}).readOnlyHint, false);
  assert.equal(mergeHints({}, { readOnlyHint: true }).readOnlyHint, false);
});

Deno.test("mergeHints() keeps what was listed when nothing was registered, and reads no list that is not an object", () => {
  const listed = { readOnlyHint: true, title: "x" };
  for (const registered of [undefined, null, "readOnlyHint", 1]) {
    const merged = mergeHints(listed, registered);
    assert.deepEqual(merged, listed);
    assert.notEqual(merged, listed, "a copy");
  }
  for (const listedValue of [undefined, null, "x", 1]) {
    assert.deepEqual(mergeHints(listedValue, undefined), {});
    assert.deepEqual(mergeHints(listedValue, { readOnlyHint: true, destructiveHint: true }), {
      readOnlyHint: false,
      destructiveHint: true,
      consequentialHint: false,
    });
  }
});

// --- toolMarkup and isOwnTool ----------------------------------------------------------------

Deno.test("toolMarkup() reads each <aim-tool>'s consequential, hidden, read-only and example, and only ever adds the flags", () => {
  const root = {
    querySelectorAll: () => [
      element({ name: " pay ", consequential: "" }),
      element({ name: "pay" }),
      element({ name: "search", consequential: "false" }),
      element({ name: "search2", consequential: " FALSE " }),
      element({ name: "buy", consequential: "yes" }),
      element({ name: "secret", hidden: "" }),
      element({ name: "secret", consequential: "false" }),
      // hidden is a boolean attribute: present, whatever its value.
      element({ name: "gone", hidden: "false" }),
      element({ name: "status", "read-only": "" }),
      element({ name: "status", "read-only": "false" }),
      element({ name: "status2", "read-only": " False " }),
      element({ name: "time", "input-example": '{"t":"9:30 AM"}' }),
      element({ name: "time", "input-example": '{"t":"1:00 PM"}' }),
      element({ name: "time" }),
      element({ name: "  " }),
      element({ consequential: "" }),
    ],
  } as unknown as ParentNode;
  const flags = (consequential: boolean, hidden: boolean, readOnly: boolean) => ({
    consequential,
    hidden,
    readOnly,
  });
  assert.deepEqual([...toolMarkup(root)], [
    ["pay", flags(true, false, false)],
    ["search", flags(false, false, false)],
    ["search2", flags(false, false, false)],
    ["buy", flags(true, false, false)],
    ["secret", flags(false, true, false)],
    ["gone", flags(false, true, false)],
    ["status", flags(false, false, true)],
    ["status2", flags(false, false, false)],
    // The last example given is kept; an element without one keeps it.
    ["time", { ...flags(false, false, false), inputExample: '{"t":"1:00 PM"}' }],
  ]);
  document.tools = [element({ name: "doc", hidden: "" })];
  assert.deepEqual([...toolMarkup()], [["doc", flags(false, true, false)]]);
  reset();
});

Deno.test("isOwnTool() takes a tool of this window and origin, or one that does not say", () => {
  assert.equal(isOwnTool({ name: "a" }), true);
  assert.equal(isOwnTool({ name: "a", window: globalThis, origin: ORIGIN }), true);
  assert.equal(isOwnTool({ name: "a", window: undefined, origin: undefined }), true);
  assert.equal(isOwnTool({ name: "a", window: {} }), false);
  assert.equal(isOwnTool({ name: "a", window: null }), false);
  assert.equal(isOwnTool({ name: "a", origin: "https://evil.example" }), false);
  assert.equal(isOwnTool({ name: "a", window: globalThis, origin: "null" }), false);
});

// --- PageTools: which tools become actions ---------------------------------------------------

Deno.test("the page's tools become actions by name, their consent from both hints and the markup", async () => {
  reset();
  const context = new FakeContext();
  context.tools = [
    tool("search"),
    tool("pay", { annotations: {} }),
    tool("lookup"),
    tool("delete", { annotations: { readOnlyHint: true, destructiveHint: true } }),
    tool("note"),
  ];
  globals[HINTS] = new Map([["lookup", { readOnlyHint: false }], ["note", { readOnlyHint: true }]]);
  document.tools = [element({ name: "search", consequential: "" })];
  let client!: FakeClient;
  let tools!: PageTools;
  const warned = await warnings(async () => ({ client, tools } = await read(context)));
  assert.deepEqual(warned, [], "nothing to say of tools all taken");
  const actions = client.tools();
  assert.deepEqual([...actions.keys()], ["delete", "lookup", "note", "pay", "search"]);
  assert.deepEqual([...tools.ids].sort(), ["delete", "lookup", "note", "pay", "search"]);
  const consequential = Object.fromEntries(
    [...actions].map(([name, t]) => [name, t.declaration()!.consequential]),
  );
  assert.deepEqual(consequential, {
    delete: true,
    // Listed read-only, registered not: the person is asked.
    lookup: true,
    note: false,
    pay: true,
    // The owner's markup.
    search: true,
  });
  // The schema as the tool gave it, no example: the bridge closes its objects and makes one.
  assert.deepEqual(actions.get("note")!.declaration(), {
    id: "note",
    description: "The tool note",
    input_schema: { type: "object", properties: { q: { type: "string" } } },
    consequential: false,
    read_only: true,
    protected: false,
  });
  assert.equal(actions.get("note")!.getAttribute("no-confirm"), null);
  assert.equal(client.changes, 1);
  reset();
});

Deno.test("<aim-tool read-only> counts only where aim saw the tool's hints: registered, or a declarative form", async () => {
  reset();
  const context = new FakeContext();
  const unsaid = { annotations: {} };
  context.tools = [
    tool("seen", unsaid),
    tool("form", unsaid),
    tool("unseen", unsaid),
    tool("destroys", { annotations: { destructiveHint: true } }),
  ];
  // Registered through aim's API: seen and destroys; declared by a form: form.
  globals[HINTS] = new Map([["seen", {}], ["destroys", { destructiveHint: true }]]);
  document.forms = ["form"];
  document.tools = ["seen", "form", "unseen", "destroys"].map((name) =>
    element({ name, "read-only": "" })
  );
  let client!: FakeClient;
  const warned = await warnings(async () => ({ client } = await read(context)));
  const declared = Object.fromEntries(
    [...client.tools()].map(([name, t]) => {
      const { consequential, read_only, read_only_by } = t.declaration()!;
      return [name, { consequential, read_only, read_only_by }];
    }),
  );
  const owners = { consequential: false, read_only: true, read_only_by: "site_owner" };
  const asks = { consequential: true, read_only: false, read_only_by: undefined };
  assert.deepEqual(declared, { destroys: asks, form: owners, seen: owners, unseen: asks });
  assert.deepEqual(warned, [
    '[aim] tool "destroys": <aim-tool read-only> is ignored: the tool says it is destructive or ' +
    "consequential (destructiveHint, consequentialHint); the person is asked " +
    "(docs/elements.md#webmcp-tool)",
    '[aim] tool "unseen": <aim-tool read-only> is ignored: aim did not see the tool registered, ' +
    "so not whether it says it is destructive (load /__aim/webmcp.js first in <head>) " +
    "(docs/elements.md#webmcp-tool)",
  ]);
  reset();
});

Deno.test("an ignored <aim-tool read-only> leaves the rest of the owner's markup: hidden stays hidden, the example stays", async () => {
  reset();
  const context = new FakeContext();
  const unsaid = { annotations: {} };
  context.tools = [tool("hidden_too", unsaid), tool("with_example", unsaid)];
  document.tools = [
    element({ name: "hidden_too", "read-only": "", hidden: "" }),
    element({ name: "with_example", "read-only": "", "input-example": '{"q":"owner"}' }),
  ];
  let client!: FakeClient;
  await warnings(async () => ({ client } = await read(context)));
  assert.deepEqual([...client.tools().keys()], ["with_example"]);
  const declared = client.tools().get("with_example")!.declaration()!;
  assert.deepEqual(declared.input_example, { q: "owner" });
  assert.equal(declared.consequential, true);
  assert.equal(declared.read_only, false);
  reset();
});

Deno.test("aim's own tools, the read tool in any case, an <aim-action>'s id in any case and another frame's tools are not the page's", async () => {
  reset();
  const context = new FakeContext();
  context.tools = [
    null as unknown as RegisteredTool,
    tool("aim_tool"),
    tool("AIM_READ_PAGE"),
    tool("Approve"),
    tool("framed", { window: {} }),
    tool("foreign", { origin: "https://evil.example" }),
    tool("kept"),
    { description: "no name" } as RegisteredTool,
    null as unknown as RegisteredTool,
    { name: 7 } as unknown as RegisteredTool,
  ];
  const client = new FakeClient();
  client.actions.add(aimAction("approve"));
  // An <aim-action> that declares nothing (not valid) takes no id.
  client.actions.add({ name: "kept", declaration: () => null });
  let tools!: PageTools;
  const warned = await warnings(async () => {
    ({ tools } = await read(context, new Set(["aim_tool"]), client));
  });
  assert.deepEqual([...client.tools().keys()], ["kept"]);
  assert.deepEqual([...tools.ids], ["kept"]);
  assert.deepEqual(warned, [
    '[aim] tool "foreign" was registered by another frame or origin: not this page\'s (docs/elements.md#webmcp-tool)',
    '[aim] tool "framed" was registered by another frame or origin: not this page\'s (docs/elements.md#webmcp-tool)',
  ]);
  reset();
});

Deno.test("a page's tools are taken up to 64, the first by name, with a warning once", async () => {
  reset();
  const context = new FakeContext();
  const names = Array.from(
    { length: MAX_PAGE_TOOLS + 2 },
    (_, i) => `t${String(i).padStart(3, "0")}`,
  );
  context.tools = names.toReversed().map((name) => tool(name));
  const client = new FakeClient();
  const tools = new PageTools(client, context, () => new Set());
  const warned = await warnings(async () => {
    await tools.sync();
    context.dispatchEvent(new Event("toolchange"));
    await tools.sync();
  });
  assert.deepEqual([...client.tools().keys()], names.slice(0, MAX_PAGE_TOOLS));
  assert.deepEqual(warned, [
    `[aim] the page registers more than ${MAX_PAGE_TOOLS} WebMCP tools: remote agents get the first ${MAX_PAGE_TOOLS} (docs/elements.md#webmcp-tool)`,
  ]);
  // Exactly 64: no warning.
  context.tools = names.slice(0, MAX_PAGE_TOOLS).map((name) => tool(name));
  const quiet = await warnings(() => read(context));
  assert.deepEqual(quiet, []);
  reset();
});

Deno.test("a tool the mapping refuses is left out with a warning, unless the owner hid it", async () => {
  reset();
  const context = new FakeContext();
  context.tools = [tool("bad name"), tool("undescribed", { description: "" }), tool("hidden_one")];
  document.tools = [element({ name: "hidden_one", hidden: "" })];
  let client!: FakeClient;
  const warned = await warnings(async () => ({ client } = await read(context)));
  assert.deepEqual([...client.tools().keys()], []);
  assert.deepEqual(warned, [
    "[aim] tool \"bad name\": its name is not an action id (a letter, then at most 63 letters, digits, '_', '.' or '-'): remote agents do not get it (docs/elements.md#webmcp-tool)",
    '[aim] tool "undescribed": it has no description: remote agents do not get it (docs/elements.md#webmcp-tool)',
  ]);
  reset();
});

Deno.test("reading the same tools again changes nothing; a changed tool is registered again", async () => {
  reset();
  const context = new FakeContext();
  context.tools = [tool("a"), tool("b")];
  const { client, tools } = await read(context);
  const first = client.tools().get("a");
  await tools.sync();
  assert.equal(client.changes, 1, "the same declarations: no change");
  assert.equal(client.actions.size, 2);
  context.tools = [tool("a", { annotations: {} })];
  await tools.sync();
  assert.equal(client.changes, 2);
  assert.deepEqual([...client.tools().keys()], ["a"]);
  assert.notEqual(client.tools().get("a"), first);
  assert.equal(client.tools().get("a")!.declaration()!.consequential, true);
  // The tools added before are not mistaken for <aim-action>s of the same id.
  await tools.sync();
  assert.deepEqual([...client.tools().keys()], ["a"]);
  reset();
});

Deno.test("sync() reads one at a time, and once more for any number of changes during a read", async () => {
  reset();
  const context = new FakeContext();
  const pending: ((tools: RegisteredTool[]) => void)[] = [];
  context.getTools = () => {
    context.reads++;
    return new Promise((resolve) => pending.push(resolve));
  };
  const tools = new PageTools(new FakeClient(), context, () => new Set());
  const first = tools.sync();
  assert.equal(tools.sync(), first, "before the read starts, one read does for both");
  while (context.reads === 0) await Promise.resolve();
  const second = tools.sync();
  const third = tools.sync();
  assert.equal(second, third, "changes during a read: one read more");
  assert.notEqual(second, first);
  pending.shift()!([tool("a")]);
  await first;
  while (context.reads === 1) await Promise.resolve();
  pending.shift()!([tool("a")]);
  await second;
  assert.equal(context.reads, 2);
  const fourth = tools.sync();
  while (context.reads === 2) await Promise.resolve();
  pending.shift()!([]);
  await fourth;
  assert.equal(context.reads, 3);
});

Deno.test("a read that fails is a warning, and the next read works", async () => {
  reset();
  const context = new FakeContext();
  let fail = true;
  context.getTools = () => {
    context.reads++;
    return fail ? Promise.reject(new Error("gone")) : Promise.resolve([tool("a")]);
  };
  const client = new FakeClient();
  const tools = new PageTools(client, context, () => new Set());
  const warned = await warnings(() => tools.sync());
  assert.deepEqual(warned, [
    "[aim] could not read the page's WebMCP tools: Error: gone (docs/elements.md#webmcp-tool)",
  ]);
  fail = false;
  await tools.sync();
  assert.deepEqual([...client.tools().keys()], ["a"]);
});

Deno.test("a context without getTools() or executeTool() lists nothing", async () => {
  reset();
  for (const missing of ["getTools", "executeTool"] as const) {
    const context = new FakeContext();
    context.tools = [tool("a")];
    Object.defineProperty(context, missing, { value: undefined });
    let client!: FakeClient;
    const warned = await warnings(async () => ({ client } = await read(context)));
    assert.equal(client.tools().size, 0, missing);
    assert.deepEqual(warned, [], missing);
    assert.equal(context.reads, 0, missing);
  }
});
