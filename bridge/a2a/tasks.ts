/**
 * A2A tasks: each is one shared run (`bridge/runs/`) that invokes one action through
 * `BridgeCore.invoke`, and the SDK's `TaskStore` over them. The run is the task's one source of
 * truth: its changes are published on the SDK's event bus as they happen and read back by
 * `tasks/get`, also after the SDK stopped listening (at `input-required`). With several bridge
 * instances sharing a store, the instance running a task mirrors it there (`runs/shared.ts`),
 * so that `tasks/get` and `tasks/cancel` answer on any of them.
 *
 * @module
 */
import type { ExecutionEventBus, ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import {
  type ListTasksRequest,
  type ListTasksResponse,
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
import { RunRegistry, type RunRegistryOptions } from "../runs/registry.ts";
import { jsonBytes, type RunProblem } from "../runs/run.ts";
import { RunMirror, type SharedRun } from "../runs/shared.ts";
import { A2ATask, errorBody, type TaskBinding } from "./task.ts";
import { agentMessage, callerOf, dataPart, type SessionUser, textPart } from "./caller.ts";

/** Options of {@linkcode A2ATasks}: the shared registry's bounds (docs/security.md). */
export type A2ATasksOptions = RunRegistryOptions;

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
      begin: (task) => task.invoke(this.#core, session, call, { client, protocol: "a2a" }),
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
