/**
 * @module A2A tasks: each is one shared run (`bridge/runs/`) that invokes one action through
 * `BridgeCore.invoke`, and the SDK's `TaskStore` over them. The run is the task's one source of
 * truth: its changes are published on the SDK's event bus as they happen and read back by
 * `tasks/get`, also after the SDK stopped listening (at `input-required`). With several bridge
 * instances sharing a store, the instance running a task mirrors it there (`runs/shared.ts`),
 * so that `tasks/get` and `tasks/cancel` answer on any of them.
 */
import {
  AgentEvent,
  type ExecutionEventBus,
  type ServerCallContext,
  type TaskStore,
  type User,
} from "@a2a-js/sdk/server";
import {
  type Artifact,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type Part,
  Role,
  type Task,
  TaskState,
  type TaskStatus,
} from "@a2a-js/sdk";
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
} from "@a2a-js/sdk/errors";
import type { BridgeCore } from "../core/bridge.ts";
import type { Session } from "../core/session.ts";
import { AimError } from "../wire/errors.ts";
import type { InvokeResult } from "../wire/schemas.ts";
import { RunRegistry, type RunRegistryOptions } from "../runs/registry.ts";
import { type AwaitDetail, jsonBytes, RunProblem, TrackedRun } from "../runs/run.ts";
import { RunMirror, type SharedRun } from "../runs/shared.ts";

/** Options of {@linkcode A2ATasks}: the shared registry's bounds (docs/security.md). */
export type A2ATasksOptions = RunRegistryOptions;

/**
 * AIM's error body, as `POST /__aim/invoke` answers it: `{"error", "message", ...details}`; or
 * a problem of the task itself, in the same shape (`run_deadline`, `output_too_large`).
 */
export type ErrorBody = Record<string, unknown> & { error: string; message: string };

/** The caller of an A2A request: an AIM session, from the Bearer token the page showed. */
export class SessionUser implements User {
  readonly session: Session;
  /** The client's address, for per-client bounds. */
  readonly client: string;
  /** The bridge's origin as the client sees it, for URLs in answers. */
  readonly origin: string;

  constructor(session: Session, options: { client: string; origin: string }) {
    this.session = session;
    this.client = options.client;
    this.origin = options.origin;
  }

  get isAuthenticated(): boolean {
    return true;
  }

  /** The session's id: the SDK scopes its event buses and locks by it. */
  get userName(): string {
    return this.session.id;
  }
}

/** The session of an SDK call context, if it came through the bridge's route. */
export function callerOf(context: ServerCallContext): SessionUser | undefined {
  return context.user instanceof SessionUser ? context.user : undefined;
}

/** A text part. */
export function textPart(text: string): Part {
  return {
    content: { $case: "text", value: text },
    metadata: undefined,
    filename: "",
    mediaType: "text/plain",
  };
}

/** A data part: JSON. */
export function dataPart(value: unknown): Part {
  return {
    content: { $case: "data", value },
    metadata: undefined,
    filename: "",
    mediaType: "application/json",
  };
}

/** A message of the agent's. */
export function agentMessage(parts: Part[], ids: { taskId: string; contextId: string }): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: ids.contextId,
    taskId: ids.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

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

/** The TaskState a `ListTasks` request names when it filters by no state. */
const NO_FILTER = TaskState.TASK_STATE_UNSPECIFIED;

/** The states a task ends in, as the SDK counts them. */
const FINAL_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** What other bridge instances read of a task: the task as `tasks/get` shows it. */
export interface SharedTask extends SharedRun {
  view: Task;
}

/**
 * The task as other instances read it. Its history is left out when the task takes more than
 * a run may keep as JSON (its status and answer stay).
 */
function sharedTask(view: Task, owner: string, instance: string, maxBytes: number): SharedTask {
  const fits = jsonBytes(view) <= maxBytes;
  return { owner, instance, view: fits ? view : { ...view, history: [] } };
}

