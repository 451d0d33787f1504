/**
 * Unit tests of elements/page_tools.ts, run in Deno with a stand-in for the few browser globals it
 * reads (`window`, `location`, `document`): the consent rule of a page's WebMCP tools (read-only
 * only when what was listed and what was registered both say so, over every hint combination),
 * the owner's `<aim-tool>` markup, which tools become actions (not aim's own, not another frame's,
 * not an `<aim-action>`'s id, at most 64), and how a run reaches the tool. The browser tests
 * (tests/browser/webmcp_pages_test.ts) run the same module in Chromium; these are the ones
 * `deno task mutate elements/page_tools.ts` runs per mutant, since mutants cannot reach a bundle.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  isOwnTool,
  mergeHints,
  type PageTool,
  PageTools,
  type PageToolsClient,
  type ReadableModelContext,
  type RegisteredTool,
  startPageTools,
  toolMarkup,
} from "../../elements/page_tools.ts";
import { MAX_PAGE_TOOLS } from "../../bridge/wire/webmcp_tools.ts";

// --- The browser globals page_tools.ts reads ------------------------------------------------

const ORIGIN = "https://shop.example";
const globals = globalThis as unknown as Record<string | symbol, unknown>;
globals.window = globalThis;
// A form's tool is found by a selector built with CSS.escape (no form here: declarative tools are
// the browser tests').
globals.CSS = { escape: (text: string) => text.replace(/["\\]/g, "\\$&") };
Object.defineProperty(globalThis, "location", {
  value: { origin: ORIGIN },
  configurable: true,
  writable: true,
});

/** A stand-in element with attributes. */
function element(attributes: Record<string, string>) {
  return {
    getAttribute: (name: string) => Object.hasOwn(attributes, name) ? attributes[name]! : null,
    hasAttribute: (name: string) => Object.hasOwn(attributes, name),
  };
}

/** The document: its `<aim-tool>` elements, its `<form toolname>`s, its ready state, its listeners. */
class FakeDocument extends EventTarget {
  readyState: DocumentReadyState = "complete";
  tools: ReturnType<typeof element>[] = [];
  /** The names of the page's declarative forms (`<form toolname>`). */
  forms: string[] = [];
  querySelectorAll(selector: string) {
    assert.equal(selector, "aim-tool");
    return this.tools;
  }
  querySelector(selector: string) {
    const name = /^form\[toolname="(.*)"\]$/.exec(selector)?.[1];
    assert.ok(name !== undefined, selector);
    return this.forms.includes(name) ? element({ toolname: name }) : null;
  }
}
const document = new FakeDocument();
globals.document = document;
// CSS.escape as the browser has it, for the names these tests use (letters, digits, '_').
globals.CSS ??= { escape: (name: string) => name.replace(/[^\w-]/g, (c) => `\\${c}`) };

const HINTS = Symbol.for("aim.webmcp.hints");
const REGISTRY = Symbol.for("aim.webmcp.registry");
const ERRORS = Symbol.for("aim.webmcp.errors");

/** Warnings the module printed, while `fn` runs. */
async function warnings(fn: () => unknown): Promise<string[]> {
  const seen: string[] = [];
  const warn = console.warn;
  console.warn = (message: string) => seen.push(message);
  try {
    await fn();
    // A warning's words load on demand (elements/warning_text.ts): they are printed a turn later.
    await import("../../elements/warning_text.ts");
    await settle();
  } finally {
    console.warn = warn;
  }
  return seen;
}

/** Lets every promise callback and timer already due run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Puts the page's registrations, hints and errors back as none. */
function reset(): void {
  delete globals[HINTS];
  delete globals[REGISTRY];
  delete globals[ERRORS];
  document.tools = [];
  document.forms = [];
  document.readyState = "complete";
}

// --- Stand-ins for the client and document.modelContext --------------------------------------

class FakeClient extends EventTarget implements PageToolsClient {
  readonly actions = new Set<{ name: string; declaration(): { id: string } | null }>();
  changes = 0;
  changed(): void {
    this.changes++;
  }
  /** The page's tools among the actions, by name. */
  tools(): Map<string, PageTool> {
    return new Map(
      [...this.actions].filter((a) => "run" in a).map((a) => [a.name, a as PageTool]),
    );
  }
}

/** An `<aim-action>` of the client. */
const aimAction = (id: string) => ({ name: id, declaration: () => ({ id }) });

interface Call {
  tool: RegisteredTool;
  input: unknown;
}

class FakeContext extends EventTarget implements ReadableModelContext {
  tools: RegisteredTool[] = [];
  calls: Call[] = [];
  reads = 0;
  answer: (call: Call) => unknown = () => "done";
  getTools(): Promise<RegisteredTool[]> {
    this.reads++;
    return Promise.resolve(this.tools);
  }
  executeTool(tool: RegisteredTool, input: unknown): Promise<unknown> {
    const call = { tool, input };
    this.calls.push(call);
    return Promise.resolve().then(() => this.answer(call));
  }
}

