/**
 * Finding 1: input nested thousands of levels deep, over the tab channel, HTTP and ACP, is
 * refused with a clear 4xx (or a 1008 close) and never ends the process.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { CloseCode } from "../../bridge/wire/channel.ts";
import { jsonDepth, MAX_JSON_DEPTH, parseUntrustedJson } from "../../bridge/wire/json.ts";
import { startBridge } from "../helpers/bridge.ts";
import { expectError } from "../helpers/errors.ts";
import { FakeTab } from "../helpers/fake_tab.ts";

/** Whether a value holds a "__proto__" key at any depth. */
function hasProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasProtoKey);
  if (typeof value !== "object" || value === null) return false;
  return Object.keys(value).some((k) =>
    k === "__proto__" || hasProtoKey((value as Record<string, unknown>)[k])
  );
}

const deep = (levels: number, leaf = "1") => "[".repeat(levels) + leaf + "]".repeat(levels);
const deepObject = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);

Deno.test("a tab message nested 3,000 levels deep closes only that channel with 1008", async () => {
  await using bridge = await startBridge();
  const other = await bridge.openSession("/control-panel");
  await using bystander = await FakeTab.open(bridge.origin, {
    token: other,
    page: "/control-panel",
  });
  await bystander.next("lease");
  const messages = [
    `{"type":"state","state":{"x":${deep(3000)}}}`,
    `{"type":"state","state":{"x":${deepObject(3000)}}}`,
    `{"type":"register","actions":[{"id":"x","input_schema":${deepObject(3000)}}]}`,
    `{"type":"result","id":"r","ok":true,"result":${deep(3000)}}`,
    deep(100_000),
  ];
  for (const message of messages) {
    const token = await bridge.openSession("/control-panel");
    const tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
    await tab.next("lease");
    tab.send(message);
    const closed = await tab.closed;
    assert.equal(closed.code, CloseCode.Malformed, message.slice(0, 40));
    assert.match(closed.reason, /more than 64 levels deep/);
  }
  await bystander.register([{ id: "search", handler: () => "alive" }]);
  const res = await bridge.invoke(other, "search", "x");
  assert.equal((await res.json()).result, "alive");
});

Deno.test("an HTTP body nested 3,000 levels deep answers 400 bad_request, never 500", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const bodies: [string, string][] = [
    ["/__aim/invoke", `{"actionId":"search","input":${deep(3000)}}`],
    ["/__aim/invoke", deepObject(3000)],
    ["/__aim/session", `{"page":${deep(3000, '"/"')}}`],
  ];
  for (const [path, body] of bodies) {
    const res = await bridge.fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body,
    });
    const json = await expectError(res, 400, "bad_request");
    assert.match(json.message, /more than 64 levels deep/, path);
  }
});

Deno.test("an ACP body or message part nested 3,000 levels deep is refused as invalid input", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  const body = await bridge.fetch("/runs", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body:
      `{"agent_name":"control-panel","input":[{"role":"user","parts":[{"content_type":"application/json","content":"x","metadata":${
        deepObject(3000)
      }}]}]}`,
  });
  assert.equal(body.status, 422);
  const error = await body.json();
  assert.equal(error.code, "invalid_input");
  assert.match(error.message, /more than 64 levels deep/);
  const res = await bridge.fetch("/runs", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      agent_name: "control-panel",
      mode: "sync",
      input: [{
        role: "user",
        parts: [{ content_type: "application/json", content: deep(3000) }],
      }],
    }),
  });
  // A sync run answers 200 with the run, failed with ACP's error (docs/acp.md).
  assert.equal(res.status, 200);
  const run = await res.json();
  assert.equal(run.status, "failed");
  assert.equal(run.error.code, "invalid_input");
});

Deno.test("parseUntrustedJson() never throws and refuses exactly what nests too deep", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (text) => {
      const parsed = parseUntrustedJson(text);
      if (parsed.ok) assert.deepEqual(parsed.value, JSON.parse(text));
    }),
  );
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
      const text = JSON.stringify(value);
      const parsed = parseUntrustedJson(text);
      // A "__proto__" key is refused by design; anything else within the depth is accepted.
      if (hasProtoKey(value)) return assert.deepEqual(parsed, { ok: false, problem: "proto" });
      assert.ok(parsed.ok);
      assert.deepEqual(parsed.value, JSON.parse(text));
    }),
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 5000 }),
      fc.constantFrom("[", '{"k":'),
      (levels, open) => {
        const close = open === "[" ? "]" : "}";
        const text = open.repeat(levels) + "0" + close.repeat(levels);
        const parsed = parseUntrustedJson(text);
        assert.equal(parsed.ok, levels <= MAX_JSON_DEPTH);
        if (!parsed.ok) assert.equal(parsed.problem, "depth");
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("jsonDepth() ignores brackets inside strings and escaped quotes", () => {
  assert.equal(jsonDepth('["[[[", "\\"[[["]'), 1);
  assert.equal(jsonDepth('{"a":[{"b":"}}}]"}]}'), 3);
  assert.equal(jsonDepth('["\\\\", ["\\\\\\"]"]]'), 2);
  assert.equal(jsonDepth("1"), 0);
});

/** jsonDepth as it was, a step per character: the model the string-skipping one must match. */
function depthModel(text: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      deepest = Math.max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (c === "]" || c === "}") depth--;
  }
  return deepest;
}

Deno.test("jsonDepth() counts as a walk of every character does, for any text of quotes, backslashes and brackets", () => {
  const text = fc.array(fc.constantFrom('"', "\\", "[", "]", "{", "}", "x", ","), { maxLength: 60 })
    .map((chars) => chars.join(""));
  fc.assert(
    fc.property(text, fc.integer({ min: 0, max: 6 }), (text, limit) => {
      assert.equal(jsonDepth(text), depthModel(text), text);
      assert.equal(jsonDepth(text, limit), depthModel(text, limit), text);
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
      const text = JSON.stringify(value);
      assert.equal(jsonDepth(text), depthModel(text));
    }),
  );
});

Deno.test("parseUntrustedJson() refuses a __proto__ key at any depth, spelled plainly or with escapes", () => {
  for (
    const text of [
      '{"__proto__":null}',
      '{"\\u005f_proto__":1}',
      '[{"a":{"__pro\\u0074o__":{}}}]',
      '{"a":[1,{"b":{"__proto__":[]}}]}',
    ]
  ) {
    assert.deepEqual(parseUntrustedJson(text), { ok: false, problem: "proto" }, text);
  }
  // The word as a value, and other escapes, are not keys.
  const fine = parseUntrustedJson('{"a":"__proto__","b":"\\u00e9\\n"}');
  assert.deepEqual(fine, { ok: true, value: { a: "__proto__", b: "é\n" } });
});
