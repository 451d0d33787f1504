/**
 * aim's WebMCP tag for pages that register tools of their own: a classic script
 * (`<script src="/__aim/webmcp.js"></script>`, first in `<head>`) that gives the page
 * `document.modelContext` where the browser has none and no polyfill came before it, early
 * enough for an inline script that calls `registerTool` while the page is parsed, then loads the
 * elements (`/__aim/elements.js`). Where the browser (or a polyfill) has the API, it only loads
 * the elements. The API is the WebMCP draft's core: `registerTool(tool, {signal})`,
 * `unregisterTool(name)` (the older draft's), `getTools()`, `executeTool(tool, input)` (an
 * object, or JSON text, as polyfills take it; it answers JSON text as Chromium does) and
 * `toolchange`. Built by elements/build.ts as `elements.webmcp-api.js`, a script with no
 * imports.
 *
 * @module
 */

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
      signal?.addEventListener("abort", () => {
        if (this.#tools.get(own.name) === own && this.#tools.delete(own.name)) this.#changed();
      }, { once: true });
      this.#changed();
      return Promise.resolve();
    }

    unregisterTool(name: string): void {
      if (this.#tools.delete(name)) this.#changed();
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

  if (!doc.modelContext) {
    const context = nav.modelContext ?? new ModelContext();
    Object.defineProperty(document, "modelContext", {
      configurable: true,
      enumerable: true,
      value: context,
    });
    if (!nav.modelContext) {
      Object.defineProperty(navigator, "modelContext", { configurable: true, value: context });
    }
  }
  // What each tool's annotations said when the page registered it: Chromium and polyfills list
  // only the hints they know (no destructiveHint), and aim must not read a destructive tool as
  // read-only. elements/page_tools.ts reads them; they only ever make a tool safer.
  const context = doc.modelContext as { registerTool?: (...args: unknown[]) => unknown };
  if (typeof context?.registerTool === "function") {
    const hints = new Map<string, unknown>();
    // And why a tool's last run threw: Chromium answers every failure with the same sentence.
    const errors = new Map<string, string>();
    Object.defineProperty(window, Symbol.for("aim.webmcp.hints"), { value: hints });
    Object.defineProperty(window, Symbol.for("aim.webmcp.errors"), { value: errors });
    const register = context.registerTool;
    context.registerTool = function (this: unknown, ...args: unknown[]) {
      const tool = args[0] as { name?: unknown; annotations?: unknown; execute?: unknown };
      const name = typeof tool?.name === "string" ? tool.name : "";
      try {
        if (name && hints.size < 1000) {
          hints.set(name, JSON.parse(JSON.stringify(tool.annotations ?? {})));
        }
      } catch {
        // Annotations that are no JSON: the listed ones count.
      }
      if (name && typeof tool.execute === "function") {
        const run = tool.execute as (...a: unknown[]) => unknown;
        const execute = async function (this: unknown, ...a: unknown[]) {
          errors.delete(name);
          try {
            return await run.apply(this, a);
          } catch (error) {
            errors.set(name, String((error as Error)?.message ?? error).slice(0, 2000));
            throw error;
          }
        };
        args[0] = new Proxy(tool, {
          get: (target, key) => key === "execute" ? execute : Reflect.get(target, key),
        });
      }
      return register.apply(this, args);
    };
  }
  const script = document.currentScript as HTMLScriptElement | null;
  const module = document.createElement("script");
  module.type = "module";
  module.src = new URL("elements.js", script?.src ?? new URL("/__aim/", location.href)).href;
  document.head.append(module);
})();