/** A tool as the page registers it: read-only unless told, with one string field `q`. */
function tool(name: string, more: Partial<RegisteredTool> = {}): RegisteredTool {
  return {
    name,
    description: `The tool ${name}`,
    inputSchema: { type: "object", properties: { q: { type: "string" } } },
    annotations: { readOnlyHint: true },
    ...more,
  };
}

/** A PageTools over a fresh client and `context`, read once. */
async function read(
  context: FakeContext,
  own: ReadonlySet<string> = new Set(),
  client: FakeClient = new FakeClient(),
): Promise<{ client: FakeClient; tools: PageTools }> {
  const tools = new PageTools(client, context, () => own);
  await tools.sync();
  return { client, tools };
}

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

// --- Runs --------------------------------------------------------------------------------------

Deno.test("a run executes the tool as listed now, with its input as JSON text, and reads its answer", async () => {
  reset();
  const context = new FakeContext();
  context.tools = [tool("a")];
  context.answer = () => '{"found":1}';
  const { client } = await read(context);
  const waits: unknown[] = [];
  const answer = await client.tools().get("a")!.run({ q: "x" }, (work) => waits.push(work));
  assert.deepEqual(answer, { found: 1 });
  assert.deepEqual(waits, [null]);
  assert.equal(context.calls.length, 1);
  assert.equal(context.calls[0]!.input, '{"q":"x"}');
  assert.equal(context.calls[0]!.tool.name, "a");
  // Without waitUntil.
  assert.deepEqual(await client.tools().get("a")!.run({ q: "y" }), { found: 1 });
});

Deno.test("a native executeTool() gets the input as an object", async () => {
  reset();
  const context = new FakeContext();
  context.tools = [tool("a")];
  context.executeTool = FakeContext.prototype.executeTool.bind(context);
  const { client } = await read(context);
  await client.tools().get("a")!.run({ q: "x" });
  assert.deepEqual(context.calls.map((c) => c.input), [{ q: "x" }]);
});

Deno.test("an executeTool() that refuses text as invalid input gets the object; any other error is the tool's", async () => {
  reset();
  const context = new FakeContext();
  context.tools = [tool("a")];
  context.answer = ({ input }) => {
    if (typeof input === "string") throw new TypeError("Invalid input: not an object");
    return "ok";
  };
  const { client } = await read(context);
  assert.equal(await client.tools().get("a")!.run({ q: "x" }), "ok");
  assert.deepEqual(context.calls.map((c) => c.input), ['{"q":"x"}', { q: "x" }]);
  for (const error of [new TypeError("something else"), new Error("invalid input")]) {
    context.calls = [];
    context.answer = () => {
      throw error;
    };
    await assert.rejects(client.tools().get("a")!.run({ q: "x" }), (e) => e === error);
    assert.equal(context.calls.length, 1, "not tried again");
  }
});

