/**
 * What the SDK's request handler runs: the executor that turns a message's data part
 * `{"actionId", "input"}` into a task (and any other message into an answer saying so), and
 * the request handler that refuses what aim does not do before the SDK starts a task.
 *
 * @module
 */
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  type RequestContext,
  type ServerCallContext,
} from "@a2a-js/sdk/server";
import type {
  AgentCard,
  CancelTaskRequest,
  Message,
  SendMessageRequest,
  StreamResponse,
  Task,
} from "@a2a-js/sdk";
import { A2AError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { BridgeCore } from "../core/bridge.ts";
import { AimError } from "../errors/aim_error.ts";
import { redactSecrets } from "../markup/secrets.ts";
import { manifestPath } from "../site/paths.ts";
import type { A2ATask } from "./task.ts";
import type { A2ATasks } from "./tasks.ts";
import { agentMessage, callerOf, dataPart, textPart } from "./caller.ts";

/** Where the request handler leaves the task it made for the executor. */
const TASK_KEY = "aim.task";
/** Where it leaves the refusal (429) the route answers instead of the SDK's error. */
export const REFUSAL_KEY = "aim.refusal";

/** How many of the session's actions the answer to a message without a data part names. */
const MAX_LISTED = 20;

/** The first data part of a message, if it has one. */
function dataOf(message: Message | undefined): { value: unknown } | undefined {
  for (const part of message?.parts ?? []) {
    if (part.content?.$case === "data") return { value: part.content.value };
  }
  return undefined;
}

/**
 * A copy of a message whose data parts hold no secret-looking keys (`redactSecrets`, as the
 * audit log keeps an input): what the SDK keeps of the message, answers and shares.
 */
function withoutSecrets(message: Message): Message {
  return {
    ...message,
    parts: message.parts.map((part) => {
      const content = part.content;
      if (content?.$case !== "data") return part;
      return {
        ...part,
        content: { ...content, value: redactSecrets(content.value) as typeof content.value },
      };
    }),
  };
}

/** Runs each task the request handler made; answers any other message with how to send one. */
export class AimExecutor implements AgentExecutor {
  readonly #core: BridgeCore;
  readonly #tasks: A2ATasks;

  constructor(core: BridgeCore, tasks: A2ATasks) {
    this.#core = core;
    this.#tasks = tasks;
  }

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const task = request.context.state.get(TASK_KEY) as A2ATask | undefined;
    if (!task) {
      bus.publish(AgentEvent.message(this.#howTo(request)));
      return;
    }
    this.#tasks.bind(task, bus, {
      taskId: request.taskId,
      contextId: request.contextId,
      userMessage: request.userMessage,
    });
    // Started before it is announced: a task is working from its first event on.
    task.start();
    task.announce();
    await task.ended;
  }

  cancelTask(taskId: string, _bus: ExecutionEventBus): Promise<void> {
    // The run publishes `canceled` on the task's bus, which the SDK waits for.
    this.#tasks.byTaskId(taskId)?.requestCancel();
    return Promise.resolve();
  }

  /** The answer to a message without a data part: what to send, with the session's actions. */
  #howTo(request: RequestContext): Message {
    const caller = callerOf(request.context);
    const actions = caller ? this.#core.sessionActions(caller.session) : [];
    const example = actions.find((a) => !this.#core.isServerAction(a.id)) ?? actions[0];
    const sample = example
      ? { actionId: example.id, input: example.input_example }
      : { actionId: "<id>", input: "<input>" };
    const page = caller?.session.page ?? "/";
    const manifest = `${caller?.origin ?? ""}${manifestPath(page, "json")}`;
    const listed = actions.slice(0, MAX_LISTED).map((a) => a.id);
    const more = actions.length > MAX_LISTED ? `, and ${actions.length - MAX_LISTED} more` : "";
    const text = [
      `This agent runs one action of the page ${page} per message, in the AIM session of your token.`,
      'Send the action as a data part (mediaType "application/json"):',
      `{"actionId": "<id>", "input": <input>}, for example ${JSON.stringify(sample)}.`,
      "Text is not read as an action.",
      listed.length ? `The actions now: ${listed.join(", ")}${more}.` : "",
      `Their descriptions and input schemas: ${manifest}`,
    ].filter(Boolean).join(" ");
    return agentMessage(
      [textPart(text), dataPart({ send: "data part", example: sample, actions: listed, manifest })],
      { taskId: "", contextId: request.contextId },
    );
  }
}

/**
 * The SDK's request handler, with aim's rules first: a message with a data part gets a task
 * (refused with 429 when its session has all the tasks under way it may have), and a message
 * may not continue a task: the person, not the agent, answers a confirmation. With several
 * bridge instances sharing a store, an answer waits until the others can read the task, and a
 * task another instance runs is cancelled there.
 */
export class AimRequestHandler extends DefaultRequestHandler {
  readonly #tasks: A2ATasks;

  constructor(card: AgentCard, tasks: A2ATasks, executor: AimExecutor) {
    super(card, tasks, executor);
    this.#tasks = tasks;
  }

  override async sendMessage(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    const task = this.#prepare(params, context);
    try {
      const answer = await super.sendMessage(params, context);
      if (task) await this.#tasks.settled(task);
      return answer;
    } finally {
      if (task) this.#tasks.discard(task);
    }
  }

  override async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const task = this.#prepare(params, context);
    try {
      if (!task || !this.#tasks.shared) {
        yield* super.sendMessageStream(params, context);
        return;
      }
      // The stream stays here; what it tells is readable on every instance first.
      for await (const event of super.sendMessageStream(params, context)) {
        await this.#tasks.settled(task);
        yield event;
      }
    } finally {
      if (task) this.#tasks.discard(task);
    }
  }

  /** Cancels a task, here or (with a shared store) on the instance that runs it. */
  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    if (!this.#tasks.heldElsewhere(params.id)) return await super.cancelTask(params, context);
    return await this.#tasks.cancelElsewhere(params.id, context);
  }

  /**
   * The task a message asks for, made before the SDK's handler runs; undefined for a message
   * without a data part.
   *
   * @throws {A2AError} for a message that names a task, and when the task is refused.
   */
  #prepare(params: SendMessageRequest, context: ServerCallContext): A2ATask | undefined {
    const message = params.message;
    if (message?.taskId) {
      throw new UnsupportedOperationError(
        "Each message starts a new task here; a message cannot continue one. A task that is input-required waits for the person at the page, who confirms or declines in the AIM panel: follow it with tasks/resubscribe or tasks/get.",
      );
    }
    const data = dataOf(message);
    // The task's history, its answers (message/send, tasks/get, ListTasks, streams) and its copy
    // in a shared store hold the message without its secrets: only the invocation, which
    // starts at once, reads the input as sent (a login's password).
    if (message && data) params.message = withoutSecrets(message);
    const caller = callerOf(context);
    if (!data || !caller) return undefined;
    try {
      const task = this.#tasks.create(caller, data.value);
      context.state.set(TASK_KEY, task);
      return task;
    } catch (error) {
      if (!(error instanceof AimError)) throw error;
      // Answered by the route as HTTP 429 with Retry-After; the SDK's error is not sent.
      context.state.set(REFUSAL_KEY, error);
      throw new A2AError(error.message);
    }
  }
}
