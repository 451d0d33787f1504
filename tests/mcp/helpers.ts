/**
 * Test helpers for the MCP endpoint: both official clients (v1 `@modelcontextprotocol/sdk`
 * 1.32.2 and v2 `@modelcontextprotocol/client` 2.4.0) behind one small interface, connected to
 * a bridge with a session token as `Authorization: Bearer`.
 *
 * @module
 */
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import assert from "node:assert/strict";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import type { TestBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

/** A tool as the clients list it. */
export interface ListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown> | undefined;
}

/** A tool result as the clients return it. */
export interface CallResult {
  content: { type: string; text?: string }[];
  // deno-lint-ignore no-explicit-any
  structuredContent?: any;
  isError?: boolean;
}

/** Options of one call. */
export interface CallOptions {
  /** Asks for progress: the call carries a progress token. */
  onprogress?: (progress: { progress: number; message?: string | undefined }) => void;
  meta?: Record<string, unknown>;
  /** Cancels the call: the client sends `notifications/cancelled`. */
  signal?: AbortSignal;
}

/** An MCP client of either SDK generation, connected to a bridge. */
export interface TestClient extends AsyncDisposable {
  readonly kind: "v1" | "v2";
  readonly sessionId: string | undefined;
  listTools(): Promise<ListedTool[]>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<CallResult>;
  /** Resolves at the next `notifications/tools/list_changed`. */
  nextListChanged(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `promise`, or a rejection naming `what` if it has not settled within `ms`: a guard that turns
 * a wait that would hang (a notification that never comes) into a failure. Not a sleep.
 */
export async function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asserts that a tool result's structured content is the invoke answer: `expected`'s fields,
 * and exactly the fields an answer of `POST /__aim/invoke` has (`sample`), per-call ones
 * (such as a state version) included.
 */
export function assertInvokeAnswer(
  actual: Record<string, unknown>,
  expected: { ok: true; actionId: string; result: unknown; state: unknown },
  sample: Record<string, unknown>,
): void {
  for (const [key, value] of Object.entries(expected)) {
    assert.deepEqual(actual[key], value, key);
  }
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(sample).sort());
}

/** Which client to make. */
export type ClientKind = "v1" | "v2";

/** Both kinds, for tests that run with each. */
export const CLIENT_KINDS: readonly ClientKind[] = ["v1", "v2"];

/** The MCP endpoint of a bridge. */
export function endpoint(origin: string): URL {
  return new URL("/__aim/mcp", origin);
}

/** Connects a client of `kind` to the bridge at `origin` with `token`. */
export async function connectClient(
  kind: ClientKind,
  origin: string,
  token: string,
): Promise<TestClient> {
  const init = { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
  let waiters: (() => void)[] = [];
  const changed = () => {
    const now = waiters;
    waiters = [];
    for (const resolve of now) resolve();
  };
  const nextListChanged = () =>
    within(
      new Promise<void>((resolve) => waiters.push(resolve)),
      "notifications/tools/list_changed",
    );
  if (kind === "v1") {
    const client = new ClientV1({ name: "aim-test-v1", version: "1.0.0" });
    const transport = new TransportV1(endpoint(origin), init);
    await client.connect(transport);
    client.setNotificationHandler(ToolListChangedNotificationSchema, changed);
    const api: TestClient = {
      kind,
      get sessionId() {
        return transport.sessionId;
      },
      listTools: async () => (await client.listTools()).tools as ListedTool[],
      callTool: async (name, args = {}, options = {}) =>
        await client.callTool(
          { name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) },
          undefined,
          { onprogress: options.onprogress, signal: options.signal },
        ) as CallResult,
      nextListChanged,
      close: () => client.close(),
      [Symbol.asyncDispose]: () => client.close(),
    };
    return api;
  }
  const client = new ClientV2({ name: "aim-test-v2", version: "2.0.0" });
  const transport = new TransportV2(endpoint(origin), init);
  await client.connect(transport);
  client.setNotificationHandler("notifications/tools/list_changed", changed);
  return {
    kind,
    get sessionId() {
      return transport.sessionId;
    },
    listTools: async () => (await client.listTools(undefined, { cacheMode: "bypass" })).tools,
    callTool: async (name, args = {}, options = {}) =>
      await client.callTool(
        { name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) },
        {
          ...(options.onprogress ? { onprogress: options.onprogress } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        },
      ) as CallResult,
    nextListChanged,
    close: () => client.close(),
    [Symbol.asyncDispose]: () => client.close(),
  };
}

/** An `initialize` request body, for tests that speak HTTP themselves. */
export function initializeBody(id = 1): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "aim-test-raw", version: "1.0.0" },
    },
  });
}

/** The headers of a POST to the endpoint. */
export function postHeaders(token?: string, extra: Record<string, string> = {}): HeadersInit {
  return {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
    ...extra,
  };
}

/** Opens an MCP session over plain HTTP; returns the headers its requests carry. */
export async function rawSession(origin: string, token: string): Promise<Record<string, string>> {
  const init = await fetch(endpoint(origin), {
    method: "POST",
    headers: postHeaders(token),
    body: initializeBody(),
  });
  const headers = {
    "Mcp-Session-Id": init.headers.get("Mcp-Session-Id")!,
    "MCP-Protocol-Version": "2025-11-25",
  };
  await init.body?.cancel();
  return headers;
}

/** A page session held by a fake tab that registered `pay` (consequential) and `search`. */
export async function heldSession(
  bridge: TestBridge,
): Promise<{ token: string; tab: FakeTab }> {
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  await tab.register([
    { id: "search", handler: (input) => ({ found: input }) },
    {
      id: "add_comment",
      input_schema: {
        type: "object",
        properties: { request_id: { type: "string" }, text: { type: "string" } },
        required: ["request_id", "text"],
        additionalProperties: false,
      },
      input_example: { request_id: "req-1", text: "ok" },
      handler: (input) => ({ commented: input }),
    },
    { id: "pay", consequential: true, handler: (bill) => ({ paid: bill }) },
    { id: "explode", handler: () => Promise.reject(new Error("the printer is on fire")) },
    { id: "approve_request", protected: true, handler: (id) => ({ approved: id }) },
  ]);
  return { token, tab };
}

/** A `tools/call` request body. */
export function callBody(id: number, name: string, args: Record<string, unknown>): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
}
