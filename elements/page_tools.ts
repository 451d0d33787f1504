/**
 * The tools a page registers itself with WebMCP (`document.modelContext.registerTool`, natively,
 * through a polyfill, or through aim's own API, elements/webmcp_api.ts), read with the standard
 * `getTools()` and offered to remote agents as the page's actions: the client registers them
 * with the bridge, follows `toolchange`, and runs one with `executeTool()` when an agent invokes
 * it (a consequential one once the person approved, as every action). The mapping is
 * bridge/wire/webmcp_tools.ts; what is left out says why in the console.
 *
 * @module
 */
import { READ_TOOL } from "../bridge/wire/tools.ts";
import {
  actionOfTool,
  MAX_PAGE_TOOLS,
  readToolMarkup,
  resultOfTool,
  type ToolAction,
  type ToolMarkup,
  type WebMcpToolInfo,
} from "../bridge/wire/webmcp_tools.ts";
import type { InputValue } from "../bridge/wire/schemas.ts";

/** A tool as `getTools()` lists it: the spec's `RegisteredTool`. */
export interface RegisteredTool extends WebMcpToolInfo {
  name: string;
  /** The window that registered it (native WebMCP, and polyfills that follow it). */
  window?: unknown;
  /** The origin that registered it. */
  origin?: unknown;
}

/** The parts of `document.modelContext` read here. */
export interface ReadableModelContext extends EventTarget {
  getTools?(): Promise<RegisteredTool[]>;
  executeTool?(
    tool: RegisteredTool,
    input: unknown,
    options?: { signal?: AbortSignal },
  ): Promise<unknown>;
}

/**
 * A tool of the page as the client runs it: one of its `actions`, as an `<aim-action>` is
 * (elements/client_types.ts `ActionSource`), but no element.
 */
export interface PageTool {
  name: string;
  declaration(): { [key: string]: unknown; id: string } | null;
  run(input: InputValue, waitUntil?: (work: unknown) => void): Promise<unknown>;
  /**
   * No attribute: above all no `no-confirm`, which only the page's own `<aim-action>` may have
   * (the client's `approve` reads it), so that a consequential tool always asks the person.
   */
  getAttribute(name: string): null;
  /** A declarative form's tool: the form and the fields `input` fills, for the person's prompt. */
  target(input: InputValue): Promise<{ elements: Element[]; words: string } | undefined>;
}

/** What this module needs of the page's client (elements/client.ts `AimClient`). */
export interface PageToolsClient extends EventTarget {
  /** The page's actions: its `<aim-action>`s, and the page's tools this module adds. */
  readonly actions: Set<{ name: string; declaration(): { id: string } | null }>;
  /** Registers the page's actions again (within a frame). */
  changed(): void;
}

/**
 * Warns a page author about the page's WebMCP tools (elements/warnings.ts): straight from the
 * warnings' own chunk, since this chunk imports nothing of the entry, which would split the
 * shared one.
 */
export function warn(problem: string): void {
  import("./warning_text.ts").then((text) => text.issue("webmcp-tool", [problem]), () => {});
}

/** What the page's `<aim-tool>` elements say, by tool name. */
export function toolMarkup(root: ParentNode = document): Map<string, ToolMarkup> {
  return readToolMarkup(root.querySelectorAll("aim-tool"));
}

/** What the page's tools' annotations said when registered (elements/webmcp_api.ts). */
function registeredHints(): Map<string, unknown> | undefined {
  return (window as unknown as Record<symbol, Map<string, unknown> | undefined>)[
    Symbol.for("aim.webmcp.hints")
  ];
}

/** A registration aim saw (elements/webmcp_api.ts), with its `execute`. */
interface Registration extends WebMcpToolInfo {
  name: string;
  execute(input: unknown, client?: unknown): unknown;
}

/** The registrations aim saw, and where it says they changed (elements/webmcp_api.ts). */
function registry(): { tools: Map<string, Registration>; events: EventTarget } | undefined {
  return (window as unknown as Record<symbol, ReturnType<typeof registry>>)[
    Symbol.for("aim.webmcp.registry")
  ];
}

/** Why a tool's last run threw, when aim saw it register (elements/webmcp_api.ts). */
function lastError(name: string): string | undefined {
  const errors = (window as unknown as Record<symbol, Map<string, string> | undefined>)[
    Symbol.for("aim.webmcp.errors")
  ];
  const message = errors?.get(name);
  errors?.delete(name);
  return message;
}

/**
 * The annotations of a tool as listed, and as registered when aim saw it: read-only only when
 * both say so, destructive or consequential when either does.
 */
export function mergeHints(listed: unknown, registered: unknown): Record<string, unknown> {
  const a = (typeof listed === "object" && listed ? listed : {}) as Record<string, unknown>;
  if (typeof registered !== "object" || !registered) return { ...a };
  const b = registered as Record<string, unknown>;
  return {
    readOnlyHint: a.readOnlyHint === true && b.readOnlyHint === true,
    destructiveHint: a.destructiveHint === true || b.destructiveHint === true,
    consequentialHint: a.consequentialHint === true || b.consequentialHint === true,
  };
}

