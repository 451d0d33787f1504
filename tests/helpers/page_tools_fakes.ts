/**
 * Test helper: the stand-ins the unit tests of elements/page_tools.ts run on in Deno: the few
 * browser globals it reads (`window`, `location`, `document`, `CSS.escape`), installed when this
 * module loads, a client and a `document.modelContext`, and the page's tools, hints and warnings.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type PageTool,
  PageTools,
  type PageToolsClient,
  type ReadableModelContext,
  type RegisteredTool,
} from "../../elements/page_tools.ts";

/** The page's origin. */
export const ORIGIN = "https://shop.example";
/** The global object, to set and delete what the page holds. */
export const globals: Record<string | symbol, unknown> = globalThis as unknown as Record<
  string | symbol,
  unknown
>;
globals.window = globalThis;
// A form's tool is found by a selector built with CSS.escape.
globals.CSS = { escape: (text: string) => text.replace(/["\\]/g, "\\$&") };
Object.defineProperty(globalThis, "location", {
  value: { origin: ORIGIN },
  configurable: true,
  writable: true,
});

/** A stand-in element with attributes. */
export function element(attributes: Record<string, string>) {
  return {
    getAttribute: (name: string) => Object.hasOwn(attributes, name) ? attributes[name]! : null,
    hasAttribute: (name: string) => Object.hasOwn(attributes, name),
  };
}

/** A group of radio buttons of one name, as a form's `elements.namedItem()` gives it. */
export class FakeRadioNodeList {
  readonly #items: readonly object[];
  constructor(items: readonly object[]) {
    this.#items = items;
  }
  [Symbol.iterator](): Iterator<object> {
    return this.#items[Symbol.iterator]();
  }
}
globals.RadioNodeList ??= FakeRadioNodeList;

/** A `<form toolname>` with its attributes and its named fields (a radio group as a list). */
export function form(
  attributes: Record<string, string>,
  fields: Record<string, object> = {},
): ReturnType<typeof element> & { elements: { namedItem(name: string): object | null } } {
  return {
    ...element(attributes),
    elements: { namedItem: (name) => Object.hasOwn(fields, name) ? fields[name]! : null },
  };
}

/** The document: its `<aim-tool>` elements, its `<form toolname>`s, its ready state, its listeners. */
export class FakeDocument extends EventTarget {
  readyState: DocumentReadyState = "complete";
  tools: ReturnType<typeof element>[] = [];
  /** The names of the page's declarative forms (`<form toolname>`) without fields. */
  forms: string[] = [];
  /** The page's declarative forms with fields, by tool name. */
  formElements: Map<string, ReturnType<typeof form>> = new Map();
  querySelectorAll(selector: string) {
    assert.equal(selector, "aim-tool");
    return this.tools;
  }
  querySelector(selector: string) {
    const name = /^form\[toolname="(.*)"\]$/.exec(selector)?.[1];
    assert.ok(name !== undefined, selector);
    const withFields = this.formElements.get(name);
    if (withFields) return withFields;
    return this.forms.includes(name) ? element({ toolname: name }) : null;
  }
}
/** The page's document, as `document`. */
export const document: FakeDocument = new FakeDocument();
globals.document = document;
// CSS.escape as the browser has it, for the names these tests use (letters, digits, '_').
globals.CSS ??= { escape: (name: string) => name.replace(/[^\w-]/g, (c) => `\\${c}`) };

/** Where the page keeps what aim saw of its tools (elements/webmcp_api.ts). */
export const HINTS = Symbol.for("aim.webmcp.hints");
export const REGISTRY = Symbol.for("aim.webmcp.registry");
export const ERRORS = Symbol.for("aim.webmcp.errors");

/** Warnings the module printed, while `fn` runs. */
export async function warnings(fn: () => unknown): Promise<string[]> {
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
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Puts the page's registrations, hints and errors back as none. */
export function reset(): void {
  delete globals[HINTS];
  delete globals[REGISTRY];
  delete globals[ERRORS];
  document.tools = [];
  document.forms = [];
  document.formElements = new Map();
  document.readyState = "complete";
}

// --- Stand-ins for the client and document.modelContext --------------------------------------

/** A stand-in for the page's client: its actions, and how often it was told of a change. */
export class FakeClient extends EventTarget implements PageToolsClient {
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
export const aimAction = (id: string) => ({ name: id, declaration: () => ({ id }) });

/** One call of a tool through the context. */
export interface Call {
  tool: RegisteredTool;
  input: unknown;
}

/** A stand-in for `document.modelContext`: its tools, the calls made, their answer. */
export class FakeContext extends EventTarget implements ReadableModelContext {
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
export function tool(name: string, more: Partial<RegisteredTool> = {}): RegisteredTool {
  return {
    name,
    description: `The tool ${name}`,
    inputSchema: { type: "object", properties: { q: { type: "string" } } },
    annotations: { readOnlyHint: true },
    ...more,
  };
}

/** A PageTools over a fresh client and `context`, read once. */
export async function read(
  context: FakeContext,
  own: ReadonlySet<string> = new Set(),
  client: FakeClient = new FakeClient(),
): Promise<{ client: FakeClient; tools: PageTools }> {
  const tools = new PageTools(client, context, () => own);
  await tools.sync();
  return { client, tools };
}
