/**
 * Structured inputs over MCP, with both official clients (issue 33): `tools/list` shows an
 * object action's schema as it is (lists, nested objects, type lists) and wraps any other input
 * (a list, a value of several types) as `{"input": …}`; `tools/call` with a list runs the action
 * with it, and a wrong item is a tool error with the field at fault.
 *
 * @module
 */
import assert from "node:assert/strict";
import { startBridge } from "../helpers/bridge.ts";
import { FakeTab } from "../helpers/fake_tab.ts";
import { CLIENT_KINDS, connectClient } from "./helpers.ts";

const TAG_SCHEMA = {
  type: "object",
  properties: {
    tags: { type: "array", items: { enum: ["home", "work"] }, uniqueItems: true },
    owner: { type: "object", properties: { name: { type: ["string", "null"] } } },
  },
  required: ["tags"],
  additionalProperties: false,
};

for (const kind of CLIENT_KINDS) {
  Deno.test(`the ${kind} client sees structured schemas and calls tools with lists`, async () => {
    await using bridge = await startBridge();
    const token = await bridge.openSession("/control-panel");
    await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    await tab.register([
      {
        id: "tag",
        input_schema: TAG_SCHEMA,
        input_example: undefined,
        handler: (i) => ({ got: i }),
      },
      {
        id: "pick",
        input_schema: { type: "array", items: { type: "integer" }, minItems: 1 },
        input_example: undefined,
        handler: (i) => ({ got: i }),
      },
    ]);
    await using client = await connectClient(kind, bridge.origin, token);
    const tools = Object.fromEntries((await client.listTools()).map((t) => [t.name, t]));
    assert.deepEqual(tools.tag!.inputSchema, {
      ...TAG_SCHEMA,
      properties: {
        ...TAG_SCHEMA.properties,
        owner: { ...TAG_SCHEMA.properties.owner, additionalProperties: false },
      },
    });
    assert.deepEqual(tools.pick!.inputSchema, {
      type: "object",
      properties: { input: { type: "array", items: { type: "integer" }, minItems: 1 } },
      required: ["input"],
    });

    const tagged = await client.callTool("tag", { tags: ["work", "home"], owner: { name: null } });
    assert.equal(tagged.isError, undefined, JSON.stringify(tagged));
    assert.deepEqual(tagged.structuredContent.result, {
      got: { tags: ["work", "home"], owner: { name: null } },
    });
    const picked = await client.callTool("pick", { input: [3, 1] });
    assert.equal(picked.isError, undefined, JSON.stringify(picked));
    assert.deepEqual(picked.structuredContent.result, { got: [3, 1] });

    const wrong = await client.callTool("tag", { tags: ["play"] });
    assert.equal(wrong.isError, true);
    assert.equal(wrong.structuredContent.error, "invalid_input");
    assert.match(wrong.structuredContent.hint, /^field "tags\[0\]": must be one of/);
    assert.deepEqual(wrong.structuredContent.input_example, { tags: ["home"] });
    // A list action's arguments not wrapped in "input": told how, with the wrapped example.
    const bare = await client.callTool("pick", { numbers: [3] });
    assert.equal(bare.structuredContent.error, "invalid_input");
    assert.match(bare.structuredContent.hint, /call pick with \{"input": <the array>\}/);
    assert.deepEqual(bare.structuredContent.input_example, { input: [1] });
    const empty = await client.callTool("pick", { input: [] });
    assert.match(empty.structuredContent.hint, /^input: must have at least 1 item$/);
  });
}