/** Whether `tool` is this document's own: not another frame's, not another origin's. */
export function isOwnTool(tool: RegisteredTool): boolean {
  if ("window" in tool && tool.window !== undefined && tool.window !== window) return false;
  return !("origin" in tool && tool.origin !== undefined && tool.origin !== location.origin);
}

/**
 * Runs `tool` with WebMCP's `executeTool`. Chromium takes the input as an object, polyfills of
 * the older draft as JSON text: the native function gets the object; any other the text first,
 * then the object when it refuses the text before running anything.
 */
async function execute(
  context: ReadableModelContext,
  tool: RegisteredTool,
  input: InputValue,
): Promise<unknown> {
  const run = context.executeTool!.bind(context);
  const native = /\[native code\]/.test(Function.prototype.toString.call(context.executeTool));
  if (native) return await run(tool, input);
  try {
    return await run(tool, JSON.stringify(input));
  } catch (error) {
    // Refused before it ran: the input's form, not the tool (Chromium's TypeError).
    if (error instanceof TypeError && /invalid input/i.test(error.message)) {
      return await run(tool, input);
    }
    throw error;
  }
}

/**
 * The page's own WebMCP tools, kept in step with `document.modelContext`: read at start, once
 * the document is parsed (so that `<aim-tool>` markup below them counts), and at each
 * `toolchange`; the tools aim registers itself (`own`) and the read tool are not the page's.
 */
export class PageTools {
  readonly #client: PageToolsClient;
  readonly #context: ReadableModelContext;
  readonly #own: () => ReadonlySet<string>;
  #running: Promise<void> = Promise.resolve();
  /** The page's tools added to the client's actions now, by name. */
  #mine = new Map<string, PageTool>();
  /** The names of the page's tools offered now (aim does not offer them as its own tools). */
  ids: ReadonlySet<string> = new Set();
  #again = false;

  constructor(
    client: PageToolsClient,
    context: ReadableModelContext,
    own: () => ReadonlySet<string>,
  ) {
    this.#client = client;
    this.#context = context;
    this.#own = own;
  }

