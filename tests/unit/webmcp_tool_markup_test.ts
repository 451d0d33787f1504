/**
 * Unit tests of how the owner's markup shapes a page's WebMCP tools (bridge/wire/webmcp_tools.ts,
 * bridge/site/catalog.ts): a `<form toolname>` read by the bridge as the browser reads it, names
 * a tool never takes, `<aim-tool read-only>` as the owner's word and no more, every spelling of
 * its flags, and the public catalog reading the same. The mapping of a tool itself is
 * tests/unit/webmcp_tools_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { scanPage } from "../../bridge/site/catalog.ts";
import { BUILTIN_ACTION_IDS, parseActionSpec } from "../../bridge/input/action_spec.ts";
import { READ_TOOL } from "../../bridge/wire/tools.ts";
import {
  actionOfTool,
  isConsequentialTool,
  readToolMarkup,
  RESERVED_TOOL_NAMES,
} from "../../bridge/wire/webmcp_tools.ts";

Deno.test("the bridge reads a <form toolname> as an action, as the browser reads it", () => {
  const info = scanPage(
    `<!doctype html><title>Shop</title>
<form toolname="book" tooldescription="Book a table">
  <label for="who">Your name</label><input id="who" name="who" required>
  <label>Guests <input type="number" name="guests"></label>
  <label><input type="checkbox" name="terrace"> Terrace</label>
  <input type="radio" name="time" value="noon"><input type="radio" name="time" value="eve">
  <select name="menu" toolparamdescription="Which menu"><option value="a">A</option><option>B</option></select>
  <input type="hidden" name="csrf" value="x"><button>Book</button>
</form>
<form toolname="bad name" tooldescription="x"></form>`,
    "/shop",
    "shop.html",
  );
  assert.equal(info.agentEnabled, true);
  assert.deepEqual(info.actions.map((a) => a.id), ["book"]);
  assert.deepEqual(info.actions[0]!.input_schema, {
    type: "object",
    properties: {
      who: { type: "string", description: "Your name" },
      guests: { type: "integer", description: "Guests" },
      terrace: { type: "boolean", description: "Terrace" },
      time: { type: "string", enum: ["noon", "eve"] },
      menu: { type: "string", description: "Which menu", enum: ["a", "B"] },
    },
    required: ["who"],
    additionalProperties: false,
  });
  assert.equal(info.actions[0]!.consequential, true);
  assert.match(info.problems[0]!.message, /tool "bad name": its name is not an action id/);
});

Deno.test("a tool never takes the name of a built-in action or of the read tool, in any case", () => {
  assert.deepEqual([...RESERVED_TOOL_NAMES].sort(), [...BUILTIN_ACTION_IDS, READ_TOOL].sort());
  for (const name of ["login", "Logout", "DISCONNECT", "aim_read_page"]) {
    const mapped = actionOfTool({ name, description: "x", annotations: { readOnlyHint: true } });
    assert.ok(!mapped.ok, name);
    assert.match(mapped.problem, /its name is aim's own/);
  }
});

Deno.test("<aim-tool read-only> is the owner's word where the tool says nothing, never more", () => {
  const owner = { readOnly: true };
  // Every hint a tool may give, with the owner's read-only: consequential when the tool says it
  // destroys or commits something, or the owner also marks it consequential.
  const cases: [unknown, { readOnly?: boolean; consequential?: boolean }, boolean][] = [
    [undefined, owner, false],
    [{}, owner, false],
    [{ readOnlyHint: false }, owner, false],
    [{ readOnlyHint: true }, owner, false],
    [{ destructiveHint: true }, owner, true],
    [{ consequentialHint: true }, owner, true],
    [{ readOnlyHint: true, destructiveHint: true }, owner, true],
    [{}, { readOnly: true, consequential: true }, true],
    [{}, { readOnly: false }, true],
  ];
  for (const [annotations, markup, consequential] of cases) {
    assert.equal(
      isConsequentialTool(annotations, markup),
      consequential,
      `${JSON.stringify(annotations)} ${JSON.stringify(markup)}`,
    );
  }
  const tool = { name: "order_status", description: "An order's status" };
  const marked = actionOfTool(tool, owner);
  assert.ok(marked.ok);
  assert.equal(marked.action.consequential, false);
  assert.equal(marked.action.read_only, true);
  // The audit log records whose word it was: not the tool's.
  assert.equal(marked.action.read_only_by, "site_owner");
  assert.equal(marked.warning, undefined);
  // The bridge takes the mark as part of the action.
  assert.equal(parseActionSpec(marked.action).read_only_by, "site_owner");
  const own = actionOfTool({ ...tool, annotations: { readOnlyHint: true } }, owner);
  assert.ok(own.ok);
  assert.equal(own.action.read_only_by, undefined, "the tool's own word");
  const destructive = actionOfTool({ ...tool, annotations: { destructiveHint: true } }, owner);
  assert.ok(destructive.ok);
  assert.equal(destructive.action.consequential, true);
  assert.equal(destructive.action.read_only_by, undefined);
  assert.match(
    destructive.warning!,
    /^tool "order_status": <aim-tool read-only> is ignored: the tool says/,
  );
  const both = actionOfTool(tool, { readOnly: true, consequential: true });
  assert.ok(both.ok);
  assert.match(both.warning!, /is ignored: it is also marked consequential/);
});

Deno.test("<aim-tool> markup reads every spelling of its flags, several elements adding up", () => {
  const el = (attributes: Record<string, string>) => ({
    getAttribute: (name: string) => Object.hasOwn(attributes, name) ? attributes[name]! : null,
  });
  const read = (...attributes: Record<string, string>[]) =>
    readToolMarkup(attributes.map(el)).get("t");
  for (const [value, on] of [["", true], ["true", true], ["false", false], [" FALSE ", false]]) {
    assert.equal(read({ name: "t", "read-only": value as string })!.readOnly, on, `"${value}"`);
    assert.equal(read({ name: "t", consequential: value as string })!.consequential, on);
  }
  assert.equal(read({ name: "t", hidden: "false" })!.hidden, true, "hidden is HTML's attribute");
  assert.deepEqual(read({ name: "t", "read-only": "" }, { name: " t ", consequential: "" }), {
    consequential: true,
    hidden: false,
    readOnly: true,
  });
  assert.equal(readToolMarkup([el({ "read-only": "" }), el({ name: " " })]).size, 0);
  // A later element without a flag or an example keeps what an earlier one said; a later
  // example replaces an earlier one; none given, none is kept.
  const flags = { consequential: false, hidden: false, readOnly: false };
  const sequences: [Record<string, string>[], Record<string, unknown>][] = [
    [[{ name: "t", consequential: "" }, { name: "t" }], { ...flags, consequential: true }],
    [[{ name: "t", hidden: "" }, { name: "t" }], { ...flags, hidden: true }],
    [[{ name: "t", "read-only": "" }, { name: "t" }], { ...flags, readOnly: true }],
    [[{ name: "t", "input-example": '{"a":1}' }, { name: "t" }], {
      ...flags,
      inputExample: '{"a":1}',
    }],
    [[{ name: "t", "input-example": "1" }, { name: "t", "input-example": "2" }], {
      ...flags,
      inputExample: "2",
    }],
    [[{ name: "t" }, { name: "t", "input-example": "" }], { ...flags, inputExample: "" }],
    [[{ name: "t" }, { name: "t" }], flags],
  ];
  for (const [elements, expected] of sequences) {
    assert.deepEqual(read(...elements), expected, JSON.stringify(elements));
  }
});

Deno.test("the public catalog reads <aim-tool> for a page's forms as the page does", () => {
  const info = scanPage(
    `<!doctype html><title>Shop</title>
<form toolname="find" tooldescription="Find a product"><input name="word"></form>
<form toolname="order" tooldescription="Order"><input name="sku"></form>
<form toolname="debug" tooldescription="Dump the cart"><input name="x"></form>
<aim-tool name="find" read-only></aim-tool>
<aim-tool name="order" read-only consequential></aim-tool>
<aim-tool name="debug" hidden></aim-tool>`,
    "/shop",
    "shop.html",
  );
  assert.deepEqual(info.actions.map((a) => [a.id, a.consequential]), [
    ["find", false],
    ["order", true],
  ]);
  assert.equal(info.actions[0]!.read_only_by, "site_owner");
  assert.deepEqual(info.problems, []);
});
