/**
 * Structured inputs over HTTP (issue 33): an action whose input_schema has nested objects,
 * lists, type lists, null, anyOf and formats takes such inputs as they are, refuses others with
 * 400 `invalid_input` naming the field at fault, keeps aim's bounds on schemas and inputs, and
 * offers an example made from its schema where its declaration gives none.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge, type TestBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { SCHEMA_LIMITS } from "../../bridge/wire/input_schema.ts";
import { INPUT_LIMITS } from "../../bridge/input/validate.ts";
import {
  action as a2aAction,
  answerOf as a2aAnswer,
  asTask,
  CLIENT_KINDS as A2A_CLIENTS,
  connectClient as connectA2a,
  failureOf,
} from "../a2a/helpers.ts";
import { jsonPart, message as acpMessage, postRun, textPart as acpText } from "../acp/helpers.ts";

/** The filter tool of issue 33: a list of enums, and more of what real tools take. */
const FILTER_SCHEMA = {
  type: "object",
  properties: {
    types: { type: "array", items: { enum: ["bug", "task", "epic"] }, uniqueItems: true },
    owner: {
      type: "object",
      properties: {
        email: { type: "string", format: "email" },
        team: { type: ["string", "null"] },
      },
      required: ["email"],
    },
    due: { type: "string", pattern: "^[1-9]:[0-5][0-9] (AM|PM)$" },
    limit: { type: "integer", minimum: 1, maximum: 50 },
    sort: {
      anyOf: [{ const: "newest" }, { type: "object", properties: { by: { type: "string" } } }],
    },
  },
  required: ["types", "due"],
};

/** A session whose fake tab registered `filter` (no example: the bridge makes one). */
async function connected(bridge: TestBridge): Promise<{ token: string; tab: FakeTab }> {
  const token = await bridge.openSession("/control-panel");
  const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const registered = await tab.register([
    {
      id: "filter",
      input_schema: FILTER_SCHEMA,
      input_example: undefined,
      handler: (input) => ({ received: input }),
    },
  ]);
  assert.deepEqual(registered.accepted, ["filter"], JSON.stringify(registered.rejected));
  return { token, tab };
}

Deno.test("invoke() passes a structured input to the tab as the agent sent it", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const inputs = [
    { types: ["bug", "epic"], due: "9:30 AM" },
    {
      types: [],
      due: "1:05 PM",
      owner: { email: "ann@example.com", team: null },
      limit: 50,
      sort: { by: "title" },
    },
    { types: ["task"], due: "3:00 PM", sort: "newest", owner: { email: "a@b.co", team: "x" } },
  ];
  for (const input of inputs) {
    const res = await bridge.invoke(token, "filter", input);
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual(body.result, { received: input });
  }
});

Deno.test("invoke() answers 400 invalid_input naming the field at fault, with the schema and an example", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const ok = { types: ["bug"], due: "9:30 AM" };
  const cases: [unknown, RegExp][] = [
    [{ ...ok, types: ["story"] }, /^field "types\[0\]": must be one of \["bug","task","epic"\]$/],
    [{ ...ok, types: ["bug", "bug"] }, /^field "types": must not repeat an item/],
    [{ ...ok, types: "bug" }, /^field "types" must be an array, not a string$/],
    [{ ...ok, due: "9:30" }, /^field "due": must match the pattern/],
    [{ ...ok, owner: {} }, /^field "owner.email" is required$/],
    [{ ...ok, owner: { email: "nope" } }, /^field "owner.email": must be a valid email/],
    [
      { ...ok, owner: { email: "a@b.co", team: 3 } },
      /^field "owner.team" must be a string or null/,
    ],
    [{ ...ok, owner: { email: "a@b.co", boss: "x" } }, /^unknown field "owner.boss"; allowed/],
    [{ ...ok, limit: 51 }, /^field "limit": must be at most 50$/],
    [{ ...ok, limit: "5" }, /^field "limit" must be an integer, not a string: send 5, not "5"$/],
    [{ ...ok, sort: "oldest" }, /^field "sort": must be "newest", or an object with/],
    [{ types: ["bug"] }, /^field "due" is required$/],
    [["bug"], /^input must be an object with the fields types \(an array\)/],
  ];
  for (const [input, hint] of cases) {
    const body = await expectError(
      await bridge.invoke(token, "filter", input),
      400,
      "invalid_input",
      {
        "Cache-Control": /no-store/,
      },
    );
    assert.match(String(body.hint), hint, JSON.stringify(input));
    assert.ok(String(body.message).includes(String(body.hint)));
    assert.equal(body.actionId, "filter");
    assert.deepEqual(body.input_schema, {
      ...FILTER_SCHEMA,
      additionalProperties: false,
      properties: {
        ...FILTER_SCHEMA.properties,
        owner: { ...FILTER_SCHEMA.properties.owner, additionalProperties: false },
        sort: {
          anyOf: [
            { const: "newest" },
            { type: "object", properties: { by: { type: "string" } }, additionalProperties: false },
          ],
        },
      },
    });
    assert.deepEqual(body.input_example, { types: ["bug"], due: "1:00 AM" });
  }
});

