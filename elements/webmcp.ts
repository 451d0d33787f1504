/**
 * WebMCP: the page's actions as tools of the browser's own agent API,
 * `document.modelContext`. The client loads this module (its own chunk) only where the browser
 * has that API; it imports types alone, so the chunk carries no copy of the client. Each action
 * the page declares now is a tool named by its id, a string (or other single-value) input
 * wrapped as `{"input": …}` as over MCP; one read-only tool returns what the page publishes. A
 * run takes the path of an agent's invocation through the bridge: the input is checked against
 * the schema, a consequential action waits for the person, the panel's log shows it, and a tab
 * that holds a session tells the bridge, whose audit log records it.
 *
 * @example What an agent in the browser does (docs/webmcp.md)
 * ```ts ignore
 * const tools = await document.modelContext.getTools();
 * const approve = tools.find((t) => t.name === "approve_request");
 * const answer = JSON.parse(await document.modelContext.executeTool(approve, { input: "req-3" }));
 * answer.ok; // true once the person approved it in the page
 * ```
 *
 * @module
 */
// Types only: the chunk must not carry the client (the entry has it) nor zod.
import type { BridgeMessage, TabMessage } from "../bridge/wire/channel.ts";
import { READ_TOOL, titleOf } from "../bridge/wire/tools.ts";
import { RUN_STATUS, type RunOutcome } from "../bridge/wire/run_status.ts";
import type { InputValue } from "../bridge/wire/schemas.ts";
import { inputProblem, noun, type Schema } from "./input_check.ts";
import {
  type PageTools,
  type PageToolsClient,
  type ReadableModelContext,
  startPageTools,
  warn,
} from "./page_tools.ts";

/** An action as the page declares it (the client's `declarations`). */
type Declaration = Extract<TabMessage, { type: "register" }>["actions"][number];

/** A line of the panel's activity log. */
type Activity = Extract<BridgeMessage, { type: "activity" }>;

/**
 * What this module needs of the page's client (elements/client.ts `AimClient`, which hands
 * itself over): it is not imported, so that the client and this chunk do not know each other.
 */
export interface WebMcpClient extends PageToolsClient {
  /** The page's path. */
  page: string;
  /** The actions the page declares now; `change` fires on the client when they change. */
  declarations: Declaration[];
  /** The bridge's word on the page's session, if it holds one. */
  session: { authenticated: boolean } | null;
  /** The page's state snapshot, secrets removed. */
  snapshot(): Record<string, unknown>;
  /** Asks the person before a consequential action; true once they approve. */
  approve(
    request: { id: string; actionId: string; input: InputValue },
    signal: AbortSignal,
  ): Promise<boolean>;
  /** Runs one action of the page, and waits for the work it declares. */
  run(actionId: string, input: InputValue): Promise<{ result: unknown; settled: boolean }>;
  /** Sends a message on the tab channel, when it is open: a `run`, to tell the bridge of one. */
  send(message: TabMessage): void;
}

export type { Schema };

/** How a run ended: `ok` or an error code. */
export type Outcome = RunOutcome;

/** A tool as `registerTool` takes it (the WebMCP spec's `ModelContextTool`). */
export interface WebMcpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema;
  annotations: { readOnlyHint: boolean; consequentialHint: boolean };
  execute(input: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>;
}

/** The part of `document.modelContext` this module uses. */
export interface ModelContext {
  registerTool(tool: WebMcpTool, options: { signal: AbortSignal }): Promise<void>;
}

/** An aim error body, as a run's answer: `ok: false`, the code, a sentence, details. */
export type RunError =
  & { ok: false; error: Exclude<Outcome, "ok">; message: string }
  & Record<
    string,
    unknown
  >;

/** A run's answer, as `POST /__aim/invoke` answers (`state` is the page's own, no version). */
export type RunAnswer =
  | { ok: true; actionId: string; result: unknown; state: unknown; settled: boolean }
  | RunError;

/**
 * Whether an input is not an object (a string, a list, a value of several types), which a tool
 * wraps in `input`.
 */
function isWrapped(schema: Schema): boolean {
  return schema.type !== "object";
}

/** The tool's input schema: an object input as it is, any other wrapped in `input`. */
export function toolInputSchema(schema: Schema): Schema {
  if (!isWrapped(schema)) return { ...schema };
  return {
    type: "object",
    properties: { input: schema },
    required: ["input"],
    additionalProperties: false,
  };
}