/** The shared task failed with `problem`: its instance stopped, it can no longer finish. */
function stoppedTask(doc: SharedTask, problem: RunProblem, now: number): SharedTask {
  const task = doc.view;
  const body = errorBody(problem);
  const message = agentMessage([textPart(body.message), dataPart(body)], {
    taskId: task.id,
    contextId: task.contextId,
  });
  const status: TaskStatus = {
    state: TaskState.TASK_STATE_FAILED,
    message,
    timestamp: new Date(now).toISOString(),
  };
  return { ...doc, view: { ...task, status, history: [...task.history, message] } };
}

/**
 * The A2A tasks of a bridge: a shared {@linkcode RunRegistry} of {@linkcode A2ATask}s, found by
 * their A2A ids, and the SDK's `TaskStore` over them. A task is visible only to the AIM session
 * that created it; another session's is answered as a missing one.
 *
 * With a shared store (`core.share.shared`), each task this instance runs is mirrored there
 * after each change, and {@linkcode A2ATasks.load} and {@linkcode A2ATasks.cancelElsewhere}
 * answer for tasks other instances run. `tasks/list` lists this instance's tasks, and the
 * bounds on tasks under way stay per instance.
 */
export class A2ATasks implements TaskStore {
  readonly #core: BridgeCore;
  readonly #registry: RunRegistry<A2ATask>;
  readonly #byTaskId = new Map<string, A2ATask>();
  readonly #mirror: RunMirror<SharedTask> | undefined;

