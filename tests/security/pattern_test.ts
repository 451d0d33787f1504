/**
 * Finding 2: a pattern registered by a tab or declared in markup runs on the bridge against
 * agent input. It runs with RE2 (linear time) and within a budget of input length, so that
 * `^(a+)+$` against 5,000 × "a" + "!" answers at once; patterns RE2 cannot run are refused at
 * registration, naming what they use. The same as properties over generated patterns is
 * tests/security/pattern_properties_test.ts's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { AimError } from "../../bridge/errors/aim_error.ts";
import { MarkupError } from "../../bridge/markup/action.ts";
import { type ActionSpec, parseActionSpec } from "../../bridge/input/action_spec.ts";
import {
  compilePattern,
  PATTERN_CACHE_INSTRUCTIONS,
  patternCacheSize,
  patternDfa,
} from "../../bridge/input/pattern_cache.ts";
import {
  MAX_ACTION_PATTERN_SIZE,
  MAX_PATTERN_INPUT,
  PATTERN_BUDGET,
} from "../../bridge/input/pattern.ts";
import { validateInput } from "../../bridge/input/validate.ts";
import { scanPage } from "../../bridge/site/catalog.ts";
import { startAim } from "../helpers/cli.ts";
import { startBridge } from "../helpers/bridge.ts";
import { FakeTab, openPageSession } from "../helpers/fake_tab.ts";

const SCRIPT = `<script type="module" src="/__aim/elements.js"></script>`;
const EVIL = "a".repeat(5000) + "!";

/** `promise`, or a failure of the test after `ms` (the bridge runs in another process). */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function invoke(origin: string, token: string, actionId: string, input: unknown) {
  return fetch(`${origin}/__aim/invoke`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ actionId, input }),
  });
}

function action(input_schema: unknown, input_example: unknown, id = "pick"): ActionSpec {
  return parseActionSpec({
    id,
    description: "Pick one",
    input_schema,
    input_example,
    consequential: false,
    protected: false,
  });
}

function invalid(spec: ActionSpec, input: unknown): AimError {
  try {
    validateInput(spec, input);
  } catch (error) {
    assert.ok(error instanceof AimError, String(error));
    assert.equal(error.status, 400);
    assert.equal(error.code, "invalid_input");
    return error;
  }
  assert.fail(`accepted ${JSON.stringify(input).slice(0, 40)}`);
}

/**
 * Runs `body` against a bridge in its own process over a site with `page.html`: a frozen event
 * loop there cannot stop this process's timers, so a hang fails the test instead of stalling
 * it. The bridge is killed before the tabs close (their closing handshake needs it).
 */
async function withBridgeProcess(
  page: string,
  body: (url: string, tabs: FakeTab[]) => Promise<void>,
): Promise<void> {
  const root = Deno.makeTempDirSync({ prefix: "aim-pattern-" });
  Deno.writeTextFileSync(join(root, "page.html"), page);
  const aim = await startAim(["serve", root, "--port", "0", "--quiet"]);
  const tabs: FakeTab[] = [];
  try {
    await body(aim.url, tabs);
  } finally {
    // SIGKILL: a bridge stuck in a match would never handle SIGTERM.
    await aim.stop("SIGKILL");
    await Promise.all(tabs.map((tab) => tab.close()));
    Deno.removeSync(root, { recursive: true });
  }
}

Deno.test("validateInput() answers invalid_input at once for a tab-registered ^(a+)+$ and 5,000 × 'a' + '!'", async () => {
  const page = `${SCRIPT}<aim-action name="noop" description="Do nothing"></aim-action>`;
  await withBridgeProcess(page, async (url, tabs) => {
    const token = await openPageSession(url, "/page");
    const tab = await FakeTab.open(url, { token, page: "/page" });
    tabs.push(tab);
    await tab.next("lease");
    const registered = await tab.register([{
      id: "pick",
      input_schema: { type: "string", pattern: "^(a+)+$" },
      input_example: "aaa",
      handler: (input) => ({ picked: input }),
    }]);
    assert.deepEqual(registered.accepted, ["pick"]);
    const res = await within(10_000, "the catastrophic input", invoke(url, token, "pick", EVIL));
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error, "invalid_input");
    assert.match(body.hint, /must match the pattern \^\(a\+\)\+\$/);
    // The pattern still means what it says.
    const ok = await within(10_000, "a matching input", invoke(url, token, "pick", "aaaa"));
    assert.equal(ok.status, 200);
    assert.deepEqual((await ok.json()).result, { picked: "aaaa" });
  });
});