  /** Reads the tools again (one read at a time; a change during a read reads once more). */
  sync(): Promise<void> {
    if (this.#again) return this.#running;
    this.#again = true;
    this.#running = this.#running.then(() => {
      this.#again = false;
      return this.#read();
    }).catch((error) => warn(`could not read the page's WebMCP tools: ${error}`));
    return this.#running;
  }

  async #read(): Promise<void> {
    const listed: RegisteredTool[] = typeof this.#context.getTools === "function" &&
        typeof this.#context.executeTool === "function"
      ? [...await this.#context.getTools()]
      : [];
    // Registrations the API does not list (it has no getTools(), or the page registers with
    // another object, a polyfill of an older draft): aim runs their own execute.
    const direct = new Map<string, Registration>();
    const names = new Set(listed.map((tool) => tool?.name));
    for (const [name, tool] of registry()?.tools ?? []) {
      if (names.has(name)) continue;
      direct.set(name, tool);
      listed.push({ ...tool, name });
    }
    const own = this.#own();
    // An <aim-action> of the same id (regardless of case) is the page's action, not the tool.
    const mine = new Set<unknown>(this.#mine.values());
    const elements = new Set(
      [...this.#client.actions].filter((a) => !mine.has(a))
        .map((a) => a.declaration()?.id.toLowerCase()),
    );
    const markup = toolMarkup();
    const found = new Map<string, PageTool>();
    // By name, as Chromium and polyfills list them: the same tools in the same order anywhere.
    const sorted = (Array.isArray(listed) ? [...listed] : []).sort((a, b) =>
      String(a?.name) < String(b?.name) ? -1 : String(a?.name) > String(b?.name) ? 1 : 0
    );
    for (const tool of sorted) {
      if (typeof tool?.name !== "string") continue;
      if (own.has(tool.name) || tool.name.toLowerCase() === READ_TOOL) continue;
      if (elements.has(tool.name.toLowerCase())) continue;
      if (!isOwnTool(tool)) {
        warn(`tool "${tool.name}" was registered by another frame or origin: not this page's`);
        continue;
      }
      if (found.size >= MAX_PAGE_TOOLS) {
        warn(
          `the page registers more than ${MAX_PAGE_TOOLS} WebMCP tools: remote agents get ` +
            `the first ${MAX_PAGE_TOOLS}`,
        );
        break;
      }
      const registered = registeredHints()?.get(tool.name);
      let owner = markup.get(tool.name);
      const declarative = document.querySelector(`form[toolname="${CSS.escape(tool.name)}"]`);
      if (owner?.readOnly && registered === undefined && !declarative) {
        // The hints the tool was registered with are unknown (Chromium lists no destructiveHint):
        // the owner's read-only cannot be checked against them, so it does not count.
        warn(
          `tool "${tool.name}": <aim-tool read-only> is ignored: aim did not see the tool ` +
            "registered, so not whether it says it is destructive (load /__aim/webmcp.js first " +
            "in <head>)",
        );
        owner = { ...owner, readOnly: false };
      }
      const mapped = actionOfTool(
        { ...tool, annotations: mergeHints(tool.annotations, registered) },
        owner,
      );
      if (!mapped.ok) {
        if (!markup.get(tool.name)?.hidden) warn(`${mapped.problem}: remote agents do not get it`);
        continue;
      }
      if (mapped.warning) warn(mapped.warning);
      found.set(tool.name, this.#tool(tool.name, mapped.action, direct.has(tool.name)));
    }
    const before = JSON.stringify([...this.#mine.values()].map((t) => t.declaration()));
    const after = JSON.stringify([...found.values()].map((t) => t.declaration()));
    for (const tool of this.#mine.values()) this.#client.actions.delete(tool);
    for (const tool of found.values()) this.#client.actions.add(tool);
    this.#mine = found;
    this.ids = new Set(found.keys());
    if (before !== after) this.#client.changed();
  }

  /** Runs a registration aim saw with its own `execute`, as an API of the draft would. */
  async #runDirect(
    name: string,
    input: InputValue,
    waitUntil?: (work: unknown) => void,
  ): Promise<unknown> {
    const tool = registry()?.tools.get(name);
    if (!tool) throw new Error(`The tool "${name}" is no longer registered on the page.`);
    let answer: unknown;
    try {
      answer = await tool.execute(structuredClone(input), {});
    } catch (error) {
      throw new Error(lastError(name) ?? String((error as Error)?.message ?? error));
    }
    waitUntil?.(null);
    return resultOfTool(answer === undefined ? null : JSON.parse(JSON.stringify(answer)));
  }

  #tool(name: string, action: ToolAction, direct: boolean): PageTool {
    return {
      name,
      getAttribute: () => null,
      declaration: () => ({ ...action }),
      target: (input) => Promise.resolve(formTarget(name, input)),
      run: direct ? (input, waitUntil) => this.#runDirect(name, input, waitUntil) : async (
        input,
        waitUntil,
      ) => {
        // The tool as registered now: a withdrawn one is not run.
        const listed = await this.#context.getTools!();
        const tool = listed.find((t) => t?.name === name && isOwnTool(t));
        if (!tool) throw new Error(`The tool "${name}" is no longer registered on the page.`);
        let answer: unknown;
        try {
          answer = await execute(this.#context, tool, input);
        } catch (error) {
          // The tool's own words, where WebMCP replaced them with its own sentence.
          const own = lastError(name);
          throw own ? new Error(own) : error;
        }
        // Let the page render what the tool changed before its state is read.
        waitUntil?.(null);
        return resultOfTool(answer);
      },
    };
  }
}

/**
 * The `<form toolname>` of a tool, with the fields `input` fills, and what running it does in
 * words; undefined for a tool no form declares.
 */
function formTarget(
  name: string,
  input: InputValue,
): { elements: Element[]; words: string } | undefined {
  const form = document.querySelector<HTMLFormElement>(`form[toolname="${CSS.escape(name)}"]`);
  if (!form) return undefined;
  const names = Object.keys(typeof input === "object" && input !== null ? input : {});
  const fields = names.flatMap((field) => {
    const named = form.elements.namedItem(field);
    return named instanceof RadioNodeList ? [...named] as Element[] : named ? [named] : [];
  });
  const then = form.hasAttribute("toolautosubmit") ? "and submit it" : "for you to submit";
  return {
    elements: [form, ...fields],
    words: `fill the form “${name}”${names.length ? ` (${names.join(", ")})` : ""} ${then}`,
  };
}

/** Starts reading the page's tools from `context`; returns the reader. */
export function startPageTools(
  client: PageToolsClient,
  context: ReadableModelContext,
  own: () => ReadonlySet<string>,
): PageTools | null {
  const canList = typeof context.getTools === "function" &&
    typeof context.executeTool === "function";
  if (!canList && !registry()) {
    warn(
      "this page's document.modelContext has no getTools() and executeTool(), and " +
        "/__aim/webmcp.js did not see its tools registered: remote agents do not get them (load " +
        "/__aim/webmcp.js first in <head>)",
    );
    return null;
  }
  const tools = new PageTools(client, context, own);
  const sync = () => void tools.sync();
  context.addEventListener?.("toolchange", sync);
  // The page's <aim-action>s changed: one may now take a tool's id.
  client.addEventListener("change", sync);
  registry()?.events.addEventListener("change", sync);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", sync);
  else sync();
  return tools;
}