  constructor(core: BridgeCore, options: A2ATasksOptions = {}) {
    this.#core = core;
    this.#registry = new RunRegistry<A2ATask>(options, {
      noun: "task",
      onDrop: (task) => {
        if (task.taskId === undefined) return;
        this.#byTaskId.delete(task.taskId);
        this.#mirror?.forget(task.taskId);
      },
    });
    if (!core.share.shared) return;
    this.#mirror = new RunMirror<SharedTask>(core.share, {
      kind: "a2a-task",
      topic: "a2a.cancel",
      noun: "task",
      ttlMs: this.#registry.limits.ttlMs,
      finished: (doc) =>
        FINAL_STATES.has(doc.view.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
      stopped: (doc, problem) => stoppedTask(doc, problem, this.#registry.now()),
      cancel: async (taskId, owner) => {
        const task = this.#byTaskId.get(taskId);
        if (!task || task.ownerId !== owner) return;
        // The run publishes `canceled` on the task's bus, as the executor's cancel does.
        task.requestCancel();
        await task.ended;
        await this.settled(task);
      },
    });
  }

  /** Whether tasks are shared with other bridge instances. */
  get shared(): boolean {
    return this.#mirror !== undefined;
  }

  /** Tasks held now. */
  get size(): number {
    return this.#registry.size;
  }

  /**
   * A new task of `caller` that will invoke `call` once started.
   *
   * @throws {AimError} 429 `too_many_requests` when the session, the client or the bridge has
   * all the tasks under way it may have.
   */
  create(caller: SessionUser, call: unknown): A2ATask {
    const { session, client } = caller;
    // Counted on this instance only: with several instances, each admits its own share.
    this.#registry.admit(session.id, client);
    const task = new A2ATask({
      ownerId: session.id,
      client,
      now: this.#registry.now,
      deadlineMs: this.#registry.deadlineFor(session),
      maxBytes: this.#registry.limits.maxSessionBytes,
      // The invocation as sent (its secrets too) is held by this closure only, until it starts.
      begin: (task) => task.invoke(this.#core, session, call, { client }),
    });
    this.#registry.add(task);
    return task;
  }

  /**
   * Gives a task its A2A id and bus (see {@linkcode A2ATask.bind}); with a shared store, it is
   * mirrored from now on.
   */
  bind(task: A2ATask, bus: ExecutionEventBus, binding: TaskBinding): void {
    const mirror = this.#mirror;
    if (mirror) {
      const maxBytes = this.#registry.limits.maxSessionBytes;
      task.onChange(() =>
        mirror.publish(binding.taskId, () => {
          const view = task.snapshot();
          return view && sharedTask(view, task.ownerId, mirror.instance, maxBytes);
        })
      );
    }
    task.bind(bus, binding);
    this.#byTaskId.set(binding.taskId, task);
  }

  /**
   * Resolves once other instances read `task` as it is now; at once without a shared store.
   * Awaited before answering, so that the next request finds it on whichever instance it reaches.
   */
  async settled(task: A2ATask): Promise<void> {
    if (this.#mirror && task.taskId !== undefined) await this.#mirror.settled(task.taskId);
  }

  /** Whether task `taskId` is not held here but may be by another instance. */
  heldElsewhere(taskId: string): boolean {
    return this.#mirror !== undefined && taskId !== "" && !this.#byTaskId.has(taskId);
  }

  /**
   * Cancels a task of the caller's that another instance runs: asks that instance, waits for
   * its word, and answers the task as it is then, as the SDK's `tasks/cancel` answers.
   *
   * @throws {TaskNotFoundError} when the caller has no such task.
   * @throws {TaskNotCancelableError} when it has ended, or its instance stopped.
   */
  async cancelElsewhere(taskId: string, context: ServerCallContext): Promise<Task> {
    const caller = callerOf(context);
    const mirror = this.#mirror;
    const found = caller && mirror ? await mirror.read(caller.session.id, taskId) : undefined;
    if (!mirror || !found) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    const state = found.view.status?.state;
    if (state === TaskState.TASK_STATE_CANCELED) return found.view;
    if (state !== undefined && FINAL_STATES.has(state)) {
      throw new TaskNotCancelableError(`Task not cancelable: ${taskId}`);
    }
    const { sent, document } = await mirror.cancel(taskId, found, { confirm: true });
    if (!sent) {
      throw new TaskNotCancelableError(
        `Task ${taskId} can no longer be cancelled: the bridge instance running it stopped before it finished, so it failed. Its action may or may not have run.`,
      );
    }
    if (document.view.status?.state !== TaskState.TASK_STATE_CANCELED) {
      throw new TaskNotCancelableError(`Task not cancelable: ${taskId}`);
    }
    return document.view;
  }

  /** Forgets a task the SDK never got to: its request was refused before it ran. */
  discard(task: A2ATask): void {
    if (task.taskId === undefined) this.#registry.remove(task);
  }

  /** A task by its A2A id, whoever owns it (the SDK checked the owner before). */
  byTaskId(taskId: string): A2ATask | undefined {
    return this.#byTaskId.get(taskId);
  }

  /** The task of `taskId` if the caller of `context` owns it. */
  #owned(taskId: string, context: ServerCallContext): A2ATask | undefined {
    const task = this.#byTaskId.get(taskId);
    const caller = callerOf(context);
    if (!task || !caller || task.ownerId !== caller.session.id) return undefined;
    task.expireIfDue();
    return task;
  }

  /** The task of the caller's, held here or (with a shared store) by another instance. */
  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    if (!this.heldElsewhere(taskId)) return this.#owned(taskId, context)?.snapshot();
    const caller = callerOf(context);
    if (!caller) return undefined;
    return (await this.#mirror?.read(caller.session.id, taskId))?.view;
  }

  /**
   * What the SDK saves is what it read from {@linkcode A2ATasks.load} with an event applied:
   * the run, which published that event, already holds it. Nothing is kept twice.
   */
  save(_task: Task, _context: ServerCallContext): Promise<void> {
    return Promise.resolve();
  }

  /** The caller's tasks, newest first, filtered by context, state and time, a page at a time. */
  list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const caller = callerOf(context);
    const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : NaN;
    const tasks = (caller ? this.#registry.runsOf(caller.session.id) : [])
      .flatMap((task) => task.snapshot() ?? [])
      .reverse()
      .filter((task) =>
        (!params.contextId || task.contextId === params.contextId) &&
        (params.status === undefined || params.status === NO_FILTER ||
          task.status?.state === params.status) &&
        (Number.isNaN(after) || Date.parse(task.status?.timestamp ?? "") >= after)
      );
    const start = params.pageToken ? Number(params.pageToken) : 0;
    if (!Number.isSafeInteger(start) || start < 0) {
      return Promise.reject(new RequestMalformedError("pageToken is not one this agent gave."));
    }
    const pageSize = params.pageSize ?? 50;
    const end = start + pageSize;
    return Promise.resolve({
      tasks: tasks.slice(start, end),
      nextPageToken: end < tasks.length ? String(end) : "",
      pageSize,
      totalSize: tasks.length,
    });
  }
}
