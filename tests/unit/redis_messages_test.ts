import assert from "node:assert/strict";
import fc from "fast-check";
import {
  CallMessage,
  fieldsOf,
  KeptClaim,
  parseMessage,
  record,
  Reply,
} from "../../bridge/share/redis_messages.ts";
import { SessionSignal } from "../../bridge/share/share.ts";
import type { SessionRecord } from "../../bridge/share/share.ts";

const ACTION = {
  id: "search",
  description: "Search the catalog",
  input_schema: { type: "string" },
  input_example: "lamp",
  consequential: false,
  protected: false,
  read_only: true,
};

const RECORD: SessionRecord = {
  id: "s1",
  page: "/shop",
  client: "127.0.0.1",
  createdAt: 1700000000000,
  identity: { username: "ada", name: "Ada" },
  credentialHash: "c",
  tabKeyHash: "k",
  version: 3,
  state: { cart: [1, 2], total: 3 },
  actions: [ACTION as SessionRecord["actions"][number]],
  holder: "",
  stateTab: "b2f5c1de-0000-4000-8000-000000000001",
  inUse: true,
};

/** The hash fields Redis would hand back for `part`. */
function hash(part: Partial<SessionRecord>): Record<string, string> {
  const flat = fieldsOf(part);
  const out: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}

Deno.test("a session record read back from its hash fields is the record written", () => {
  assert.deepEqual(record(hash(RECORD)), RECORD);
  assert.deepEqual(record(hash({ ...RECORD, identity: null, state: {}, actions: [] })), {
    ...RECORD,
    identity: null,
    state: {},
    actions: [],
  });
});

Deno.test("a session record whose JSON fields fit no schema is no record at all", () => {
  const good = hash(RECORD);
  for (
    const [field, value] of [
      ["identity", '{"name":"no username"}'],
      ["identity", "not json"],
      ["state", "[1,2]"],
      ["state", '"text"'],
      ["actions", '[{"id":"search"}]'],
      ["actions", '{"0":{}}'],
    ]
  ) {
    assert.equal(record({ ...good, [field!]: value! }), null, `${field}: ${value}`);
  }
});

Deno.test("the messages instances send each other read back as sent", () => {
  const result = { ok: true as const, actionId: "search", result: { found: [] } };
  for (
    const reply of [
      { id: "1", type: "awaiting" as const, message: "Asked the person" },
      { id: "1", type: "answer" as const, ok: true as const, result },
      {
        id: "1",
        type: "answer" as const,
        ok: false as const,
        status: 409,
        body: { error: "cancelled", message: "Cancelled." },
        headers: { "Retry-After": "1" },
      },
    ]
  ) assert.deepEqual(parseMessage(Reply, JSON.stringify(reply)), reply);
  for (
    const call of [
      { topic: "mcp", message: { any: ["thing"] } },
      { id: "1", from: "a1b2c3d4", cancel: true },
      { id: "1", from: "a1b2c3d4", tokenHash: "h", call: { body: { actionId: "x" }, ifMatch: 2 } },
    ]
  ) assert.deepEqual(parseMessage(CallMessage, JSON.stringify(call)), call);
  const signal = { type: "ended", reason: "expired" };
  assert.deepEqual(parseMessage(SessionSignal, JSON.stringify(signal)), signal);
  const claim = { fingerprint: "f", owner: "a1", outcome: { ok: true, result } };
  assert.deepEqual(parseMessage(KeptClaim, JSON.stringify(claim)), claim);
});

Deno.test("messages of the wrong shape are refused, not cast", () => {
  const refused = [
    [Reply, '{"id":"1","type":"answer","ok":true}'],
    [Reply, '{"id":"1","type":"answer","ok":false,"status":200,"body":{},"headers":{}}'],
    [Reply, '{"id":1,"type":"awaiting","message":"x"}'],
    [CallMessage, '{"id":"1","from":"a","call":{"body":1}}'],
    [CallMessage, '{"id":"1","from":"a","cancel":false}'],
    [SessionSignal, '{"type":"ended","reason":"bored"}'],
    [SessionSignal, '{"type":"changed","version":"2"}'],
    [KeptClaim, '{"fingerprint":"f","owner":"a","outcome":"done"}'],
    [KeptClaim, '{"fingerprint":"f","owner":"a","lost":false}'],
    [KeptClaim, "not json"],
  ] as const;
  for (const [schema, text] of refused) {
    assert.equal(parseMessage(schema as never, text), undefined, text);
  }
});

Deno.test("any text from Redis reads as a message of its schema or as nothing, never throwing", () => {
  const schemas = [Reply, CallMessage, SessionSignal, KeptClaim];
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.json().map(String)), (text) => {
      for (const schema of schemas) {
        const parsed = parseMessage(schema as never, text);
        if (parsed !== undefined) assert.ok(schema.safeParse(parsed).success);
      }
    }),
  );
});
