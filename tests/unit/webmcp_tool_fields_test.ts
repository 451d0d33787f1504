/**
 * Table-driven tests of bridge/wire/webmcp_tools.ts beyond a tool's schema: its description cut
 * at 2,000 characters, its name (shown cut, never one of aim's own in any spelling), a hidden
 * tool, an example that is no JSON, the size limit to the byte, every combination of hints and
 * markup, and what a run answers. The schema's mapping is tests/unit/webmcp_tools_rules_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  actionOfTool,
  isConsequentialTool,
  MAX_TOOL_BYTES,
  RESERVED_TOOL_NAMES,
  resultOfTool,
  type ToolMarkup,
} from "../../bridge/wire/webmcp_tools.ts";
import { mapped, one } from "../helpers/webmcp_tool.ts";

Deno.test("a description of 2,000 characters is kept whole; a longer one is cut to 2,000, the tool's and a schema's", () => {
  const exact = actionOfTool({ name: "t", description: "d".repeat(2000) });
  assert.ok(exact.ok);
  assert.equal(exact.action.description, "d".repeat(2000));
  const longer = actionOfTool({ name: "t", description: "d".repeat(2001) });
  assert.ok(longer.ok);
  assert.equal(longer.action.description, `${"d".repeat(1999)}…`);
  const field = mapped(one({ type: "string", description: "e".repeat(2001) }));
  assert.deepEqual(field.input_schema.properties, {
    a: { type: "string", description: `${"e".repeat(1999)}…` },
  });
  const whole = mapped({ type: "object", description: "e".repeat(2000) });
  assert.equal(whole.input_schema.description, "e".repeat(2000));
  // The description, or else the title, trimmed; one that is no text is none.
  const cases: [Record<string, unknown>, string | undefined][] = [
    [{ description: " D ", title: "T" }, "D"],
    [{ description: " ", title: " T " }, "T"],
    [{ description: 5, title: "T" }, "T"],
    [{ title: 5 }, undefined],
    [{ description: "  " }, undefined],
  ];
  for (const [words, description] of cases) {
    const field = (mapped(one({ type: "string", ...words })).input_schema.properties as Record<
      string,
      { description?: string }
    >).a!;
    assert.equal(field.description, description, JSON.stringify(words));
    const tool = actionOfTool({ name: "t", ...words });
    assert.equal(tool.ok ? tool.action.description : undefined, description);
    if (!tool.ok) assert.equal(tool.problem, 'tool "t": it has no description');
  }
});

Deno.test("a tool's name is refused in a sentence that shows at most 80 characters of it", () => {
  const problem = (name: unknown) => {
    const result = actionOfTool({ name, description: "x" });
    assert.ok(!result.ok, String(name));
    return result.problem;
  };
  const rule =
    "its name is not an action id (a letter, then at most 63 letters, digits, '_', '.' or '-')";
  const cases: [unknown, string][] = [
    [undefined, ""],
    [42, ""],
    ["", ""],
    ["a b", "a b"],
    ["_a", "_a"],
    ["1a", "1a"],
    ["a".repeat(65), "a".repeat(65)],
    ["x".repeat(100), "x".repeat(80)],
  ];
  for (const [name, shown] of cases) assert.equal(problem(name), `tool "${shown}": ${rule}`);
  for (const name of ["a", "a".repeat(64), "A.b-c_9"]) {
    assert.equal(actionOfTool({ name, description: "x" }).ok, true, name);
  }
});

Deno.test("a tool never takes a name of aim's own, in any spelling, and says so", () => {
  for (const name of RESERVED_TOOL_NAMES) {
    const spellings = [name, name.toUpperCase(), name[0]!.toUpperCase() + name.slice(1)];
    for (const spelling of spellings) {
      assert.deepEqual(actionOfTool({ name: spelling, description: "x" }), {
        ok: false,
        problem: `tool "${spelling}": its name is aim's own (a built-in action of the bridge, ` +
          "or the read tool)",
      });
    }
    assert.equal(actionOfTool({ name: `${name}s`, description: "x" }).ok, true);
  }
});

Deno.test("a hidden tool, an example that is no JSON and a tool too large are refused in so many words", () => {
  const tool = { name: "t", description: "T" };
  assert.deepEqual(actionOfTool(tool, { hidden: true }), {
    ok: false,
    problem: 'tool "t": hidden from remote agents by <aim-tool hidden>',
  });
  assert.equal(actionOfTool(tool, { hidden: false }).ok, true);
  for (const text of ["9:30 AM", "", "{", "undefined"]) {
    assert.deepEqual(actionOfTool(tool, { inputExample: text }), {
      ok: false,
      problem: 'tool "t": its <aim-tool input-example> is not JSON',
    });
  }
  // The owner's example is the action's, whatever it holds: the bridge checks it.
  for (const example of [{ a: 1 }, null, 0, false, "x", []]) {
    assert.deepEqual(
      mapped(undefined, { inputExample: JSON.stringify(example) }).input_example,
      example,
    );
  }
  assert.equal("input_example" in mapped(undefined), false, "none given: the bridge makes one");
});

Deno.test("an action of exactly the size limit is kept; one byte more is refused", () => {
  const action = (padding: number) =>
    actionOfTool({
      name: "t",
      description: "T",
      inputSchema: one({ type: "string", pattern: "p".repeat(padding) }),
    });
  const base = action(0);
  assert.ok(base.ok);
  const room = MAX_TOOL_BYTES - JSON.stringify(base.action).length;
  const exact = action(room);
  assert.ok(exact.ok, "exactly the limit");
  assert.equal(JSON.stringify(exact.action).length, MAX_TOOL_BYTES);
  assert.deepEqual(action(room + 1), {
    ok: false,
    problem: `tool "t": it is larger than ${MAX_TOOL_BYTES} bytes as an action`,
  });
  // The owner's example counts.
  const example = JSON.stringify("e".repeat(room));
  assert.equal(
    actionOfTool({ name: "t", description: "T", inputSchema: one({ type: "string" }) }, {
      inputExample: example,
    }).ok,
    false,
  );
});

/** Every value a hint may have: only `true` says yes. */
const HINT_VALUES = [true, false, "true", 1, undefined];

