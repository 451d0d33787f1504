/**
 * aim's WebMCP tag for pages that register tools of their own: a classic script
 * (`<script src="/__aim/webmcp.js"></script>`, first in `<head>`) that gives the page
 * `document.modelContext` where the browser has none and no polyfill came before it, early
 * enough for an inline script that calls `registerTool` while the page is parsed, then loads the
 * elements (`/__aim/elements.js`). Where the browser (or a polyfill) has the API, it only loads
 * the elements. The API is the WebMCP draft's core: `registerTool(tool, {signal})`,
 * `unregisterTool(name)` (the older draft's), `getTools()`, `executeTool(tool, input)` (an
 * object, or JSON text, as polyfills take it; it answers JSON text as Chromium does) and
 * `toolchange`; and `<form toolname>` as tools (bridge/markup/form_tool.ts). Built by
 * elements/build.ts as `elements.webmcp-api.js`, one script with no imports.
 *
 * @module
 */

import { formToolOf } from "../bridge/markup/form_tool.ts";
import type { MarkupElement } from "../bridge/markup/action.ts";
import { fillForm, formProblem, pressSubmit, type Written } from "./gestures.ts";

(() => {
  /** A registered tool, as the page gave it. */
  interface Tool {
    name: string;
    title?: string;
    description: string;
    inputSchema?: unknown;
    annotations?: Record<string, unknown>;
    execute: (input: unknown, client?: unknown) => unknown;
  }

  const doc = document as unknown as { modelContext?: unknown };

  /** A submit an agent caused, and what the page answered it with (`respondWith`). */
  const agentSubmits = new WeakSet<Event>();
  const responses = new WeakMap<Event, Promise<unknown>>();
  const waiting = new Map<HTMLFormElement, (event: Event) => void>();
  if (typeof SubmitEvent !== "undefined" && !("agentInvoked" in SubmitEvent.prototype)) {
    Object.defineProperty(SubmitEvent.prototype, "agentInvoked", {
      configurable: true,
      get(this: Event) {
        return agentSubmits.has(this);
      },
    });
    Object.defineProperty(SubmitEvent.prototype, "respondWith", {
      configurable: true,
      writable: true,
      value(this: Event, answer: unknown) {
        if (agentSubmits.has(this)) responses.set(this, Promise.resolve(answer));
      },
    });
  }
  addEventListener("submit", (event) => {
    const form = event.target as HTMLFormElement;
    const done = waiting.get(form);
    if (!done) return;
    waiting.delete(form);
    agentSubmits.add(event);
    // Once every listener of this submit ran.
    setTimeout(() => done(event));
  }, true);

  /**
   * The document's `<form toolname>`s as tools, kept as Chromium keeps them: a form that gains
   * `toolname` (or is added with it) is registered, one whose declaration changes (its name,
   * description or fields) registered again as it is now, one that loses it (or leaves the
   * document) withdrawn. A tool fills the form's fields as a person does (elements/gestures.ts),
   * then, with `toolautosubmit`, presses its submit button, else waits for the person to submit
   * it; the answer is what the page's `submit` listener gives `event.respondWith()`.
   */
  function formTools(context: ModelContext): void {
    const registered = new Map<HTMLFormElement, { key: string; controller: AbortController }>();
    const execute = async (form: HTMLFormElement, input: unknown) => {
      await fillForm(form, input as Record<string, Written>);
      const invalid = form.noValidate
        ? undefined
        : [...form.elements].find((f) => (f as HTMLInputElement).checkValidity?.() === false);
      if (invalid) {
        const field = invalid as HTMLInputElement;
        throw new Error(`"${field.name}": ${field.validationMessage}`);
      }
      const submitted = new Promise<Event>((resolve) => waiting.set(form, resolve));
      if (form.hasAttribute("toolautosubmit") && !pressSubmit(form)) {
        waiting.delete(form);
        const why = formProblem(form) || "a listener of the page stopped the press";
        throw new Error(`The page did not submit the form: ${why}.`);
      }
      const event = await submitted;
      const answer = responses.get(event);
      if (answer) return await answer;
      return { submitted: true, navigating: !event.defaultPrevented };
    };
    const sync = (form: HTMLFormElement) => {
      const named = form.isConnected && !!form.getAttribute("toolname")?.trim();
      const tool = named ? formToolOf(form as unknown as MarkupElement) : null;
      const key = JSON.stringify(tool);
      const before = registered.get(form);
      if (before?.key === key) return;
      before?.controller.abort();
      registered.delete(form);
      if (!tool) return;
      const controller = new AbortController();
      registered.set(form, { key, controller });
      context.registerTool({
        name: tool.name as string,
        description: tool.description as string,
        inputSchema: tool.inputSchema,
        execute: (input) => execute(form, input),
      }, { signal: controller.signal }).catch(() => {
        // Refused (a name another tool has): tried again at the form's next change.
        if (registered.get(form)?.controller === controller) registered.delete(form);
      });
    };
    for (const form of document.querySelectorAll<HTMLFormElement>("form[toolname]")) sync(form);
    // Only what can change a form's tool is watched: its declaring attributes, its fields'
    // names and kinds, forms and fields coming and going.
    new MutationObserver((records) => {
      const forms = new Set<HTMLFormElement>();
      const formOf = (node: Node) =>
        (node as HTMLInputElement).form ??
          (node instanceof Element ? node.closest("form") : node.parentElement?.closest("form"));
      for (const record of records) {
        const form = record.target instanceof HTMLFormElement
          ? record.target
          : formOf(record.target);
        if (form && (registered.has(form) || form.hasAttribute("toolname"))) forms.add(form);
        for (const node of record.addedNodes) {
          if (!(node instanceof Element)) continue;
          if (node instanceof HTMLFormElement) forms.add(node);
          for (const inner of node.querySelectorAll("form[toolname]")) {
            forms.add(inner as HTMLFormElement);
          }
        }
      }
      for (const form of registered.keys()) if (!form.isConnected) forms.add(form);
      for (const form of forms) sync(form);
    }).observe(document, {
      subtree: true,
      childList: true,
      attributeFilter: ["toolname", "tooldescription", "toolparamdescription", "name", "type"],
    });
  }
  const nav = navigator as unknown as { modelContext?: unknown };

  class ModelContext extends EventTarget {
    readonly #tools = new Map<string, Tool>();

    #changed(): void {
      setTimeout(() => this.dispatchEvent(new Event("toolchange")));
    }

    registerTool(tool: Tool, options: { signal?: AbortSignal } = {}): Promise<void> {
      const { signal } = options;
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (typeof tool?.name !== "string" || !tool.name || typeof tool.execute !== "function") {
        return Promise.reject(new TypeError("A tool needs a name and an execute function"));
      }
      if (this.#tools.has(tool.name)) {
        return Promise.reject(
          new DOMException(`Tool already registered: ${tool.name}`, "InvalidStateError"),
        );
      }
      const own: Tool = {
        name: tool.name,
        description: String(tool.description ?? ""),
        execute: tool.execute.bind(tool),
        ...(tool.title === undefined ? {} : { title: String(tool.title) }),
        // A copy: the page may change its object later.
        ...(tool.inputSchema === undefined
          ? {}
          : { inputSchema: JSON.parse(JSON.stringify(tool.inputSchema)) }),
        ...(tool.annotations === undefined ? {} : { annotations: { ...tool.annotations } }),
      };
      this.#tools.set(tool.name, own);
      const unregister = () => {
        if (this.#tools.get(own.name) === own && this.#tools.delete(own.name)) this.#changed();
      };
      signal?.addEventListener("abort", unregister, { once: true });
      this.#changed();
      // A promise, as the draft has it, with the older draft's unregister() on it.
      return Object.assign(Promise.resolve(), { unregister });
    }

    unregisterTool(name: string): void {
      if (this.#tools.delete(name)) this.#changed();
    }

    /** The older draft's: replaces every tool with `tools`. */
    provideContext(context: { tools?: Tool[] } = {}): void {
      this.#tools.clear();
      for (const tool of context.tools ?? []) void this.registerTool(tool).catch(() => {});
      this.#changed();
    }

    /** The older draft's: removes every tool. */
    clearContext(): void {
      this.#tools.clear();
      this.#changed();
    }

    getTools(): Promise<Record<string, unknown>[]> {
      return Promise.resolve([...this.#tools.values()].map((tool) => ({
        name: tool.name,
        title: tool.title ?? "",
        description: tool.description,
        ...(tool.inputSchema === undefined ? {} : { inputSchema: tool.inputSchema }),
        annotations: tool.annotations ?? {},
        origin: location.origin,
        window,
      })));
    }

    async executeTool(
      tool: { name?: unknown },
      input: unknown,
      options: { signal?: AbortSignal } = {},
    ): Promise<string> {
      options.signal?.throwIfAborted();
      const own = this.#tools.get(String(tool?.name));
      if (!own) throw new DOMException(`Tool not found: ${tool?.name}`, "UnknownError");
      const args = typeof input === "string" ? JSON.parse(input) : input ?? {};
      const result = await own.execute(args, {});
      if (typeof result === "string") return result;
      return JSON.stringify(result === undefined ? null : result);
    }
  }

  // What each tool's annotations said when the page registered it: Chromium and polyfills list
  // only the hints they know (no destructiveHint), and aim must not read a destructive tool as
  // read-only. elements/page_tools.ts reads them; they only ever make a tool safer.
  const hints = new Map<string, unknown>();
  // Why a tool's last run threw: Chromium answers every failure with the same sentence.
  const errors = new Map<string, string>();
  // The registrations themselves, for an API that has no getTools() and executeTool() (a
  // hand-written polyfill of an older draft): `change` fires on `events` when they change.
  const tools = new Map<string, Tool>();
  const events = new EventTarget();
  const changed = () => events.dispatchEvent(new Event("change"));
  Object.defineProperty(window, Symbol.for("aim.webmcp.hints"), { value: hints });
  Object.defineProperty(window, Symbol.for("aim.webmcp.errors"), { value: errors });
  Object.defineProperty(window, Symbol.for("aim.webmcp.registry"), { value: { tools, events } });

  /** The tool as registered, with an `execute` that records why it threw. */
  function record(tool: Tool): Tool {
    const name = tool.name;
    try {
      if (hints.size < 1000) hints.set(name, JSON.parse(JSON.stringify(tool.annotations ?? {})));
    } catch {
      // Annotations that are no JSON: the listed ones count.
    }
    const run = tool.execute;
    const execute = async function (this: unknown, ...a: unknown[]) {
      errors.delete(name);
      try {
        return await run.apply(this, a as [unknown]);
      } catch (error) {
        errors.set(name, String((error as Error)?.message ?? error).slice(0, 2000));
        throw error;
      }
    };
    return new Proxy(tool, {
      get: (target, key) => key === "execute" ? execute : Reflect.get(target, key),
    });
  }

  type Api = Record<string, unknown>;
  const wrapped = new WeakSet<object>();
  /** Watches what the page registers with `context` (registerTool, and the older draft's calls). */
  function watch(context: unknown): void {
    if (typeof context !== "object" || context === null || wrapped.has(context)) return;
    wrapped.add(context);
    const api = context as Api;
    const call = (key: string, then: (args: unknown[], answer: unknown) => unknown) => {
      const original = api[key];
      if (typeof original !== "function") return;
      api[key] = function (this: unknown, ...args: unknown[]) {
        return then(args, original);
      };
    };
    const apply = (fn: unknown, self: unknown, args: unknown[]) =>
      (fn as (...a: unknown[]) => unknown).apply(self, args);
    call("registerTool", (args, original) => {
      const tool = args[0] as Tool | undefined;
      if (typeof tool?.name !== "string" || typeof tool.execute !== "function") {
        return apply(original, context, args);
      }
      const own = record(tool);
      args[0] = own;
      const answer = apply(original, context, args);
      if (tools.size < 1000) tools.set(tool.name, own);
      const signal = (args[1] as { signal?: AbortSignal } | undefined)?.signal;
      const drop = () => {
        if (tools.get(tool.name) === own && tools.delete(tool.name)) changed();
      };
      signal?.addEventListener("abort", drop, { once: true });
      Promise.resolve(answer).catch(drop);
      // The older draft answered a handle with unregister().
      const handle = answer as { unregister?: () => unknown } | undefined;
      if (handle && typeof handle.unregister === "function") {
        const unregister = handle.unregister.bind(handle);
        handle.unregister = () => (drop(), unregister());
      }
      changed();
      return answer;
    });
    call("unregisterTool", (args, original) => {
      if (tools.delete(String(args[0]))) changed();
      return apply(original, context, args);
    });
    call("provideContext", (args, original) => {
      const given = (args[0] as { tools?: Tool[] } | undefined)?.tools;
      tools.clear();
      if (Array.isArray(given)) {
        args[0] = {
          ...(args[0] as object),
          tools: given.map((tool) => {
            if (typeof tool?.name !== "string" || typeof tool.execute !== "function") return tool;
            const own = record(tool);
            if (tools.size < 1000) tools.set(tool.name, own);
            return own;
          }),
        };
      }
      changed();
      return apply(original, context, args);
    });
    call("clearContext", (args, original) => {
      tools.clear();
      changed();
      return apply(original, context, args);
    });
  }

  /**
   * `target.modelContext` as an accessor: a polyfill that assigns its own later (an older one
   * sets `navigator.modelContext = …`) is watched as well.
   */
  function follow(target: object, initial: unknown): void {
    let current = initial;
    watch(current);
    Object.defineProperty(target, "modelContext", {
      configurable: true,
      enumerable: true,
      get: () => current,
      set: (value: unknown) => {
        current = value;
        watch(value);
        changed();
      },
    });
  }

  const context = doc.modelContext ?? nav.modelContext ?? new ModelContext();
  if (doc.modelContext) watch(context);
  else follow(document, context);
  // The older drafts' navigator.modelContext, for pages written for them: the same API.
  if (nav.modelContext) watch(nav.modelContext);
  else follow(navigator, context);
  // Declarative tools, where the API is aim's own (the browser's and polyfills have theirs).
  if (context instanceof ModelContext) {
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", () => formTools(context));
    } else formTools(context);
  }
  const script = document.currentScript as HTMLScriptElement | null;
  const module = document.createElement("script");
  module.type = "module";
  module.src = new URL("elements.js", script?.src ?? new URL("/__aim/", location.href)).href;
  document.head.append(module);
})();