Deno.test("an input past aim's bounds is refused before the schema is checked", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  // Any JSON at all: only aim's bounds stand in the way.
  await tab.register([{ id: "anything", input_schema: {}, input_example: 1, handler: () => "ok" }]);
  const deep = JSON.parse("[".repeat(INPUT_LIMITS.depth + 1) + "]".repeat(INPUT_LIMITS.depth + 1));
  const cases: [unknown, RegExp][] = [
    [deep, /nests arrays and objects more than 16 levels deep/],
    [Array(INPUT_LIMITS.items + 1).fill(0), /^input has more than 1000 items$/],
    [
      Array.from({ length: 30 }, () => Array(INPUT_LIMITS.values / 25).fill(0)),
      /^input holds more than 20000 values$/,
    ],
  ];
  for (const [input, hint] of cases) {
    const body = await expectError(
      await bridge.invoke(token, "anything", input),
      400,
      "invalid_input",
    );
    assert.match(String(body.hint), hint);
  }
  const near = JSON.parse("[".repeat(INPUT_LIMITS.depth) + "]".repeat(INPUT_LIMITS.depth));
  assert.equal((await bridge.invoke(token, "anything", near)).status, 200);
});

Deno.test("a tab's schema past aim's bounds, or with a keyword aim does not check, is rejected at registration", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  let deep: Record<string, unknown> = { type: "string" };
  for (let i = 1; i < SCHEMA_LIMITS.depth + 1; i++) deep = { type: "array", items: deep };
  const wide = {
    type: "object",
    properties: Object.fromEntries(
      Array.from({ length: 3 }, (_, i) => [
        `f${i}`,
        {
          type: "object",
          properties: Object.fromEntries(
            Array.from({ length: 90 }, (_, j) => [`g${j}`, { type: "string" }]),
          ),
        },
      ]),
    ),
  };
  const big = {
    type: "string",
    description: "d".repeat(2000),
    enum: Array(10).fill("x".repeat(2000)),
  };
  const registered = await tab.register([
    { id: "deep", input_schema: deep, input_example: undefined },
    { id: "wide", input_schema: wide, input_example: {} },
    { id: "big", input_schema: big, input_example: undefined },
    { id: "ref", input_schema: { $ref: "#/$defs/a" }, input_example: undefined },
    { id: "fine", input_schema: deep.items, input_example: undefined },
  ]);
  assert.deepEqual(registered.accepted, ["fine"]);
  const reasons = Object.fromEntries(registered.rejected.map((r) => [r.id, r.reason]));
  assert.match(reasons.deep!, /more than 8 levels deep/);
  assert.match(reasons.wide!, /more than 256 schemas/);
  assert.match(reasons.big!, /more than 16384 bytes/);
  assert.match(reasons.ref!, /\$ref/);
});