Deno.test("every combination of hints and markup: consequential unless something says it only reads and nothing says otherwise", () => {
  for (const readOnlyHint of HINT_VALUES) {
    for (const destructiveHint of HINT_VALUES) {
      for (const consequentialHint of HINT_VALUES) {
        for (const owner of [undefined, false, true]) {
          for (const marked of [undefined, false, true]) {
            const annotations = { readOnlyHint, destructiveHint, consequentialHint };
            const markup: ToolMarkup = {
              ...(owner !== undefined && { readOnly: owner }),
              ...(marked !== undefined && { consequential: marked }),
            };
            const says = destructiveHint === true || consequentialHint === true;
            const reads = readOnlyHint === true || owner === true;
            const consequential = !reads || says || marked === true;
            const where = JSON.stringify([annotations, markup]);
            assert.equal(isConsequentialTool(annotations, markup), consequential, where);
            const result = actionOfTool({ name: "t", description: "T", annotations }, markup);
            assert.ok(result.ok, where);
            assert.equal(result.action.consequential, consequential, where);
            assert.equal(result.action.read_only, !consequential, where);
            assert.equal(
              result.action.read_only_by,
              !consequential && readOnlyHint !== true ? "site_owner" : undefined,
              where,
            );
            const overruled = owner === true && (says || marked === true);
            assert.equal(
              result.warning,
              !overruled ? undefined : 'tool "t": <aim-tool read-only> is ignored: ' +
                (marked === true
                  ? "it is also marked consequential"
                  : "the tool says it is destructive or consequential (destructiveHint, " +
                    "consequentialHint)") +
                "; the person is asked",
              where,
            );
          }
        }
      }
    }
  }
  // Annotations that are no object say nothing: consequential, unless the owner says it reads.
  for (const annotations of [undefined, null, "readOnlyHint", [true], 1]) {
    assert.equal(isConsequentialTool(annotations), true);
    assert.equal(isConsequentialTool(annotations, { readOnly: true }), false);
    const owners = actionOfTool({ name: "t", description: "T", annotations }, { readOnly: true });
    assert.ok(owners.ok);
    assert.equal(owners.action.read_only_by, "site_owner");
  }
  // The action is never protected: a page's tool is not the site's sign-in.
  assert.equal(mapped(undefined).protected, false);
});

Deno.test("a run's failure says the text of its parts, joined by spaces and cut at 2,000 characters", () => {
  const error = (content: unknown[]) => {
    try {
      resultOfTool({ isError: true, content });
    } catch (thrown) {
      return (thrown as Error).message;
    }
    assert.fail("no error");
  };
  assert.equal(
    error([{ type: "text", text: "a" }, { type: "image" }, null, { text: 5 }, { text: "b" }]),
    "a b",
  );
  assert.equal(error([{ type: "image" }]), "The tool reported an error.");
  assert.equal(error([]), "The tool reported an error.");
  assert.equal(error([{ text: "w".repeat(3000) }]), "w".repeat(2000));
  // Not an error: isError must be true, with a list of content.
  assert.deepEqual(resultOfTool({ isError: true, content: "x" }), { isError: true, content: "x" });
  assert.deepEqual(resultOfTool({ isError: 1, content: [] }), { isError: 1, content: [] });
  assert.deepEqual(resultOfTool([{ isError: true, content: [] }]), [{
    isError: true,
    content: [],
  }]);
});

Deno.test("a run's answer that is not text is itself, whatever its text would read as", () => {
  assert.deepEqual(resultOfTool([1]), [1]);
  assert.deepEqual(resultOfTool(["1"]), ["1"]);
  assert.equal(resultOfTool(5), 5);
  assert.equal(resultOfTool(null), null);
  assert.equal(resultOfTool(undefined), null);
  assert.equal(resultOfTool("[1"), "[1");
  assert.deepEqual(resultOfTool("[1]"), [1]);
  assert.equal(resultOfTool('"x"'), "x");
  assert.equal(resultOfTool(""), "");
});