/** The WebMCP tool of one declared action; `execute` runs it through `run`. */
export function toolOf(
  declaration: Declaration,
  run: (input: Record<string, unknown>, signal?: AbortSignal) => Promise<unknown>,
): WebMcpTool {
  const d = declaration as Declaration & {
    description: string;
    input_schema: Schema;
    consequential?: boolean;
    read_only?: boolean;
  };
  return {
    name: d.id,
    title: titleOf(d.id),
    description: d.description,
    inputSchema: toolInputSchema(d.input_schema),
    annotations: {
      // A consequential action is never advertised as read-only, whatever the markup says.
      readOnlyHint: d.read_only === true && !d.consequential,
      consequentialHint: d.consequential === true,
    },
    execute: (input, options) => run(input, options?.signal),
  };
}

/** A run's error answer. */
function failure(
  error: RunError["error"],
  message: string,
  details: Record<string, unknown> = {},
): RunError {
  return { ...details, ok: false, error, message };
}

let runs = 0;

/**
 * The page's tools in `document.modelContext`, kept equal to what the page declares: a tool is
 * unregistered (its `signal` aborted) when its action is hidden, disabled or removed, and
 * registered again when its declaration changes.
 */
export class WebMcpTools {
  readonly #client: WebMcpClient;
  readonly #context: ModelContext;
  /** The tools registered now: name → the declaration they were made from, and their signal. */
  readonly #registered = new Map<string, { key: string; controller: AbortController }>();

  /** The ids of the page's own WebMCP tools among `declarations`: aim does not offer them. */
  readonly #pageTools: () => ReadonlySet<string>;

  constructor(
    client: WebMcpClient,
    context: ModelContext,
    pageTools: () => ReadonlySet<string> = () => new Set(),
  ) {
    this.#client = client;
    this.#context = context;
    this.#pageTools = pageTools;
  }