Deno.test('validateInput() answers invalid_input at once for input-pattern="(a+)+" declared in markup', async () => {
  const page = `${SCRIPT}<aim-action name="pick" description="Pick a run of a"
    input-pattern="(a+)+" input-example="aa"></aim-action>`;
  await withBridgeProcess(page, async (url, tabs) => {
    // The public catalog keeps the action: RE2 runs the pattern, so it is no danger.
    const manifest = await (await fetch(`${url}/page.json`)).json();
    const declared = manifest.actions.find((a: { id: string }) => a.id === "pick");
    assert.deepEqual(declared.input_schema, { type: "string", pattern: "^(a+)+$" });
    const token = await openPageSession(url, "/page");
    const tab = await FakeTab.open(url, { token, page: "/page" });
    tabs.push(tab);
    await tab.next("lease");
    // What the element registers: the same declaration the catalog read.
    const registered = await tab.register([{
      id: "pick",
      description: declared.description,
      input_schema: declared.input_schema,
      input_example: declared.input_example,
      handler: (input) => input,
    }]);
    assert.deepEqual(registered.accepted, ["pick"]);
    const res = await within(10_000, "the catastrophic input", invoke(url, token, "pick", EVIL));
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, "invalid_input");
  });
});

Deno.test("a tab's lookaround or backreference pattern is rejected at registration, naming the problem", async () => {
  await using bridge = await startBridge();
  const token = await bridge.openSession("/control-panel");
  await using tab = await FakeTab.open(bridge.origin, { token, page: "/control-panel" });
  await tab.next("lease");
  const cases: [string, string, RegExp][] = [
    ["ahead", "^(?=a)a+$", /lookahead "\(\?=…\)"/],
    ["not_ahead", "^(?!b)a+$", /lookahead "\(\?!…\)"/],
    ["behind", "(?<=a)b", /lookbehind "\(\?<=…\)"/],
    ["backref", "^(a)\\1$", /backreference "\\1"/],
    ["named_backref", "^(?<x>a)\\k<x>$", /backreference "\\k<x>"/],
  ];
  const registered = await within(
    10_000,
    "the registration",
    tab.register([
      ...cases.map(([id, pattern]) => ({
        id,
        input_schema: { type: "string", pattern },
        input_example: "a",
      })),
      { id: "fine", input_schema: { type: "string", pattern: "^a+$" }, input_example: "a" },
    ]),
  );
  assert.deepEqual(registered.accepted, ["fine"]);
  for (const [id, , reason] of cases) {
    const rejection = registered.rejected.find((r) => r.id === id);
    assert.ok(rejection, id);
    assert.match(rejection.reason, reason);
    assert.match(rejection.reason, /RE2/);
  }
  // Nothing of them is advertised.
  const manifest = await (await bridge.fetch("/control-panel.json", {
    headers: { Authorization: `Bearer ${token}` },
  })).json();
  const ids = ["fine", ...cases.map(([id]) => id)];
  assert.deepEqual(
    manifest.actions.map((a: { id: string }) => a.id).filter((id: string) => ids.includes(id)),
    ["fine"],
  );
});

Deno.test("a page's lookahead pattern drops the action from the catalog with a problem", () => {
  const html = `<aim-action name="code" description="Enter the code" input-pattern="(?=\\d)\\w+"
    input-example="1a"></aim-action><aim-action name="other" description="Fine"></aim-action>`;
  const info = scanPage(html, "/", "index.html");
  assert.deepEqual(info.actions.map((a) => a.id), ["other"]);
  assert.equal(info.problems.length, 1);
  assert.match(
    info.problems[0]?.message ?? "",
    /^action "code": input_schema\.pattern "\^\(\?=\\\\d\)\\\\w\+\$" uses a lookahead/,
  );
});

