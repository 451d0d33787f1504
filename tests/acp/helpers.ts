/**
 * Test helpers for ACP: a session with a connected fake tab, run requests, reading a
 * server-sent event stream, and checking ACP's error shape.
 *
 * @module
 */
import assert from "node:assert/strict";
import { AcpError, Event, type MessagePart, type Run } from "../../bridge/acp/schemas.ts";
import type { TestBridge } from "../helpers/bridge.ts";
import { type FakeHandler, FakeTab } from "../helpers/fake_tab.ts";

/** A session on `page` whose tab registered `search`, a failing `explode` and `approve`. */
export async function connected(
  bridge: TestBridge,
  page = "/control-panel",
  extra: { id: string; handler?: FakeHandler; [key: string]: unknown }[] = [],
): Promise<{ token: string; tab: FakeTab }> {
  const token = await bridge.openSession(page);
  const tab = await FakeTab.open(bridge.origin, { token, page });
  await tab.next("lease");
  await tab.register([
    { id: "search", input_example: "pending", handler: (q) => ({ found: [q] }) },
    {
      id: "explode",
      input_example: "now",
      handler: () => {
        throw new Error("The page's handler broke.");
      },
    },
    { id: "approve", input_example: "req-3", consequential: true, handler: (id) => ({ ok: id }) },
    ...extra,
  ]);
  return { token, tab };
}

/** A user message of `parts`. */
export function message(...parts: MessagePart[]) {
  return { role: "user", parts };
}

/** An `application/json` part asking for `actionId` with `input`. */
export function jsonPart(actionId: string, input?: unknown): MessagePart {
  return {
    content_type: "application/json",
    content: JSON.stringify(input === undefined ? { actionId } : { actionId, input }),
  };
}

/** A `text/plain` part. */
export function textPart(content: string): MessagePart {
  return { content_type: "text/plain", content };
}

/** `POST /runs` with a token (or none) and a body (an object is sent as JSON). */
export function postRun(
  bridge: TestBridge,
  token: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return bridge.fetch("/runs", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** `GET` (or another method) of a path with a token. */
export function call(
  bridge: TestBridge,
  token: string | null,
  path: string,
  method = "GET",
): Promise<Response> {
  return bridge.fetch(path, {
    method,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
}

/** The frames of an event stream, each checked to be one `data:` line, and their events. */
export async function readStream(res: Response): Promise<{ frames: string[]; events: Event[] }> {
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const text = await res.text();
  assert.ok(text.endsWith("\n\n"), "the stream ends with a complete frame");
  const frames = text.slice(0, -2).split("\n\n");
  const events = frames.map((frame) => {
    // The reference server's framing: one `data: <json>` line per event, nothing else.
    assert.match(frame, /^data: \{[^\n]*\}$/);
    return Event.parse(JSON.parse(frame.slice("data: ".length)));
  });
  return { frames, events };
}

/** Checks an ACP error response and returns its body. */
export async function expectAcpError(
  res: Response,
  status: number,
  code: "server_error" | "invalid_input" | "not_found",
): Promise<AcpError> {
  assert.equal(res.status, status, `expected ${status} ${code}`);
  assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
  // Every error answers one way: never cached, varying with the credentials.
  assert.equal(res.headers.get("cache-control"), "private, no-store");
  assert.equal(res.headers.get("vary"), "Cookie, Authorization");
  const body = AcpError.parse(await res.json());
  assert.equal(body.code, code);
  assert.ok(body.message.length > 0);
  return body;
}

/** The agent of the control panel's page. */
export const AGENT = "control-panel";

/** A run request to {@linkcode AGENT} of one message of `parts`, in `mode`, with `extra`. */
export function runBody(
  parts: Parameters<typeof message>,
  mode?: string,
  extra = {},
): Record<string, unknown> {
  return { agent_name: AGENT, input: [message(...parts)], ...(mode ? { mode } : {}), ...extra };
}

/** The invocation's answer a completed run holds. */
export function answerOf(run: Run): unknown {
  assert.equal(run.output.length, 1);
  const [output] = run.output;
  assert.ok(output);
  assert.equal(output.role, `agent/${run.agent_name}`);
  assert.equal(output.parts.length, 1);
  const [part] = output.parts;
  assert.ok(part);
  assert.equal(part.content_type, "application/json");
  return JSON.parse(part.content!);
}
