/**
 * Unit tests of elements/page_tools.ts, run in Deno on the stand-ins of
 * tests/helpers/page_tools_fakes.ts: how a run reaches a page's tool (as listed now, its input as
 * text or as an object, its own error words, a withdrawn tool, a registration's own execute), and
 * when startPageTools() reads the tools. The consent rule and which tools become actions are
 * tests/unit/page_tools_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type PageTool,
  PageTools,
  type ReadableModelContext,
  type RegisteredTool,
  startPageTools,
} from "../../elements/page_tools.ts";
import {
  document,
  ERRORS,
  FakeClient,
  FakeContext,
  FakeRadioNodeList,
  form,
  globals,
  read,
  REGISTRY,
  reset,
  settle,
  tool,
  warnings,
} from "../helpers/page_tools_fakes.ts";

// --- What the person is shown ----------------------------------------------------------------

Deno.test("a declarative tool's target is its form and the fields the input fills, in words that say whether it submits", async () => {
  reset();
  const date = { field: "date" };
  const small = { field: "size", value: "s" };
  const large = { field: "size", value: "l" };
  const book = form({ toolname: "book", toolautosubmit: "" }, {
    date,
    size: new FakeRadioNodeList([small, large]),
  });
  const note = form({ toolname: "note" }, { text: { field: "text" } });
  document.formElements = new Map([["book", book], ["note", note]]);
  const context = new FakeContext();
  context.tools = [tool("book"), tool("note"), tool("plain")];
  const { client } = await read(context);
  const target = (name: string, input: unknown) =>
    client.tools().get(name)!.target(input as Parameters<PageTool["target"]>[0]);
  const cases: [string, unknown, { elements: unknown[]; words: string } | undefined][] = [
    // A field the form does not have is named, but adds no element.
    ["book", { date: "2026-12-24", size: "l", guests: 2 }, {
      elements: [book, date, small, large],
      words: "fill the form “book” (date, size, guests) and submit it",
    }],
    ["book", { date: "2026-12-24" }, {
      elements: [book, date],
      words: "fill the form “book” (date) and submit it",
    }],
    ["note", { text: "hi" }, {
      elements: [note, { field: "text" }],
      words: "fill the form “note” (text) for you to submit",
    }],
    // No field named: the form alone; an input that is no object names none.
    ["note", {}, { elements: [note], words: "fill the form “note” for you to submit" }],
    ["note", "ab", { elements: [note], words: "fill the form “note” for you to submit" }],
    ["note", null, { elements: [note], words: "fill the form “note” for you to submit" }],
    // No form declares the tool.
    ["plain", { q: "x" }, undefined],
  ];
  for (const [name, input, expected] of cases) {
    assert.deepEqual(await target(name, input), expected, `${name} ${JSON.stringify(input)}`);
  }
  reset();
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