Deno.test("parseActionSpec() refuses patterns RE2 cannot run, in object fields too", () => {
  const refused: [string, RegExp][] = [
    ["a{1001}", /more than 1000 times/],
    ["(?m:^a)", /modifier "\(\?m:"/],
    ["\\p{Alphabetic}", /\\p\{Alphabetic\}/],
    ["([ab]{1000}){5}", /too large/],
    ["[ab]{600}[cd]{600}", /too large for the bridge's matcher: .* about 120\d steps/],
  ];
  for (const [pattern, reason] of refused) {
    assert.throws(
      () => action({ type: "string", pattern }, "a"),
      (e) => e instanceof MarkupError && reason.test(e.message),
      pattern,
    );
    assert.throws(
      () =>
        action({
          type: "object",
          properties: { code: { type: "string", pattern } },
          additionalProperties: false,
        }, {}),
      (e) =>
        e instanceof MarkupError &&
        e.message.includes("input_schema.properties.code.pattern") && reason.test(e.message),
      pattern,
    );
  }
});

Deno.test("validateInput() refuses a value too long for its pattern before any matching", () => {
  const spec = action({ type: "string", pattern: "^a+$" }, "a");
  const { maxInput, unitCost } = compilePattern("^a+$");
  assert.ok(maxInput <= MAX_PATTERN_INPUT && maxInput * unitCost <= PATTERN_BUDGET);
  assert.ok(maxInput >= 20_000, "ordinary patterns check long values");
  assert.equal(validateInput(spec, "a".repeat(maxInput)), "a".repeat(maxInput));
  const error = invalid(spec, "a".repeat(maxInput + 1));
  assert.match(
    String(error.details.hint),
    new RegExp(`must be at most ${maxInput} characters long`),
  );
  // A pattern whose program is large checks shorter values: length × cost stays in budget.
  const big = compilePattern("^(?:[ab]{900}[cd])$");
  assert.ok(big.program > 900);
  assert.equal(big.maxInput, Math.floor(PATTERN_BUDGET / big.unitCost));
  const bigSpec = action({ type: "string", pattern: big.source }, "a".repeat(900) + "c");
  const long = invalid(bigSpec, "a".repeat(big.maxInput + 1));
  assert.match(String(long.details.hint), new RegExp(`at most ${big.maxInput} characters`));
});

Deno.test("validateInput() refuses patterned strings that are too long together, in fields and lists", () => {
  const field = { type: "string", pattern: "^[ab]+$" };
  const spec = action({
    type: "object",
    properties: { a: field, b: field, list: { type: "array", items: field } },
    additionalProperties: false,
  }, {});
  const { maxInput, unitCost } = compilePattern(field.pattern);
  // Each alone is within the budget and matches; two of them together are not.
  const long = "a".repeat(Math.min(maxInput, Math.ceil(PATTERN_BUDGET / unitCost / 2) + 10));
  assert.ok(
    long.length * unitCost <= PATTERN_BUDGET && 2 * long.length * unitCost > PATTERN_BUDGET,
  );
  assert.deepEqual(validateInput(spec, { a: long }), { a: long });
  assert.deepEqual(validateInput(spec, { list: [long] }), { list: [long] });
  for (const input of [{ a: long, b: long }, { list: [long, long] }, { a: long, list: [long] }]) {
    assert.match(
      String(invalid(spec, input).details.hint),
      /too long to be checked against their patterns together/,
    );
  }
  // Many short strings cost their length only: a thousand of them pass.
  const many = Array.from({ length: 1000 }, () => "ab");
  assert.deepEqual(validateInput(spec, { list: many }), { list: many });
});

Deno.test("parseActionSpec() refuses an action whose patterns are too large together", () => {
  const field = { type: "string", pattern: "^(?:[ab]{900}[cd])$" };
  const two = { a: field, b: { ...field, pattern: "^(?:[ab]{900}[ce])$" } };
  assert.ok(action({ type: "object", properties: two, additionalProperties: false }, {}));
  const three = { ...two, c: { ...field, pattern: "^(?:[ab]{900}[cf])$" } };
  assert.throws(
    () => action({ type: "object", properties: three, additionalProperties: false }, {}),
    (e) =>
      e instanceof MarkupError &&
      e.message.includes(`more than ${MAX_ACTION_PATTERN_SIZE} instructions`),
  );
});

Deno.test("a pattern's DFA keeps at most 32 KiB between checks, whatever the input", () => {
  const pattern = compilePattern("(?:[ab]*a[ab]{12})$");
  const dfa = patternDfa(pattern);
  assert.ok(dfa, "re2js's internals changed: bound its DFA memory again (boundDfa)");
  assert.equal(dfa.stateBudget, 256 * 1024);
  // Random a and b: thousands of DFA states, some 150 KiB of them for 500 characters.
  let seed = 1;
  let input = "";
  for (let i = 0; i < 500; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    input += seed & 0x10000 ? "a" : "b";
  }
  assert.equal(pattern.test(input), /(?:[ab]*a[ab]{12})$/u.test(input));
  assert.ok(dfa.stateBudget - dfa.memBudget <= 32 * 1024);
  // A short check keeps its few states warm.
  assert.equal(pattern.test("a" + "b".repeat(12)), true);
  assert.ok(dfa.stateBudget - dfa.memBudget > 0);
});

Deno.test("the pattern cache keeps a bounded number of instructions", () => {
  for (let i = 0; i < 320; i++) compilePattern(`^(?:[ab]{800}y${i})$`);
  const size = patternCacheSize();
  assert.ok(size.instructions <= PATTERN_CACHE_INSTRUCTIONS, JSON.stringify(size));
  assert.ok(size.instructions > PATTERN_CACHE_INSTRUCTIONS / 2, JSON.stringify(size));
  // An evicted pattern compiles again when used.
  const again = action({ type: "string", pattern: "^(?:[ab]{800}y0)$" }, "a".repeat(800) + "y0");
  assert.equal(validateInput(again, "b".repeat(800) + "y0"), "b".repeat(800) + "y0");
});
