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
   * Each `<form toolname>` in the document as a tool: filling its fields, then submitting it
   * with `toolautosubmit`, else waiting for the person to submit it; the answer is what the
   * page's `submit` listener gives `event.respondWith()`.
   */
  function formTools(context: ModelContext): void {
    for (const form of document.querySelectorAll<HTMLFormElement>("form[toolname]")) {
      const tool = formToolOf(form as unknown as MarkupElement);
      void context.registerTool({
        name: tool.name as string,
        description: tool.description as string,
        inputSchema: tool.inputSchema,
        execute: async (input) => {
          for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
            for (
              const el of form.querySelectorAll<HTMLInputElement>(`[name="${CSS.escape(key)}"]`)
            ) {
              if (el.type === "checkbox") el.checked = value === true;
              else if (el.type === "radio") el.checked = el.value === String(value);
              else el.value = String(value);
              el.dispatchEvent(new Event("input", { bubbles: true }));
              el.dispatchEvent(new Event("change", { bubbles: true }));
            }
          }
          const submitted = new Promise<Event>((resolve) => waiting.set(form, resolve));
          if (form.hasAttribute("toolautosubmit")) form.requestSubmit();
          const event = await submitted;
          const answer = responses.get(event);
          if (answer) return await answer;
          return { submitted: true, navigating: !event.defaultPrevented };
        },
      }).catch(() => {});
    }
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