Deno.test("a failed run says the tool's own words when aim saw them, once", async () => {
  reset();
  const context = new FakeContext();
  context.tools = [tool("a")];
  context.answer = () => {
    throw new Error("WebMCP's own sentence");
  };
  const errors = new Map([["a", "The tool's own words"]]);
  globals[ERRORS] = errors;
  const { client } = await read(context);
  await assert.rejects(client.tools().get("a")!.run({}), /^Error: The tool's own words$/);
  assert.equal(errors.size, 0, "read once");
  await assert.rejects(client.tools().get("a")!.run({}), /^Error: WebMCP's own sentence$/);
  reset();
});

Deno.test("a tool withdrawn, or now another frame's, is not run", async () => {
  reset();
  const context = new FakeContext();
  context.tools = [tool("a")];
  const { client } = await read(context);
  const run = client.tools().get("a")!;
  context.tools = [];
  await assert.rejects(run.run({}), /^Error: The tool "a" is no longer registered on the page\.$/);
  context.tools = [tool("a", { window: {} })];
  await assert.rejects(run.run({}), /no longer registered/);
  context.tools = [tool("b"), null as unknown as RegisteredTool, tool("a")];
  assert.equal(await run.run({}), "done");
  assert.deepEqual(context.calls.map((call) => call.tool.name), ["a"]);
});

Deno.test("a tool aim saw registered but the API does not list runs with its own execute", async () => {
  reset();
  const inputs: unknown[] = [];
  const registrations = new Map<string, unknown>([
    ["direct", {
      ...tool("direct"),
      execute(input: unknown) {
        inputs.push(input);
        return { got: input, when: new Date(0) };
      },
    }],
    ["empty", { ...tool("empty"), execute: () => undefined }],
    ["failing", {
      ...tool("failing"),
      execute() {
        throw new Error("thrown");
      },
    }],
    ["listed", { ...tool("listed"), execute: () => assert.fail("the listed tool runs") }],
  ]);
  globals[REGISTRY] = { tools: registrations, events: new EventTarget() };
  const context = new FakeContext();
  context.tools = [tool("listed")];
  const { client } = await read(context);
  const actions = client.tools();
  assert.deepEqual([...actions.keys()], ["direct", "empty", "failing", "listed"]);
  const input = { q: "x" };
  const waits: unknown[] = [];
  assert.deepEqual(await actions.get("direct")!.run(input, (w) => waits.push(w)), {
    got: { q: "x" },
    when: "1970-01-01T00:00:00.000Z",
  });
  assert.deepEqual(waits, [null]);
  assert.notEqual(inputs[0], input, "a copy of the input");
  assert.equal(await actions.get("empty")!.run({}), null);
  await assert.rejects(actions.get("failing")!.run({}), /^Error: thrown$/);
  globals[ERRORS] = new Map([["failing", "its own words"]]);
  await assert.rejects(actions.get("failing")!.run({}), /^Error: its own words$/);
  assert.equal(await actions.get("listed")!.run({}), "done");
  registrations.delete("direct");
  await assert.rejects(
    actions.get("direct")!.run({}),
    /^Error: The tool "direct" is no longer registered on the page\.$/,
  );
  // The registry itself gone: the same.
  delete globals[REGISTRY];
  await assert.rejects(
    actions.get("empty")!.run({}),
    /^Error: The tool "empty" is no longer registered on the page\.$/,
  );
  reset();
});

Deno.test("a registration's execute that throws a non-Error says what it threw", async () => {
  reset();
  globals[REGISTRY] = {
    tools: new Map([["odd", {
      ...tool("odd"),
      execute() {
        // A page's code may throw anything; this is what the test is about.
        // deno-lint-ignore no-throw-literal
        throw "plain words";
      },
    }], ["nothing", { ...tool("nothing"), execute: () => Promise.reject(undefined) }]]),
    events: new EventTarget(),
  };
  const { client } = await read(new FakeContext());
  await assert.rejects(client.tools().get("odd")!.run({}), /^Error: plain words$/);
  await assert.rejects(client.tools().get("nothing")!.run({}), /^Error: undefined$/);
  reset();
});

// --- startPageTools ----------------------------------------------------------------------------

Deno.test("startPageTools() reads at once, and again at each toolchange, client change and registry change", async () => {
  reset();
  const events = new EventTarget();
  globals[REGISTRY] = { tools: new Map(), events };
  const context = new FakeContext();
  context.tools = [tool("a")];
  const client = new FakeClient();
  const tools = startPageTools(client, context, () => new Set())!;
  assert.ok(tools instanceof PageTools);
  await settle();
  assert.equal(context.reads, 1);
  assert.deepEqual([...client.tools().keys()], ["a"]);
  const sources = [[context, "toolchange"], [client, "change"], [events, "change"]] as const;
  for (const [target, type] of sources) {
    const before: number = context.reads;
    target.dispatchEvent(new Event(type));
    await settle();
    assert.equal(context.reads, before + 1, type);
  }
  // Other events read nothing.
  for (const [target] of sources) target.dispatchEvent(new Event("other"));
  await settle();
  assert.equal(context.reads, 1 + sources.length);
  reset();
});

Deno.test("startPageTools() takes a context that is no EventTarget, and reads it at once", async () => {
  reset();
  const plain = new FakeContext();
  plain.tools = [tool("a")];
  const context: ReadableModelContext = {
    getTools: () => plain.getTools(),
    executeTool: (t, input) => plain.executeTool(t, input),
  } as ReadableModelContext;
  const client = new FakeClient();
  startPageTools(client, context, () => new Set());
  await settle();
  assert.deepEqual([...client.tools().keys()], ["a"]);
});

Deno.test("startPageTools() waits for the document to be parsed before its first read", async () => {
  reset();
  document.readyState = "loading";
  const context = new FakeContext();
  context.tools = [tool("a")];
  const client = new FakeClient();
  startPageTools(client, context, () => new Set());
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(context.reads, 0);
  document.dispatchEvent(new Event("DOMContentLoaded"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(context.reads, 1);
  reset();
});

Deno.test("startPageTools() gives up, saying why, when it can neither list tools nor see them registered", async () => {
  reset();
  const context = new EventTarget() as ReadableModelContext;
  let started: PageTools | null | undefined;
  const warned = await warnings(() =>
    started = startPageTools(new FakeClient(), context, () => new Set())
  );
  assert.equal(started, null);
  assert.deepEqual(warned, [
    "[aim] this page's document.modelContext has no getTools() and executeTool(), and " +
    "/__aim/webmcp.js did not see its tools registered: remote agents do not get them (load " +
    "/__aim/webmcp.js first in <head>) (docs/elements.md#webmcp-tool)",
  ]);
  for (
    const one of [{ getTools: () => Promise.resolve([]) }, { executeTool: () => Promise.resolve() }]
  ) {
    const partial = Object.assign(new EventTarget(), one) as ReadableModelContext;
    assert.equal(startPageTools(new FakeClient(), partial, () => new Set()), null);
  }
  // With a registry, it reads the registrations.
  globals[REGISTRY] = {
    tools: new Map([["r", { ...tool("r"), execute: () => 1 }]]),
    events: new EventTarget(),
  };
  const client = new FakeClient();
  const tools = startPageTools(client, new EventTarget() as ReadableModelContext, () => new Set());
  await tools!.sync();
  assert.deepEqual([...client.tools().keys()], ["r"]);
  reset();
});