Deno.test("a page's list and object inputs are in its public manifest, with an example made from the schema", async () => {
  const html = `<!doctype html><title>Tracker</title>
<script type="module" src="/__aim/elements.js"></script>
<form id="search"><select name="status" multiple><option>open</option><option>closed</option></select>
<label><input type="checkbox" name="labels" value="ui"> UI</label>
<label><input type="checkbox" name="labels" value="api"> API</label></form>
<aim-action name="search_issues" description="Search issues" form="#search"></aim-action>
<aim-action name="book" description="Book a slot">
  <script type="application/json">{"type":"object","properties":{"at":{"type":"string",
  "pattern":"^[1-9]:[0-5][0-9] (AM|PM)$"}},"required":["at"]}</script>
</aim-action>
<aim-action name="order" description="Order items">
  <aim-field name="lines" type="array" min-items="1" items-type="object" required>
    <aim-field name="sku" required enum="tea,cake"></aim-field>
    <aim-field name="qty" type="integer" minimum="1" required></aim-field>
  </aim-field>
  <aim-field name="gift" type="object">
    <aim-field name="note" max-length="40"></aim-field>
  </aim-field>
</aim-action>`;
  await using bridge = await startBridge({ site: { "tracker.html": html } });
  const res = await bridge.fetch("/tracker.json");
  assert.equal(res.status, 200);
  const manifest = await res.json();
  const byId = Object.fromEntries(
    manifest.actions.map((a: { id: string }) => [a.id, a]),
  );
  assert.deepEqual(byId.search_issues.input_schema, {
    type: "object",
    properties: {
      status: {
        type: "array",
        items: { type: "string", enum: ["open", "closed"] },
        uniqueItems: true,
      },
      labels: { type: "array", items: { type: "string", enum: ["ui", "api"] }, uniqueItems: true },
    },
    required: [],
    additionalProperties: false,
  });
  assert.deepEqual(byId.search_issues.input_example, {});
  assert.deepEqual(byId.book.input_example, { at: "1:00 AM" });
  assert.deepEqual(byId.order.input_schema.properties.lines, {
    type: "array",
    items: {
      type: "object",
      properties: {
        sku: { type: "string", enum: ["tea", "cake"] },
        qty: { type: "integer", minimum: 1 },
      },
      required: ["sku", "qty"],
      additionalProperties: false,
    },
    minItems: 1,
  });
  assert.deepEqual(byId.order.input_example, { lines: [{ sku: "tea", qty: 1 }] });
});

Deno.test("/__aim/schema.json says what an input_schema may be, with aim's bounds", async () => {
  await using bridge = await startBridge();
  const res = await bridge.fetch("/__aim/schema.json");
  assert.equal(res.status, 200);
  const schema = await res.json();
  const input = schema.$defs.InputSchema;
  assert.match(
    input.description,
    /at most 8 levels deep, with at most 256 schemas and 16384 bytes/,
  );
  const text = JSON.stringify(schema.$defs);
  for (const keyword of ["items", "anyOf", "oneOf", "uniqueItems", "const", "format", "null"]) {
    assert.ok(text.includes(`"${keyword}"`), keyword);
  }
});

Deno.test("A2A tasks and ACP runs take structured inputs as /__aim/invoke does, and refuse the same", async () => {
  await using bridge = await startBridge();
  const { token, tab } = await connected(bridge);
  await using _tab = tab;
  const input = { types: ["task"], due: "4:15 PM", owner: { email: "a@b.co", team: null } };
  const wrong = { types: ["task", "task"], due: "4:15 PM" };

  for (const kind of A2A_CLIENTS) {
    const a2a = await connectA2a(kind, bridge.origin, token);
    const done = asTask(await a2a.sendMessage(a2aAction("filter", input)));
    assert.deepEqual(a2aAnswer(done).result, { received: input }, kind);
    const refused = failureOf(
      asTask(await a2a.sendMessage(a2aAction("filter", wrong))),
      "invalid_input",
    );
    assert.match(String(refused.hint), /^field "types": must not repeat an item/);
  }

  const run = async (part: ReturnType<typeof jsonPart>) => {
    const res = await postRun(bridge, token, {
      agent_name: "control-panel",
      input: [acpMessage(part)],
      mode: "sync",
    });
    assert.equal(res.status, 200);
    return await res.json();
  };
  const ran = await run(jsonPart("filter", input));
  assert.equal(ran.status, "completed", JSON.stringify(ran.error));
  assert.deepEqual(JSON.parse(ran.output[0].parts[0].content).result, { received: input });
  // A text part: the id, then the JSON of the input.
  const text = await run(acpText(`filter ${JSON.stringify(input)}`));
  assert.equal(text.status, "completed", JSON.stringify(text.error));
  const failed = await run(jsonPart("filter", wrong));
  assert.equal(failed.status, "failed");
  assert.match(failed.error.message, /must not repeat an item/);
});