  /** The declarations offered as tools now: a protected one only to a signed-in session. */
  declarations(): Declaration[] {
    const signedIn = this.#client.session?.authenticated === true;
    return this.#client.declarations.filter((d) =>
      d.id.toLowerCase() !== READ_TOOL && !this.#pageTools().has(d.id) &&
      (!(d as { protected?: boolean }).protected || signedIn)
    );
  }

  /** The names of the tools aim registered (its actions and the read tool), not the page's. */
  names(): ReadonlySet<string> {
    return new Set(this.#registered.keys());
  }

  /** Registers and unregisters tools until they match the page's declarations. */
  sync(): void {
    const wanted = new Map<string, { key: string; tool: () => WebMcpTool }>();
    for (const d of this.declarations()) {
      wanted.set(d.id, { key: JSON.stringify(d), tool: () => toolOf(d, this.#runner(d.id)) });
    }
    wanted.set(READ_TOOL, { key: "", tool: () => this.#readTool() });
    for (const [name, { key, controller }] of this.#registered) {
      if (wanted.get(name)?.key === key) continue;
      controller.abort();
      this.#registered.delete(name);
    }
    for (const [name, { key, tool }] of wanted) {
      if (this.#registered.has(name)) continue;
      const controller = new AbortController();
      this.#registered.set(name, { key, controller });
      this.#context.registerTool(tool(), { signal: controller.signal }).catch((error) => {
        // Unregistering rejects the registration's promise: that is no failure.
        if (controller.signal.aborted) return;
        if (this.#registered.get(name)?.controller === controller) this.#registered.delete(name);
        // Once per message: a tool the browser refuses is tried again at each change.
        warn(`WebMCP did not take the tool "${name}": ${error}`);
      });
    }
  }

  #readTool(): WebMcpTool {
    return {
      name: READ_TOOL,
      title: "Read the page",
      description: "What the page publishes now: its path, its live state, and the actions it " +
        "offers as tools. Read it before deciding, and again after an action to see what changed.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: true, consequentialHint: false },
      execute: () => Promise.resolve(this.read()),
    };
  }

  /** What the read tool answers: the page, its state, and the actions offered as tools. */
  read(): Record<string, unknown> {
    return {
      page: this.#client.page,
      title: document.title,
      state: this.#client.snapshot(),
      actions: this.declarations().map((d) => {
        const { protected: _, read_only: __, ...action } = d as Record<string, unknown>;
        return action;
      }),
    };
  }

  #runner(actionId: string) {
    return async (args: Record<string, unknown>, signal?: AbortSignal) => {
      const started = performance.now();
      const checked: { input?: InputValue } = {};
      const answer: RunAnswer = await this.#run(
        actionId,
        args,
        signal ?? new AbortController().signal,
        checked,
      ).catch((error) => failure("action_failed", String(error?.message ?? error).slice(0, 2000)));
      const outcome = answer.ok ? "ok" : answer.error;
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const activity: Activity = {
        type: "activity",
        at: new Date().toISOString(),
        actionId,
        status: RUN_STATUS[outcome],
        outcome,
        durationMs,
        via: "webmcp",
      };
      document.dispatchEvent(new CustomEvent("aim-activity", { detail: activity }));
      // The log keeps a few KiB of input at most; a huge one must not overflow the channel.
      const small = JSON.stringify(checked.input ?? null).length <= 4096;
      this.#client.send({
        type: "run",
        via: "webmcp",
        actionId,
        ...(small ? checked : {}),
        outcome,
        durationMs,
      });
      return answer;
    };
  }

  /**
   * Runs one action for an agent in the browser, as the bridge runs an invocation: the action
   * as declared now, the signed-in check, the input checked against its schema (kept in
   * `checked` once it passes), the person's confirmation, then the action.
   */
  async #run(
    actionId: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    checked: { input?: InputValue },
  ): Promise<RunAnswer> {
    const declaration = this.#client.declarations.find((d) =>
      d.id === actionId && !this.#pageTools().has(d.id)
    );
    if (!declaration || actionId.toLowerCase() === READ_TOOL) {
      return failure("unknown_action", `No action "${actionId}" is on the page now.`, {
        available_actions: this.declarations().map((d) => d.id),
      });
    }
    if (!this.declarations().includes(declaration)) {
      return failure("login_required", `"${actionId}" needs a signed-in session.`, { actionId });
    }
    const d = declaration as Declaration & {
      input_schema: Schema;
      input_example?: unknown;
      consequential?: boolean;
    };
    const schema = d.input_schema;
    const toolSchema = toolInputSchema(schema);
    // The page's own example; the bridge makes one where the page gives none.
    const example = d.input_example === undefined
      ? undefined
      : isWrapped(schema)
      ? { input: d.input_example }
      : d.input_example;
    const invalid = (
      hint: string,
      message = `Input for "${actionId}" does not match its ` +
        `input_schema: ${hint}.`,
    ) =>
      failure("invalid_input", message, {
        actionId,
        hint,
        input_schema: toolSchema,
        ...(example !== undefined && { input_example: example }),
      });
    let input: unknown = args;
    if (isWrapped(schema)) {
      // Exactly {"input": …}, as over MCP: anything else is told how to wrap it.
      const keys = Object.keys(args ?? {});
      if (keys.length !== 1 || keys[0] !== "input") {
        const hint = `call ${actionId} with {"input": <the ${noun(schema)}>}` +
          (example === undefined ? "" : `, for example ${JSON.stringify(example)}`);
        return invalid(
          hint,
          `Arguments for "${actionId}" must be {"input": <${noun(schema)}>}: ${hint}.`,
        );
      }
      input = args.input;
    }
    let problem: string | undefined;
    try {
      problem = inputProblem(schema, input);
    } catch (error) {
      // A pattern this browser cannot compile: the page's mistake, not the agent's.
      return failure("action_failed", `The page cannot check input for "${actionId}": ${error}`);
    }
    if (problem) return invalid(problem);
    checked.input = input as InputValue;
    if (d.consequential) {
      const request = { id: `webmcp-${++runs}`, actionId, input: input as InputValue };
      const approved = await this.#client.approve(request, signal);
      if (!approved) {
        return signal.aborted
          ? failure("cancelled", `The agent cancelled "${actionId}" before the person answered.`, {
            actionId,
          })
          : failure("declined", `The person declined "${actionId}".`, { actionId });
      }
    }
    if (signal.aborted) {
      return failure("cancelled", `The agent cancelled "${actionId}" before it ran.`, { actionId });
    }
    try {
      const { result, settled } = await this.#client.run(actionId, input as InputValue);
      return { ok: true, actionId, result, state: this.#client.snapshot(), settled };
    } catch (error) {
      const message = String((error as Error)?.message ?? error).slice(0, 2000);
      return failure("action_failed", message || `The page could not run "${actionId}".`, {
        actionId,
      });
    }
  }
}

/**
 * Offers the page's actions to agents in the browser, where `document.modelContext` exists;
 * does nothing elsewhere. Returns the tools, kept in step with the page's declarations and its
 * session (a protected action is a tool once someone signed in).
 */
export function startWebMcp(client: WebMcpClient): WebMcpTools | null {
  // The older drafts (and polyfills of them) put it on navigator.
  const context = (document as unknown as { modelContext?: ModelContext }).modelContext ??
    (navigator as unknown as { modelContext?: ModelContext }).modelContext;
  if (!context) return null;
  let pageTools: PageTools | null = null;
  const tools = new WebMcpTools(client, context, () => pageTools?.ids ?? new Set());
  const sync = () => tools.sync();
  client.addEventListener("change", sync);
  document.addEventListener("aim-session", sync);
  tools.sync();
  // The page's own tools, for remote agents through the bridge.
  pageTools = startPageTools(
    client,
    context as unknown as ReadableModelContext,
    () => tools.names(),
  );
  return tools;
}
