/**
 * Test helpers for A2A: the official client (`@a2a-js/sdk/client` 1.3.0) speaking v1
 * or v0.3 with a session token, messages and parts, what a failed task says, and raw JSON-RPC.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type Client,
  ClientFactory,
  createAuthenticatingFetchWithRetry,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { parseLegacyAgentCard } from "@a2a-js/sdk/compat/v0_3/client";
import {
  type Message,
  type Part,
  Role,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
} from "@a2a-js/sdk";
import { A2A_PATH, AGENT_CARD_PATH } from "../../bridge/mod.ts";
import type { TestBridge } from "../helpers/bridge.ts";

/** The wire versions the official client speaks: v1's methods, or v0.3's (`message/send`). */
export const CLIENT_KINDS = ["v1", "v0.3"] as const;
export type ClientKind = typeof CLIENT_KINDS[number];

/**
 * The official client for the bridge at `origin`, with `token` as its Bearer. v1 discovers the
 * card as the SDK does (`A2A-Version: 1.0`); v0.3 reads the card a v0.3 client gets (no
 * version) through the SDK's own v0.3 parser, and so speaks `message/send` and `tasks/get`.
 */
export async function connectClient(
  kind: ClientKind,
  origin: string,
  token: string,
): Promise<Client> {
  const fetchImpl = createAuthenticatingFetchWithRetry(fetch, {
    headers: () => Promise.resolve({ Authorization: `Bearer ${token}` }),
    shouldRetryWithHeaders: () => Promise.resolve(undefined),
  });
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
  });
  if (kind === "v1") return await factory.createFromUrl(origin);
  const res = await fetch(origin + AGENT_CARD_PATH);
  assert.equal(res.status, 200);
  return await factory.createFromAgentCard(parseLegacyAgentCard(await res.json()));
}

/** A data part of `value`. */
export function dataPart(value: unknown): Part {
  return {
    content: { $case: "data", value },
    mediaType: "application/json",
    filename: "",
    metadata: undefined,
  };
}

/** A text part. */
export function textPart(text: string): Part {
  return {
    content: { $case: "text", value: text },
    mediaType: "text/plain",
    filename: "",
    metadata: undefined,
  };
}

/** A user message of `parts`, with a new message id. */
export function userMessage(...parts: Part[]): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A `SendMessage` request of one message. */
export function send(message: Message, returnImmediately = false): SendMessageRequest {
  return {
    tenant: "",
    message,
    configuration: returnImmediately
      ? {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        returnImmediately: true,
      }
      : undefined,
    metadata: undefined,
  };
}

/** A request that runs `actionId` with `input`: one message, one data part. */
export function action(actionId: string, input?: unknown): SendMessageRequest {
  return send(userMessage(dataPart(input === undefined ? { actionId } : { actionId, input })));
}

/** The result of `SendMessage`, checked to be a task. */
export function asTask(result: Message | Task): Task {
  assert.ok("id" in result && "status" in result, `a task, not ${JSON.stringify(result)}`);
  return result as Task;
}

/** The value of a part that is data. */
export function dataOf(part: Part | undefined): unknown {
  assert.equal(part?.content?.$case, "data", `a data part, not ${JSON.stringify(part)}`);
  return (part!.content as { value: unknown }).value;
}

/** The text of a part that is text. */
export function textOf(part: Part | undefined): string {
  assert.equal(part?.content?.$case, "text", `a text part, not ${JSON.stringify(part)}`);
  return (part!.content as { value: string }).value;
}

/** The invocation's answer a completed task holds as its artifact. */
export function answerOf(task: Task): Record<string, unknown> {
  assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(task.status));
  assert.equal(task.artifacts.length, 1);
  return dataOf(task.artifacts[0]?.parts[0]) as Record<string, unknown>;
}

/** AIM's error body a failed task holds in its status message, checked to carry `code`. */
export function failureOf(task: Task, code: string): Record<string, unknown> {
  assert.equal(task.status?.state, TaskState.TASK_STATE_FAILED, JSON.stringify(task.status));
  const parts = task.status?.message?.parts ?? [];
  const body = dataOf(parts[1]) as Record<string, unknown>;
  assert.equal(body.error, code, JSON.stringify(body));
  assert.equal(textOf(parts[0]), body.message);
  return body;
}

/** Every event of a stream, in order. */
export async function collect(
  stream: AsyncGenerator<StreamResponse, void, undefined>,
): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** What each event of a stream is: `task:<state>`, `status:<state>`, `artifact`, `message`. */
export function shapes(events: StreamResponse[]): string[] {
  return events.map((event) => {
    const payload = event.payload!;
    switch (payload.$case) {
      case "task":
        return `task:${TaskState[payload.value.status!.state]}`;
      case "statusUpdate":
        return `status:${TaskState[payload.value.status!.state]}`;
      case "artifactUpdate":
        return "artifact";
      case "message":
        return "message";
    }
  });
}

/** The `A2A-Version` a raw request speaks: v1's methods, or v0.3's. */
export type WireVersion = "1.0" | "0.3";

/** POSTs a raw JSON-RPC body (an object as JSON, a string as is) to the A2A endpoint. */
export function rpc(
  bridge: TestBridge,
  token: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return bridge.fetch(A2A_PATH, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Checks an aim error answer (401, 403, 413, 429…) and returns its body. */
export async function expectAimError(
  res: Response,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  assert.equal(res.status, status, `expected ${status} ${code}`);
  const body = await res.json();
  assert.equal(body.error, code, JSON.stringify(body));
  assert.ok(typeof body.message === "string" && body.message.length > 0);
  return body;
}
