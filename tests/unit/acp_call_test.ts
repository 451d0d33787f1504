/**
 * Reading the action call an ACP message holds (bridge/acp/call.ts): a JSON part, or an id and
 * input as text; what it cannot read is 422 `invalid_input` saying how to send it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readCall } from "../../bridge/acp/call.ts";
import { AcpHttpError } from "../../bridge/acp/errors.ts";
import type { Message } from "../../bridge/acp/schemas.ts";

function message(...parts: Record<string, unknown>[]): Message {
  return {
    role: "user",
    parts: parts.map((part) => ({
      name: null,
      content_type: "text/plain",
      content_encoding: "plain",
      content_url: null,
      ...part,
    })),
  } as unknown as Message;
}

const never = () => false;

function refusal(fn: () => unknown, text: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof AcpHttpError);
    assert.equal(error.status, 422);
    assert.match(error.message, text);
    return true;
  });
}

Deno.test("readCall() takes the application/json part as the call, before any text part", () => {
  const call = { actionId: "add", input: { n: 1 } };
  const read = readCall(
    message({ content: "ignored text" }, {
      content_type: "application/json; charset=utf-8",
      content: JSON.stringify(call),
    }),
    never,
  );
  assert.deepEqual(read, call);
});

Deno.test("readCall() reads a text part as an action id and the rest as its input", () => {
  assert.deepEqual(readCall(message({ content: "  search  red shoes " }), never), {
    actionId: "search",
    input: "red shoes",
  });
  assert.deepEqual(readCall(message({ content: "refresh" }), never), { actionId: "refresh" });
  assert.deepEqual(readCall(message({ content: 'pay {"amount": 3}' }), (id) => id === "pay"), {
    actionId: "pay",
    input: { amount: 3 },
  });
  assert.deepEqual(readCall(message({ content: 'note {"a": 1}' }), never), {
    actionId: "note",
    input: '{"a": 1}',
  });
  // An action that takes more than a string (a list, a number) reads JSON after its id, where
  // the rest is JSON; else the rest as text, which its validation then judges.
  const json = (id: string) => id !== "search";
  assert.deepEqual(readCall(message({ content: 'tag ["bug", "task"]' }), json), {
    actionId: "tag",
    input: ["bug", "task"],
  });
  assert.deepEqual(readCall(message({ content: "count 3" }), json), {
    actionId: "count",
    input: 3,
  });
  assert.deepEqual(readCall(message({ content: "count three" }), json), {
    actionId: "count",
    input: "three",
  });
});

Deno.test("readCall() decodes a base64 part, and refuses one that is not UTF-8", () => {
  assert.deepEqual(
    readCall(message({ content: btoa("search shoes"), content_encoding: "base64" }), never),
    { actionId: "search", input: "shoes" },
  );
  refusal(
    () => readCall(message({ content: btoa("\xff\xfe"), content_encoding: "base64" }), never),
    /not valid base64 of UTF-8/,
  );
});

Deno.test("readCall() refuses a content_url, an empty text, bad JSON and a message without text or JSON", () => {
  refusal(
    () => readCall(message({ content: null, content_url: "https://x.test/a" }), never),
    /does not fetch content_url/,
  );
  refusal(() => readCall(message({ content: "   " }), never), /text\/plain part is empty/);
  refusal(
    () => readCall(message({ content_type: "application/json", content: "{" }), never),
    /application\/json/,
  );
  refusal(
    () => readCall(message({ content_type: "image/png", content: "x" }), never),
    /no application\/json or text\/plain part/,
  );
});
