/**
 * One A2A task: a shared run, the `Task` the SDK shows of it, and the error body it fails with.
 *
 * @module
 */
import { AgentEvent, type ExecutionEventBus } from "@a2a-js/sdk/server";
import {
  type Artifact,
  type Message,
  type Part,
  type Task,
  TaskState,
  type TaskStatus,
} from "@a2a-js/sdk";
import { AimError } from "../errors/aim_error.ts";
import type { InvokeResult } from "../wire/schemas.ts";
import { type AwaitDetail, jsonBytes, RunProblem, TrackedRun } from "../runs/run.ts";
import { agentMessage, dataPart, textPart } from "./caller.ts";

/**
 * AIM's error body, as `POST /__aim/invoke` answers it: `{"error", "message", ...details}`; or
 * a problem of the task itself, in the same shape (`run_deadline`, `output_too_large`).
 */
export type ErrorBody = Record<string, unknown> & { error: string; message: string };

/** What a task's own fields, and each status it goes through, take besides their messages. */
const TASK_BYTES = 1024;
const EVENT_BYTES = 256;

/** AIM's error body for what an invocation threw, or for a problem of the run. */
export function errorBody(error: unknown): ErrorBody {
  if (error instanceof AimError) return error.toJSON() as ErrorBody;
  if (error instanceof RunProblem) {
    return { ...error.details, error: error.code, message: error.message };
  }
  return {
    error: "server_error",
    message: "The bridge failed to run the action; the error was logged. Retry later.",
  };
}

/** Where the SDK gave the task its id, context and first message. */
export interface TaskBinding {
  taskId: string;
  contextId: string;
  userMessage: Message;
}

/** Options of an {@linkcode A2ATask}. */
interface A2ATaskOptions {
  ownerId: string;
  client: string;
  now: () => number;
  deadlineMs: number;
  maxBytes: number;
  begin: (task: A2ATask) => void;
}

/** One A2A task: a shared run, the `Task` the SDK shows of it, and the bus it publishes on. */
export class A2ATask extends TrackedRun<ErrorBody, AwaitDetail> {
  #task: Task | undefined;
  #bus: ExecutionEventBus | undefined;
  #announced = false;

  constructor(options: A2ATaskOptions) {
    super({
      ownerId: options.ownerId,
      client: options.client,
      now: options.now,
      deadlineMs: options.deadlineMs,
      maxBytes: options.maxBytes,
      bytes: TASK_BYTES,
      // The artifact event and the completed status.
      answerOverhead: 2 * EVENT_BYTES,
      begin: () => options.begin(this),
    });
  }

  /** The task's A2A id, once the SDK gave it one. */
  get taskId(): string | undefined {
    return this.#task?.id;
  }

  /**
   * Gives the run the SDK's task id, context and message, and the bus to publish on. The run
   * publishes nothing until {@linkcode A2ATask.announce}: a task's first event is the task.
   */
  bind(bus: ExecutionEventBus, binding: TaskBinding): void {
    this.#bus = bus;
    this.#task = {
      id: binding.taskId,
      contextId: binding.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: this.#at() },
      artifacts: [],
      history: [binding.userMessage],
      metadata: undefined,
    };
    this.keep(jsonBytes(binding.userMessage));
    this.changed();
  }

  /** Publishes the task as it is now, then each change as it happens. */
  announce(): void {
    if (!this.#task || !this.#bus || this.#announced) return;
    this.#announced = true;
    this.#bus.publish(AgentEvent.task(this.snapshot()!));
  }

  /** A copy of the task now. */
  snapshot(): Task | undefined {
    return this.#task && structuredClone(this.#task);
  }

  protected override failureOf(error: unknown): ErrorBody {
    return errorBody(error);
  }

  protected override awaitOf(detail: AwaitDetail): AwaitDetail {
    return detail;
  }

  protected override onWorking(): void {
    this.#status(TaskState.TASK_STATE_WORKING);
  }

  protected override onAwaiting(detail: AwaitDetail): void {
    const { actionId, input, message } = detail;
    this.#status(TaskState.TASK_STATE_INPUT_REQUIRED, [
      textPart(
        `"${actionId}" waits for the person at the page to confirm it in the AIM panel${
          message ? `: ${message.replace(/[.!?]$/, "")}` : ""
        }. The task goes on when they answer; an agent cannot approve it. Follow the task (tasks/resubscribe or tasks/get) until it is completed or failed.`,
      ),
      dataPart({ awaiting: "confirmation", actionId, input, message }),
    ]);
  }

  protected override onResumed(): void {
    this.#status(TaskState.TASK_STATE_WORKING);
  }

  protected override onCompleted(result: InvokeResult): void {
    const task = this.#task;
    if (!task) return;
    const artifact: Artifact = {
      artifactId: "answer",
      name: "answer",
      description: `What "${result.actionId}" answered: {"ok", "actionId", "result", "state"}`,
      parts: [dataPart(result)],
      metadata: undefined,
      extensions: [],
    };
    task.artifacts.push(artifact);
    // The answer itself was counted by the run.
    this.keep(EVENT_BYTES);
    if (this.#announced) {
      this.#bus?.publish(AgentEvent.artifactUpdate({
        taskId: task.id,
        contextId: task.contextId,
        artifact: structuredClone(artifact),
        append: false,
        lastChunk: true,
        metadata: undefined,
      }));
    }
    this.#status(TaskState.TASK_STATE_COMPLETED);
  }

  protected override onFailed(body: ErrorBody): void {
    this.#status(TaskState.TASK_STATE_FAILED, [textPart(body.message), dataPart(body)]);
  }

  protected override onCancelled(): void {
    this.#status(TaskState.TASK_STATE_CANCELED, [
      textPart(
        "The client cancelled the task; the invocation was withdrawn. If the page had already started the action, it may have run: read the page's state.",
      ),
    ]);
  }

  #at(): string {
    return new Date(this.now()).toISOString();
  }

  /** Sets the task's status (its message joins the history, as the SDK keeps it) and publishes it. */
  #status(state: TaskState, parts?: Part[]): void {
    const task = this.#task;
    if (!task) return;
    const message = parts && agentMessage(parts, { taskId: task.id, contextId: task.contextId });
    const status: TaskStatus = { state, message, timestamp: this.#at() };
    task.status = status;
    if (message) task.history.push(message);
    this.keep(EVENT_BYTES + jsonBytes(message));
    this.changed();
    if (!this.#announced) return;
    this.#bus?.publish(AgentEvent.statusUpdate({
      taskId: task.id,
      contextId: task.contextId,
      status: structuredClone(status),
      metadata: undefined,
    }));
  }
}
